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

struct cpu_job {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t i;
};

static void *cpu_job__run(void *arg)
{
	struct cpu_job *j = arg;

	j->fn(j->ctx, j->i);
	return NULL;
}

/* A thread on cpu alone (its mask set before it runs): 0 or -errno. */
static int cpu_job__start(pthread_t *th, int cpu, struct cpu_job *j)
{
	size_t size = CPU_ALLOC_SIZE((size_t)cpu + 1);
	cpu_set_t *set = CPU_ALLOC((size_t)cpu + 1);
	pthread_attr_t a;
	int err = ENOMEM;

	if (set && !(err = pthread_attr_init(&a))) {
		CPU_ZERO_S(size, set);
		CPU_SET_S((size_t)cpu, size, set);
		/* The jobs are a few system calls: a small stack each. */
		err = pthread_attr_setstacksize(&a, 64 << 10);
		if (!err)
			err = pthread_attr_setaffinity_np(&a, size, set);
		if (!err)
			err = pthread_create(th, &a, cpu_job__run, j);
		pthread_attr_destroy(&a);
	}
	CPU_FREE(set);
	return -err;
}

static void kernel_run_on_cpus(void *arg, const int *cpus, size_t n,
			       void (*fn)(void *ctx, size_t i), void *ctx, bool *done)
{
	struct cpu_job *jobs = calloc(n, sizeof(*jobs));
	pthread_t *th = calloc(n, sizeof(*th));
	size_t i;

	for (i = 0; jobs && th && i < n; i++) {
		jobs[i] = (struct cpu_job){ .fn = fn, .ctx = ctx, .i = i };
		done[i] = cpus[i] >= 0 && !cpu_job__start(&th[i], cpus[i], &jobs[i]);
	}
	for (i = 0; jobs && th && i < n; i++)
		if (done[i])
			pthread_join(th[i], NULL);
	free(jobs);
	free(th);
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
	.run_on_cpus = kernel_run_on_cpus,
};
