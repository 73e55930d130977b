// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/perf_ops.h"
#include "record/ring.h"
#include "record/target.h"

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

static int kernel_task_state(void *arg, pid_t pid)
{
	return pm_task__state(pid);
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
