/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_LIVE_PRINT_H
#define PMREC_LIVE_PRINT_H

/*
 * What `pmrec top --batch` prints of an interval: a header line before
 * report's table (profile_print.h), or one JSON Lines object.
 */
#include <stdint.h>

#include "base/emit.h"
#include "profile/live.h"
#include "profile/profile.h"

struct pm_live_interval {
	uint64_t number;		/* from 1 */
	double time;			/* seconds from the start to its end */
	double seconds;			/* its length */
	struct pm_live_counts counts;
};

/*
 * "# interval N: T s, N samples (N/s), N lost, N unprocessed" and a line
 * that says when samples were missed.
 */
void pm_live__print_header(struct pm_out *o, const struct pm_live_interval *iv);

/*
 * {"interval": N, "time": S, "seconds": S, "samples": N, "lost": N,
 *  "unprocessed": N, ["first_time": NS, "last_time": NS,] "event": NAME, "sort": [KEYS], "rows": [ROW...]}
 * and a newline, where a ROW is report's JSON row (pm_profile__print_json_row).  The times are of the interval's first and last samples,
 * in perf's clock (as in pmrec dump), when it has some.  r NULL: no rows.
 */
void pm_live__print_json(struct pm_out *o, const struct pm_live_interval *iv,
			 const struct pm_profile_result *r);

#endif
