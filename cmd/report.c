// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report: the profile of a perf.data file or stream, as perf report
 * --stdio shows it (top rows by overhead, call graphs), or one JSON
 * document.
 *
 * This file holds the options, the messages and the order of the phases:
 * the records are read in time order and named by the pipeline
 * (lib/reader/pipeline.c), counted (lib/print/stats.c) and turned into profile samples (lib/profile/report_sink.c), queried
 * and printed by lib/profile*.c.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "builtin.h"
#include "base/list.h"
#include "reader/pipeline.h"
#include "profile/profile.h"
#include "print/profile_print.h"
#include "report-flame.h"
#include "report-offcpu.h"
#include "report-pprof.h"
#include "report-speedscope.h"
#include "profile/report_sink.h"
#include "print/stats.h"

#define CMD "pmrec report"
#define QUEUE_SIZE (128u << 20)
/* A pid or CPU list is expanded; more ids than this is not a filter anyone means. */
#define MAX_FILTER_IDS (1u << 22)

enum report_color { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };
enum report_graph { GRAPH_DEFAULT, GRAPH_CALLER, GRAPH_CALLEE, GRAPH_NONE };

struct report_opts {
	const char *input;
	enum pm_profile_key keys[PM_PROFILE_KEY__NR];
	size_t nr_keys;
	int children;		/* -1: default (with call chains) */
	double percent_limit;
	bool percent_limit_set;
	size_t max_rows;
	bool show_samples;
	const char *event;
	enum report_graph graph;
	bool json;
	enum report_color color;
	long width;		/* -1: the terminal's */
	bool relative;
	/* Filters. */
	const char **comms;
	size_t nr_comms;
	struct pm_id_list pids, tids, cpus;
	uint64_t time[2];
	bool time_set;
	struct report_flame_opts flame;
	struct pm_namer_opts naming;
	struct report_pprof pprof;	/* with --pprof */
	bool wall;		/* --wall */
	struct report_speedscope_opts speedscope;
};

struct report {
	struct report_opts opts;
	struct pm_reader *r;
	struct pm_profile *profile;
	struct pm_pipeline pipe;
	struct pm_consumer consumers[3];	/* the stats, off-CPU if on, the sink */
	struct pm_report_sink sink;
	struct report_offcpu offcpu;
	struct pm_speedscope *speedscope;	/* with --speedscope: the sink's stand-in */
	struct pm_consumer speedscope_consumer;
	const char *name;
	/* The input, open while the report lasts: features are read on demand. */
	int fd;
	int32_t *pids, *tids, *cpus;
	size_t nr_pids, nr_tids, nr_cpus;
	/* Last, on lines of its own: the consumers' thread counts in it. */
	_Alignas(64) struct pm_stats stats;
};

/* --- command line -------------------------------------------------------- */

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

static error_t report_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_opts *o = state->input;
	double v;

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
	case ARGP_KEY_ARG:
		if (o->input)
			argp_error(state, "only one input file can be given");
		o->input = arg;
		break;
	default:
		return report_parse_filter(key, arg, state);
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

