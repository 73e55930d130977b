// SPDX-License-Identifier: GPL-2.0
/*
 * spin: burns CPU for SECONDS (default 1) in main -> alpha -> beta -> spin,
 * so that call-chain tests know which frames every sample must show.
 *
 * The functions are external and noinline so that their symbols keep these
 * exact names (no .isra/.constprop clones), and each call is followed by
 * work on its result so that none of them becomes a tail call, which would
 * drop the caller's frame from a frame-pointer unwind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long spin_sink;

__attribute__((noinline)) unsigned long spin(double seconds);
__attribute__((noinline)) unsigned long beta(double seconds);
__attribute__((noinline)) unsigned long alpha(double seconds);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long spin(double seconds)
{
	double end = now() + seconds;
	unsigned long rounds = 0;
	volatile unsigned long x = 1;
	int i;

	/* Check the clock rarely so nearly every sample lands in this loop. */
	do {
		for (i = 0; i < 1000000; i++)
			x = x * 2862933555777941757UL + 3037000493UL;
		rounds++;
	} while (now() < end);
	return rounds + (x & 1);
}

__attribute__((noinline)) unsigned long beta(double seconds)
{
	unsigned long r = spin(seconds);

	spin_sink += r;
	return r;
}

__attribute__((noinline)) unsigned long alpha(double seconds)
{
	unsigned long r = beta(seconds);

	spin_sink += r;
	return r;
}

int main(int argc, char **argv)
{
	double seconds = 1;
	char *end;

	if (argc > 2) {
		fprintf(stderr, "usage: spin [SECONDS]\n");
		return 2;
	}
	if (argc == 2) {
		seconds = strtod(argv[1], &end);
		if (end == argv[1] || *end || !(seconds >= 0)) {
			fprintf(stderr, "spin: invalid duration '%s'\n", argv[1]);
			return 2;
		}
	}
	spin_sink += alpha(seconds);
	return 0;
}
