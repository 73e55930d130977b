/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_OFFCPU_SINK_H
#define PMREC_OFFCPU_SINK_H

/*
 * Off-CPU spans (offcpu.h) as profile samples: each charged span is a
 * sample of the synthesized event "offcpu-time" (perf's name), its period
 * the span's nanoseconds, its stack the switch-out's call chain named by
 * the report sink, its state blocked or runnable (the `state` sort key).
 * So every table, sort key, filter, call graph, flame graph and export
 * that reads the profile shows off-CPU time as it shows any event.
 *
 * With wall, the wall-clock view: an event "wall-time" that gets both the
 * off-CPU spans and the samples of the clock events (cpu-clock,
 * task-clock), whose periods are nanoseconds on CPU, so that a thread's
 * total there is its life.
 *
 * Plug it into the pipeline before the report sink (it redirects the clock
 * events' samples before the sink counts them):
 *	{ pm_offcpu_sink__record, &off }, { pm_report_sink__record, &sink }
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/offcpu.h"
#include "profile/profile.h"
#include "reader/reader.h"
#include "reader/rec_info.h"
#include "profile/report_sink.h"

#define PM_OFFCPU_SINK_AT_END 8

/* A switch-out's frame ids, kept until its span closes. */
struct pm_offcpu_stack {
	uint32_t *ids;
	uint32_t nr, cap;
	uint32_t next_free;	/* index + 1 in the free list; 0: end */
};

struct pm_offcpu_sink {
	struct pm_offcpu pair;
	struct pm_report_sink *k;	/* the caller's: its namer names the stacks */
	struct pm_profile *profile;
	bool wall;
	uint32_t event;			/* offcpu-time */
	uint32_t wall_event;		/* wall-time, with wall */
	size_t nr_redirected;		/* evsels looked at for the wall view */
	struct pm_offcpu_stack *stacks;
	size_t nr_stacks, cap_stacks;
	uint32_t free_stack;		/* index + 1; 0: none */
	bool clock_seen;		/* a clock event's sample, with wall */
	/* The first threads still off CPU at the end, for the note that flags them. */
	int32_t at_end[PM_OFFCPU_SINK_AT_END];
	size_t nr_at_end;
	int err;			/* of the last span added */
};

/* Registers the events with k's profile.  0 or -ENOMEM. */
int pm_offcpu_sink__init(struct pm_offcpu_sink *o, struct pm_report_sink *k, bool wall);
void pm_offcpu_sink__exit(struct pm_offcpu_sink *o);
/* The threads still off CPU at the end (charged and flagged): after the last record. */
int pm_offcpu_sink__finish(struct pm_offcpu_sink *o);
/* A pm_consume_fn: arg is the pm_offcpu_sink. */
int pm_offcpu_sink__record(void *arg, const struct pm_record *rec, const struct pm_rec_info *in);

/* Whether the evsel counts time in nanoseconds (cpu-clock, task-clock). */
bool pm_offcpu_sink__is_clock(const struct pm_evsel *e);

#endif
