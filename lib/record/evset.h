/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_EVSET_H
#define PMREC_EVSET_H

/*
 * The event set: one fd per (event, CPU, task), opened into a drain engine
 * whose rings they write to (the first fd of a CPU maps its ring, the others
 * are redirected into it).  The kernel's refusals that have a known way out
 * are taken here:
 *
 *   - attr.build_id refused (kernels before 5.12): opened without; the
 *     MMAP2 records then name files by device and inode;
 *   - PERF_FORMAT_LOST refused (before 6.0): dropped from every event; loss
 *     is then counted from LOST records only;
 *   - a ring over the locked-memory limit (EPERM at mmap): every ring is
 *     halved and everything reopened, down to PM_EVSET_MIN_PAGES;
 *   - attr.use_clockid refused (EINVAL): the event is tried without it,
 *     only to tell a refused clock (PM_EVSET_CLOCKID) from another fault;
 *   - with skip_gone, a thread that exited since it was listed (ESRCH):
 *     left out, as long as each CPU's ring still has a writer.
 *
 * Any other failure ends the open and comes back as a pm_evset_error, for
 * the caller to word: lib/ never prints.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "record/drain.h"
#include "record/event.h"

/* Smallest ring that halving for the locked-memory limit goes down to. */
#define PM_EVSET_MIN_PAGES 4

enum pm_evset_stage {
	PM_EVSET_OPEN,			/* perf_event_open */
	PM_EVSET_CLOCKID,		/* the event opens, but not with attr.clockid */
	PM_EVSET_ID,			/* PERF_EVENT_IOC_ID, or no memory for the id */
	PM_EVSET_FILTER,		/* PERF_EVENT_IOC_SET_FILTER */
	PM_EVSET_MMAP,			/* mapping the CPU's ring */
	PM_EVSET_REDIRECT,		/* PERF_EVENT_IOC_SET_OUTPUT */
};

struct pm_evset_error {
	enum pm_evset_stage stage;
	size_t event;			/* index in the evlist */
	int cpu;
	pid_t tid;			/* -1: every task (system-wide) */
	int err;			/* positive errno */
};

struct pm_evset {
	struct pm_evlist *evlist;
	struct pm_drain *drain;		/* one ring per CPU, overwrite as cfg's */
	const pid_t *tids;		/* -1 alone for system-wide */
	size_t nr_tids;
	size_t mmap_pages;		/* wanted; after the open, what fit */
	bool cgroup;			/* system-wide, only the tasks of cgroup_fd's cgroup */
	int cgroup_fd;
	bool skip_gone;			/* the tids came from a listing of /proc (-u) */
	bool lost_format;		/* after the open: the kernel counts PERF_FORMAT_LOST */
	struct pm_drain_events opened;	/* after the open: for pm_drain__start */
};

/*
 * Configures the events from cfg (lost_format and watermark are set here)
 * and opens them.  Returns 0, or a negative errno with *e filled.
 */
int pm_evset__open(struct pm_evset *s, struct pm_event_config *cfg, struct pm_evset_error *e);

#endif
