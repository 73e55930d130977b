/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PIPELINE_H
#define PMREC_PIPELINE_H

/*
 * The reading pipeline every analysis command stands on: the reader, the
 * time-order queue (perf's FINISHED_ROUND windows), the address spaces and
 * names, a filter, then the consumers, in order, for every record that
 * passes.  A consumer is a value (a callback and its context): dump's
 * printer, dump's and report's stats, report's profile sink.  With
 * `threaded`, once the records come out of compressed data, the consumers
 * run on a thread of their own while the calling thread inflates, orders
 * and checks the records.
 *
 *	struct pm_consumer c[] = { { pm_stats__consume, &stats }, { sink_fn, &sink } };
 *	struct pm_pipeline p = { .r = r, .names = true, .queue_size = ...,
 *				 .consumers = c, .nr_consumers = 2 };
 *	err = pm_pipeline__setup(&p);
 *	if (!err)
 *		err = pm_pipeline__records(&p);
 *	pm_pipeline__end(&p);
 *	pm_pipeline__exit(&p);
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/list.h"
#include "symbols/naming.h"
#include "reader/rec_info.h"
#include "reader/reader.h"
#include "base/warning.h"

/* Which records reach the consumers (all feed the names and the order).  Zero: all. */
struct pm_dump_filter {
	bool by_type;
	bool type_unknown;	/* also the types without a name */
	uint64_t types[4];	/* bitmap of the types < 256 */
	struct pm_id_list cpus;	/* empty: any */
	struct pm_id_list pids;
};

/*
 * Adds comma-separated record types to f: perf's names (case-insensitive),
 * numbers < 256, or "unknown".  0, -EINVAL or -ENOMEM.
 */
int pm_dump_filter__parse_types(struct pm_dump_filter *f, const char *arg);
void pm_dump_filter__exit(struct pm_dump_filter *f);

/* A consumer's answer that stops the reading without an error (its output failed). */
#define PM_CONSUME_STOP 1

/*
 * Takes a record that passed the filter, in output order; in is its
 * pm_rec_info.  0, PM_CONSUME_STOP, or a negative errno, which stops the
 * reading (the consumers after it do not get that record).  On the
 * consumers' thread it may call nothing of the reader's that reads the
 * input.
 */
typedef int pm_consume_fn(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in);

struct pm_consumer {
	pm_consume_fn *record;
	void *ctx;
};

struct pipeline_thread;

struct pm_pipeline {
	/* Set by the caller. */
	struct pm_reader *r;
	const struct pm_dump_filter *filter;	/* NULL: every record */
	bool ordered;			/* time order (forced by names) */
	bool names;			/* address spaces followed: namer set by setup */
	bool kallsyms;			/* names printed: kallsyms read ahead */
	struct pm_namer_opts naming;	/* unwinding, inlines, demangling */
	uint64_t queue_size;		/* bytes held for time order */
	bool threaded;			/* consumers on their own thread when inflating (needs names) */
	const struct pm_consumer *consumers;
	size_t nr_consumers;
	pm_warn_fn *warn;		/* from both threads, one at a time */
	void *warn_arg;
	/* State. */
	struct pm_namer *namer;
	bool warned_queue;
	bool stopped;			/* a consumer said PM_CONSUME_STOP */
	struct pipeline_thread *thread;	/* the consumers', while records are read */
};

/* The namer, with the input's build ids, if names are asked for.  0 or a negative errno. */
int pm_pipeline__setup(struct pm_pipeline *p);
/*
 * Every record, up to the end or the first fault: 0 or a negative errno
 * (the reader's error tells where).  A malformed sample found when it
 * leaves the time-order queue does not keep the records queued with it
 * from going out; on the consumers' thread it does: they get the records
 * before it, and its fault is the one reported.
 */
int pm_pipeline__records(struct pm_pipeline *p);
/* The warnings that close a reading (the namer overloaded). */
void pm_pipeline__end(struct pm_pipeline *p);
void pm_pipeline__exit(struct pm_pipeline *p);

#endif
