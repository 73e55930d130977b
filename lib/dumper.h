/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DUMPER_H
#define PMREC_DUMPER_H

/*
 * The engine of `pmrec dump`: reads every record of an open reader, in file
 * order or in time order (perf's FINISHED_ROUND windows), feeds the symbol
 * tables, filters by type, CPU and pid, and prints each record, or counts
 * it, or folds its stack.  cmd/ sets the options, opens the input, and
 * words the warnings (callback) and errors (return values, reader error).
 *
 *	struct pm_dumper d = { .r = r, .queue_size = ... };
 *	pm_out__init(&d.em.out, 1, 1 << 20);
 *	err = pm_dumper__setup(&d);
 *	if (!err)
 *		err = pm_dumper__records(&d);
 *	pm_dumper__summary(&d);
 *	pm_out__flush(&d.em.out);
 *	pm_dumper__exit(&d);
 */
#include <stdbool.h>
#include <stdint.h>

#include "emit.h"
#include "folded.h"
#include "list.h"
#include "naming.h"
#include "print.h"
#include "rec_info.h"
#include "reader.h"
#include "stats.h"
#include "warning.h"

/* Which records are shown (all are tracked for symbols and time order).  Zero: all. */
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

enum pm_fold {
	PM_FOLD_NONE,
	PM_FOLD_COUNT,		/* weight: samples */
	PM_FOLD_PERIOD,		/* weight: summed period */
};

/*
 * Takes each record that passes the filter, in output order, instead of the
 * printer (report builds its profile so).  in is the record's pm_rec_info.
 * 0 or a negative errno, which stops the reading.  It runs on a thread of
 * its own, with the naming, while the reading thread reads, orders and
 * checks the records: it may call nothing of the reader's that reads the
 * input.
 */
typedef int pm_dumper_consume_fn(void *arg, const struct pm_record *rec,
				 const struct pm_rec_info *in);

struct dumper_pipe;

struct pm_dumper {
	/* Set by the caller. */
	struct pm_reader *r;
	struct pm_emit em;		/* em.out initialized by the caller */
	struct pm_dump_filter filter;	/* owned: freed by pm_dumper__exit */
	bool raw;
	bool stats_only;
	bool ordered;			/* time order (forced by symbols) */
	bool symbols;			/* name addresses */
	enum pm_fold fold;		/* needs symbols */
	struct pm_namer_opts naming;	/* unwinding, inlines, demangling */
	uint64_t queue_size;		/* bytes held for time order */
	pm_dumper_consume_fn *consume;	/* NULL: print */
	void *consume_arg;
	pm_warn_fn *warn;
	void *warn_arg;
	/* State. */
	struct pm_printer pr;
	struct pm_namer *namer;
	struct pm_folded *folded;
	struct pm_stats stats;
	bool warned_queue;
	struct dumper_pipe *pipe;	/* consume's thread, while records are read */
};

/* Symbol tables (from the input's BUILD_ID feature) and folding.  0 or -ENOMEM. */
int pm_dumper__setup(struct pm_dumper *d);
/*
 * Every record, up to the end or the first fault: 0 or a negative errno
 * (the reader's error tells where).  A malformed sample found when it
 * leaves the time-order queue does not keep the records queued with it
 * from going out; with consume, which runs on a thread of its own, it
 * does: consume gets the records before it, and its fault is the one
 * reported.  Stops early when the output fails.
 */
int pm_dumper__records(struct pm_dumper *d);
/* What closes the output: the folded stacks, else the stats (nothing with consume). */
void pm_dumper__summary(struct pm_dumper *d);
void pm_dumper__exit(struct pm_dumper *d);

/*
 * Pipe mode: reads the records that carry the attrs and features, up to
 * the first kernel record, so pm_header__print has them.
 */
int pm_dumper__scan_pipe_header(struct pm_reader *r);

#endif
