// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known call tree, for report's comparisons with perf:
 * three callers of one hot function (in the ratio 3:2:1), a recursion down
 * to it, and time in libc (memset, qsort).  Built with frame pointers.
 *
 *	calltree [ROUNDS]	(default 10)
 */
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long hot(unsigned long n)
{
	volatile unsigned long x = 1;
	unsigned long i;

	for (i = 0; i < n; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

__attribute__((noinline)) static void caller_a(void) { sink += hot(3000000); }
__attribute__((noinline)) static void caller_b(void) { sink += hot(2000000); }
__attribute__((noinline)) static void caller_c(void) { sink += hot(1000000); }

__attribute__((noinline)) static unsigned long recurse(int depth)
{
	unsigned long r = depth ? recurse(depth - 1) : hot(1500000);

	sink += r;
	return r;
}

static char buf[1 << 16];

__attribute__((noinline)) static void in_memset(void)
{
	int i;

	for (i = 0; i < 2000; i++)
		memset(buf, i, sizeof(buf));
	sink += (unsigned char)buf[7];
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static void in_qsort(void)
{
	static int v[20000];
	unsigned int seed = 1, i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = (int)(seed = seed * 1103515245 + 12345);
	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), cmp);
	sink += (unsigned long)v[0];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10, i;

	for (i = 0; i < rounds; i++) {
		caller_a();
		caller_b();
		caller_c();
		recurse(3);
		in_memset();
		in_qsort();
	}
	return 0;
}
