// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report --speedscope=FILE: every sample, in time order, as one
 * speedscope profile per thread (lib/export/speedscope.c).  The exporter takes the
 * pipeline's records instead of report's profile, so the samples are
 * placed on their threads' timelines as they come.  This file holds the
 * option, the output file and the messages.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "base/output.h"
#include "report-speedscope.h"

#define CMD "pmrec report"

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
		fprintf(stderr, CMD ": out of memory\n");
	else
		*c = (struct pm_consumer){ .record = pm_speedscope__record, .ctx = ss };
	return ss;
}

static void speedscope__no_event(struct pm_reader *r, const char *input, const char *event)
{
	size_t i, n = pm_reader__nr_evsels(r);

	fprintf(stderr, CMD ": %s: no event '%s'; the file has:", input, event);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s '%s'", i ? "," : "", pm_evsel__name(pm_reader__evsel(r, i)));
	fputs(n ? "\n" : " no events\n", stderr);
}

int report_speedscope__run(const struct report_speedscope_opts *o, struct pm_speedscope *ss,
			   struct pm_reader *r, const char *input, const char *event)
{
	bool out = !strcmp(o->file, "-");
	struct pm_speedscope_stats st = { 0 };
	struct pm_outfile f;
	int err;

	pm_speedscope__set_name(ss, input);
	if (event && !pm_speedscope__has_event(ss, event)) {
		speedscope__no_event(r, input, event);
		return PM_EXIT_USAGE;
	}
	err = pm_outfile__open(&f, o->file);
	if (err) {
		fprintf(stderr, CMD ": cannot create '%s': %s\n", o->file, strerror(-err));
		return PM_EXIT_FAILURE;
	}
	err = pm_outfile__close(&f, o->file, pm_speedscope__write(ss, pm_outfile__write, &f, &st));
	/* The reader of stdout went away: as report's table, not a failure. */
	if (err == -EPIPE && out)
		return PM_EXIT_OK;
	if (err == -ENOMEM)
		fprintf(stderr, CMD ": out of memory\n");
	else if (err)
		fprintf(stderr, CMD ": cannot write '%s': %s\n", out ? "<stdout>" : o->file,
			strerror(-err));
	if (err)
		return PM_EXIT_FAILURE;
	if (!st.samples)
		fprintf(stderr, CMD ": %s: no samples to export\n", input);
	else if (!out)
		fprintf(stderr, CMD ": wrote '%s' (%.1f KB): %zu profiles, %zu frames, %llu samples "
			"in %llu runs\n", o->file, (double)st.bytes / 1024.0, st.profiles, st.frames,
			(unsigned long long)st.samples, (unsigned long long)st.runs);
	return PM_EXIT_OK;
}
