// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/buildid.h"
#include "record/jitcap.h"
#include "record/drain_int.h"
#include "format/perf_data.h"
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

static int drain__build_pollfds(struct pm_drain *d)
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
	d->iov = calloc(2 * d->nr_rings + 1, sizeof(*d->iov));
	if (!d->iov)
		return -ENOMEM;
	err = drain__build_pollfds(d);
	if (!err && d->stage_size)
		err = drain__stage(d);
	return err;
}

void pm_drain__ioctl_all(struct pm_drain *d, unsigned long req)
{
	size_t i;

	for (i = 0; i < d->nr_fds; i++)
		if (d->fds[i].fd >= 0)
			d->ops->ioctl(d->ops->arg, d->fds[i].fd, req, 0);
}

/* The fd stops writing into its ring: one reference less. */
static void drain__hang_up(struct pm_drain *d, struct pm_drain_fd *f)
{
	struct pm_drain_ring *r = &d->rings[f->ring];

	if (f->dead)
		return;
	f->dead = true;
	if (pm_ring__put(&r->ring) == 0 && r->state == PM_DRAIN_ACTIVE)
		r->state = PM_DRAIN_DRAINING;
}

int pm_drain__poll(struct pm_drain *d, int timeout_ms, bool *watched)
{
	size_t i, first = d->nr_fixed;
	bool changed = false;
	int n;

	*watched = false;
	/* Waiting for room in the stage, the rings' wake-ups cannot be served. */
	n = d->ops->poll(d->ops->arg, d->pfds, d->blocked ? first : d->nr_pfds, timeout_ms);
	if (n < 0)
		return n == -EINTR ? 0 : n;
	*watched = d->watch_fd >= 0 && (d->pfds[0].revents & POLLIN);
	if (d->stage && (d->pfds[first - 1].revents & POLLIN))
		pm_stage__clear_room(d->stage);
	if (d->blocked)
		return 0;
	for (i = first; i < d->nr_pfds; i++) {
		if (!(d->pfds[i].revents & (POLLHUP | POLLERR | POLLNVAL)))
			continue;
		drain__hang_up(d, &d->fds[d->pfd_fd[i]]);
		changed = true;
	}
	return changed ? drain__build_pollfds(d) : 0;
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

static void drain__retire(struct pm_drain *d, size_t idx)
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

/*
 * Linux leaks PERF_RECORD_MISC_MMAP_BUILD_ID from a session with
 * attr.build_id (another perf, another pmrec) into the MMAP2 records of the
 * others, whose device and inode then read as a bogus build id.  Without
 * attr.build_id the flag cannot be ours: clear it.
 */
static void mmap2__repair(struct perf_event_header *h, bool build_ids_asked)
{
	if (!build_ids_asked)
		h->misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
}

/* Whole records in buf: MMAP2 flags repaired, files noted for BUILD_ID. */
static void drain__repair_mmaps(struct pm_drain *d, unsigned char *buf, size_t len)
{
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header *h = (void *)(buf + off);

		if (h->size < sizeof(*h) || h->size > len - off)
			break;
		if (h->type == PERF_RECORD_MMAP2) {
			mmap2__repair(h, d->build_id_mmap);
			/* Out of memory, the list is only shorter: never a wrong id. */
			if (d->build_ids)
				pm_build_ids__add_event(d->build_ids, h);
		}
		off += h->size;
	}
}

/* The files that MMAP2 records in the first len pending bytes of a ring name. */
static void drain__note_mmaps(struct pm_drain *d, struct pm_drain_ring *r, uint64_t len)
{
	struct pm_span s = r->span;
	const struct perf_event_header *h;
	uint64_t pos = s.start;

	s.end = s.start + len;
	while (pm_ring__next(&r->ring, &s, &pos, &h) > 0)
		if (h->type == PERF_RECORD_MMAP2)
			pm_build_ids__add_event(d->build_ids, h);
}

/* The MMAP2 and EXIT records in the first len pending bytes of a ring, for the JIT maps' copy. */
static void drain__note_jit(struct pm_drain *d, struct pm_drain_ring *r, uint64_t len)
{
	struct pm_span s = r->span;
	const struct perf_event_header *h;
	uint64_t pos = s.start;

	s.end = s.start + len;
	while (pm_ring__next(&r->ring, &s, &pos, &h) > 0)
		if (h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_EXIT)
			pm_jitcap__event(d->jitcap, h);
}

