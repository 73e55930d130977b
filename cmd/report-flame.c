// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report --flamegraph[=FILE]: the options of flame graphs, the
 * output file and the messages.  lib/export/flamegraph.c draws the SVG from the
 * profile report read.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "export/flamegraph.h"
#include "report-export.h"
#include "report-flame.h"

#define DEFAULT_FILE "flamegraph.svg"

enum {
	OPT_FLAMEGRAPH = 0x1000,
	OPT_INVERTED,
	OPT_TITLE,
	OPT_MIN_WIDTH,
	OPT_DIFF,
	OPT_TIMELINE,
};

static const struct argp_option flame_options[] = {
	{ .name = "flamegraph", .key = OPT_FLAMEGRAPH, .arg = "FILE", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "Write a flame graph, one self-contained interactive SVG, to FILE "
		 "(default " DEFAULT_FILE "; - for stdout) instead of the table" },
	{ .name = "inverted", .key = OPT_INVERTED,
	  .doc = "An icicle graph: the root at the top, callees below" },
	{ .name = "title", .key = OPT_TITLE, .arg = "TEXT", .doc = "The graph's title" },
	{ .name = "min-width", .key = OPT_MIN_WIDTH, .arg = "PX",
	  .doc = "Leave out frames narrower than PX pixels, their time kept in their caller "
		 "(default 0.1)" },
	{ .name = "diff", .key = OPT_DIFF, .arg = "BASE",
	  .doc = "Colour each frame by how its share changed from the recording BASE: red grew, "
		 "blue shrank, grey unchanged (widths are FILE's)" },
	{ .name = "timeline", .key = OPT_TIMELINE, .arg = "COLUMNS", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "A time strip above the graph: the samples' weight over time in at most COLUMNS "
		 "columns (default 256); dragging across it redraws the graph for that time range" },
	{ 0 },
};

static void parse_timeline(struct report_flame_opts *o, const char *arg, struct argp_state *state)
{
	unsigned long v = PM_TIMELINE_COLUMNS;
	char *end;

	if (arg) {
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || *arg == '-' || v < PM_TIMELINE_COLUMNS_MIN ||
		    v > PM_TIMELINE_COLUMNS_MAX)
			argp_error(state, "bad --timeline '%s' (columns, %d to %d)", arg,
				   PM_TIMELINE_COLUMNS_MIN, PM_TIMELINE_COLUMNS_MAX);
	}
	o->timeline = (uint32_t)v;
}

static error_t flame_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_flame_opts *o = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		o->min_width = -1;
		break;
	case OPT_FLAMEGRAPH:
		o->file = arg ? arg : DEFAULT_FILE;
		if (!*o->file)
			argp_error(state, "empty --flamegraph file name");
		break;
	case OPT_INVERTED:
		o->inverted = true;
		break;
	case OPT_TITLE:
		o->title = arg;
		break;
	case OPT_MIN_WIDTH:
		errno = 0;
		o->min_width = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(o->min_width) || o->min_width < 0)
			argp_error(state, "bad --min-width '%s' (pixels, a number >= 0)", arg);
		break;
	case OPT_DIFF:
		o->diff = arg;
		break;
	case OPT_TIMELINE:
		parse_timeline(o, arg, state);
		break;
	case ARGP_KEY_END:
		if (!o->file && (o->inverted || o->title || o->min_width >= 0 || o->diff || o->timeline))
			argp_error(state, "--%s draws a flame graph: it needs --flamegraph",
				   o->diff ? "diff" : o->inverted ? "inverted" : o->title ? "title" :
				   o->timeline ? "timeline" : "min-width");
		if (o->diff && o->timeline)
			argp_error(state, "--timeline redraws the graph for a time range, --diff colours "
				   "it for the whole recording: give one");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp report_flame_argp = {
	.options = flame_options,
	.parser = flame_parse_opt,
};

void report_flame__check(const struct report_flame_opts *o, long width, struct argp_state *state)
{
	double w = width < 0 ? PM_FLAMEGRAPH_WIDTH : (double)width;

	if (!o->file)
		return;
	if (w < PM_FLAMEGRAPH_WIDTH_MIN || w > PM_FLAMEGRAPH_WIDTH_MAX)
		argp_error(state, "bad --width %ld for --flamegraph (pixels, %d to %d)", width,
			   PM_FLAMEGRAPH_WIDTH_MIN, PM_FLAMEGRAPH_WIDTH_MAX);
	if (o->min_width > w)
		argp_error(state, "bad --min-width %g (at most the width, %g pixels)", o->min_width,
			   w);
}

