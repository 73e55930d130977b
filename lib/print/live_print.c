// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>

#include "print/live_print.h"
#include "print/profile_print.h"

void pm_live__print_header(struct pm_out *o, const struct pm_live_interval *iv)
{
	const struct pm_live_counts *c = &iv->counts;

	pm_out__printf(o, "# interval %" PRIu64 ": %.2f s, %" PRIu64 " samples (%.0f/s), %"
		       PRIu64 " lost, %" PRIu64 " unprocessed\n", iv->number, iv->seconds,
		       c->samples, iv->seconds > 0 ? (double)c->samples / iv->seconds : 0.0,
		       c->lost, c->unprocessed);
	if (c->lost || c->unprocessed)
		pm_out__str(o, "# warning: samples were missed: the table lacks them\n");
}

void pm_live__print_json(struct pm_out *o, const struct pm_live_interval *iv,
			 const struct pm_profile_result *r)
{
	const struct pm_live_counts *c = &iv->counts;
	size_t i;

	pm_out__printf(o, "{\"interval\":%" PRIu64 ",\"time\":%.3f,\"seconds\":%.3f,\"samples\":%"
		       PRIu64 ",\"lost\":%" PRIu64 ",\"unprocessed\":%" PRIu64, iv->number,
		       iv->time, iv->seconds, c->samples, c->lost, c->unprocessed);
	if (c->samples && c->last_time)
		pm_out__printf(o, ",\"first_time\":%" PRIu64 ",\"last_time\":%" PRIu64,
			       c->first_time, c->last_time);
	if (r) {
		pm_out__str(o, ",\"event\":");
		pm_out__json_cstr(o, r->event_name);
		pm_out__str(o, ",\"sort\":[");
		for (i = 0; i < r->nr_keys; i++) {
			pm_out__str(o, i ? ",\"" : "\"");
			pm_out__str(o, pm_profile_key__name(r->keys[i]));
			pm_out__ch(o, '"');
		}
		pm_out__ch(o, ']');
	}
	pm_out__str(o, ",\"rows\":[");
	for (i = 0; r && i < r->nr_shown; i++) {
		if (i)
			pm_out__ch(o, ',');
		pm_profile__print_json_row(o, r, &r->rows[i]);
	}
	pm_out__str(o, "]}\n");
}
