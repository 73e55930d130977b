// SPDX-License-Identifier: GPL-2.0
/*
 * A pass: every ring's pending records and a FINISHED_ROUND out in one
 * write (or into the stage), then the tails released; and what runs
 * passes: the poll loop while recording, the last passes at the stop.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "base/buf.h"
#include "format/perf_data.h"
#include "record/buildid.h"
#include "record/drain_int.h"
#include "record/jitcap.h"
#include "record/ring.h"
#include "record/target.h"
#include "record/stage.h"

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
 * Linux leaks PERF_RECORD_MISC_MMAP_BUILD_ID from a session with
 * attr.build_id (another perf, another pmrec) into the MMAP2 records of the
 * others, whose device and inode then read as a bogus build id.  Without
 * attr.build_id the flag cannot be ours: clear it.
 */
void mmap2__repair(struct perf_event_header *h, bool build_ids_asked)
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

void drain__note_times(struct pm_drain_stats *st, uint64_t first, uint64_t last)
{
	if (first && (!st->first_time || first < st->first_time))
		st->first_time = first;
	if (last > st->last_time)
		st->last_time = last;
}

/*
 * The first len bytes of the span but the samples outside the ring's
 * window, into the ring's copy, which the span then points at; *len
 * becomes the bytes kept.  Only the passes around the rounds of enables
 * and disables meet such samples.
 */
static int drain__copy_window(struct pm_drain_ring *r, uint64_t *len)
{
	struct pm_span s = r->span;
	const struct perf_event_header *h;
	uint64_t pos = s.start, at = pos;
	int more;

	s.end = s.start + *len;
	r->copy.len = 0;
	while ((more = pm_ring__next(&r->ring, &s, &pos, &h)) > 0) {
		if ((h->type != PERF_RECORD_SAMPLE || pm_ring_window__holds(&r->window, at)) &&
		    pm_buf__append(&r->copy, h, h->size))
			return -ENOMEM;
		at = pos;
	}
	if (more < 0)
		return more;
	*len = r->copy.len;
	r->span.iov[0] = (struct iovec){ .iov_base = r->copy.data, .iov_len = *len };
	r->span.iovcnt = *len ? 1 : 0;
	return 0;
}

/*
 * Scans one ring's peeked span of *len bytes; *len becomes the bytes to
 * write, *samples their samples.
 */
