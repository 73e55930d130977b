// SPDX-License-Identifier: GPL-2.0
/*
 * burn: a CPU-bound workload that reports how much work it got done.
 *
 *   burn [-w GO] SECONDS
 *
 * Waits until the file GO exists (when -w is given), then runs a fixed
 * multiply-add loop in blocks of 2^20 iterations for SECONDS of wall time
 * and prints
 *
 *   blocks=N seconds=S rate=R
 *
 * with R blocks per second.  Run once unrecorded and once under a recorder,
 * the ratio of the rates is the recorder's slowdown of the workload.  The
 * loop sits three calls deep (main -> outer -> middle -> block), built with
 * frame pointers (see the Makefile), so that -g has real call chains to unwind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long burn_sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long block(unsigned long x)
{
	int i;

	for (i = 0; i < (1 << 20); i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

__attribute__((noinline)) unsigned long middle(unsigned long x)
{
	x = block(x);
	burn_sink += x & 1;
	return x;
}

__attribute__((noinline)) unsigned long outer(double seconds, double *elapsed)
{
	double t0 = now(), t;
	unsigned long n = 0, x = 1;

	do {
		x = middle(x);
		n++;
		t = now();
	} while (t - t0 < seconds);
	*elapsed = t - t0;
	burn_sink += x & 1;
	return n;
}

int main(int argc, char **argv)
{
	const struct timespec tick = { .tv_nsec = 1000 * 1000 };
	const char *go = NULL;
	double seconds, elapsed;
	unsigned long n;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "w:")) != -1) {
		if (opt != 'w')
			goto usage;
		go = optarg;
	}
	if (optind != argc - 1)
		goto usage;
	seconds = strtod(argv[optind], &end);
	if (end == argv[optind] || *end || !(seconds > 0))
		goto usage;
	while (go && access(go, F_OK))
		nanosleep(&tick, NULL);
	n = outer(seconds, &elapsed);
	printf("blocks=%lu seconds=%.4f rate=%.3f\n", n, elapsed, n / elapsed);
	return 0;
usage:
	fprintf(stderr, "usage: burn [-w GO] SECONDS\n");
	return 64;
}
