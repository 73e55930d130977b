/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_REPORT_OFFCPU_H
#define PMREC_REPORT_OFFCPU_H

/*
 * pmrec report's off-CPU analysis (lib/profile/offcpu_sink.c): on when the
 * recording has sched:sched_switch sampled on every switch (record
 * --off-cpu), and --wall, the wall-clock view (an argp child of report's).
 */
#include <argp.h>
#include <stdbool.h>

#include "profile/offcpu_sink.h"
#include "reader/pipeline.h"
#include "reader/reader.h"
#include "profile/report_sink.h"

struct report_offcpu {
	bool wall;
	bool decided;			/* at the first sample: a stream's events come first */
	bool on;			/* the recording has the switches */
	bool switch_records;		/* an event has attr.context_switch */
	struct pm_report_sink *k;
	struct pm_reader *r;
	struct pm_offcpu_sink sink;
	int err;			/* of the sink's init */
};

/* Parses --wall into the bool that is the child's input. */
extern const struct argp report_offcpu_argp;

/*
 * After the report sink's init: *c, the analysis's consumer, to go before
 * the sink's.  It starts at the first sample, if the recording has what it
 * needs (a stream's events are known by then).  0.
 */
int report_offcpu__init(struct report_offcpu *o, bool wall, struct pm_report_sink *k,
			struct pm_reader *r, struct pm_consumer *c);
/* After the last record: the threads still off CPU.  0 or a negative errno. */
int report_offcpu__finish(struct report_offcpu *o);
/* Tells on stderr what the analysis could not charge, or why it did not run. */
void report_offcpu__notes(const struct report_offcpu *o, const char *name);
void report_offcpu__exit(struct report_offcpu *o);

#endif
