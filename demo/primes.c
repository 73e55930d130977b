// SPDX-License-Identifier: GPL-2.0
/*
 * primes: the workload of `make demo`.  Keeps every online CPU busy for
 * SECONDS (default 3), one thread each, counting primes by trial division:
 * main -> worker -> count_primes -> is_prime, where nearly all the time
 * goes, and a smaller share in worker -> checksum.
 *
 *	primes [SECONDS]
 *
 * Built with frame pointers, so that `pmrec record -g` unwinds it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

static double seconds = 3;
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * External and noinline, so that each keeps its frame and its exact name in
 * the profile (no inlining, no .isra or .constprop clones).
 */
__attribute__((noinline)) int is_prime(unsigned long n);
__attribute__((noinline)) unsigned long count_primes(unsigned long from, unsigned long to);
__attribute__((noinline)) unsigned long checksum(unsigned long seed);
__attribute__((noinline)) void *worker(void *arg);

int is_prime(unsigned long n)
{
	unsigned long d;

	if (n < 2)
		return 0;
	for (d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

unsigned long count_primes(unsigned long from, unsigned long to)
{
	unsigned long n, count = 0;

	for (n = from; n < to; n++)
		count += is_prime(n);
	return count;
}

unsigned long checksum(unsigned long seed)
{
	unsigned long x = seed, i;

	for (i = 0; i < 200000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

void *worker(void *arg)
{
	unsigned long from = 1000000UL * (1 + (unsigned long)arg);
	double end = now() + seconds;

	while (now() < end) {
		sink += count_primes(from, from + 2000);
		sink += checksum(from);
		from += 2000;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[MAX_THREADS];
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);

	if (argc > 2 || (argc == 2 && (seconds = atof(argv[1])) <= 0)) {
		fprintf(stderr, "usage: primes [SECONDS]\n");
		return 2;
	}
	if (n < 1)
		n = 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	for (i = 1; i < n; i++)
		if (pthread_create(&threads[i], NULL, worker, (void *)i)) {
			n = i;
			break;
		}
	worker((void *)0);
	for (i = 1; i < n; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
