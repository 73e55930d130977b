// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <string.h>

#include "print/live_print.h"

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

static void json_str(struct pm_out *o, const char *s)
{
	if (s)
		pm_out__json_str(o, s, strlen(s));
	else
		pm_out__str(o, "null");
}

static void json_row(struct pm_out *o, const struct pm_profile_result *r,
		     const struct pm_profile_row *row)
{
	size_t i;

	pm_out__ch(o, '{');
	for (i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]) {
		case PM_PROFILE_KEY_COMM:
			pm_out__str(o, "\"comm\":");
			json_str(o, row->comm);
			break;
		case PM_PROFILE_KEY_PID:
			pm_out__printf(o, "\"pid\":%d", row->pid);
			break;
		case PM_PROFILE_KEY_TID:
			pm_out__printf(o, "\"tid\":%d", row->tid);
			break;
		case PM_PROFILE_KEY_CPU:
			pm_out__printf(o, "\"cpu\":%d", row->cpu);
			break;
		case PM_PROFILE_KEY_DSO:
			pm_out__str(o, "\"dso\":");
			json_str(o, row->frame->dso);
			break;
		default:
			pm_out__str(o, "\"sym\":");
			json_str(o, row->frame->sym);
			if (!row->frame->sym)
				pm_out__printf(o, ",\"addr\":\"%#" PRIx64 "\"", row->frame->addr);
			pm_out__printf(o, ",\"kernel\":%s", row->frame->kernel ? "true" : "false");
			break;
		}
		pm_out__ch(o, ',');
	}
	pm_out__printf(o, "\"percent\":%.2f,\"self_period\":%" PRIu64 ",\"self_samples\":%" PRIu64
		       "}", pm_profile_result__percent(r, row), row->self_period,
		       row->self_samples);
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
		json_str(o, r->event_name);
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
		json_row(o, r, &r->rows[i]);
	}
	pm_out__str(o, "]}\n");
}