static const struct argp report_argp = {
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

/* --- filters ------------------------------------------------------------- */

/* The ids of a list, one by one, as the profile's filter takes them. */
static int expand_ids(const struct pm_id_list *l, int32_t **ids, size_t *nr)
{
	size_t n = 0, i;
	int64_t v;

	for (i = 0; i < l->nr; i++) {
		n += (size_t)(l->r[i].hi - l->r[i].lo + 1);
		if (n > MAX_FILTER_IDS)
			return -E2BIG;
	}
	*ids = n ? malloc(n * sizeof(**ids)) : NULL;
	if (n && !*ids)
		return -ENOMEM;
	*nr = 0;
	for (i = 0; i < l->nr; i++)
		for (v = l->r[i].lo; v <= l->r[i].hi; v++)
			(*ids)[(*nr)++] = (int32_t)v;
	return 0;
}

static int report__filters(struct report *rep)
{
	struct report_opts *o = &rep->opts;
	int err;

	err = expand_ids(&o->pids, &rep->pids, &rep->nr_pids);
	if (!err)
		err = expand_ids(&o->tids, &rep->tids, &rep->nr_tids);
	if (!err)
		err = expand_ids(&o->cpus, &rep->cpus, &rep->nr_cpus);
	if (err == -E2BIG)
		fprintf(stderr, CMD ": an id list of more than %u ids is not a filter\n",
			MAX_FILTER_IDS);
	if (!err && o->time_set)
		err = pm_profile__set_time_filter(rep->profile,
						  (const uint64_t (*)[2])o->time, 1);
	return err;
}

/* --- output -------------------------------------------------------------- */

static bool report__has_callchain(const struct report *rep)
{
	size_t i, n = pm_reader__nr_evsels(rep->r);

	for (i = 0; i < n; i++)
		if (pm_reader__evsel(rep->r, i)->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

static size_t report__width(const struct report_opts *o)
{
	struct winsize ws;

	if (o->width >= 0)
		return (size_t)o->width;
	if (o->json || !isatty(STDOUT_FILENO))
		return 0;
	return !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col ? ws.ws_col : 0;
}

/* The printer's percentages, coloured as perf colours them on a terminal. */
static void write_colored(FILE *f, const struct pm_out *text, const struct pm_buf *spans)
{
	static const char *const codes[] = {
		[PM_COLOR_GREEN] = "\033[32m",
		[PM_COLOR_RED] = "\033[31m",
	};
	const struct pm_color_span *sp = (const void *)spans->data;
	size_t i, n = spans->len / sizeof(*sp), at = 0;

	for (i = 0; i < n; i++) {
		fwrite(text->buf + at, 1, sp[i].off - at, f);
		fputs(codes[sp[i].color], f);
		fwrite(text->buf + sp[i].off, 1, sp[i].len, f);
		fputs("\033[m", f);
		at = sp[i].off + sp[i].len;
	}
	fwrite(text->buf + at, 1, text->len - at, f);
}

static bool report__color(const struct report_opts *o)
{
	if (o->json || o->color == COLOR_NEVER)
		return false;
	return o->color == COLOR_ALWAYS || isatty(STDOUT_FILENO);
}

static int report__event_index(struct report *rep, uint32_t *ev)
{
	uint32_t i, n = pm_profile__nr_events(rep->profile);

	for (i = 0; i < n; i++)
		if (!strcmp(pm_profile__event_name(rep->profile, i), rep->opts.event)) {
			*ev = i;
			return 0;
		}
	fprintf(stderr, CMD ": %s: no event '%s'; the file has:", rep->name, rep->opts.event);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s '%s'", i ? "," : "", pm_profile__event_name(rep->profile, i));
	fputs(n ? "\n" : " no events\n", stderr);
	return -ENOENT;
}

static void report__query_base(struct report *rep, struct pm_profile_query *q,
			       struct pm_profile_filter *f)
{
	struct report_opts *o = &rep->opts;
	bool chains = report__has_callchain(rep) && o->graph != GRAPH_NONE;
	bool children = o->children < 0 ? chains : o->children;
	enum report_graph g = o->graph;

	*f = (struct pm_profile_filter){
		.comms = o->comms, .nr_comms = o->nr_comms,
		.pids = rep->pids, .nr_pids = rep->nr_pids,
		.tids = rep->tids, .nr_tids = rep->nr_tids,
		.cpus = rep->cpus, .nr_cpus = rep->nr_cpus,
		.relative = o->relative,
	};
	if (g == GRAPH_DEFAULT)
		g = children ? GRAPH_CALLER : GRAPH_CALLEE;
	*q = (struct pm_profile_query){
		.keys = o->nr_keys ? o->keys : NULL,
		.nr_keys = o->nr_keys,
		.children = children,
		.callchain = chains,
		.order = g == GRAPH_CALLER ? PM_PROFILE_ORDER_CALLER : PM_PROFILE_ORDER_CALLEE,
		.percent_limit = o->percent_limit,
		.max_rows = o->max_rows,
		.graph = chains,
		.graph_limit = o->percent_limit_set ? o->percent_limit : 0.5,
		.filter = f,
	};
}

/* The results to print: one event, or each event with samples (the first if none has). */
static int report__query(struct report *rep, struct pm_profile_result ***res, size_t *nr)
{
	uint32_t n = pm_profile__nr_events(rep->profile), ev, only = 0;
	struct pm_profile_filter f;
	struct pm_profile_query q;
	bool any = false;
	int err = 0;

	*nr = 0;
	*res = calloc(n ? n : 1, sizeof(**res));
	if (!*res)
		return -ENOMEM;
	if (rep->opts.event && (err = report__event_index(rep, &only)))
		return err;
	for (ev = 0; ev < n; ev++)
		any |= pm_profile__samples(rep->profile, ev) > 0;
	report__query_base(rep, &q, &f);
	for (ev = 0; ev < n && !err; ev++) {
		if (rep->opts.event ? ev != only :
		    (any ? !pm_profile__samples(rep->profile, ev) : ev > 0))
			continue;
		q.event = ev;
		err = pm_profile__query(rep->profile, &q, &(*res)[*nr]);
		if (!err)
			(*nr)++;
	}
	return err;
}

/* An empty table says why: no samples, none the filters keep, none over the limit. */
static void report__say_empty(struct pm_out *o, struct pm_profile_result *const *res, size_t nr)
{
	static const char none[] = "#\n# No samples in the file.\n";
	static const char hidden[] = "#\n# No samples match the filters.\n";
	static const char limited[] = "#\n# No row reaches --percent-limit.\n";
	uint64_t total = 0, kept = 0, rows = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		total += res[i]->total_samples;
		kept += res[i]->shown_samples;
		rows += res[i]->nr_shown;
	}
	if (!total)
		pm_out__str(o, none);
	else if (!kept)
		pm_out__str(o, hidden);
	else if (!rows)
		pm_out__str(o, limited);
}

static int report__print(struct report *rep)
{
	struct pm_profile_print_opts po = {
		.show_samples = rep->opts.show_samples,
		.lost_samples = pm_stats__lost(&rep->stats),
		.width = report__width(&rep->opts),
	};
	struct pm_profile_result **res = NULL;
	struct pm_buf spans = { 0 };
	struct pm_out b = { 0 };
	size_t nr = 0, i;
	int err = report__query(rep, &res, &nr);

	if (report__color(&rep->opts))
		po.spans = &spans;
	if (!err && rep->opts.json) {
		pm_profile__print_json(&b, res, nr, &po);
	} else if (!err) {
		pm_profile__print_text(&b, res, nr, &po);
		report__say_empty(&b, res, nr);
	}
	if (!err)
		err = b.err;
	if (!err) {
		errno = 0;
		if (po.spans)
			write_colored(stdout, &b, &spans);
		else
			fwrite(b.buf, 1, b.len, stdout);
		/* A short fwrite leaves the error in the stream, not in fflush's result. */
		if (fflush(stdout) || ferror(stdout)) {
			err = errno ? -errno : -EIO;
			if (err != -EPIPE)
				fprintf(stderr, CMD ": write error: %s\n", strerror(-err));
			err = err == -EPIPE ? err : -EIO;
		}
	}
	if (!err && po.lost_samples)
		fprintf(stderr, CMD ": %s: warning: %llu samples were lost while recording; "
			"the profile misses them\n", rep->name,
			(unsigned long long)po.lost_samples);
	for (i = 0; i < nr; i++)
		pm_profile_result__delete(res[i]);
	free(res);
	pm_out__exit(&b);
	pm_buf__exit(&spans);
	return err;
}

static int report__pprof(struct report *rep)
{
	struct report_pprof *rp = &rep->opts.pprof;
	struct pm_profile_filter f;
	struct pm_profile_query q;

	report__query_base(rep, &q, &f);
	rp->event = rep->opts.event;
	rp->input = rep->name;
	rp->filter = &f;
	rp->lost_samples = pm_stats__lost(&rep->stats);
	return report_pprof__write(rp, rep->r, rep->profile);
}

/* --- entry point --------------------------------------------------------- */

static void report__warn(void *arg, const struct pm_warning *w)
{
	const struct report *rep = arg;

	pm_cmd__warn(CMD, rep->name, w);
}

static const char *report__default_input(void)
{
	if (pm_cmd__stdin_is_pipe())
		return "-";
	/* perf's own file when pmrec's is missing, as perf report reads perf.data. */
	return access("pmrec.data", F_OK) && !access("perf.data", F_OK) ? "perf.data" :
									  "pmrec.data";
}

/* Source lines: for the srcline key, and for pprof's Line entries. */
static bool report__wants_lines(const struct report *rep)
{
	size_t i;

	for (i = 0; i < rep->opts.nr_keys; i++)
		if (rep->opts.keys[i] == PM_PROFILE_KEY_SRCLINE)
			return true;
	return rep->opts.pprof.path != NULL;
}

static int report__read(struct report *rep)
{
	struct pm_pipeline *p = &rep->pipe;
	size_t n = 1;
	int err, ferr;

	rep->consumers[0] = (struct pm_consumer){ .record = pm_stats__consume,
						  .ctx = &rep->stats };
	err = pm_report_sink__init(&rep->sink, rep->r, rep->profile);
	/* The speedscope exporter pairs the switches itself, on its timelines. */
	if (!err && !rep->speedscope)
		err = report_offcpu__init(&rep->offcpu, rep->opts.wall, &rep->sink, rep->r,
					  &rep->consumers[1]);
	if (err)
		return err;
	n += rep->consumers[1].record != NULL;
	rep->consumers[n++] = rep->speedscope ? rep->speedscope_consumer :
			      (struct pm_consumer){ .record = pm_report_sink__record,
						    .ctx = &rep->sink };
	*p = (struct pm_pipeline){
		.r = rep->r,
		.names = true,
		.kallsyms = true,
		.naming = rep->opts.naming,
		.queue_size = QUEUE_SIZE,
		.threaded = true,
		.consumers = rep->consumers,
		.nr_consumers = n,
		.warn = report__warn,
		.warn_arg = rep,
	};
	err = pm_pipeline__setup(p);
	if (err)
		return err;
	rep->sink.namer = p->namer;
	if (report__wants_lines(rep) && !(rep->sink.srclines = pm_srclines__new()))
		return -ENOMEM;
	if (rep->speedscope)
		pm_speedscope__set_namer(rep->speedscope, p->namer);
	rep->sink.addrs = rep->opts.pprof.path != NULL;
	rep->sink.ip_only = rep->opts.graph == GRAPH_NONE && rep->opts.children != 1 &&
			    !rep->sink.addrs;
	err = pm_pipeline__records(p);
	/* On a fault too: every sample read before it counts. */
	ferr = report_offcpu__finish(&rep->offcpu);
	ferr = pm_report_sink__finish(&rep->sink) ?: ferr;
	pm_pipeline__end(p);
	report_offcpu__notes(&rep->offcpu, CMD, rep->name);
	return err ? err : ferr;
}

/* Opens path and reads it into rep's profile; says why it failed.  0 or a negative errno. */
static int report__load(struct report *rep, const char *path)
{
	int err;

	err = pm_cmd__open_input(CMD, rep->r, path, &rep->name, &rep->fd);
	if (rep->fd >= 0 || !err)
		err = err ? err : report__read(rep);
	if (err)
		pm_cmd__input_error(CMD, rep->name ? rep->name : path, rep->r, err);
	return err;
}

static void report__exit(struct report *rep)
{
	if (rep->fd >= 0)
		close(rep->fd);
	pm_pipeline__exit(&rep->pipe);
	pm_stats__exit(&rep->stats);
	report_offcpu__exit(&rep->offcpu);
	pm_report_sink__exit(&rep->sink);
	pm_speedscope__delete(rep->speedscope);
	pm_profile__delete(rep->profile);
	pm_reader__delete(rep->r);
	free(rep->pids);
	free(rep->tids);
	free(rep->cpus);
}

/* --diff's base: another recording read with the same options. */
static int report__load_other(void *arg, const char *path, struct pm_profile **out)
{
	const struct report *rep = arg;
	struct report other = { .opts = rep->opts, .fd = -1 };
	int err = -ENOMEM;

	other.r = pm_reader__new();
	other.profile = pm_profile__new();
	if (!other.r || !other.profile)
		fprintf(stderr, CMD ": out of memory\n");
	else if (!(err = report__filters(&other)))
		err = report__load(&other, path);
	if (!err) {
		*out = other.profile;
		other.profile = NULL;
	}
	report__exit(&other);
	return err;
}

/* The flame graph's event: --event's, else the first with samples. */
static int report__flame(struct report *rep)
{
	uint32_t n = pm_profile__nr_events(rep->profile), ev = 0;
	struct pm_profile_filter f;
	struct pm_profile_query q;

	if (rep->opts.event) {
		if (report__event_index(rep, &ev))
			return PM_EXIT_USAGE;
	} else {
		while (ev < n && !pm_profile__samples(rep->profile, ev))
			ev++;
		ev = ev < n ? ev : 0;
	}
	if (!n) {
		fprintf(stderr, CMD ": %s: no events to draw\n", rep->name);
		return PM_EXIT_FAILURE;
	}
	report__query_base(rep, &q, &f);
	return report_flame__run(&rep->opts.flame, &(struct report_flame_input){
		.profile = rep->profile, .name = rep->name, .event = ev, .filter = &f,
		.width = rep->opts.width, .load = report__load_other, .load_arg = rep, .r = rep->r,
	});
}

static int report__run(struct report *rep)
{
	const char *path = rep->opts.input ? rep->opts.input : report__default_input();
	struct report_opts *o = &rep->opts;
	struct pm_profile_filter f;
	struct pm_profile_query q;
	int err;

	if (o->speedscope.file) {
		report__query_base(rep, &q, &f);
		rep->speedscope = report_speedscope__new(&(struct report_speedscope_input){
			.r = rep->r, .event = o->event, .filter = &f, .wall = o->wall,
			.time = o->time_set ? o->time : NULL }, &rep->speedscope_consumer);
		if (!rep->speedscope)
			return PM_EXIT_FAILURE;
	}
	if (o->flame.timeline && report_flame__watch(&o->flame, rep->profile))
		return PM_EXIT_FAILURE;
	err = report__load(rep, path);
	if (!err && rep->speedscope)
		return report_speedscope__run(&o->speedscope, rep->speedscope, rep->r, rep->name,
					      o->event);
	if (!err && rep->opts.flame.file)
		return report__flame(rep);
	if (!err) {
		err = rep->opts.pprof.path ? report__pprof(rep) : report__print(rep);
		if (err == -ENOENT)
			return PM_EXIT_USAGE;
		if (err == -ENOMEM)
			fprintf(stderr, CMD ": out of memory\n");
		/* The reader of stdout went away (| head): not a failure, as for dump. */
		if (err == -EPIPE)
			return PM_EXIT_OK;
	}
	return err ? PM_EXIT_FAILURE : PM_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report rep = {
		.opts = { .children = -1, .width = -1, .pprof.labels = PM_PPROF_LABELS_DEFAULT },
		.fd = -1,
	};
	int ret;

	if (argp_parse(&report_argp, argc, argv, 0, NULL, &rep.opts))
		return PM_EXIT_USAGE;
	signal(SIGPIPE, SIG_IGN);
	rep.r = pm_reader__new();
	rep.profile = pm_profile__new();
	if (!rep.r || !rep.profile) {
		fprintf(stderr, CMD ": out of memory\n");
		ret = PM_EXIT_FAILURE;
	} else if (report__filters(&rep)) {
		ret = PM_EXIT_USAGE;
	} else {
		ret = report__run(&rep);
	}
	report__exit(&rep);
	report_flame__exit(&rep.opts.flame);
	pm_id_list__exit(&rep.opts.pids);
	pm_id_list__exit(&rep.opts.tids);
	pm_id_list__exit(&rep.opts.cpus);
	free(rep.opts.comms);
	return ret;
}
