/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_TIMELINE_H
#define PMREC_TIMELINE_H

/*
 * When a profile's samples were taken: their weight per stack node and
 * time column, for the flame graph's time strip.  The profile keeps no
 * per-sample data; a timeline watches the samples go in
 * (pm_profile__observe) and keeps, per column and stack node, the samples
 * and period that fell there, so its memory is bounded by columns times
 * the nodes active in each, not by the samples.
 *
 * Columns are 2^shift nanoseconds wide, counted from the first sample's
 * time (the origin; a sample before it, an off-CPU span that started
 * earlier, gets a negative column).  The recording's length is not known
 * until its end: the timeline starts at 1 ns columns and, when the samples
 * would span more than max_columns, doubles the width, merging columns
 * pairwise.  So it ends with at most max_columns columns and more than half
 * of them between its first and last sample, and every column's edges are
 * whole nanoseconds: a column range is exactly `report --time` of
 * [start of the first, start of the one after the last - 1 ns].
 */
#include <stdint.h>
#include <stddef.h>

#define PM_TIMELINE_COLUMNS 256		/* the default */
#define PM_TIMELINE_COLUMNS_MIN 8
#define PM_TIMELINE_COLUMNS_MAX 4096

struct pm_timeline;

struct pm_timeline_entry {
	int64_t column;
	uint32_t node;			/* the profile's stack node */
	uint64_t samples, period;
};

/* NULL (ENOMEM, or EINVAL for a count out of bounds). */
struct pm_timeline *pm_timeline__new(uint32_t max_columns);
void pm_timeline__delete(struct pm_timeline *t);
/* A pm_profile_observe_fn: arg is the timeline.  ENOMEM sticks (pm_timeline__error). */
void pm_timeline__observe(void *arg, uint32_t node, uint64_t time, uint64_t samples,
			  uint64_t period);
/* 0, or -ENOMEM when a sample could not be kept. */
int pm_timeline__error(const struct pm_timeline *t);

/* Entries (one per column and node with samples), in no order; 0 before any sample. */
size_t pm_timeline__nr_entries(const struct pm_timeline *t);
void pm_timeline__entry(const struct pm_timeline *t, size_t i, struct pm_timeline_entry *e);
/* The width of a column in ns (1 << shift); its start, in the samples' clock, ns. */
uint64_t pm_timeline__column_width(const struct pm_timeline *t);
uint64_t pm_timeline__column_start(const struct pm_timeline *t, int64_t column);

#endif
