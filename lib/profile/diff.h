/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DIFF_H
#define PMREC_DIFF_H

/*
 * Two profile results of one query paired row by row, as perf diff pairs
 * its hists (tools/perf/builtin-diff.c): a row is matched by its key
 * values (names, not addresses: two builds of a program pair by function
 * name), a row of either side without a match is kept alone.  Each pair
 * gets perf's delta (percentage points of its own total) and ratio (of
 * periods), and a confidence interval of the delta from the sample
 * counts, so that a change within the noise of sampling can be told apart.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

/* perf diff's -c: what the rows are sorted by. */
enum pm_diff_compute {
	PM_DIFF_DELTA,		/* new share - old share, largest first */
	PM_DIFF_DELTA_ABS,	/* its absolute value, largest first */
	PM_DIFF_RATIO,		/* new period / old period, largest first */
	PM_DIFF_WDIFF,		/* new period * w_new - old period * w_old, largest first */
};

struct pm_diff_row {
	const struct pm_profile_row *old, *new;	/* NULL: not in that recording */
	uint64_t old_period, new_period;	/* children's with children */
	uint64_t old_samples, new_samples;
	double old_pct, new_pct;	/* of each result's base */
	double delta;			/* new_pct - old_pct; 0 without new */
	double ratio;			/* new_period / old_period (perf: old 0 counts as 1) */
	int64_t wdiff;			/* with PM_DIFF_WDIFF */
	/* The delta's confidence interval, percentage points; significant: 0 outside it. */
	double lo, hi;
	bool significant;
	/*
	 * Rows of one name merged (see pm_diff__compute): their call graphs
	 * merged, old then new; nodes NULL while the side has one row.
	 * pm_diff_row__graph() says which graph a side has.
	 */
	struct pm_profile_graph graph[2];
};

struct pm_diff {
	struct pm_diff_row *rows;
	size_t nr;
};

struct pm_diff_opts {
	enum pm_diff_compute compute;
	double z;		/* the normal quantile of the confidence wanted (2.576: 99 %) */
	int64_t w_old, w_new;	/* PM_DIFF_WDIFF's weights */
	/*
	 * perf diff's --dsos and --symbols: rows of other names are left out
	 * (they still count in the totals, unless relative).  Empty: all.
	 */
	const char *const *dsos;
	size_t nr_dsos;
	const char *const *syms;
	size_t nr_syms;
	/* Shares of the rows kept (perf's --percentage relative), not of the totals. */
	bool relative;
};

/*
 * Pairs the rows of old and new (results of one query's keys), computes
 * them and sorts them as perf diff -c compute does.  0, -EINVAL (other
 * keys) or -ENOMEM.  The rows point into old and new.
 */
int pm_diff__compute(const struct pm_profile_result *old, const struct pm_profile_result *new,
		     const struct pm_diff_opts *o, struct pm_diff *out);
void pm_diff__exit(struct pm_diff *d);

/*
 * The interval of p2 - p1 (in percentage points) for k1 of n1 and k2 of
 * n2 samples, Agresti and Caffo's: one success and one failure added to
 * each side before the normal approximation, which keeps its coverage
 * near the level asked even for rows of a handful of samples.
 */
void pm_diff__interval(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2, double z,
		       double *lo, double *hi);

/* The row's key value that names it: the new side's if there, else the old's. */
const struct pm_profile_row *pm_diff_row__key(const struct pm_diff_row *r);
/* The call graph of r's old (side 0) or new (1) rows; NULL without that side. */
const struct pm_profile_graph *pm_diff_row__graph(const struct pm_diff_row *r, int side);
/*
 * Whether two frames are one function for a diff: the same file and
 * symbol, or the same address where there is no symbol.
 */
bool pm_diff__frame_same(const struct pm_profile_frame *a, const struct pm_profile_frame *b);

#endif
