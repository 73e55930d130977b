/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_LIVE_H
#define PMREC_LIVE_H

/*
 * The live profile behind `pmrec top`: a drain sink (drain.h) that turns
 * each pass of the rings into the one profile model (profile.h) as it
 * comes, with no file in between, one profile per interval.
 *
 * This is the one place where the recording engine meets the reader: the
 * reader's decoder (reader.h, rec_info.h) and the namer (naming.h) want a
 * reader that knows the events, so pm_live__new writes the events'
 * description (a pipe-mode prologue: header, HEADER_ATTRs with the sample
 * ids, the OS release) into a memory file and opens a reader on it; the
 * records of the rings never go through it: each pass is decoded in place,
 * straight from the mappings.  tests/t0910-sources.sh keeps the boundary:
 * no record-side file includes a reader header, and live.[ch] are the only
 * lib/ files that include both drain.h and one.
 *
 * Memory is bounded by what one interval holds (its distinct names,
 * contexts and stacks) and the processes alive, not by the time running:
 * the namer is made anew after many processes exited; each interval starts a
 * new profile, empty or, with decay, holding the previous one's stacks
 * scaled by 7/8 (as perf top's histograms decay), those scaled below one
 * sample dropped.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/drain.h"
#include "record/event.h"
#include "symbols/naming.h"
#include "profile/profile.h"
#include "base/warning.h"

struct pm_live;

struct pm_live_config {
	const struct pm_evlist *evlist;	/* opened: attrs and sample ids final */
	bool callchain;			/* name whole stacks, not the ip alone */
	bool decay;			/* each interval starts from the last, scaled by 7/8 */
	bool addrs;			/* a frame per address, as pprof wants (report_sink.h) */
	struct pm_namer_opts naming;
	/*
	 * Exited processes the namer may remember before it is made anew
	 * from /proc at the end of an interval (0: 4096), so that its memory
	 * follows the processes alive, not all those ever seen.
	 */
	size_t max_exits;
	pm_warn_fn *warn;		/* what naming has to say; may be NULL */
	void *warn_arg;
};

/* What an interval took in and what it missed. */
struct pm_live_counts {
	uint64_t samples;		/* read from the rings and added to the profile */
	uint64_t lost;			/* dropped by the kernel (its LOST records) */
	uint64_t unprocessed;		/* read but not added: malformed, or no memory */
	uint64_t first_time, last_time;	/* of the samples added (perf's clock); 0: none */
	uint64_t renewals;		/* namers made anew at its start (see max_exits) */
};

/* cfg is copied; its evlist is read by pm_live__start.  NULL and errno on failure. */
struct pm_live *pm_live__new(const struct pm_live_config *cfg);
void pm_live__delete(struct pm_live *l);

/*
 * The sink to give pm_drain__new: it takes in every pass whole and never
 * fails it (a sample it cannot take counts as unprocessed), so the rings
 * are released as soon as the pass is read.
 */
struct pm_drain_sink pm_live__sink(struct pm_live *l);

/*
 * The events are open (their sample ids known): the decoder, the namer
 * and the first interval.  Samples before it count as unprocessed.  0 or a
 * negative errno.
 */
int pm_live__start(struct pm_live *l);

/*
 * Describes the processes that run already (COMMs and executable
 * mappings from /proc) to the namer: every process with tids NULL, else
 * the processes of these threads.  0 or a negative errno.
 */
int pm_live__synthesize(struct pm_live *l, const pid_t *tids, size_t nr);

/*
 * Ends the interval: *p is its profile (valid until the next call), *c
 * its counts; the next interval starts.  0 or a negative errno.
 */
int pm_live__interval(struct pm_live *l, struct pm_profile **p, struct pm_live_counts *c);

/* The reader of the events' description: their attrs, for pm_pprof_opts__from_input. */
struct pm_reader *pm_live__reader(struct pm_live *l);

/* Forgets the decayed past: the interval under way starts empty. */
int pm_live__zero(struct pm_live *l);

#endif
