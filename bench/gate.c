// SPDX-License-Identifier: GPL-2.0
/*
 * gate: the recorder's stand-in workload.
 *
 *   gate GO DONE [TIMEOUT]
 *
 * Creates the file GO, then waits until the file DONE exists (or TIMEOUT
 * seconds, default 300, have passed) and exits.  A recorder started as
 * `RECORDER -a ... -- gate GO DONE` starts it only once its events and rings
 * are set up, so a workload waiting for GO (seqcall -w GO, burn -w GO) runs
 * entirely inside the recording, and the recording ends right after the
 * workload has touched DONE.  The gate sleeps 5 ms between checks, so it adds
 * next to nothing to the recorder's CPU time as measured by cputime.
 *
 * Exit status: 0 when DONE appeared, 1 on timeout or error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const struct timespec tick = { .tv_nsec = 5 * 1000 * 1000 };
	double timeout = 300;
	long i, ticks;
	int fd;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gate GO DONE [TIMEOUT]\n");
		return 64;
	}
	if (argc == 4)
		timeout = atof(argv[3]);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "gate: cannot create '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	close(fd);
	ticks = (long)(timeout * 200);
	for (i = 0; i < ticks; i++) {
		if (!access(argv[2], F_OK))
			return 0;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "gate: '%s' did not appear within %g s\n", argv[2], timeout);
	return 1;
}
