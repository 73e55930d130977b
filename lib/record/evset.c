// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "record/drain_int.h"
#include "record/evset.h"

/* A prefetched fd that was taken, or none was made. */
#define EVSET_NO_FD INT_MIN

/*
 * System-wide on many CPUs, the opens of every ring but the first are made
 * at once by the drain's movers before the rings are set up one after the
 * other: each open of a CPU's event waits for that CPU (a cross-CPU call),
 * and one CPU after another they took 21 s of a busy 64-CPU guest's start
 * (issue 43).  The first ring is opened alone, so that the refusals below
 * have settled the attrs the others are opened with.
 */
struct evset_prefetch {
	struct pm_evset *s;
	int *fds;			/* [ring * events + event]: a fd, -errno, or EVSET_NO_FD */
};

static void evset__drop_lost(struct pm_evset *s)
{
	size_t i;

	s->lost_format = false;
	for (i = 0; i < s->evlist->nr; i++)
		s->evlist->events[i].attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
}

/* Opens ev for tid on cpu, taking the fallbacks for older kernels; pre: a prefetched fd. */
static int evset__open_fd(struct pm_evset *s, size_t ev_idx, pid_t tid, int cpu, int *pre)
{
	const struct pm_perf_ops *ops = s->drain->ops;
	struct perf_event_attr *attr = &s->evlist->events[ev_idx].attr;
	unsigned long flags = 0;
	int fd;

	if (pre && *pre >= 0) {
		fd = *pre;
		*pre = EVSET_NO_FD;
		return fd;
	}
	/* A cgroup event counts, on one CPU, the tasks of the cgroup whose fd is "pid". */
	if (s->cgroup) {
		tid = s->cgroup_fd;
		flags = PERF_FLAG_PID_CGROUP;
	}
	fd = ops->open(ops->arg, attr, tid, cpu, flags);

	/*
	 * Kernels before 6.0 have no PERF_FORMAT_LOST (loss is then counted
	 * from records); those before 5.12 cannot put build ids in MMAP2
	 * records either (device and inode then identify the file).  The newer
	 * one is tried first: 5.12-5.19 keep their build ids.
	 */
	if (fd == -EINVAL && s->lost_format) {
		attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		fd = ops->open(ops->arg, attr, tid, cpu, flags);
		attr->read_format |= PERF_FORMAT_LOST;
		if (fd != -EINVAL)
			evset__drop_lost(s);
	}
	if (fd == -EINVAL && attr->build_id) {
		attr->build_id = 0;
		fd = ops->open(ops->arg, attr, tid, cpu, flags);
		if (fd == -EINVAL && s->lost_format) {
			evset__drop_lost(s);
			fd = ops->open(ops->arg, attr, tid, cpu, flags);
		}
	}
	return fd;
}

/*
 * EINVAL with attr.use_clockid: the clock is refused (an unknown clock,
 * one that is not NMI-safe for a hardware event, or a kernel before 4.1)
 * if the event opens without it.  That probe fd is closed at once.
 */
static bool evset__clockid_refused(struct pm_evset *s, size_t ev_idx, pid_t tid, int cpu)
{
	const struct pm_perf_ops *ops = s->drain->ops;
	struct perf_event_attr attr = s->evlist->events[ev_idx].attr;
	int fd;

	attr.use_clockid = 0;
	attr.clockid = 0;
	fd = ops->open(ops->arg, &attr, s->cgroup ? s->cgroup_fd : tid, cpu,
		       s->cgroup ? PERF_FLAG_PID_CGROUP : 0);
	if (fd < 0)
		return false;
	ops->close(ops->arg, fd);
	return true;
}

static int evset__fail(struct pm_evset_error *e, enum pm_evset_stage stage, int err)
{
	e->stage = stage;
	e->err = -err;
	return err;
}

/*
 * One fd: its id and filter, then the CPU's ring mapped or redirected into.
 * 1 when the thread is gone and skip_gone leaves it out.
 */
static int evset__open_one(struct pm_evset *s, size_t ev_idx, pid_t tid, size_t ring,
			   int *pre, struct pm_evset_error *e)
{
	struct pm_drain *d = s->drain;
	const struct pm_perf_ops *ops = d->ops;
	struct pm_event *ev = &s->evlist->events[ev_idx];
	uint64_t id;
	int fd, err;

	*e = (struct pm_evset_error){ .event = ev_idx, .cpu = d->rings[ring].cpu, .tid = tid };
	fd = evset__open_fd(s, ev_idx, tid, e->cpu, pre);
	if (fd == -ESRCH && s->skip_gone && tid > 0)
		return 1;
	if (fd == -EINVAL && ev->attr.use_clockid &&
	    evset__clockid_refused(s, ev_idx, tid, e->cpu))
		return evset__fail(e, PM_EVSET_CLOCKID, fd);
	if (fd < 0)
		return evset__fail(e, PM_EVSET_OPEN, fd);
	if (!pm_drain__add_fd(d, ring, fd, ev_idx)) {
		ops->close(ops->arg, fd);
		return evset__fail(e, PM_EVSET_ID, -ENOMEM);
	}
	err = ops->ioctl(ops->arg, fd, PERF_EVENT_IOC_ID, (unsigned long)&id);
	if (!err)
		err = pm_evlist__add_id(s->evlist, ev_idx, id);
	if (err)
		return evset__fail(e, PM_EVSET_ID, err);
	if (ev->filter) {
		err = ops->ioctl(ops->arg, fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)ev->filter);
		if (err)
			return evset__fail(e, PM_EVSET_FILTER, err);
	}
	if (!d->rings[ring].ring.ctl) {
		/* The ring owns this fd now: unmapping it closes the fd. */
		err = pm_drain__map(d, ring, fd, s->mmap_pages);
		return err ? evset__fail(e, PM_EVSET_MMAP, err) : 0;
	}
	err = pm_drain__redirect(d, ring, fd);
	return err ? evset__fail(e, PM_EVSET_REDIRECT, err) : 0;
}

