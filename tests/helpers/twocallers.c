// SPDX-License-Identifier: GPL-2.0
/*
 * twocallers: one function (slow) called by two callers (left, right) in
 * equal parts, beside work of its own (other), for pmrec diff --children
 * and -g: a run with FACTOR 2 makes slow twice as slow, and both callers'
 * inclusive shares grow though their own code did not change.  Built with
 * frame pointers.
 *
 *	twocallers FACTOR [ROUNDS]	(default 1 and 10)
 */
#include <stdlib.h>

static volatile unsigned long sink;

static inline unsigned long work(long units, unsigned long salt)
{
	volatile unsigned long x = salt;
	long i;

	for (i = 0; i < units * 1000000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

__attribute__((noinline)) static void slow(long f) { sink += work(4 * f, 1); }
__attribute__((noinline)) static void left(long f) { slow(f); sink += work(1, 2); }
__attribute__((noinline)) static void right(long f) { slow(f); sink += work(1, 3); }
__attribute__((noinline)) static void other(void) { sink += work(10, 4); }

int main(int argc, char **argv)
{
	long f = argc > 1 ? atol(argv[1]) : 1, rounds = argc > 2 ? atol(argv[2]) : 10, i;

	for (i = 0; i < rounds; i++) {
		left(f);
		right(f);
		other();
	}
	return 0;
}
