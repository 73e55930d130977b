// SPDX-License-Identifier: GPL-2.0
/*
 * hotline: one hot source line for `pmrec annotate`.  hot() divides in a
 * loop, each division waiting for the one before (a dependent division, the
 * slowest instruction on the line), beside a small helper that is inlined
 * into it.  Built -O2 -g whatever CFLAGS say (see the Makefile), so that the
 * line table and the inline chain are those of an optimized build.
 *
 * Usage: hotline [ROUNDS]   (default 20000000: about 0.3 s here)
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long hotline_sink;

static inline unsigned long mix(unsigned long x)
{
	return (x ^ (x >> 7)) + 0x9e3779b9UL;
}

__attribute__((noinline)) unsigned long hot(unsigned long rounds, unsigned long d)
{
	unsigned long x = rounds | 1, i;

	for (i = 0; i < rounds; i++) {
		x = mix(x);
		x = x / d + i;	/* the hot line */
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000000;

	/* d comes from the command line's count so the compiler cannot fold the division. */
	hotline_sink = hot(rounds, 3 + (unsigned long)argc);
	return 0;
}
