// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report --speedscope=FILE: every sample, in time order, as one
 * speedscope profile per thread (lib/export/speedscope.c).  The exporter takes the
 * pipeline's records instead of report's profile, so the samples are
 * placed on their threads' timelines as they come.  This file holds the
 * option, the output file and the messages.
 */
#include <string.h>

#include "builtin.h"
#include "report-export.h"
#include "report-speedscope.h"

enum { OPT_SPEEDSCOPE = 0x1100 };

static const struct argp_option speedscope_options[] = {
	{ .name = "speedscope", .key = OPT_SPEEDSCOPE, .arg = "FILE",
	  .doc = "Write every sample as speedscope JSON to FILE ('-': stdout) instead of the "
		 "table: a timeline per thread, named 'comm tid', of each event (--event: one)" },
	{ 0 },
};

static error_t speedscope_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_speedscope_opts *o = state->input;

	switch (key) {
	case OPT_SPEEDSCOPE:
		if (!*arg)
			argp_error(state, "empty --speedscope file name");
		o->file = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp report_speedscope_argp = {
	.options = speedscope_options,
	.parser = speedscope_parse_opt,
};

struct pm_speedscope *report_speedscope__new(const struct report_speedscope_input *in,
					     struct pm_consumer *c)
{
	struct pm_speedscope_opts so = {
		.name = "", .event = in->event, .filter = in->filter, .time = in->time,
		.wall = in->wall,
	};
	struct pm_speedscope *ss = pm_speedscope__new(in->r, &so);

	if (!ss)
		error("out of memory");
	else
		*c = (struct pm_consumer){ .record = pm_speedscope__record, .ctx = ss };
	return ss;
}

static const char *speedscope__event_name(const void *r, size_t i)
{
	return pm_evsel__name(pm_reader__evsel(r, i));
}

struct speedscope_write {
	struct pm_speedscope *ss;
	struct pm_speedscope_stats *st;
};

static int speedscope__write(void *arg, pm_write_fn *write, void *out)
{
	const struct speedscope_write *w = arg;

	return pm_speedscope__write(w->ss, write, out, w->st);
}

int report_speedscope__run(const struct report_speedscope_opts *o, struct pm_speedscope *ss,
			   struct pm_reader *r, const char *input, const char *event)
{
	struct pm_speedscope_stats st = { 0 };
	int err;

	pm_speedscope__set_name(ss, input);
	if (event && !pm_speedscope__has_event(ss, event)) {
		pm_cmd__no_event(input, event, pm_reader__nr_evsels(r), speedscope__event_name, r);
		return PM_EXIT_USAGE;
	}
	err = report_export__write(o->file, speedscope__write,
				   &(struct speedscope_write){ .ss = ss, .st = &st });
	if (err)
		return err < 0 ? PM_EXIT_FAILURE : PM_EXIT_OK;
	if (!st.samples)
		error("%s: no samples to export", input);
	else if (strcmp(o->file, "-"))
		note("wrote '%s' (%.1f KB): %zu profiles, %zu frames, %llu samples in %llu runs",
		     o->file, (double)st.bytes / 1024.0, st.profiles, st.frames,
		     (unsigned long long)st.samples, (unsigned long long)st.runs);
	return PM_EXIT_OK;
}
