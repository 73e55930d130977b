/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PROFILE_PRINT_H
#define PMREC_PROFILE_PRINT_H

/*
 * Printers of profile query results: perf report --stdio's text, and one
 * JSON document, written on a pm_out.  Their failures are the output's
 * (pm_out.err: -ENOMEM, or the write's error).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/emit.h"
#include "profile/profile.h"

struct pm_profile_print_opts {
	bool show_samples;	/* a Samples column (perf's -n) */
	uint64_t lost_samples;	/* "# Total Lost Samples:" */
	/* Text lines are cut at this many bytes; 0: never.  Needs a memory output. */
	size_t width;
	/*
	 * Where the text's percentages are (positions in the output), for a
	 * terminal to colour: an array of struct pm_color_span, in order,
	 * when not NULL.
	 */
	struct pm_buf *spans;
};

/* perf's colours for a percentage: red from 5%, green from 0.5% (ui/util). */
enum pm_color { PM_COLOR_NONE, PM_COLOR_GREEN, PM_COLOR_RED };

/* A percentage of the text, "12.34%", at bytes [off, off + len). */
struct pm_color_span {
	size_t off;
	size_t len;
	enum pm_color color;
};

/*
 * perf report --stdio: "# Total Lost Samples", then per result the
 * "# Samples: 2K of event 'E'" header, the column headers, the rows shown
 * and their call graphs (perf's graph mode, percentages of the event's
 * total).  Column widths fit every row, shown or not, as perf's do.
 * What a terminal must not see in names (pm_utf8__safe_run) prints as '?'.
 */
void pm_profile__print_text(struct pm_out *out, struct pm_profile_result *const *res, size_t nr,
			    const struct pm_profile_print_opts *o);

/*
 * {"lost_samples": N, "events": [{"event": NAME, "mode": "self"|"children",
 *  "sort": [KEYS], "order": "caller"|"callee", "samples": N, "period": N,
 *  "shown_samples": N, "shown_period": N, "rows": [{KEYS..., "percent": 2
 *  decimals as printed, "self_period", "self_samples", ["children_period",
 *  "children_samples",] ["callchain": [NODE...]]}]}]}
 * where a NODE is {"sym", "dso", ["addr"], "period", "samples", "next":
 * [NODE...]} and next holds callers (callee order) or callees (caller
 * order).  Integers are exact; strings as pm_out__json_str writes them
 * (invalid UTF-8 becomes U+FFFD).
 */
void pm_profile__print_json(struct pm_out *out, struct pm_profile_result *const *res, size_t nr,
			    const struct pm_profile_print_opts *o);

/* One row of the above: report's and top's JSON rows. */
void pm_profile__print_json_row(struct pm_out *out, const struct pm_profile_result *r,
				const struct pm_profile_row *row);

#endif