static int drain__scan_ring(struct pm_drain *d, struct pm_drain_ring *r, uint64_t *len,
			    uint64_t *samples)
{
	struct pm_ring_scan sc;
	uint64_t scanned;
	int err;

	if (pm_ring__scan(&r->ring, &r->span, d->time_off, &r->window, &sc)) {
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
	/* The notes below read the ring itself, where every record still is. */
	scanned = *len;
	if (sc.outside && (err = drain__copy_window(r, len)))
		return err;
	if (sc.mmap2_build_id && !d->build_id_mmap) {
		if (!sc.outside && (err = drain__copy_span(r, *len)))
			return err;
		drain__repair_mmaps(d, r->copy.data, *len);
	} else if (sc.mmap2 && d->build_ids) {
		drain__note_mmaps(d, r, scanned);
	}
	if ((sc.mmap2 || sc.exits) && d->jitcap)
		drain__note_jit(d, r, scanned);
	*samples = sc.samples;
	r->lost += sc.lost;
	d->stats.lost += sc.lost;
	d->stats.outside += sc.outside;
	drain__note_times(&d->stats, sc.first_time, sc.last_time);
	return 0;
}

/* The draining rings this pass found empty retire, all in one round. */
static void drain__retire_emptied(struct pm_drain *d)
{
	bool *which = calloc(d->nr_rings, sizeof(*which));
	size_t i;

	for (i = 0; i < d->nr_rings; i++) {
		struct pm_drain_ring *r = &d->rings[i];
		bool emptied = r->state == PM_DRAIN_DRAINING && r->span.start == r->span.end;

		if (which)
			which[i] = emptied;
		else if (emptied)
			drain__retire(d, i);	/* out of memory: from wherever the thread is */
	}
	if (which)
		drain__retire_all(d, which);
	free(which);
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
void drain__sync_stage(struct pm_drain *d)
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

/*
 * The time of the command's exec (a COMM record flagged EXEC) or, with
 * exit, of the last EXIT of one of its threads in ring r's peeked span; 0
 * if there is none.
 */
static uint64_t drain__task_time(struct pm_drain *d, struct pm_drain_ring *r, bool exit)
{
	const struct perf_event_header *h;
	uint64_t pos = r->span.start, t, last = 0;
	uint32_t pid, tid;

	while (pm_ring__next(&r->ring, &r->span, &pos, &h) > 0) {
		const unsigned char *rec = (const unsigned char *)h;

		if (exit ? h->type != PERF_RECORD_EXIT || h->size < 32 + d->id_time_end :
			   h->type != PERF_RECORD_COMM || !(h->misc & PERF_RECORD_MISC_COMM_EXEC) ||
			   h->size < 16 + d->id_time_end)
			continue;
		/* EXIT: pid, ppid, tid, ptid, time, the trailer; COMM: pid, tid, the name, the trailer. */
		memcpy(&pid, rec + 8, sizeof(pid));
		memcpy(&tid, rec + (exit ? 16 : 12), sizeof(tid));
		if (pid != (uint32_t)d->task || (!exit && tid != pid))
			continue;
		/*
		 * The trailer's time, as perf orders and shows the record: an
		 * EXIT's own is read after it, once its ring has room.
		 */
		memcpy(&t, rec + h->size - d->id_time_end, sizeof(t));
		if (!exit)
			return t;
		last = t > last ? t : last;
	}
	return last;
}

/*
 * Where ring r's first sample timed at t or later (past t, with after)
 * is, between from and to within its peeked span: to if there is none.
 */
static uint64_t drain__sample_at(struct pm_drain *d, struct pm_drain_ring *r, uint64_t from,
				 uint64_t to, uint64_t t, bool after)
{
	struct pm_span s = r->span;
	const struct perf_event_header *h;
	uint64_t pos, at, len = s.end - s.start;

	/* From a position consumed already, the span's start; to one past it, its end. */
	pos = from - s.start > len ? s.start : from;
	if (to - s.start <= len)
		s.end = to;
	for (at = pos; pm_ring__next(&r->ring, &s, &pos, &h) > 0; at = pos) {
		uint64_t ts;

		if (h->type != PERF_RECORD_SAMPLE || h->size < d->time_off + sizeof(ts))
			continue;
		memcpy(&ts, (const unsigned char *)h + d->time_off, sizeof(ts));
		if (after ? ts > t : ts >= t)
			return at;
	}
	return s.end;
}

/*
 * The time of the command's exec, or of its last thread's EXIT, in the
 * rings' peeked spans; 0 if none.
 */
static uint64_t drain__find_task(struct pm_drain *d, bool exit)
{
	uint64_t t = 0, u;
	size_t i;

	for (i = 0; i < d->nr_rings && (exit || !t); i++) {
		if (d->rings[i].state == PM_DRAIN_RETIRED)
			continue;
		u = drain__task_time(d, &d->rings[i], exit);
		t = u > t ? u : t;
	}
	return t;
}

/*
 * The windows open at the command's exec, once a pass finds it.  Every
 * later pass leaves out what a ring starts with timed before it: a CPU
 * can publish such a sample after the pass that found the exec peeked.
 */
static void drain__bound_exec(struct pm_drain *d)
{
	uint64_t t = d->exec_time ? d->exec_time : drain__find_task(d, false);
	size_t i;

	d->exec_time = t;
	d->task_looks = t ? 0 : d->task_looks - 1;
	for (i = 0; t && i < d->nr_rings; i++) {
		struct pm_drain_ring *r = &d->rings[i];

		if (r->state != PM_DRAIN_RETIRED)
			r->window.from = drain__sample_at(d, r, r->window.from, r->span.end, t, false);
	}
}

/*
 * The windows close at the command's end, its last thread's EXIT, before
 * the pass that finds it writes anything: every sample after it, in this
 * pass or a later one, is left out.
 */
static void drain__bound_exit(struct pm_drain *d)
{
	uint64_t t = drain__find_task(d, true);
	size_t i;

	for (i = 0; t && i < d->nr_rings; i++) {
		struct pm_drain_ring *r = &d->rings[i];
		uint64_t to = r->window.ended ? r->window.to : r->span.end;

		if (r->state == PM_DRAIN_RETIRED)
			continue;
		r->window.to = drain__sample_at(d, r, r->window.from, to, t, true);
		r->window.ended = true;
	}
}

static int drain__task_state(struct pm_drain *d)
{
	return d->ops->task_state ? d->ops->task_state(d->ops->arg, d->task) : PM_TASK_RUNS;
}

/* Every ring under half full: a pass can wait without losing samples. */
static bool drain__room_to_wait(const struct pm_drain *d)
{
	size_t i;

	for (i = 0; i < d->nr_rings; i++) {
		const struct pm_drain_ring *r = &d->rings[i];

		if (r->state != PM_DRAIN_RETIRED && r->span.end - r->span.start > r->ring.size / 2)
			return false;
	}
	return true;
}

/*
 * Where the command is in its exit, asked after the peek; false when the
 * pass must wait.  A sample is timed before the kernel publishes it, so
 * while the command runs every sample peeked is older than its end.  Once
 * it has ended, every EXIT of its threads is published: peeked again, the
 * rings hold the last, and the windows close there.  While its main thread
 * exits, a sample timed after the end can be in one ring before the EXIT
 * is in another (the exiting CPU between timing and publishing it, or the
 * rings peeked one after the other): the pass waits, unless a ring is half
 * full (an exit that unmaps much memory first is long, and lost samples
 * are worse).  A main thread ended before the others is not the end.
 */
static bool drain__at_exit(struct pm_drain *d, uint64_t *pending)
{
	switch (drain__task_state(d)) {
	case PM_TASK_ENDED:
		*pending = drain__peek(d);
		drain__bound_exit(d);
		d->exit_bounded = true;
		return true;
	case PM_TASK_EXITING:
		return !drain__room_to_wait(d);
	default:
		return true;
	}
}

int pm_drain__pass(struct pm_drain *d, bool *busy)
{
	size_t i, nr_iov = 0;
	uint64_t bytes = 0, samples = 0, pending, read = 0;
	bool retire = false;
	int err;

	*busy = false;
	pending = drain__peek(d);
	if (pending && d->task && !d->exit_bounded && d->windowed && !drain__at_exit(d, &pending))
		return 0;
	if (pending && (d->task_looks || d->exec_time) && d->windowed)
		drain__bound_exec(d);
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
			read += r->span.end - r->span.start;
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
	} else if (read) {
		/* Samples outside the windows only: nothing to write, the tails move. */
		drain__release(d);
	}
	if (retire)
		drain__retire_emptied(d);
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

/* Each ring's window from (or, closing, up to) where the kernel writes next. */
static void drain__mark_windows(struct pm_drain *d, bool closing)
{
	size_t i;

	for (i = 0; i < d->nr_rings; i++) {
		struct pm_drain_ring *r = &d->rings[i];

		if (r->state == PM_DRAIN_RETIRED || !r->ring.ctl)
			continue;
		if (closing && r->window.ended)
			continue;	/* closed at the command's exit already */
		if (closing)
			r->window.to = pm_ring__head(&r->ring), r->window.ended = true;
		else
			r->window = (struct pm_ring_window){ .from = pm_ring__head(&r->ring) };
	}
}

void pm_drain__open_window(struct pm_drain *d)
{
	d->windowed = true;
	drain__mark_windows(d, false);
}

/* Passes with data that look for the command's exec: the first has it but for a race. */
#define TASK_LOOKS 4

void pm_drain__window_task(struct pm_drain *d, pid_t pid)
{
	if (!d->time_off || !d->id_time_end)
		return;
	d->task = pid;
	d->task_looks = TASK_LOOKS;
}

int pm_drain__stop(struct pm_drain *d, bool (*cut)(void *arg), void *arg)
{
	bool busy;
	size_t i;
	int err, pass;

	if (d->windowed)
		drain__mark_windows(d, true);
	pm_drain__ioctl_all(d, PERF_EVENT_IOC_DISABLE);
	/* A command still running (stopped by a signal or a deadline) has no end to bound. */
	if (d->windowed && d->task && !d->exit_bounded && drain__task_state(d) == PM_TASK_ENDED) {
		drain__peek(d);
		drain__bound_exit(d);
	}
	d->exit_bounded = true;	/* the rings hold all there is: no pass waits for more */
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
