/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SPEEDSCOPE_H
#define PMREC_SPEEDSCOPE_H

/*
 * A recording's samples in speedscope's file format (the JSON that its
 * file-format-schema.json describes): one evented profile per thread and
 * event, named "comm tid", frames shared by every profile (name, and the
 * mapped file where known), and each thread's stacks in time order at the
 * times they ran, so that speedscope's Time Order view shows when each
 * stack ran and where the thread was not sampled.
 *
 * Placement.  A sample of a time event (cpu-clock, task-clock: a period in
 * nanoseconds) stands for the period that ended at its time; a sample that
 * would start before its thread's previous one ended starts at that end
 * instead, so every sample lasts exactly its period and a thread's total
 * is report's total for it.  Samples of other events (a count, not a time)
 * follow each other in time order, each as long as its period (unit
 * "none"): speedscope then shows their order and weight, not their times.
 * Every profile of an event has the same start, so threads line up.
 *
 * Memory.  Consecutive samples of one thread with the same stack and no
 * gap are one run; a run is kept as three varints (stack, gap, length) in
 * its thread's buffer until the end, when the profiles are written one
 * after the other.  Stacks are nodes of a tree of (caller, frame); frames
 * are kept once by name and file.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file.h"
#include "naming.h"
#include "profile.h"
#include "reader.h"
#include "rec_info.h"

struct pm_speedscope_opts {
	const char *name;		/* the file's "name": the input, as messages name it */
	const char *event;		/* only this event; NULL: every event */
	/* comms, pids, tids and cpus keep a sample only if it is shown (NULL: all). */
	const struct pm_profile_filter *filter;
	const uint64_t *time;		/* [start, end], inclusive; NULL: any time */
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
