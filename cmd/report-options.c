// SPDX-License-Identifier: GPL-2.0
/* pmrec report's command line: the table's options, its outputs and its filters. */
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report-offcpu.h"
#include "report.h"

enum {
	OPT_CHILDREN = 256,
	OPT_NO_CHILDREN,
	OPT_PERCENT_LIMIT,
	OPT_MAX_ROWS,
	OPT_EVENT,
	OPT_COMM,
	OPT_PID,
	OPT_TID,
	OPT_TIME,
	OPT_STDIO,
	OPT_JSON,
	OPT_COLOR,
	OPT_WIDTH,
	OPT_PERCENTAGE,
	OPT_PPROF,
	OPT_PPROF_LABELS,
};

static const char valid_keys[] = "comm, pid, tid, cpu, dso, sym, srcline, state";

static const struct argp_option report_options[] = {
	{ .name = "input", .key = 'i', .arg = "FILE",
	  .doc = "Read FILE (same as the FILE argument)" },
	{ .name = "sort", .key = 's', .arg = "KEYS",
	  .doc = "Rows keyed by these comma-separated keys, in any order: comm, pid, tid, "
		 "cpu, dso, sym, state (default comm,dso,sym)" },
	{ .name = "children", .key = OPT_CHILDREN,
	  .doc = "Children and Self columns: inclusive time (the default with call chains)" },
	{ .name = "no-children", .key = OPT_NO_CHILDREN,
	  .doc = "One Overhead column: the time spent in each function itself" },
	{ .name = "percent-limit", .key = OPT_PERCENT_LIMIT, .arg = "PCT",
	  .doc = "Hide rows and call-graph paths under PCT percent (default: rows 0, paths 0.5)" },
	{ .name = "max-rows", .key = OPT_MAX_ROWS, .arg = "N",
	  .doc = "Show at most N rows per event" },
	{ .name = "show-nr-samples", .key = 'n', .doc = "A Samples column (as perf's -n)" },
	{ .name = "event", .key = OPT_EVENT, .arg = "NAME",
	  .doc = "Only the event NAME (default: a section per event)" },
	{ .name = "comm", .key = OPT_COMM, .arg = "COMMS",
	  .doc = "Only threads of these command names (comma-separated)" },
	{ .name = "pid", .key = OPT_PID, .arg = "PIDS", .doc = "Only these processes (e.g. 1,20-30)" },
	{ .name = "tid", .key = OPT_TID, .arg = "TIDS", .doc = "Only these threads" },
	{ .name = "cpu", .key = 'C', .arg = "CPUS",
	  .doc = "Only samples of these CPUs; the others count nowhere" },
	{ .name = "time", .key = OPT_TIME, .arg = "START,END",
	  .doc = "Only samples between these times, in seconds as perf script prints them "
		 "(either may be empty)" },
	{ .name = "percentage", .key = OPT_PERCENTAGE, .arg = "absolute|relative",
	  .doc = "Percentages of every sample (default) or of the samples the filters keep" },
	{ .name = "call-graph", .key = 'g', .arg = "caller|callee|none",
	  .flags = OPTION_ARG_OPTIONAL,
	  .doc = "Call graphs under each row, caller first or callee first, or none "
		 "(default: shown when the file has call chains; caller with --children)" },
	{ .name = "stdio", .key = OPT_STDIO, .doc = "Text, as perf report --stdio (the default)" },
	{ .name = "json", .key = OPT_JSON, .doc = "One JSON document" },
	{ .name = "color", .key = OPT_COLOR, .arg = "auto|always|never",
	  .flags = OPTION_ARG_OPTIONAL,
	  .doc = "Colour percentages (default auto: when stdout is a terminal)" },
	{ .name = "width", .key = OPT_WIDTH, .arg = "COLUMNS",
	  .doc = "Cut text lines at COLUMNS, 0 never (default: the terminal's width, or never); "
		 "with --flamegraph, the image's width in pixels (default 1200)" },
	{ .name = "pprof", .key = OPT_PPROF, .arg = "FILE",
	  .doc = "Write one event's profile as gzipped pprof profile.proto to FILE ('-': stdout) "
		 "instead of the table" },
	{ .name = "pprof-labels", .key = OPT_PPROF_LABELS, .arg = "LIST",
	  .doc = "Labels of --pprof samples besides pid, tid and comm: cpu" },
	{ 0 },
};

