/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_STATS_H
#define PMREC_STATS_H

/*
 * dump's closing counts: records per type, samples per event, samples lost,
 * first and last sample time.  Zero-initialize.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/emit.h"
#include "format/perf_data.h"
#include "reader/reader.h"
#include "reader/rec_info.h"

/* Types past perf's own are counted one by one up to this many. */
#define PM_STATS_MAX_OTHER 64

struct pm_stats {
	uint64_t records;
	uint64_t by_type[PERF_RECORD_HEADER_MAX];
	struct { uint32_t type; uint64_t n; } other[PM_STATS_MAX_OTHER];
	size_t nr_other;
	uint64_t other_rest;		/* types beyond the PM_STATS_MAX_OTHER first */
	uint64_t *by_evsel;		/* by pm_evsel.idx */
	size_t nr_by_evsel;
	uint64_t samples;
	/*
	 * The same drops are announced twice: by the kernel's LOST records
	 * while recording, and at the end by LOST_SAMPLES records from each
	 * event's PERF_FORMAT_LOST count (pmrec and perf both write both).
	 * The total is the LOST_SAMPLES sum when a file has any (perf report
	 * --stats shows that one), else the LOST sum (a killed recording).
	 */
	uint64_t lost_records;		/* summed PERF_RECORD_LOST.lost */
	uint64_t lost_samples;		/* summed PERF_RECORD_LOST_SAMPLES.lost */
	bool have_lost_samples;
	uint64_t first_time;
	uint64_t last_time;
	bool have_time;
};

/* The rare cases of pm_stats__count: losses, types past perf's own. */
void pm_stats__count_rare(struct pm_stats *st, const struct pm_record *rec,
			  const struct pm_rec_info *in);
/* Room for the count of event idx.  0 or -ENOMEM. */
int pm_stats__grow(struct pm_stats *st, size_t idx);

/* Counts a record; in is its pm_rec_info.  0 or -ENOMEM.  Inline: once per record. */
static inline int pm_stats__count(struct pm_stats *st, const struct pm_record *rec,
				  const struct pm_rec_info *in)
{
	uint32_t type = rec->header->type;
	size_t idx;

	st->records++;
	if (type < PERF_RECORD_HEADER_MAX)
		st->by_type[type]++;
	if (type >= PERF_RECORD_HEADER_MAX || type == PERF_RECORD_LOST ||
	    type == PERF_RECORD_LOST_SAMPLES)
		pm_stats__count_rare(st, rec, in);
	if (type != PERF_RECORD_SAMPLE)
		return 0;
	st->samples++;
	idx = (size_t)in->s.evsel->idx;
	if (idx >= st->nr_by_evsel && pm_stats__grow(st, idx))
		return -ENOMEM;
	st->by_evsel[idx]++;
	if (in->has_time) {
		if (!st->have_time || in->time < st->first_time)
			st->first_time = in->time;
		if (!st->have_time || in->time > st->last_time)
			st->last_time = in->time;
		st->have_time = true;
	}
	return 0;
}
/* pm_stats__count as a pipeline consumer (pipeline.h): ctx is the pm_stats. */
int pm_stats__consume(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in);

/* Samples lost, each drop counted once. */
static inline uint64_t pm_stats__lost(const struct pm_stats *st)
{
	return st->have_lost_samples ? st->lost_samples : st->lost_records;
}

/* Text: "KIND NAME VALUE" lines in columns; JSON: one STATS object. */
void pm_stats__print(const struct pm_stats *st, struct pm_emit *e, struct pm_reader *r);
void pm_stats__exit(struct pm_stats *st);

#endif