/* The event of base to compare with: the same name, else its first with samples. */
static uint32_t base_event(const struct pm_profile *p, const struct pm_profile *base,
			   uint32_t event, const char *path)
{
	const char *name = pm_profile__event_name(p, event);
	uint32_t i, n = pm_profile__nr_events(base);

	for (i = 0; i < n; i++)
		if (!strcmp(pm_profile__event_name(base, i), name))
			return i;
	for (i = 0; i < n && !pm_profile__samples(base, i); i++)
		;
	i = i < n ? i : 0;
	error("%s: no event '%s': comparing with its event '%s'", path, name,
	      n ? pm_profile__event_name(base, i) : "");
	return i;
}

struct flame_write {
	const struct pm_profile *p;
	const struct pm_flamegraph_opts *fo;
	struct pm_flamegraph_stats *st;
};

static int flame__write(void *arg, pm_write_fn *write, void *out)
{
	const struct flame_write *w = arg;

	return pm_flamegraph__write(w->p, w->fo, write, out, w->st);
}

int report_flame__watch(struct report_flame_opts *o, struct pm_profile *p)
{
	o->tl = pm_timeline__new(o->timeline);
	if (!o->tl) {
		error("out of memory");
		return PM_EXIT_FAILURE;
	}
	pm_profile__observe(p, pm_timeline__observe, o->tl);
	return 0;
}

void report_flame__exit(struct report_flame_opts *o)
{
	pm_timeline__delete(o->tl);
	o->tl = NULL;
}

int report_flame__run(const struct report_flame_opts *o, const struct report_flame_input *in)
{
	const char *ev = pm_profile__event_name(in->profile, in->event);
	struct pm_flamegraph_opts fo = {
		.event = in->event,
		.filter = in->filter,
		.title = o->title,
		.width = in->width < 0 ? PM_FLAMEGRAPH_WIDTH : (uint32_t)in->width,
		.min_width = o->min_width < 0 ? PM_FLAMEGRAPH_MIN_WIDTH : o->min_width,
		.inverted = o->inverted,
		.offcpu = !strcmp(ev, "offcpu-time"),
	};
	struct pm_flamegraph_stats st = { 0 };
	struct pm_profile *base = NULL;
	struct pm_clock_ref clock;
	char *subtitle = NULL;
	int err;

	if (o->tl && pm_timeline__error(o->tl)) {
		error("out of memory");
		return PM_EXIT_FAILURE;
	}
	fo.timeline = o->tl;
	/* Wall-clock times where the recording has the reference (record -k), as --speedscope. */
	fo.clock = o->tl && !pm_reader__clock_data(in->r, &clock) ? &clock : NULL;

	if (o->diff) {
		if (in->load(in->load_arg, o->diff, &base))
			return PM_EXIT_FAILURE;
		fo.base = base;
		fo.base_event = base_event(in->profile, base, in->event, o->diff);
	}
	if ((o->diff ? asprintf(&subtitle, "event '%s' of %s against %s: red grew, blue shrank",
				ev, in->name, o->diff) :
		       asprintf(&subtitle, "event '%s' of %s", ev, in->name)) < 0) {
		subtitle = NULL;
	}
	fo.subtitle = subtitle;
	err = report_export__write(o->file, flame__write, &(struct flame_write){
		.p = in->profile, .fo = &fo, .st = &st });
	if (!err && !st.samples)
		error("%s: no samples of event '%s' to draw", in->name, ev);
	else if (!err && strcmp(o->file, "-"))
		note("wrote '%s' (%.1f KB): %zu frames (%zu narrower than %g px left out), %llu "
		     "samples of event '%s'", o->file, st.bytes / 1024.0, st.frames, st.omitted,
		     fo.min_width, (unsigned long long)st.samples, ev);
	free(subtitle);
	pm_profile__delete(base);
	return err < 0 ? PM_EXIT_FAILURE : PM_EXIT_OK;
}