/*
 * A span with MMAP2 records to repair cannot be fixed in the ring, whose
 * data pages the kernel maps read-only: it is written from a copy instead.
 * That happens only while another session asks for build ids; all other
 * spans go out straight from the ring.
 */
static int drain__copy_span(struct pm_drain_ring *r, uint64_t len)
{
	int i;

	r->copy.len = 0;
	for (i = 0; i < r->span.iovcnt; i++)
		if (pm_buf__append(&r->copy, r->span.iov[i].iov_base, r->span.iov[i].iov_len))
			return -ENOMEM;
	r->span.iov[0] = (struct iovec){ .iov_base = r->copy.data, .iov_len = len };
	r->span.iovcnt = 1;
	return 0;
}

static void drain__note_times(struct pm_drain_stats *st, uint64_t first, uint64_t last)
{
	if (first && (!st->first_time || first < st->first_time))
		st->first_time = first;
	if (last > st->last_time)
		st->last_time = last;
}

/*
 * Scans one ring's peeked span of *len bytes; *len becomes the bytes to
 * write, *samples their samples.
 */
static int drain__scan_ring(struct pm_drain *d, struct pm_drain_ring *r, uint64_t *len,
			    uint64_t *samples)
{
	struct pm_ring_scan sc;

	if (pm_ring__scan(&r->ring, &r->span, d->time_off, &sc)) {
		/* Keep the valid prefix; the rest cannot be parsed by anyone. */
		d->stats.corrupt++;
		*len = sc.valid;
		if (r->span.iov[0].iov_len >= *len) {
			r->span.iov[0].iov_len = *len;
			r->span.iovcnt = *len ? 1 : 0;
		} else {
			r->span.iov[1].iov_len = *len - r->span.iov[0].iov_len;
		}
	}
	if (sc.mmap2_build_id && !d->build_id_mmap) {
		int err = drain__copy_span(r, *len);

		if (err)
			return err;
		drain__repair_mmaps(d, r->copy.data, *len);
	} else if (sc.mmap2 && d->build_ids) {
		drain__note_mmaps(d, r, *len);
	}
	if ((sc.mmap2 || sc.exits) && d->jitcap)
		drain__note_jit(d, r, *len);
	*samples = sc.samples;
	r->lost += sc.lost;
	d->stats.lost += sc.lost;
	drain__note_times(&d->stats, sc.first_time, sc.last_time);
	return 0;
}

/* The pass is out of the rings: the tails move. */
static void drain__release(struct pm_drain *d)
{
	size_t i;

	for (i = 0; i < d->nr_rings; i++) {
		struct pm_drain_ring *r = &d->rings[i];

		if (r->state != PM_DRAIN_RETIRED && r->span.end != r->ring.tail)
			pm_ring__release(&r->ring, &r->span);
	}
}

/* What the stage wrote or dropped since the last look, into stats. */
static void drain__sync_stage(struct pm_drain *d)
{
	struct pm_stage_stats st;

	pm_stage__stats(d->stage, &st);
	d->stats.samples += st.samples - d->staged.samples;
	d->stats.dropped_samples += st.dropped_samples - d->staged.dropped_samples;
	d->stats.dropped_bytes += st.dropped_bytes - d->staged.dropped_bytes;
	d->staged.samples = st.samples;
	d->staged.dropped_samples = st.dropped_samples;
	d->staged.dropped_bytes = st.dropped_bytes;
}

/* The gathered spans and a FINISHED_ROUND to the sink (or the stage), then the tails. */
static int drain__write(struct pm_drain *d, size_t nr_iov, uint64_t bytes, uint64_t samples)
{
	struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	int err;

	d->iov[nr_iov].iov_base = &round;
	d->iov[nr_iov++].iov_len = sizeof(round);
	if (d->stage) {
		/* The stage counts what it drops. */
		err = pm_stage__append(d->stage, d->iov, (int)nr_iov, samples);
		drain__sync_stage(d);
		if (err)
			return err;
		drain__release(d);
		return 0;
	}
	err = d->sink.writev(d->sink.arg, d->iov, (int)nr_iov);
	if (err) {
		/* The whole pass is dropped: the file ends at the last commit. */
		d->stats.dropped_samples += samples;
		d->stats.dropped_bytes += bytes;
		return err;
	}
	d->stats.samples += samples;
	drain__release(d);
	return d->sink.commit(d->sink.arg);
}

