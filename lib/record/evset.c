// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "record/drain_int.h"
#include "record/evset.h"

/* Opens ev for tid on cpu, taking the fallbacks for older kernels. */
static int evset__open_fd(struct pm_evset *s, size_t ev_idx, pid_t tid, int cpu)
{
	const struct pm_perf_ops *ops = s->drain->ops;
	struct perf_event_attr *attr = &s->evlist->events[ev_idx].attr;
	unsigned long flags = 0;
	size_t i;
	int fd;

	/* A cgroup event counts, on one CPU, the tasks of the cgroup whose fd is "pid". */
	if (s->cgroup) {
		tid = s->cgroup_fd;
		flags = PERF_FLAG_PID_CGROUP;
	}
	fd = ops->open(ops->arg, attr, tid, cpu, flags);

	if (fd == -EINVAL && attr->build_id) {
		/*
		 * Kernels before 5.12 cannot put build ids in MMAP2 records:
		 * their device and inode then identify the file instead.
		 */
		attr->build_id = 0;
		fd = ops->open(ops->arg, attr, tid, cpu, flags);
	}
	if (fd == -EINVAL && s->lost_format) {
		/* Kernels before 6.0 have no PERF_FORMAT_LOST: count loss from records. */
		s->lost_format = false;
		for (i = 0; i < s->evlist->nr; i++)
			s->evlist->events[i].attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		fd = ops->open(ops->arg, attr, tid, cpu, flags);
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
			   struct pm_evset_error *e)
{
	struct pm_drain *d = s->drain;
	const struct pm_perf_ops *ops = d->ops;
	struct pm_event *ev = &s->evlist->events[ev_idx];
	uint64_t id;
	int fd, err;

	*e = (struct pm_evset_error){ .event = ev_idx, .cpu = d->rings[ring].cpu, .tid = tid };
	fd = evset__open_fd(s, ev_idx, tid, e->cpu);
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

/* Ring by ring, from the ring's CPU (drain_pin.c). */
static int evset__open_rings(struct pm_evset *s, struct pm_evset_error *e)
{
	size_t c, t, ev;
	int err;

	for (c = 0; c < s->drain->nr_rings; c++) {
		drain__pin(s->drain, s->drain->rings[c].cpu);
		for (t = 0; t < s->nr_tids; t++)
			for (ev = 0; ev < s->evlist->nr; ev++) {
				err = evset__open_one(s, ev, s->tids[t], c, e);
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
	int err = evset__open_rings(s, e);

	drain__unpin(s->drain);
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
		};
	return err;
}
