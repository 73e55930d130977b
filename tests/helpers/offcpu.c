// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu: threads that wait in known ways, for off-CPU profiles.  Each
 * thread measures its own life, the time it spent in its blocking call
 * (clock_gettime around it) and the CPU time it used (its thread CPU
 * clock), and prints, when all are done:
 *
 *	NAME TID BLOCKED_NS LIFE_NS CPU_NS START_NS
 *
 * START_NS is CLOCK_MONOTONIC when the thread began: with a recording's
 * EXIT record (record -k mono), the thread's life as the kernel ended it,
 * less CPU_NS, is the time the thread was off CPU for whatever reason:
 * the oracle of off-CPU totals on a machine that is not idle.
 *
 *	offcpu wait N MS [migrate]
 *		"sleeper" sleeps MS ms N times in nanosleep (in nap()),
 *		spinning about 1 ms between; with migrate, it moves to the
 *		other CPU before each sleep.  "reader" blocks N times in a
 *		read of a pipe (in pipe_wait()) that the main thread feeds
 *		every 2*MS ms.  "spinner" spins for as long as the others.
 *	offcpu queue MS
 *		three threads "queue0".."queue2" pinned to CPU 0 each spin for
 *		MS ms of wall time: each waits for the CPU about 2/3 of it.
 *	offcpu pingpong N
 *		two threads "ping" and "pong" pass a byte back and forth over
 *		two pipes N times: 2N context switches on each side.
 *
 * Built with frame pointers, so the call chains of the switch-outs reach
 * nap(), pipe_wait() and the thread functions.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct worker {
	const char *name;
	pthread_t thread;
	pid_t tid;
	uint64_t blocked, life, cpu, start;
	long n, ms;
	int fd;
	int out_fd;	/* pingpong: the other's pipe */
	int migrate;
};

static volatile int done;
static volatile unsigned long sink;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void spin_ns(uint64_t ns)
{
	uint64_t end = now() + ns;

	while (now() < end)
		sink++;
}

static void pin(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The system call made here, not in libc: libc has no frame pointers, so a
 * frame-pointer call chain taken in its wrapper skips the wrapper's caller.
 * Made here, the chain starts in nap() or pipe_wait() itself.
 */
static inline long raw_syscall3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(nr, a, b, c);
#endif
}

__attribute__((noinline)) static void nap(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (raw_syscall3(SYS_nanosleep, (long)&ts, (long)&ts, 0))
		;
}

__attribute__((noinline)) static int pipe_wait(int fd)
{
	char c;

	return raw_syscall3(SYS_read, fd, (long)&c, 1) == 1 ? 0 : -1;
}

static void worker__start(struct worker *w, uint64_t start)
{
	w->start = start;
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), w->name);
}

static void *sleeper(void *arg)
{
	struct worker *w = arg;
	uint64_t start = now(), t;
	long i;

	worker__start(w, start);
	for (i = 0; i < w->n; i++) {
		if (w->migrate)
			pin(i % 2);
		spin_ns(1000000);
		t = now();
		nap(w->ms);
		w->blocked += now() - t;
	}
	w->life = now() - start;
	w->cpu = thread_cpu();
	return NULL;
}

static void *reader(void *arg)
{
	struct worker *w = arg;
	uint64_t start = now(), t;
	long i;

	worker__start(w, start);
	for (i = 0; i < w->n; i++) {
		t = now();
		if (pipe_wait(w->fd))
			break;
		w->blocked += now() - t;
		spin_ns(500000);
	}
	w->life = now() - start;
	w->cpu = thread_cpu();
	return NULL;
}

static void *spinner(void *arg)
{
	struct worker *w = arg;
	uint64_t start = now();

	worker__start(w, start);
	if (w->ms)
		spin_ns((uint64_t)w->ms * 1000000);
	else
		while (!done)
			sink++;
	w->life = now() - start;
	w->cpu = thread_cpu();
	return NULL;
}

static void *pingpong(void *arg)
{
	struct worker *w = arg;
	uint64_t start = now();
	char c = 0;
	long i;

	worker__start(w, start);
	for (i = 0; i < w->n; i++) {
		if (!strcmp(w->name, "ping") && write(w->out_fd, &c, 1) != 1)
			break;
		if (read(w->fd, &c, 1) != 1)
			break;
		if (!strcmp(w->name, "pong") && write(w->out_fd, &c, 1) != 1)
			break;
	}
	w->life = now() - start;
	w->cpu = thread_cpu();
	return NULL;
}

static void report(const struct worker *w, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		printf("%s %d %llu %llu %llu %llu\n", w[i].name, (int)w[i].tid,
		       (unsigned long long)w[i].blocked, (unsigned long long)w[i].life,
		       (unsigned long long)w[i].cpu, (unsigned long long)w[i].start);
}

static int run_wait(long n, long ms, int migrate)
{
	struct worker w[3] = {
		{ .name = "sleeper", .n = n, .ms = ms, .migrate = migrate },
		{ .name = "reader", .n = n },
		{ .name = "spinner" },
	};
	int fds[2];
	long i;

	if (pipe(fds))
		return 1;
	w[1].fd = fds[0];
	pthread_create(&w[0].thread, NULL, sleeper, &w[0]);
	pthread_create(&w[1].thread, NULL, reader, &w[1]);
	pthread_create(&w[2].thread, NULL, spinner, &w[2]);
	for (i = 0; i < n; i++) {
		nap(2 * ms);
		if (write(fds[1], "x", 1) != 1)
			return 1;
	}
	pthread_join(w[0].thread, NULL);
	pthread_join(w[1].thread, NULL);
	done = 1;
	pthread_join(w[2].thread, NULL);
	report(w, 3);
	return 0;
}

static int run_queue(long ms)
{
	struct worker w[3] = {
		{ .name = "queue0", .ms = ms },
		{ .name = "queue1", .ms = ms },
		{ .name = "queue2", .ms = ms },
	};
	int i;

	/*
	 * The threads inherit CPU 0 from the main thread: one that moved
	 * itself there would first wait for the move, before it starts to
	 * measure.
	 */
	pin(0);
	for (i = 0; i < 3; i++)
		pthread_create(&w[i].thread, NULL, spinner, &w[i]);
	for (i = 0; i < 3; i++)
		pthread_join(w[i].thread, NULL);
	report(w, 3);
	return 0;
}

static int run_pingpong(long n)
{
	struct worker w[2] = { { .name = "ping", .n = n }, { .name = "pong", .n = n } };
	int a[2], b[2];

	if (pipe(a) || pipe(b))
		return 1;
	w[0].fd = a[0];
	w[0].out_fd = b[1];
	w[1].fd = b[0];
	w[1].out_fd = a[1];
	pthread_create(&w[0].thread, NULL, pingpong, &w[0]);
	pthread_create(&w[1].thread, NULL, pingpong, &w[1]);
	pthread_join(w[0].thread, NULL);
	pthread_join(w[1].thread, NULL);
	report(w, 2);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "wait"))
		return run_wait(atol(argv[2]), atol(argv[3]),
				argc > 4 && !strcmp(argv[4], "migrate"));
	if (argc == 3 && !strcmp(argv[1], "queue"))
		return run_queue(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "pingpong"))
		return run_pingpong(atol(argv[2]));
	fprintf(stderr, "usage: offcpu wait N MS [migrate] | queue MS | pingpong N\n");
	return 64;
}