/* One head load per ring; the pending bytes of all. */
static uint64_t drain__peek(struct pm_drain *d)
{
	uint64_t pending = 0;
	size_t i;

	for (i = 0; i < d->nr_rings; i++) {
		struct pm_drain_ring *r = &d->rings[i];

		r->span.iovcnt = 0;
		r->span.start = r->span.end = r->ring.tail;
		if (r->state != PM_DRAIN_RETIRED)
			pending += pm_ring__peek(&r->ring, &r->span);
	}
	return pending;
}

int pm_drain__pass(struct pm_drain *d, bool *busy)
{
	size_t i, nr_iov = 0;
	uint64_t bytes = 0, samples = 0, pending;
	bool retire = false;
	int err;

	*busy = false;
	pending = drain__peek(d);
	/* All of it and its round, or nothing: a pass split across rounds breaks their order. */
	d->blocked = d->stage && pending &&
		     pm_stage__reserve(d->stage, pending + sizeof(struct perf_event_header)) == -ENOSPC;
	if (d->blocked)
		return 0;
	for (i = 0; i < d->nr_rings; i++) {
		struct pm_drain_ring *r = &d->rings[i];
		uint64_t len = r->span.end - r->span.start, n = 0;
		int j;

		if (r->state == PM_DRAIN_RETIRED)
			continue;
		if (len) {
			err = drain__scan_ring(d, r, &len, &n);
			if (err)
				return err;
		}
		if (!len) {
			retire |= r->state == PM_DRAIN_DRAINING;
			continue;
		}
		if (len > r->ring.size / 2)
			*busy = true;
		for (j = 0; j < r->span.iovcnt; j++)
			d->iov[nr_iov++] = r->span.iov[j];
		bytes += len;
		samples += n;
	}
	if (bytes) {
		err = drain__write(d, nr_iov, bytes, samples);
		if (err)
			return err;
	}
	if (retire)
		for (i = 0; i < d->nr_rings; i++) {
			struct pm_drain_ring *r = &d->rings[i];

			if (r->state == PM_DRAIN_DRAINING && r->span.start == r->span.end)
				drain__retire(d, i);
		}
	return 0;
}

bool pm_drain__all_retired(const struct pm_drain *d)
{
	size_t i;

	for (i = 0; i < d->nr_rings; i++)
		if (d->rings[i].state != PM_DRAIN_RETIRED)
			return false;
	return true;
}

bool pm_drain__all_hung_up(const struct pm_drain *d)
{
	size_t i;

	for (i = 0; i < d->nr_rings; i++)
		if (d->rings[i].ring.refcnt)
			return false;
	return true;
}

