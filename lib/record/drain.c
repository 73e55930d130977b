// SPDX-License-Identifier: GPL-2.0
/*
 * The drain engine made, its fds mapped or redirected into the rings,
 * started, and taken down: a ring retires once no fd writes into it and
 * it is empty (pm_drain__close is the one teardown path).
 */
#include <errno.h>
#include <stdlib.h>

#include "base/buf.h"
#include "format/perf_data.h"
#include "record/drain_int.h"
#include "record/ring.h"
#include "record/stage.h"

struct pm_drain *pm_drain__new(const struct pm_drain_config *cfg)
{
	struct pm_drain *d = calloc(1, sizeof(*d));
	size_t i;

	if (!d)
		return NULL;
	*d = (struct pm_drain){
		.ops = cfg->ops ? cfg->ops : &pm_perf_ops__kernel,
		.sink = cfg->sink,
		.watch_fd = cfg->watch_fd,
		.overwrite = cfg->overwrite,
		.build_ids = cfg->build_ids,
		.jitcap = cfg->jitcap,
		.stage_size = cfg->stage_size,
		.stage_writer = cfg->stage_writer,
		.pin = { .cpu = -1,
			 .off = cfg->nr_cpus <= (cfg->pin_rings ? cfg->pin_rings : PM_DRAIN_PIN_RINGS),
			 .per_mover = cfg->rings_per_mover ? cfg->rings_per_mover :
							     PM_DRAIN_RINGS_PER_MOVER },
	};
	d->rings = calloc(cfg->nr_cpus ? cfg->nr_cpus : 1, sizeof(*d->rings));
	if (!d->rings) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->nr_rings = cfg->nr_cpus;
	for (i = 0; i < cfg->nr_cpus; i++) {
		d->rings[i].cpu = cfg->cpus[i];
		d->rings[i].ring.fd = -1;
	}
	return d;
}

struct pm_drain_fd *pm_drain__add_fd(struct pm_drain *d, size_t ring, int fd, size_t event)
{
	struct pm_drain_fd *n = realloc(d->fds, (d->nr_fds + 1) * sizeof(*n));

	if (!n)
		return NULL;
	d->fds = n;
	/* Not a writer of the ring until it is mapped or redirected. */
	n[d->nr_fds] = (struct pm_drain_fd){ .fd = fd, .ring = ring, .event = event, .dead = true };
	return &n[d->nr_fds++];
}

static struct pm_drain_fd *drain__fd(struct pm_drain *d, int fd)
{
	size_t i;

	for (i = d->nr_fds; i > 0; i--)
		if (d->fds[i - 1].fd == fd)
			return &d->fds[i - 1];
	return NULL;
}

int pm_drain__map(struct pm_drain *d, size_t ring, int fd, size_t pages)
{
	struct pm_drain_ring *r = &d->rings[ring];
	struct pm_drain_fd *f = drain__fd(d, fd);
	int err = d->ops->mmap(d->ops->arg, &r->ring, fd, pages, d->overwrite);

	if (err)
		return err;
	/* The mapping holds the owner's reference (refcnt 1). */
	if (f)
		f->dead = false;
	return 0;
}

int pm_drain__redirect(struct pm_drain *d, size_t ring, int fd)
{
	struct pm_drain_ring *r = &d->rings[ring];
	struct pm_drain_fd *f = drain__fd(d, fd);
	int err = d->ops->ioctl(d->ops->arg, fd, PERF_EVENT_IOC_SET_OUTPUT,
				(unsigned long)r->ring.fd);

	if (err)
		return err;
	pm_ring__get(&r->ring);
	if (f)
		f->dead = false;
	return 0;
}

