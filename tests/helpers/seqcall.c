// SPDX-License-Identifier: GPL-2.0
/*
 * seqcall: the exact-oracle workload.
 *
 *   seqcall [-t THREADS] [-f FORKS] [-r RATE] [-s START] [-w FILE] [-v] N
 *
 * Makes exactly N syscall(SYS_getppid, seq) calls with seq = START ..
 * START+N-1, so that a recording of raw_syscalls:sys_enter can be checked
 * for gaps and duplicates through args[0].  getppid ignores its argument,
 * which makes the call cheap and free of side effects.
 *
 *   -t T  T threads, thread k makes calls START+k*(N/T) .. (T must divide N)
 *   -f F  F child processes run concurrently, child k makes the N calls
 *         START+k*N .. (F*N calls in all, each seq once); the parent makes none
 *   -r R  paces each process to about R calls per second in total
 *   -s S  first sequence number (default 1)
 *   -w P  waits until path P exists before starting (lets a test attach first)
 *   -v    prints what it did on stderr
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct range {
	long start;
	long n;
	double rate; /* calls per second for this range, 0 = unpaced */
};

static int verbose;

static void usage(void)
{
	fprintf(stderr, "usage: seqcall [-t THREADS] [-f FORKS] [-r RATE] "
			"[-s START] [-w FILE] [-v] N\n");
	exit(2);
}

static long parse_long(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		usage();
	return v;
}

static void timespec_add_ns(struct timespec *ts, uint64_t ns)
{
	ns += ts->tv_nsec;
	ts->tv_sec += ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

static void *run_range(void *arg)
{
	const struct range *r = arg;
	struct timespec t0, due;
	long batch, i;

	if (!r->rate) {
		for (i = 0; i < r->n; i++)
			syscall(SYS_getppid, r->start + i);
		return NULL;
	}
	/*
	 * Sleep about every millisecond: one sleep per call would cap the rate
	 * at the timer slack, and deadlines from t0 keep the drift bounded.
	 */
	batch = r->rate > 1000 ? (long)(r->rate / 1000) : 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < r->n; i++) {
		syscall(SYS_getppid, r->start + i);
		if ((i + 1) % batch)
			continue;
		due = t0;
		timespec_add_ns(&due, (uint64_t)((i + 1) * 1e9 / r->rate));
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due,
				       NULL) == EINTR)
			;
	}
	return NULL;
}

static int run_process(long start, long n, long threads, double rate)
{
	struct range *ranges;
	pthread_t *tids;
	long per = n / threads, k;
	int err;

	ranges = calloc(threads, sizeof(*ranges));
	tids = calloc(threads, sizeof(*tids));
	if (!ranges || !tids) {
		fprintf(stderr, "seqcall: out of memory\n");
		return 1;
	}
	for (k = 0; k < threads; k++) {
		ranges[k].start = start + k * per;
		ranges[k].n = per;
		ranges[k].rate = rate / threads;
	}
	if (threads == 1) {
		run_range(&ranges[0]);
	} else {
		for (k = 0; k < threads; k++) {
			err = pthread_create(&tids[k], NULL, run_range, &ranges[k]);
			if (err) {
				fprintf(stderr, "seqcall: pthread_create: %s\n",
					strerror(err));
				/* A partial run would look like lost samples. */
				exit(1);
			}
		}
		for (k = 0; k < threads; k++)
			pthread_join(tids[k], NULL);
	}
	if (verbose)
		fprintf(stderr, "seqcall: pid %d made calls %ld..%ld in %ld thread(s)\n",
			(int)getpid(), start, start + n - 1, threads);
	free(ranges);
	free(tids);
	return 0;
}

static void wait_for_path(const char *path)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };

	while (access(path, F_OK))
		nanosleep(&tick, NULL);
}

int main(int argc, char **argv)
{
	long threads = 1, forks = 0, start = 1, n, k;
	const char *wait_path = NULL;
	double rate = 0;
	int opt, status, ret = 0;
	char *end;
	pid_t pid;

	while ((opt = getopt(argc, argv, "t:f:r:s:w:v")) != -1) {
		switch (opt) {
		case 't':
			threads = parse_long(optarg, 1);
			break;
		case 'f':
			forks = parse_long(optarg, 1);
			break;
		case 'r':
			rate = strtod(optarg, &end);
			if (end == optarg || *end || !(rate > 0))
				usage();
			break;
		case 's':
			start = parse_long(optarg, LONG_MIN);
			break;
		case 'w':
			wait_path = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	n = parse_long(argv[optind], 0);
	if (n % threads) {
		fprintf(stderr, "seqcall: N (%ld) is not a multiple of -t %ld\n",
			n, threads);
		return 2;
	}
	if (wait_path)
		wait_for_path(wait_path);

	if (!forks)
		return run_process(start, n, threads, rate);

	for (k = 0; k < forks; k++) {
		pid = fork();
		if (pid < 0) {
			perror("seqcall: fork");
			ret = 1;
			break;
		}
		if (!pid)
			_exit(run_process(start + k * n, n, threads, rate));
	}
	while (wait(&status) > 0) {
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	}
	return ret;
}
