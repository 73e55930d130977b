/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SPEEDSCOPE_H
#define PMREC_SPEEDSCOPE_H

/*
 * A recording's samples in speedscope's file format (the JSON that its
 * file-format-schema.json describes): one sampled profile per thread and
 * event, named "comm tid", frames shared by every profile (name, and the
 * mapped file where known), and each thread's stacks in time order with
 * the time between them, so that speedscope's Time Order view shows when
 * each stack ran and where the thread was not sampled.
 *
 * Placement.  A sample of a time event (cpu-clock, task-clock: a period in
 * nanoseconds) stands for the period that ended at its time; one that would
 * start before its thread's previous one ended, or less than half a period
 * after (timer jitter), starts at that end instead, so every sample lasts
 * exactly its period (a thread's total is report's total for it) and lies
 * within half a period of its time.  The time between two samples is an
 * empty sample (speedscope draws nothing there and counts it in no frame),
 * and so is the time before a thread's first sample and after its last,
 * from and to the event's first and last: every profile of an event spans
 * the same time, and threads line up.  Samples of other events (a count,
 * not a time) follow each other in time order, each weighing its period
 * (unit "none"): speedscope then shows their order, not their times.
 *
 * Off-CPU time.  A recording with sched:sched_switch sampled on every
 * switch (record --off-cpu) gets the events report gives it: offcpu-time,
 * each span paired by offcpu.h placed from its switch-out to its switch-in
 * exactly, its stack the switch-out's under a frame "[off-CPU blocked]" or
 * "[off-CPU runnable]"; and with the wall option, wall-time, the clock
 * events' samples and those spans on one line per thread.
 *
 * Memory.  Consecutive samples of one thread with the same stack and no
 * gap are one run: one sample of the file, weighing their periods.  A run
 * is kept as three varints (stack, gap, length) in its thread's buffer
 * until the end, when the profiles are written one after the other.
 * Stacks are nodes of a tree of (caller, frame); frames are kept once by
 * name and file.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/file.h"
#include "symbols/naming.h"
#include "profile/profile.h"
#include "reader/reader.h"
#include "reader/rec_info.h"

struct pm_speedscope_opts {
	const char *name;		/* the file's "name": the input, as messages name it */
	const char *event;		/* only this event; NULL: every event */
	/* comms, pids, tids and cpus keep a sample only if it is shown (NULL: all). */
	const struct pm_profile_filter *filter;
	const uint64_t *time;		/* [start, end], inclusive; NULL: any time */
	bool wall;			/* the event wall-time (report --wall) */
};

struct pm_speedscope_stats {
	size_t profiles, frames;
	uint64_t samples;		/* exported */
	uint64_t runs;			/* samples merged with their thread's next */
	uint64_t bytes;			/* written */
};

struct pm_speedscope;

/* NULL and errno set (ENOMEM).  The options' strings and arrays must outlive it. */
struct pm_speedscope *pm_speedscope__new(struct pm_reader *r,
					  const struct pm_speedscope_opts *o);
void pm_speedscope__delete(struct pm_speedscope *s);
/* The pipeline's namer, set before the first record. */
void pm_speedscope__set_namer(struct pm_speedscope *s, struct pm_namer *n);
/* The document's name (the input's, once open); it must outlive s. */
void pm_speedscope__set_name(struct pm_speedscope *s, const char *name);
/* Whether the input has an event of this name (after the last record: a stream's too). */
bool pm_speedscope__has_event(struct pm_speedscope *s, const char *event);
/* A pm_consume_fn: ctx is the exporter.  0 or -ENOMEM. */
int pm_speedscope__record(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in);
/*
 * Writes the document through write (buffered), after the last record.
 * 0, -ENOMEM or the write's error.  st (may be NULL) gets the counts.
 */
int pm_speedscope__write(struct pm_speedscope *s, pm_write_fn *write, void *arg,
			 struct pm_speedscope_stats *st);

#endif