int drain__build_pollfds(struct pm_drain *d)
{
	size_t i, n = 0;

	if (!d->pfds) {
		d->pfds = calloc(d->nr_fds + 2, sizeof(*d->pfds));
		d->pfd_fd = calloc(d->nr_fds + 2, sizeof(*d->pfd_fd));
		if (!d->pfds || !d->pfd_fd)
			return -ENOMEM;
	}
	if (d->watch_fd >= 0)
		d->pfds[n++] = (struct pollfd){ .fd = d->watch_fd, .events = POLLIN };
	if (d->stage)
		d->pfds[n++] = (struct pollfd){ .fd = d->stage->room_fd, .events = POLLIN };
	d->nr_fixed = n;
	for (i = 0; i < d->nr_fds; i++) {
		if (d->fds[i].dead)
			continue;
		/* Overwrite rings are read by snapshots: only hang-ups matter. */
		d->pfds[n] = (struct pollfd){ .fd = d->fds[i].fd, .events = d->overwrite ? 0 : POLLIN };
		d->pfd_fd[n++] = i;
	}
	d->nr_pfds = n;
	return 0;
}

static int drain__stage(struct pm_drain *d);

int pm_drain__start(struct pm_drain *d, const struct pm_drain_events *ev)
{
	int err;

	d->lost_format = ev->lost_format;
	d->build_id_mmap = ev->build_id_mmap;
	d->time_off = ev->time_off;
	d->id_time_end = ev->id_time_end;
	d->iov = calloc(2 * d->nr_rings + 1, sizeof(*d->iov));
	if (!d->iov)
		return -ENOMEM;
	err = drain__build_pollfds(d);
	if (!err && d->stage_size)
		err = drain__stage(d);
	return err;
}

static void drain__ioctl_ring(struct pm_drain *d, size_t ring, void *req)
{
	size_t i;

	for (i = 0; i < d->nr_fds; i++)
		if (d->fds[i].ring == ring && d->fds[i].fd >= 0)
			d->ops->ioctl(d->ops->arg, d->fds[i].fd, *(unsigned long *)req, 0);
}

/* Each fd from its ring's CPU: one move per CPU. */
void pm_drain__ioctl_all(struct pm_drain *d, unsigned long req)
{
	drain__each_ring(d, NULL, drain__ioctl_ring, &req);
}

/* The fd stops writing into its ring: one reference less. */
void drain__hang_up(struct pm_drain *d, struct pm_drain_fd *f)
{
	struct pm_drain_ring *r = &d->rings[f->ring];

	if (f->dead)
		return;
	f->dead = true;
	if (pm_ring__put(&r->ring) == 0 && r->state == PM_DRAIN_ACTIVE)
		r->state = PM_DRAIN_DRAINING;
}

/*
 * The kernel's count of samples this fd dropped.  It must be read before the
 * fd is closed: drops after the last record that fit in a ring are announced
 * nowhere else.
 */
static void drain__read_lost(struct pm_drain *d, struct pm_drain_fd *f)
{
	uint64_t v[3];

	if (f->lost_read || f->fd < 0 || !d->lost_format)
		return;
	if (d->ops->read(d->ops->arg, f->fd, v, sizeof(v)) == sizeof(v)) {
		f->id = v[1];
		f->lost = v[2];
	}
	f->lost_read = true;
}

void drain__retire(struct pm_drain *d, size_t idx)
{
	struct pm_drain_ring *r = &d->rings[idx];
	bool mapped = r->ring.ctl != NULL;
	size_t i;

	for (i = 0; i < d->nr_fds; i++)
		if (d->fds[i].ring == idx)
			drain__read_lost(d, &d->fds[i]);
	/* Redirected fds go first: an owner unmapped under live writers drops silently. */
	for (i = 0; i < d->nr_fds; i++) {
		struct pm_drain_fd *f = &d->fds[i];

		if (f->ring != idx || f->fd < 0 || (mapped && f->fd == r->ring.fd))
			continue;
		drain__hang_up(d, f);
		d->ops->close(d->ops->arg, f->fd);
		f->fd = -1;
	}
	for (i = 0; mapped && i < d->nr_fds; i++) {
		struct pm_drain_fd *f = &d->fds[i];

		if (f->ring == idx && f->fd >= 0 && f->fd == r->ring.fd) {
			drain__hang_up(d, f);
			f->fd = -1;
		}
	}
	if (mapped)
		d->ops->unmap(d->ops->arg, &r->ring);
	pm_buf__exit(&r->copy);
	r->state = PM_DRAIN_RETIRED;
}

