// SPDX-License-Identifier: GPL-2.0
/*
 * procfloor: what reading /proc costs on this machine, without a recorder.
 *
 *   procfloor
 *
 * For every process in /proc, opens, reads once and closes PID/stat, then
 * does the same for PID/maps (as much as a 64 KiB buffer takes), and prints
 *
 *   procs=N stat_cpu=S maps_cpu=S total_cpu=S
 *
 * with the CPU seconds (user + sys) of each pass.  This is the least any
 * /proc-based synthesis pays for the COMM and MMAP2 records of N processes:
 * the benchmark prints it next to pmrec's synthesis cost.
 *
 * Exit status: 0, or 1 when /proc cannot be listed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Open, read once, close PID/name for each pid; returns the CPU it took. */
static double read_all(int procfd, const int *pids, size_t n, const char *name)
{
	static char buf[65536];
	char path[64];
	double t = cpu_seconds();
	size_t i;

	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%d/%s", pids[i], name);
		fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (read(fd, buf, sizeof(buf)) < 0)
			perror(path);
		close(fd);
	}
	return cpu_seconds() - t;
}

int main(void)
{
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = opendir("/proc");
	size_t n = 0, cap = 0;
	struct dirent *d;
	int *pids = NULL;
	double st, mp;

	if (procfd < 0 || !dir) {
		perror("/proc");
		return 1;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			pids = realloc(pids, cap * sizeof(*pids));
			if (!pids)
				return 1;
		}
		pids[n++] = atoi(d->d_name);
	}
	closedir(dir);
	/* A first pass warms the dentry cache, as earlier runs do for pmrec. */
	read_all(procfd, pids, n, "stat");
	read_all(procfd, pids, n, "maps");
	st = read_all(procfd, pids, n, "stat");
	mp = read_all(procfd, pids, n, "maps");
	printf("procs=%zu stat_cpu=%.4f maps_cpu=%.4f total_cpu=%.4f\n", n, st, mp, st + mp);
	free(pids);
	close(procfd);
	return 0;
}
