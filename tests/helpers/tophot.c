// SPDX-License-Identifier: GPL-2.0
/*
 * tophot: CPU time in five functions in the ratio 16:8:4:2:1 (52, 26, 13,
 * 6 and 3 %), for pmrec top's tests: the hottest is top_hot, and the top
 * five rows are known.  Each share is twice the next so that a second of
 * samples taken on a loaded machine still ranks them the same way (with
 * an earlier 3:2, a CI run saw two of them swap).
 * Built with frame pointers.
 *
 *	tophot SECONDS [CPU]	runs SECONDS, pinned to CPU if given
 */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline unsigned long work(long units, unsigned long salt)
{
	volatile unsigned long x = salt;
	long i;

	for (i = 0; i < units * 20000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

/* Different salts: identical bodies would be folded into one function. */
__attribute__((noinline)) void top_hot(void) { sink += work(16, 1); }
__attribute__((noinline)) void top_warm(void) { sink += work(8, 2); }
__attribute__((noinline)) void top_mild(void) { sink += work(4, 3); }
__attribute__((noinline)) void top_cool(void) { sink += work(2, 4); }
__attribute__((noinline)) void top_cold(void) { sink += work(1, 5); }

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	cpu_set_t set;
	int i;

	if (argc > 2) {
		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return 1;
	}
	do {
		for (i = 0; i < 10; i++) {
			top_hot();
			top_warm();
			top_mild();
			top_cool();
			top_cold();
		}
	} while (now() < end);
	return 0;
}
