/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PERF_OPS_H
#define PMREC_PERF_OPS_H

/*
 * The kernel calls the recording engine makes (lib/record/evset.c opens, lib/record/drain.c
 * drains and tears down), gathered in one table so the unit tests can replace
 * the kernel with fakes over rings in plain memory and log the order of every
 * call.  pm_perf_ops__kernel is the real one.
 */
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/perf_event.h>

struct pm_ring;

struct pm_perf_ops {
	/*
	 * perf_event_open(2) with PERF_FLAG_FD_CLOEXEC and flags (e.g.
	 * PERF_FLAG_PID_CGROUP, pid then being a cgroup directory's fd):
	 * a fd, or -errno.
	 */
	int (*open)(void *arg, struct perf_event_attr *attr, pid_t pid, int cpu,
		    unsigned long flags);
	/* ioctl(2) on a perf fd: 0 or -errno. */
	int (*ioctl)(void *arg, int fd, unsigned long req, unsigned long val);
	/* Maps fd's ring into r (pm_ring__mmap): 0 or -errno. */
	int (*mmap)(void *arg, struct pm_ring *r, int fd, size_t pages, bool overwrite);
	/* Unmaps r and closes its owner fd (pm_ring__unmap). */
	void (*unmap)(void *arg, struct pm_ring *r);
	/* read(2) of a perf fd's counter (PERF_FORMAT_*): bytes, or -errno. */
	ssize_t (*read)(void *arg, int fd, void *buf, size_t len);
	int (*close)(void *arg, int fd);
	/* poll(2): ready fds, or -errno. */
	int (*poll)(void *arg, struct pollfd *fds, nfds_t nr, int timeout_ms);
	/*
	 * sched_getaffinity(2) and sched_setaffinity(2) of the calling
	 * thread: 0 or -errno.  NULL (fakes): the engine never moves.
	 */
	int (*get_affinity)(void *arg, cpu_set_t *set, size_t size);
	int (*set_affinity)(void *arg, const cpu_set_t *set, size_t size);
	/*
	 * fn(ctx, t) for every t < n, each on a thread of its own, all at
	 * once; returns when every one has returned.  ran[t] says which ran:
	 * where no thread could be made, the caller runs fn itself.  NULL
	 * (fakes): none runs, the engine does it all on its own thread.
	 */
	void (*run_threads)(void *arg, size_t n, void (*fn)(void *ctx, size_t t), void *ctx,
			    bool *ran);
	/*
	 * Where process pid is in its exit (pm_task__state, record/target.h),
	 * or -errno if that cannot be told.  NULL: it runs.
	 */
	int (*task_state)(void *arg, pid_t pid);
	void *arg;
};

extern const struct pm_perf_ops pm_perf_ops__kernel;

#endif