int pm_drain__loop(struct pm_drain *d, const struct pm_drain_driver *drv)
{
	bool busy = false, watched;
	int timeout, err;

	for (;;) {
		if (drv->expired(drv->arg, &timeout))
			return 0;
		if (!busy) {
			err = pm_drain__poll(d, timeout, &watched);
			if (err)
				return err;
			if (watched && drv->watched(drv->arg))
				return 0;
		}
		if (!d->overwrite) {
			err = pm_drain__pass(d, &busy);
			if (err)
				return err;
		}
		err = drv->tick(drv->arg);
		if (err)
			return err;
		if (d->overwrite ? pm_drain__all_hung_up(d) : pm_drain__all_retired(d))
			return 0;
	}
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

int pm_drain__flush(struct pm_drain *d)
{
	int err;

	if (!d->stage)
		return 0;
	err = pm_stage__flush(d->stage);
	drain__sync_stage(d);
	return err;
}

/* The stage has no room for a pass: the writer wakes room_fd when it has made some. */
static void drain__wait_room(struct pm_drain *d, int timeout_ms)
{
	struct pollfd p = { .fd = d->stage->room_fd, .events = POLLIN };

	if (d->ops->poll(d->ops->arg, &p, 1, timeout_ms) > 0)
		pm_stage__clear_room(d->stage);
}

int pm_drain__stop(struct pm_drain *d, bool (*cut)(void *arg), void *arg)
{
	bool busy;
	size_t i;
	int err, pass;

	pm_drain__ioctl_all(d, PERF_EVENT_IOC_DISABLE);
	for (i = 0; i < d->nr_rings; i++)
		if (d->rings[i].state == PM_DRAIN_ACTIVE)
			d->rings[i].state = PM_DRAIN_DRAINING;
	/* Each pass empties every ring; a second one retires the emptied rings. */
	for (pass = 0; pass < 64 && !pm_drain__all_retired(d); pass += !d->blocked) {
		if (d->blocked)
			drain__wait_room(d, 100);
		if (cut && cut(arg)) {
			for (i = 0; i < d->nr_rings; i++)
				if (d->rings[i].state != PM_DRAIN_RETIRED)
					d->stats.skipped_bytes += pm_ring__peek(&d->rings[i].ring,
										&d->rings[i].span);
			break;
		}
		err = pm_drain__pass(d, &busy);
		if (err)
			return err;
	}
	return pm_drain__flush(d);
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

/* Sum of PERF_FORMAT_LOST over the open fds, read now. */
static uint64_t drain__lost_now(struct pm_drain *d)
{
	uint64_t v[3], sum = 0;
	size_t i;

	for (i = 0; d->lost_format && i < d->nr_fds; i++)
		if (d->fds[i].fd >= 0 &&
		    d->ops->read(d->ops->arg, d->fds[i].fd, v, sizeof(v)) == sizeof(v))
			sum += v[2];
	return sum;
}

static void drain__pause(struct pm_drain *d, unsigned long pause)
{
	size_t i;

	for (i = 0; i < d->nr_rings; i++)
		if (d->rings[i].ring.ctl)
			d->ops->ioctl(d->ops->arg, d->rings[i].ring.fd, PERF_EVENT_IOC_PAUSE_OUTPUT,
				      pause);
}

/* Copies every backward ring's complete records out, paused only for the copy. */
static int drain__copy_rings(struct pm_drain *d, struct pm_buf *recs, uint64_t *dropped)
{
	uint64_t lost_before = drain__lost_now(d);
	size_t i;
	int err = 0;

	if (pm_snapshot__to(&d->snap, PM_SNAPSHOT_DATA_PENDING))
		return 0;
	drain__pause(d, 1);
	for (i = 0; i < d->nr_rings && !err; i++)
		if (d->rings[i].ring.ctl)
			err = pm_ring__read_backward(&d->rings[i].ring, recs);
	pm_snapshot__to(&d->snap, PM_SNAPSHOT_EMPTY);
	drain__pause(d, 0);
	pm_snapshot__to(&d->snap, PM_SNAPSHOT_RUNNING);
	/* In overwrite mode the kernel drops samples only while a ring is paused. */
	*dropped = drain__lost_now(d) - lost_before;
	return err;
}

/*
 * Counts the samples of a snapshot and their times, and drops the LOST
 * records the kernel wrote after pauses: those drops are counted from
 * PERF_FORMAT_LOST and reported once, in a LOST_SAMPLES record.
 */
static void drain__filter_snapshot(struct pm_drain *d, struct pm_buf *recs, uint64_t *samples)
{
	size_t off = 0, out = 0;

	*samples = 0;
	d->stats.first_time = d->stats.last_time = 0;
	while (off + sizeof(struct perf_event_header) <= recs->len) {
		struct perf_event_header *h = (void *)(recs->data + off);
		uint16_t size = h->size;
		uint64_t t;

		if (h->type == PERF_RECORD_MMAP2)
			mmap2__repair(h, d->build_id_mmap);
		if (h->type == PERF_RECORD_SAMPLE && d->time_off && size >= d->time_off + 8) {
			memcpy(&t, recs->data + off + d->time_off, sizeof(t));
			drain__note_times(&d->stats, t, t);
			(*samples)++;
		}
		if (h->type != PERF_RECORD_LOST) {
			memmove(recs->data + out, recs->data + off, size);
			out += size;
		}
		off += size;
	}
	recs->len = out;
}

int pm_drain__snapshot(struct pm_drain *d, struct pm_buf *out, uint64_t *samples,
		       uint64_t *dropped)
{
	int err;

	*dropped = 0;
	err = drain__copy_rings(d, out, dropped);
	drain__filter_snapshot(d, out, samples);
	return err;
}

void pm_drain__close(struct pm_drain *d)
{
	size_t i;

	pm_drain__ioctl_all(d, PERF_EVENT_IOC_DISABLE);
	for (i = 0; i < d->nr_rings; i++)
		if (d->rings[i].state != PM_DRAIN_RETIRED)
			drain__retire(d, i);
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
	free(d);
}

struct pm_drain_stats *pm_drain__stats(struct pm_drain *d)
{
	return &d->stats;
}

void pm_drain__count_snapshot(struct pm_drain *d, uint64_t samples, uint64_t dropped)
{
	d->stats.samples += samples;
	d->stats.lost += dropped;
}

void pm_drain__set_running(struct pm_drain *d)
{
	pm_snapshot__to(&d->snap, PM_SNAPSHOT_RUNNING);
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
