// SPDX-License-Identifier: GPL-2.0
/*
 * alternate: two threads that take turns in a hot function, for timeline
 * tests: from a common start, time is cut into windows of WINDOW_MS
 * (default 500); thread "alt-even" runs alt_hot() in the even windows and
 * alt_cool() in the odd ones, thread "alt-odd" the other way round, for
 * SECONDS in all (default 2).  Prints each thread's tid as "NAME TID",
 * and on stderr the common start's wall-clock time (seconds, CLOCK_REALTIME)
 * as "start SECONDS": a timeline lines its windows up on it.
 *
 *	alternate [SECONDS [WINDOW_MS]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double start, seconds = 2, window = 0.5;
static pthread_barrier_t go;
volatile unsigned long alt_sink;

__attribute__((noinline)) void alt_hot(void);
__attribute__((noinline)) void alt_cool(void);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * About 20 us of work a call: the window changes between two calls.
 * Inlined at any optimisation level: a leaf function of its own would
 * hide its caller, alt_hot or alt_cool, from a frame-pointer call chain
 * (the sanitizer build, -O1, kept it out of line).
 */
static inline __attribute__((always_inline)) void work(void)
{
	unsigned long x = alt_sink;
	int i;

	for (i = 0; i < 20000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	alt_sink = x;
}

__attribute__((noinline)) void alt_hot(void)
{
	work();
	alt_sink++;
}

__attribute__((noinline)) void alt_cool(void)
{
	work();
	alt_sink--;
}

static void *run(void *arg)
{
	long parity = (long)arg;
	double t;

	pthread_setname_np(pthread_self(), parity ? "alt-odd" : "alt-even");
	printf("%s %ld\n", parity ? "alt-odd" : "alt-even", (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_barrier_wait(&go);
	while ((t = now() - start) < seconds) {
		if (((long)(t / window) + parity) % 2 == 0)
			alt_hot();
		else
			alt_cool();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec wall;
	pthread_t th[2];
	long i;

	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 2)
		window = atof(argv[2]) / 1000;
	pthread_barrier_init(&go, NULL, 3);
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, run, (void *)i))
			return 1;
	start = now();
	clock_gettime(CLOCK_REALTIME, &wall);
	fprintf(stderr, "start %lld.%09ld\n", (long long)wall.tv_sec, wall.tv_nsec);
	pthread_barrier_wait(&go);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return 0;
}