static void drain__retire_ring(struct pm_drain *d, size_t ring, void *arg)
{
	if (d->rings[ring].state != PM_DRAIN_RETIRED)
		drain__retire(d, ring);
}

void drain__retire_all(struct pm_drain *d, const bool *which)
{
	drain__each_ring(d, which, drain__retire_ring, NULL);
}

static int drain__stage(struct pm_drain *d)
{
	size_t cap = d->stage_size;
	bool writer = d->stage_writer;
	size_t i, min = sizeof(struct perf_event_header);
	int err;

	/* An empty stage takes any pass: each ring's data and the round. */
	for (i = 0; i < d->nr_rings; i++)
		min += d->rings[i].ring.size;
	d->stage = calloc(1, sizeof(*d->stage));
	if (!d->stage)
		return -ENOMEM;
	err = pm_stage__init(d->stage, cap > min ? cap : min, &d->sink);
	if (!err && writer)
		err = pm_stage__start(d->stage);
	if (!err)
		err = drain__build_pollfds(d);
	if (err) {
		pm_stage__exit(d->stage);
		free(d->stage);
		d->stage = NULL;
	}
	return err;
}

int pm_drain__lost_samples(struct pm_drain *d, struct pm_buf *out, uint64_t *total)
{
	size_t i;

	*total = 0;
	for (i = 0; i < d->nr_fds; i++) {
		struct pm_drain_fd *f = &d->fds[i];
		struct {
			struct perf_event_header h;
			uint64_t lost;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
			uint64_t id;
		} ls = { .h = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(ls) } };

		drain__read_lost(d, f);
		if (!f->lost)
			continue;
		ls.lost = f->lost;
		ls.cpu = (uint32_t)d->rings[f->ring].cpu;
		ls.id = f->id;
		*total += f->lost;
		if (pm_buf__append(out, &ls, sizeof(ls)))
			return -ENOMEM;
	}
	return 0;
}

void pm_drain__close(struct pm_drain *d)
{
	size_t i;

	pm_drain__ioctl_all(d, PERF_EVENT_IOC_DISABLE);
	drain__retire_all(d, NULL);
	/* Fds of no ring's: none, unless a ring index was bad. */
	for (i = 0; i < d->nr_fds; i++)
		if (d->fds[i].fd >= 0) {
			d->ops->close(d->ops->arg, d->fds[i].fd);
			d->fds[i].fd = -1;
		}
	if (d->stage) {
		drain__sync_stage(d);
		pm_stage__exit(d->stage);
		free(d->stage);
		d->stage = NULL;
		d->blocked = false;
	}
}

void pm_drain__reset(struct pm_drain *d)
{
	size_t i;

	pm_drain__close(d);
	for (i = 0; i < d->nr_rings; i++) {
		int cpu = d->rings[i].cpu;

		d->rings[i] = (struct pm_drain_ring){ .cpu = cpu, .ring = { .fd = -1 } };
	}
	d->nr_fds = 0;
}

void pm_drain__delete(struct pm_drain *d)
{
	if (!d)
		return;
	pm_drain__close(d);
	free(d->rings);
	free(d->fds);
	free(d->pfds);
	free(d->pfd_fd);
	free(d->iov);
	drain__pin_exit(d);
	free(d);
}

struct pm_drain_stats *pm_drain__stats(struct pm_drain *d)
{
	return &d->stats;
}

size_t pm_drain__nr_rings(const struct pm_drain *d)
{
	return d->nr_rings;
}

size_t pm_drain__nr_fds(const struct pm_drain *d)
{
	return d->nr_fds;
}

uint64_t pm_drain__ring_lost(const struct pm_drain *d, size_t idx, int *cpu)
{
	*cpu = d->rings[idx].cpu;
	return d->rings[idx].lost;
}

bool pm_drain__stage_stats(struct pm_drain *d, struct pm_stage_stats *st, size_t *cap)
{
	if (!d->stage)
		return false;
	pm_stage__stats(d->stage, st);
	*cap = d->stage->cap;
	return true;
}
