// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/smallfile.h"
#include "record/perf_ops.h"
#include "record/ring.h"

static int kernel_open(void *arg, struct perf_event_attr *attr, pid_t pid, int cpu,
		       unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1, flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static int kernel_ioctl(void *arg, int fd, unsigned long req, unsigned long val)
{
	return ioctl(fd, req, val) < 0 ? -errno : 0;
}

static int kernel_mmap(void *arg, struct pm_ring *r, int fd, size_t pages, bool overwrite)
{
	return pm_ring__mmap(r, fd, pages, overwrite);
}

static void kernel_unmap(void *arg, struct pm_ring *r)
{
	pm_ring__unmap(r);
}

static ssize_t kernel_read(void *arg, int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

static int kernel_close(void *arg, int fd)
{
	return close(fd) ? -errno : 0;
}

static int kernel_poll(void *arg, struct pollfd *fds, nfds_t nr, int timeout_ms)
{
	int n = poll(fds, nr, timeout_ms);

	return n < 0 ? -errno : n;
}

static int kernel_get_affinity(void *arg, cpu_set_t *set, size_t size)
{
	return sched_getaffinity(0, size, set) ? -errno : 0;
}

static int kernel_set_affinity(void *arg, const cpu_set_t *set, size_t size)
{
	return sched_setaffinity(0, size, set) ? -errno : 0;
}

struct thread_job {
	void (*fn)(void *ctx, size_t t);
	void *ctx;
	size_t t;
};

static void *thread_job__run(void *arg)
{
	struct thread_job *j = arg;

	j->fn(j->ctx, j->t);
	return NULL;
}

static void kernel_run_threads(void *arg, size_t n, void (*fn)(void *ctx, size_t t), void *ctx,
			       bool *ran)
{
	struct thread_job *jobs = calloc(n, sizeof(*jobs));
	pthread_t *th = calloc(n, sizeof(*th));
	pthread_attr_t a;
	bool attr = !pthread_attr_init(&a);
	size_t t;

	/* The jobs are a few system calls each: a small stack. */
	if (attr)
		pthread_attr_setstacksize(&a, 64 << 10);
	for (t = 0; t < n; t++) {
		ran[t] = false;
		if (!jobs || !th || !attr)
			continue;
		jobs[t] = (struct thread_job){ .fn = fn, .ctx = ctx, .t = t };
		ran[t] = !pthread_create(&th[t], &a, thread_job__run, &jobs[t]);
	}
	for (t = 0; t < n; t++)
		if (ran[t])
			pthread_join(th[t], NULL);
	if (attr)
		pthread_attr_destroy(&a);
	free(jobs);
	free(th);
}

/*
 * The kernel's PF_EXITING (include/linux/sched.h), in /proc/PID/stat's
 * ninth field: do_exit sets it before perf_event_exit_task writes the EXIT.
 */
#define TASK_PF_EXITING 0x4u

/*
 * A task's state letter, flags and its process's thread count from its
 * stat file: 0, -ENOENT once it is gone, or -errno.
 */
static int task__stat(const char *path, char *state, unsigned long *flags, long *threads)
{
	char buf[1024], *p;
	int err = pm_read_small(path, buf, sizeof(buf));

	if (err == -ESRCH)
		return -ENOENT;
	if (err)
		return err;
	/*
	 * pid (comm) state ppid pgrp session tty_nr tpgid flags, six fault
	 * and time counts, four more, num_threads.  comm may hold ')'.
	 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld",
			 state, flags, threads) != 3)
		return -EINVAL;
	return 0;
}

/* Past this many threads left, a process whose main thread ended is taken as running. */
#define TASK_THREADS_LOOKED 64

/*
 * The main thread has ended and others are left: the process is ending
 * once each of them is (a group exit, or the last one's own), else it runs.
 */
static int task__others_state(pid_t pid)
{
	char path[64], state;
	unsigned long flags;
	struct dirent *e;
	long threads;
	int ret = PM_TASK_EXITING;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT || errno == ESRCH ? PM_TASK_ENDED : -errno;
	while (ret == PM_TASK_EXITING && (e = readdir(dir))) {
		long tid = strtol(e->d_name, NULL, 10);

		if (tid <= 0 || tid == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", (int)pid, tid);
		if (task__stat(path, &state, &flags, &threads))
			continue;	/* gone since the listing */
		if (state != 'Z' && state != 'X' && !(flags & TASK_PF_EXITING))
			ret = PM_TASK_RUNS;
	}
	closedir(dir);
	return ret;
}

static int kernel_task_state(void *arg, pid_t pid)
{
	char path[32], state;
	unsigned long flags;
	long threads;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	err = task__stat(path, &state, &flags, &threads);
	if (err == -ENOENT)
		return PM_TASK_ENDED;
	if (err)
		return err;
	/* A zombie main thread is counted until it is reaped. */
	if (state == 'Z' || state == 'X') {
		if (threads <= 1)
			return PM_TASK_ENDED;
		return threads > TASK_THREADS_LOOKED ? PM_TASK_RUNS : task__others_state(pid);
	}
	return flags & TASK_PF_EXITING ? PM_TASK_EXITING : PM_TASK_RUNS;
}

const struct pm_perf_ops pm_perf_ops__kernel = {
	.open = kernel_open,
	.ioctl = kernel_ioctl,
	.mmap = kernel_mmap,
	.unmap = kernel_unmap,
	.read = kernel_read,
	.close = kernel_close,
	.poll = kernel_poll,
	.get_affinity = kernel_get_affinity,
	.set_affinity = kernel_set_affinity,
	.run_threads = kernel_run_threads,
	.task_state = kernel_task_state,
};
