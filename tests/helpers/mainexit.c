// SPDX-License-Identifier: GPL-2.0
/*
 * mainexit: its main thread ends at once (pthread_exit) while a second
 * thread spins for SECONDS (default 0.3): the process lives on in that
 * thread, as a server whose main thread only starts the others does.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	double end = now() + *(double *)arg;
	volatile unsigned long x = 1;
	int i;

	while (now() < end)
		for (i = 0; i < 100000; i++)
			x = x * 2862933555777941757UL + 3037000493UL;
	return NULL;
}

int main(int argc, char **argv)
{
	static double seconds;
	pthread_t t;

	seconds = argc > 1 ? atof(argv[1]) : 0.3;
	if (pthread_create(&t, NULL, spin, &seconds))
		return 1;
	pthread_exit(NULL);
}
