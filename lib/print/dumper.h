/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DUMPER_H
#define PMREC_DUMPER_H

/*
 * The printer of `pmrec dump`: two consumers of the reading pipeline
 * (pipeline.h), the stats and the printer, which prints each record that
 * passes the filter by type, CPU and pid, or folds its stack, or only lets
 * the stats count it.  cmd/ sets the options, opens the input, and
 * words the warnings (callback) and errors (return values, reader error).
 *
 *	struct pm_dumper d = { .r = r, .queue_size = ... };
 *	pm_out__init_fd(&d.em.out, 1, 1 << 20);
 *	err = pm_dumper__setup(&d);
 *	if (!err)
 *		err = pm_dumper__records(&d);
 *	pm_dumper__summary(&d);
 *	pm_out__flush(&d.em.out);
 *	pm_dumper__exit(&d);
 */
#include <stdbool.h>
#include <stdint.h>

#include "base/emit.h"
#include "export/folded.h"
#include "symbols/naming.h"
#include "reader/pipeline.h"
#include "print/print.h"
#include "reader/rec_info.h"
#include "reader/reader.h"
#include "print/stats.h"
#include "base/warning.h"

enum pm_fold {
	PM_FOLD_NONE,
	PM_FOLD_COUNT,		/* weight: samples */
	PM_FOLD_PERIOD,		/* weight: summed period */
};

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
	pm_warn_fn *warn;
	void *warn_arg;
	/* State. */
	struct pm_pipeline pipe;
	struct pm_consumer consumers[2];	/* the stats, then the printer */
	struct pm_printer pr;
	struct pm_folded *folded;
	struct pm_stats stats;
};

/* Symbol tables (from the input's BUILD_ID feature) and folding.  0 or -ENOMEM. */
int pm_dumper__setup(struct pm_dumper *d);
/*
 * Every record, up to the end or the first fault: 0 or a negative errno
 * (the reader's error tells where), as pm_pipeline__records.  Stops early
 * when the output fails.
 */
int pm_dumper__records(struct pm_dumper *d);
/* What closes the output: the folded stacks, else the stats. */
void pm_dumper__summary(struct pm_dumper *d);
void pm_dumper__exit(struct pm_dumper *d);

/*
 * Pipe mode: reads the records that carry the attrs and features, up to
 * the first kernel record, so pm_header__print has them.
 */
int pm_dumper__scan_pipe_header(struct pm_reader *r);

#endif
