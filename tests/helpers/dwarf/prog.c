// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for DWARF unwinding: main -> a -> b -> leaf, none inlined,
 * built by tests/t0590 with -O2 -fomit-frame-pointer (with -g, or with -g0
 * so only .eh_frame describes the frames).  With -DWITH_LIB, b lives in a
 * shared library (lib.c) and calls leaf back: the library sits in the
 * middle of the stack.  mix is always inlined into leaf: with DWARF it is
 * a frame of its own (main;a;b;leaf;mix).
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	return x * 2862933555777941757UL + 3037000493UL;
}

__attribute__((noinline)) unsigned long leaf(double seconds)
{
	double end = now() + seconds;
	volatile unsigned long x = 1;
	unsigned long rounds = 0;
	int i;

	do {
		for (i = 0; i < 1000000; i++)
			x = mix(x);
		rounds++;
	} while (now() < end);
	return rounds + (x & 1);
}

#ifdef WITH_LIB
unsigned long b(unsigned long (*fn)(double), double seconds);
#else
__attribute__((noinline)) unsigned long b(unsigned long (*fn)(double), double seconds)
{
	unsigned long r = fn(seconds);

	sink += r;
	return r;
}
#endif

__attribute__((noinline)) unsigned long a(double seconds)
{
	unsigned long r = b(leaf, seconds);

	sink += r;
	return r;
}

int main(int argc, char **argv)
{
	sink += a(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