static void evset__prefetch_ring(struct pm_drain *d, size_t ring, void *arg)
{
	struct evset_prefetch *p = arg;
	struct pm_evset *s = p->s;
	size_t ev, nr = s->evlist->nr;

	for (ev = 0; ev < nr; ev++)
		p->fds[ring * nr + ev] = d->ops->open(d->ops->arg, &s->evlist->events[ev].attr,
						      s->cgroup ? s->cgroup_fd : -1, d->rings[ring].cpu,
						      s->cgroup ? PERF_FLAG_PID_CGROUP : 0);
}

/* Every ring's opens but the first ring's, at once, if movers would share them. */
static void evset__prefetch(struct pm_evset *s, struct evset_prefetch *p)
{
	struct pm_drain *d = s->drain;
	size_t i, n = d->nr_rings * s->evlist->nr;
	bool *which;

	p->s = s;
	p->fds = NULL;
	if (s->nr_tids != 1 || s->tids[0] != -1 || d->nr_rings < 2 ||
	    drain__movers(d, d->nr_rings - 1) < 2)
		return;
	which = calloc(d->nr_rings, sizeof(*which));
	p->fds = malloc(n * sizeof(*p->fds));
	if (!which || !p->fds) {
		free(which);
		free(p->fds);
		p->fds = NULL;
		return;
	}
	for (i = 0; i < n; i++)
		p->fds[i] = EVSET_NO_FD;
	for (i = 1; i < d->nr_rings; i++)
		which[i] = true;
	drain__each_ring(d, which, evset__prefetch_ring, p);
	free(which);
}

/* The prefetched fds the set-up did not take. */
static void evset__prefetch_exit(struct evset_prefetch *p)
{
	const struct pm_perf_ops *ops = p->s->drain->ops;
	size_t i, n = p->s->drain->nr_rings * p->s->evlist->nr;

	for (i = 0; p->fds && i < n; i++)
		if (p->fds[i] >= 0)
			ops->close(ops->arg, p->fds[i]);
	free(p->fds);
	p->fds = NULL;
}

/* Ring by ring, from the ring's CPU (drain_pin.c), or with the fds opened there already. */
static int evset__open_rings(struct pm_evset *s, struct evset_prefetch *p,
			     struct pm_evset_error *e)
{
	size_t c, t, ev;
	int err;

	for (c = 0; c < s->drain->nr_rings; c++) {
		if (c == 1)
			evset__prefetch(s, p);
		if (!p->fds)
			drain__pin(s->drain, s->drain->rings[c].cpu);
		for (t = 0; t < s->nr_tids; t++)
			for (ev = 0; ev < s->evlist->nr; ev++) {
				err = evset__open_one(s, ev, s->tids[t], c,
						      p->fds ? &p->fds[c * s->evlist->nr + ev] : NULL, e);
				if (err < 0)
					return err;
				/* A gone thread's other events would fail the same way. */
				if (err)
					break;
			}
		/* Every thread gone: a ring without a writer would never retire. */
		if (!s->drain->rings[c].ring.ctl) {
			*e = (struct pm_evset_error){ .cpu = s->drain->rings[c].cpu,
						      .tid = s->tids[s->nr_tids - 1] };
			return evset__fail(e, PM_EVSET_OPEN, -ESRCH);
		}
	}
	return 0;
}

static int evset__open_all(struct pm_evset *s, struct pm_evset_error *e)
{
	struct evset_prefetch p = { .s = s };
	int err = evset__open_rings(s, &p, e);

	drain__unpin(s->drain);
	evset__prefetch_exit(&p);
	return err;
}

/*
 * Unprivileged users may lock only kernel.perf_event_mlock_kb (per CPU) plus
 * RLIMIT_MEMLOCK: rings that do not fit are halved, down to
 * PM_EVSET_MIN_PAGES, rather than failing the recording.
 */
int pm_evset__open(struct pm_evset *s, struct pm_event_config *cfg, struct pm_evset_error *e)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i;
	int err;

	s->lost_format = cfg->lost_format;
	for (;;) {
		/* Wake with three quarters of the ring still free. */
		if (!cfg->overwrite)
			cfg->watermark = (uint32_t)(s->mmap_pages * page / 4);
		cfg->lost_format = s->lost_format;
		pm_evlist__config(s->evlist, cfg);
		err = evset__open_all(s, e);
		if (!err || e->stage != PM_EVSET_MMAP || err != -EPERM ||
		    s->mmap_pages <= PM_EVSET_MIN_PAGES)
			break;
		pm_drain__reset(s->drain);
		for (i = 0; i < s->evlist->nr; i++)
			s->evlist->events[i].nr_ids = 0;
		s->mmap_pages /= 2;
	}
	if (!err)
		s->opened = (struct pm_drain_events){
			.lost_format = s->lost_format,
			.build_id_mmap = s->evlist->events[s->evlist->tracking].attr.build_id,
			.time_off = pm_evlist__sample_time_offset(s->evlist),
			.id_time_end = pm_evlist__trailer_time_end(s->evlist),
		};
	return err;
}
