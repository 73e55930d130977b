// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots of the backward rings (overwrite mode): their records copied
 * out while paused, then filtered and counted.
 */
#include <string.h>

#include "base/buf.h"
#include "format/perf_data.h"
#include "record/drain_int.h"
#include "record/ring.h"
#include "record/snapshot.h"

/*
 * Sum of PERF_FORMAT_LOST over the open fds, read now: each from its
 * ring's CPU, where reading an enabled event needs no cross-CPU call.
 */
static uint64_t drain__lost_now(struct pm_drain *d)
{
	uint64_t v[3], sum = 0;
	size_t i;

	for (i = 0; d->lost_format && i < d->nr_fds; i++) {
		if (d->fds[i].fd < 0)
			continue;
		drain__pin(d, d->rings[d->fds[i].ring].cpu);
		if (d->ops->read(d->ops->arg, d->fds[i].fd, v, sizeof(v)) == sizeof(v))
			sum += v[2];
	}
	drain__unpin(d);
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

void pm_drain__count_snapshot(struct pm_drain *d, uint64_t samples, uint64_t dropped)
{
	d->stats.samples += samples;
	d->stats.lost += dropped;
}

void pm_drain__set_running(struct pm_drain *d)
{
	pm_snapshot__to(&d->snap, PM_SNAPSHOT_RUNNING);
}