/* The names point into arg (argv), split in place. */
static void parse_comms(struct report_opts *o, char *arg, struct argp_state *state)
{
	char *tok, *save = NULL;
	const char **c;

	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		c = realloc(o->comms, (o->nr_comms + 1) * sizeof(*c));
		if (!c)
			argp_failure(state, PM_EXIT_FAILURE, ENOMEM, "--comm");
		o->comms = c;
		o->comms[o->nr_comms++] = tok;
	}
	if (!o->nr_comms)
		argp_error(state, "empty --comm (comma-separated command names)");
}

/* Seconds as perf prints them ("12345.678901"), to nanoseconds; -ERANGE past 2^64 ns. */
static int parse_seconds(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000;
	size_t i = 0;

	if (!len)
		return -EINVAL;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10 / 1000000000)
			return -ERANGE;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
	if (i != len || !i)
		return -EINVAL;
	if (sec > (UINT64_MAX - frac) / 1000000000)
		return -ERANGE;
	*ns = sec * 1000000000 + frac;
	return 0;
}

static void parse_time(struct report_opts *o, const char *arg, struct argp_state *state)
{
	static const char usage[] = "START,END in seconds, e.g. 1234.5,1240; either may be empty";
	const char *comma = strchr(arg, ',');
	size_t len;
	int err = 0;

	if (!comma)
		argp_error(state, "bad --time '%s' (%s)", arg, usage);
	len = (size_t)(comma - arg);
	o->time[0] = 0;
	o->time[1] = UINT64_MAX;
	if (len)
		err = parse_seconds(arg, len, &o->time[0]);
	if (!err && comma[1])
		err = parse_seconds(comma + 1, strlen(comma + 1), &o->time[1]);
	if (err == -ERANGE)
		argp_error(state, "bad --time '%s' (a time past 18446744073.709551615 s)", arg);
	if (err || o->time[0] > o->time[1])
		argp_error(state, "bad --time '%s' (%s)", arg, usage);
	o->time_set = true;
}

static enum report_graph parse_graph(const char *arg)
{
	if (!strcmp(arg, "caller"))
		return GRAPH_CALLER;
	if (!strcmp(arg, "callee"))
		return GRAPH_CALLEE;
	if (!strcmp(arg, "none"))
		return GRAPH_NONE;
	return GRAPH_DEFAULT;
}

static void parse_number(const char *arg, double *v, struct argp_state *state, const char *what)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(*v) || *v < 0)
		argp_error(state, "bad %s '%s' (a number >= 0)", what, arg);
}

