/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DIFF_PRINT_H
#define PMREC_DIFF_PRINT_H

/*
 * pmrec diff's table, as perf diff prints it (builtin-diff.c and
 * ui/stdio/hist.c, no colour): a Baseline column, the compute's column
 * (Delta, Delta Abs, Ratio), the keys; and the same rows as JSON.
 */
#include <stdbool.h>

#include "base/emit.h"
#include "profile/diff.h"
#include "profile/profile.h"

struct pm_diff_print_opts {
	enum pm_diff_compute compute;
	bool significance;	/* a column of the delta's interval, '~' on rows within noise */
	/*
	 * Under each row, its call graph (the results' graphs) with each
	 * path's share in both and the change: the paths of NEW, then those
	 * only in OLD.
	 */
	bool graph;
	/* Key columns left out (bits 1 << key): one a filter fixes, as perf's sort__setup_elide. */
	unsigned int elide;
	/*
	 * --dsos was given: rows without a symbol do not widen the Shared
	 * Object column to an address's width (hists__set_unres_dso_col_len).
	 */
	bool dsos_listed;
};

/* One event's table: its "# Event" header, column headers and rows; keys are old's and new's. */
void pm_diff__print_text(struct pm_out *out, const char *event, const struct pm_profile_result *old,
			 const struct pm_profile_result *new, const struct pm_diff *d,
			 const struct pm_diff_print_opts *o);

/* One event's rows as a JSON object: {"event":...,"rows":[{keys, both sides, delta}]}. */
void pm_diff__print_json(struct pm_out *out, const char *event, const struct pm_profile_result *keys,
			 const struct pm_diff *d);

/* A row's keys as perf shows them ("shares  [.] share_b"), for one-line messages. */
void pm_diff_row__print_name(struct pm_out *out, const struct pm_profile_result *keys,
			     const struct pm_diff_row *r);

#endif
