// SPDX-License-Identifier: GPL-2.0
/*
 * shares: CPU time in three functions in a chosen ratio, for differential
 * flame graphs: two runs with other ratios change each function's share
 * by a known factor.  Built with frame pointers.
 *
 *	shares A B C [ROUNDS]	A, B and C units of work in share_a, share_b
 *				and share_c, ROUNDS times (default 10)
 */
#include <stdlib.h>

static volatile unsigned long sink;

static inline unsigned long work(long units, unsigned long salt)
{
	volatile unsigned long x = salt;
	long i;

	for (i = 0; i < units * 2000000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

/* Different salts: identical bodies would be folded into one function. */
__attribute__((noinline)) static void share_a(long u) { sink += work(u, 1); }
__attribute__((noinline)) static void share_b(long u) { sink += work(u, 2); }
__attribute__((noinline)) static void share_c(long u) { sink += work(u, 3); }

int main(int argc, char **argv)
{
	long a, b, c, rounds, i;

	if (argc < 4)
		return 64;
	a = atol(argv[1]);
	b = atol(argv[2]);
	c = atol(argv[3]);
	rounds = argc > 4 ? atol(argv[4]) : 10;
	for (i = 0; i < rounds; i++) {
		share_a(a);
		share_b(b);
		share_c(c);
	}
	return 0;
}