/* The options that choose samples: --comm, --pid, --tid, --cpu, --time, --percentage. */
static error_t report_parse_filter(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;

	switch (key) {
	case OPT_COMM:
		parse_comms(o, arg, state);
		break;
	case OPT_PID:
		if (pm_id_list__parse(&o->pids, arg, INT32_MAX))
			argp_error(state, "bad pid list '%s' (e.g. 1,20-30)", arg);
		break;
	case OPT_TID:
		if (pm_id_list__parse(&o->tids, arg, INT32_MAX))
			argp_error(state, "bad tid list '%s' (e.g. 1,20-30)", arg);
		break;
	case 'C':
		if (pm_id_list__parse(&o->cpus, arg, INT32_MAX))
			argp_error(state, "bad CPU list '%s' (e.g. 0,2-3)", arg);
		break;
	case OPT_TIME:
		parse_time(o, arg, state);
		break;
	case OPT_PERCENTAGE:
		if (strcmp(arg, "absolute") && strcmp(arg, "relative"))
			argp_error(state, "bad --percentage '%s' (absolute or relative)", arg);
		o->relative = !strcmp(arg, "relative");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The outputs: --stdio, --json, --color, --width, --pprof, --pprof-labels. */
static error_t report_parse_output(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;
	double v;

	switch (key) {
	case OPT_STDIO:
		o->json = false;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_COLOR:
		if (!arg || !strcmp(arg, "always"))
			o->color = COLOR_ALWAYS;
		else if (!strcmp(arg, "auto"))
			o->color = COLOR_AUTO;
		else if (!strcmp(arg, "never"))
			o->color = COLOR_NEVER;
		else
			argp_error(state, "bad --color '%s' (auto, always or never)", arg);
		break;
	case OPT_WIDTH:
		parse_number(arg, &v, state, "--width");
		if (v > 1e9 || v != (double)(uint64_t)v)
			argp_error(state, "bad --width '%s' (a whole number)", arg);
		o->width = (long)v;
		break;
	case OPT_PPROF:
		o->pprof.path = arg;
		break;
	case OPT_PPROF_LABELS:
		report_pprof__parse_labels(state, arg, &o->pprof.labels);
		break;
	default:
		return report_parse_filter(key, arg, state);
	}
	return 0;
}

/* The children's inputs, the end's checks, and the input. */
static error_t report_parse_phase(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->flame;
		state->child_inputs[1] = &o->naming;
		state->child_inputs[2] = &o->wall;
		state->child_inputs[3] = &o->speedscope;
		break;
	case ARGP_KEY_END:
		if (o->wall && !o->event)
			o->event = "wall-time";
		if (!!o->flame.file + !!o->json + !!o->pprof.path + !!o->speedscope.file > 1)
			argp_error(state, "--json, --flamegraph, --pprof and --speedscope are outputs "
				   "of their own: give one");
		report_flame__check(&o->flame, o->width, state);
		break;
	case 'i':
		o->input = arg;
		break;
	case ARGP_KEY_ARG:
		if (o->input)
			argp_error(state, "only one input file can be given");
		o->input = arg;
		break;
	default:
		return report_parse_output(key, arg, state);
	}
	return 0;
}

/* The table: its rows, columns and call graphs. */
static error_t report_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;
	double v;

	switch (key) {
	case 's':
		pm_cmd__parse_sort(state, arg, (1u << PM_PROFILE_KEY__NR) - 1, valid_keys, o->keys,
				   &o->nr_keys);
		break;
	case OPT_CHILDREN:
		o->children = 1;
		break;
	case OPT_NO_CHILDREN:
		o->children = 0;
		break;
	case OPT_PERCENT_LIMIT:
		parse_number(arg, &o->percent_limit, state, "--percent-limit");
		o->percent_limit_set = true;
		break;
	case OPT_MAX_ROWS:
		parse_number(arg, &v, state, "--max-rows");
		if (v > 1e15 || v != (double)(uint64_t)v)
			argp_error(state, "bad --max-rows '%s' (a whole number)", arg);
		o->max_rows = (size_t)v;
		break;
	case 'n':
		o->show_samples = true;
		break;
	case OPT_EVENT:
		o->event = arg;
		break;
	case 'g':
		/* perf's spelling `-g caller` gives the mode as the next word. */
		if (!arg && state->next < state->argc &&
		    parse_graph(state->argv[state->next]) != GRAPH_DEFAULT)
			arg = state->argv[state->next++];
		o->graph = arg ? parse_graph(arg) : GRAPH_DEFAULT;
		if (arg && o->graph == GRAPH_DEFAULT)
			argp_error(state, "bad --call-graph '%s' (caller, callee or none)", arg);
		break;
	default:
		return report_parse_phase(key, arg, state);
	}
	return 0;
}

static const struct argp_child report_children[] = {
	{ .argp = &report_flame_argp, .header = "Flame graphs:" },
	{ .argp = &pm_cmd__naming_argp, .header = "Naming:" },
	{ .argp = &report_offcpu_argp, .header = "Off-CPU time:" },
	{ .argp = &report_speedscope_argp, .header = "Timelines:" },
	{ 0 },
};

const struct argp report_argp = {
	.options = report_options,
	.children = report_children,
	.parser = report_parse_opt,
	.args_doc = "[FILE | -]",
	.doc = "Show where the time went in a perf.data file or stream: the hottest "
	       "functions and their call graphs, as perf report --stdio.\v"
	       "FILE defaults to stdin when stdin is a pipe, else pmrec.data, else perf.data; "
	       "'-' reads stdin.  -n is --show-nr-samples, as in perf; --max-rows has no short "
	       "option.  Exit status: 0 ok, 1 malformed input or I/O error, 64 usage error.  "
	       "See pmrec-report(1).",
};

