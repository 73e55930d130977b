// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec diff OLD NEW: what changed between two recordings.  Each is read
 * into a profile as report reads one (the pipeline and the report sink),
 * queried with the same keys, paired row by row (lib/profile/diff.c) and
 * printed as perf diff prints its table (lib/print/diff_print.c).  The
 * gate (--fail-above) exits 3 when a row's share grew by more than its
 * limit and the growth is outside the noise of sampling.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "report-flame.h"
#include "base/emit.h"
#include "print/diff_print.h"
#include "profile/diff.h"
#include "profile/report_sink.h"
#include "reader/pipeline.h"

#define QUEUE_SIZE (128u << 20)
#define MAX_GATES 64

enum {
	OPT_FAIL_ABOVE = 0x1000,
	OPT_JSON,
	OPT_INTERVAL,
	OPT_CONFIDENCE,
	OPT_CHILDREN,
	OPT_FLAMEGRAPH,
	OPT_PERCENTAGE,
};

#define MAX_NAMES 256

/* A comma-separated list of names (--comms, --dsos, --symbols), pointing into its copy. */
struct name_list {
	char *copy;
	const char *names[MAX_NAMES];
	size_t nr;
};

/* A --fail-above: the growth allowed to rows of sym (NULL: every row), in points. */
struct diff_gate {
	const char *sym;
	double limit;
};

struct diff_opts {
	const char *old, *new;
	enum pm_profile_key keys[PM_PROFILE_KEY__NR];
	size_t nr_keys;
	enum pm_diff_compute compute;
	bool json, interval;
	bool children, graph;
	const char *flame;	/* --flamegraph's file */
	struct name_list comms, dsos, syms;
	bool relative;
	int64_t w_old, w_new;	/* -c wdiff's weights */
	double confidence;	/* percent */
	struct diff_gate gates[MAX_GATES];
	size_t nr_gates;
	struct pm_namer_opts naming;
};

static const struct argp_option diff_options[] = {
	{ .name = "input", .key = 'i', .arg = "FILE",
	  .doc = "A recording: the first -i is OLD, the second NEW (as the two arguments)" },
	{ .name = "sort", .key = 's', .arg = "KEYS",
	  .doc = "Rows per comma-separated keys: comm, dso, sym (default dso,sym, as perf diff)" },
	{ .name = "compute", .key = 'c', .arg = "HOW",
	  .doc = "The column and order: delta (NEW's share minus OLD's, in points), delta-abs "
		 "(the same, by its size: the default, as perf diff), ratio (NEW's period over "
		 "OLD's), wdiff:W1,W2 (NEW's period times W2 minus OLD's times W1: absolute "
		 "periods, for recordings of one length and rate)" },
	{ .name = "fail-above", .key = OPT_FAIL_ABOVE, .arg = "[SYM:]PCT",
	  .doc = "Exit 3 when a row's share grew by more than PCT points, significantly (its "
		 "interval above 0); with SYM, the limit of the rows of that symbol.  Repeatable; "
		 "the rows that tripped are said last" },
	{ .name = "comms", .key = 'C', .arg = "COMM[,COMM...]",
	  .doc = "Only the samples of these commands (the others still count in the totals)" },
	{ .name = "dsos", .key = 'd', .arg = "DSO[,DSO...]",
	  .doc = "Only the rows of these shared objects (the others still count in the totals)" },
	{ .name = "symbols", .key = 'S', .arg = "SYM[,SYM...]",
	  .doc = "Only the rows of these symbols (the others still count in the totals)" },
	{ .name = "percentage", .key = OPT_PERCENTAGE, .arg = "HOW",
	  .doc = "Shares of the whole recording (absolute, the default) or of what the filters "
		 "keep (relative)" },
	{ .name = "confidence", .key = OPT_CONFIDENCE, .arg = "PCT",
	  .doc = "The confidence of the deltas' intervals (default 99)" },
	{ .name = "interval", .key = OPT_INTERVAL,
	  .doc = "A column of each delta's confidence interval, '~' after those within noise "
		 "(containing 0)" },
	{ .name = "children", .key = OPT_CHILDREN,
	  .doc = "Inclusive shares: a row's period with its callees' (needs call chains, record "
		 "-g)" },
	{ .name = "call-graph", .key = 'g',
	  .doc = "Under each row, its call graph diffed: each path's share in OLD and NEW and "
		 "the change (callers of the row's function; with --children, from the outermost "
		 "caller)" },
	{ .name = "flamegraph", .key = OPT_FLAMEGRAPH, .arg = "FILE", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "Instead of the table, NEW's flame graph coloured by how each frame's share "
		 "changed from OLD (red grew, blue shrank), to FILE (default flamegraph.svg; - for "
		 "stdout): report --flamegraph --diff=OLD NEW's" },
	{ .name = "json", .key = OPT_JSON,
	  .doc = "One JSON object per event: a row per key, both shares, periods and sample "
		 "counts, the delta and its interval" },
	{ 0 },
};

static const struct argp_child diff_children[] = {
	{ .argp = &pm_cmd__naming_argp },
	{ 0 },
};

static double parse_pct(struct argp_state *state, const char *arg, const char *what, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > max)
		argp_error(state, "bad %s '%s' (percent, 0 to %g)", what, arg, max);
	return v;
}

static void parse_gate(struct diff_opts *o, char *arg, struct argp_state *state)
{
	char *colon = strrchr(arg, ':');
	struct diff_gate *g;

	if (o->nr_gates == MAX_GATES)
		argp_error(state, "more than %d --fail-above", MAX_GATES);
	g = &o->gates[o->nr_gates++];
	g->sym = NULL;
	if (colon) {
		*colon = 0;
		if (!*arg)
			argp_error(state, "empty symbol in --fail-above");
		g->sym = arg;
		arg = colon + 1;
	}
	g->limit = parse_pct(state, arg, "--fail-above", 100);
}

static void parse_names(struct name_list *l, const char *arg, const char *what,
			struct argp_state *state)
{
	char *tok, *save = NULL;

	free(l->copy);
	l->copy = strdup(arg);
	l->nr = 0;
	if (!l->copy)
		argp_failure(state, PM_EXIT_FAILURE, ENOMEM, "--%s", what);
	for (tok = strtok_r(l->copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (l->nr == MAX_NAMES)
			argp_error(state, "more than %d names in --%s", MAX_NAMES, what);
		l->names[l->nr++] = tok;
	}
	if (!l->nr)
		argp_error(state, "empty --%s", what);
}

/* "wdiff:W1,W2": the weights of OLD's and NEW's periods.  0 or -EINVAL. */
static int parse_wdiff(struct diff_opts *o, const char *arg)
{
	char *end;

	if (strncmp(arg, "wdiff:", 6))
		return -EINVAL;
	errno = 0;
	o->w_old = strtoll(arg + 6, &end, 10);
	if (errno || end == arg + 6 || *end != ',' || !o->w_old)
		return -EINVAL;
	arg = end + 1;
	o->w_new = strtoll(arg, &end, 10);
	return errno || end == arg || *end || !o->w_new ? -EINVAL : 0;
}

static void parse_compute(struct diff_opts *o, const char *arg, struct argp_state *state)
{
	if (!strcmp(arg, "delta"))
		o->compute = PM_DIFF_DELTA;
	else if (!strcmp(arg, "delta-abs"))
		o->compute = PM_DIFF_DELTA_ABS;
	else if (!strcmp(arg, "ratio"))
		o->compute = PM_DIFF_RATIO;
	else if (!parse_wdiff(o, arg))
		o->compute = PM_DIFF_WDIFF;
	else
		argp_error(state, "bad --compute '%s' (delta, delta-abs, ratio or wdiff:W1,W2 with "
			   "weights other than 0)", arg);
}

static void add_input(struct diff_opts *o, const char *arg, struct argp_state *state)
{
	if (o->new)
		argp_error(state, "more than two recordings (OLD and NEW)");
	if (o->old)
		o->new = arg;
	else
		o->old = arg;
}

static error_t diff_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct diff_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->naming;
		break;
	case 'i':
	case ARGP_KEY_ARG:
		add_input(o, arg, state);
		break;
	case 's':
		pm_cmd__parse_sort(state, arg, 1u << PM_PROFILE_KEY_COMM | 1u << PM_PROFILE_KEY_DSO |
				   1u << PM_PROFILE_KEY_SYM, "comm, dso, sym", o->keys, &o->nr_keys);
		break;
	case 'c':
		parse_compute(o, arg, state);
		break;
	case OPT_FAIL_ABOVE:
		parse_gate(o, arg, state);
		break;
	case OPT_CONFIDENCE:
		o->confidence = parse_pct(state, arg, "--confidence", 99.9999);
		if (o->confidence < 50)
			argp_error(state, "bad --confidence '%s' (percent, 50 to 99.9999)", arg);
		break;
	case OPT_INTERVAL:
		o->interval = true;
		break;
	case OPT_CHILDREN:
		o->children = true;
		break;
	case 'C':
		parse_names(&o->comms, arg, "comms", state);
		break;
	case 'd':
		parse_names(&o->dsos, arg, "dsos", state);
		break;
	case 'S':
		parse_names(&o->syms, arg, "symbols", state);
		break;
	case OPT_PERCENTAGE:
		if (strcmp(arg, "relative") && strcmp(arg, "absolute"))
			argp_error(state, "bad --percentage '%s' (relative or absolute)", arg);
		o->relative = !strcmp(arg, "relative");
		break;
	case 'g':
		o->graph = true;
		break;
	case OPT_FLAMEGRAPH:
		o->flame = arg ? arg : "flamegraph.svg";
		if (!*o->flame)
			argp_error(state, "empty --flamegraph file name");
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case ARGP_KEY_END:
		if (!o->new)
			argp_error(state, "two recordings to compare: OLD NEW");
		if (o->flame && (o->json || o->interval || o->graph || o->children || o->nr_gates ||
				 o->comms.nr || o->dsos.nr || o->syms.nr || o->relative))
			argp_error(state, "--flamegraph draws the graph instead of the table: no "
				   "--json, --interval, -g, --children, --fail-above, filters or "
				   "--percentage with it");
		if (o->json && (o->interval || o->graph))
			argp_error(state, "--%s is part of the table: give it or --json",
				   o->interval ? "interval" : "call-graph");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp diff_argp = {
	.options = diff_options,
	.parser = diff_parse_opt,
	.args_doc = "OLD NEW",
	.doc = "What changed between two recordings: perf diff's table (Baseline, Delta) from "
	       "pmrec's model, each delta with its confidence interval, and a gate for CI.",
	.children = diff_children,
};

/* One recording read into a profile, as report reads it. */
struct diff_input {
	struct pm_reader *r;
	struct pm_profile *profile;
	struct pm_pipeline pipe;
	struct pm_report_sink sink;
	struct pm_consumer consumer;
	const char *name;
	int fd;
};

static void diff_input__warn(void *arg, const struct pm_warning *w)
{
	const struct diff_input *in = arg;

	pm_cmd__warn(in->name, w);
}

static int diff_input__read(struct diff_input *in, const struct diff_opts *o)
{
	struct pm_pipeline *p = &in->pipe;
	int err, ferr;

	err = pm_report_sink__init(&in->sink, in->r, in->profile);
	if (err)
		return err;
	in->consumer = (struct pm_consumer){ .record = pm_report_sink__record, .ctx = &in->sink };
	*p = (struct pm_pipeline){
		.r = in->r, .names = true, .kallsyms = true, .naming = o->naming,
		.queue_size = QUEUE_SIZE, .threaded = true, .consumers = &in->consumer,
		.nr_consumers = 1, .warn = diff_input__warn, .warn_arg = in,
	};
	err = pm_pipeline__setup(p);
	if (err)
		return err;
	in->sink.namer = p->namer;
	/* A sample's innermost frame is all a flat table needs; no key is a CPU or a thread. */
	in->sink.ip_only = !o->children && !o->graph && !o->flame;
	in->sink.any_cpu = true;
	pm_profile__merge_threads(in->profile);
	err = pm_pipeline__records(p);
	ferr = pm_report_sink__finish(&in->sink);
	pm_pipeline__end(p);
	return err ? err : ferr;
}

static int diff_input__load(struct diff_input *in, const char *path, const struct diff_opts *o)
{
	int err = -ENOMEM;

	in->fd = -1;
	in->r = pm_reader__new();
	in->profile = pm_profile__new();
	if (in->r && in->profile) {
		err = pm_cmd__open_input(in->r, path, &in->name, &in->fd);
		if (in->fd >= 0 || !err)
			err = err ? err : diff_input__read(in, o);
	}
	if (err)
		pm_cmd__input_error(in->name ? in->name : path, in->r, err);
	return err;
}

static void diff_input__exit(struct diff_input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	pm_pipeline__exit(&in->pipe);
	pm_report_sink__exit(&in->sink);
	pm_profile__delete(in->profile);
	pm_reader__delete(in->r);
}

/* The normal quantile of a two-sided interval of confidence pct, by bisection on erfc. */
static double z_of(double pct)
{
	double lo = 0, hi = 10, mid, tail = 1 - pct / 100;
	int i;

	for (i = 0; i < 100; i++) {
		mid = (lo + hi) / 2;
		if (erfc(mid / M_SQRT2) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The limit of a row: its symbol's --fail-above, else the general one; <0: none. */
static double gate_limit(const struct diff_opts *o, const struct pm_diff_row *r)
{
	const struct pm_profile_row *k = pm_diff_row__key(r);
	double limit = -1;
	size_t i;

	for (i = 0; i < o->nr_gates; i++) {
		if (o->gates[i].sym && k->frame->sym && !strcmp(o->gates[i].sym, k->frame->sym))
			return o->gates[i].limit;
		if (!o->gates[i].sym)
			limit = o->gates[i].limit;
	}
	return limit;
}

struct diff_event {
	const char *name;
	struct pm_profile_result *old, *new;
	struct pm_diff d;
};

/* Says the rows that tripped the gate, one a line, after the table; the count of them. */
static size_t diff__gate(const struct diff_opts *o, const struct diff_event *ev)
{
	struct pm_out name;
	size_t i, n = 0;
	double limit;

	if (pm_out__init(&name, NULL, NULL, 256))
		return 0;
	for (i = 0; i < ev->d.nr; i++) {
		const struct pm_diff_row *r = &ev->d.rows[i];

		limit = gate_limit(o, r);
		if (limit < 0 || !r->new || r->delta <= limit || r->lo <= 0)
			continue;
		name.len = 0;
		pm_diff_row__print_name(&name, ev->new, r);
		pm_out__ch(&name, 0);
		error("%s: %s grew by %+.2f points (%.2f%% to %.2f%%; %g%% interval %+.2f..%+.2f), "
		      "over the limit of %g", ev->name, name.buf, r->delta, r->old_pct, r->new_pct,
		      o->confidence, r->lo, r->hi, limit);
		n++;
	}
	pm_out__exit(&name);
	return n;
}

static int diff__query(const struct diff_opts *o, struct pm_profile *p, uint32_t event,
		       struct pm_profile_result **res)
{
	const struct pm_profile_filter f = {
		.comms = o->comms.names, .nr_comms = o->comms.nr, .relative = o->relative,
	};
	struct pm_profile_query q = {
		.event = event, .keys = o->keys, .nr_keys = o->nr_keys, .filter = &f,
		.children = o->children, .callchain = o->children || o->graph,
		.order = o->children ? PM_PROFILE_ORDER_CALLER : PM_PROFILE_ORDER_CALLEE,
		/* perf's cut of call graphs: paths under 0.5 % of the total are left out. */
		.graph = o->graph, .graph_limit = 0.5,
	};

	return pm_profile__query(p, &q, res);
}

/* The length of an event's name without its modifiers (":ppp", ":u"): tracepoints keep theirs. */
static size_t event_stem(const char *name)
{
	const char *colon = strrchr(name, ':');

	if (!colon || !colon[1] || colon[strspn(colon + 1, "ukhIGHpPSDWe") + 1])
		return strlen(name);
	return (size_t)(colon - name);
}

/*
 * The event of new that is old's event i; -1 if none.  perf pairs events
 * by type and config, which a profile does not keep: by name here, the
 * modifiers left out (perf records cpu-clock:ppp where pmrec says cpu-clock).
 */
static int64_t new_event(const struct pm_profile *old, const struct pm_profile *new, uint32_t i)
{
	const char *a = pm_profile__event_name(old, i), *b;
	size_t n = event_stem(a);
	uint32_t j;

	for (j = 0; j < pm_profile__nr_events(new); j++) {
		b = pm_profile__event_name(new, j);
		if (event_stem(b) == n && !memcmp(a, b, n))
			return j;
	}
	return -1;
}

/*
 * The key columns a one-name filter fixes, left out as perf leaves them
 * (sort__setup_elide), unless that would leave none.
 */
static unsigned int diff__elide(const struct diff_opts *o)
{
	unsigned int elide = 0, all = 0;
	size_t i;

	for (i = 0; i < o->nr_keys; i++) {
		enum pm_profile_key k = o->keys[i];
		const struct name_list *l = k == PM_PROFILE_KEY_COMM ? &o->comms :
					    k == PM_PROFILE_KEY_DSO ? &o->dsos : &o->syms;

		all |= 1u << k;
		if (l->nr == 1)
			elide |= 1u << k;
	}
	return elide == all ? 0 : elide;
}

static int diff__event(const struct diff_opts *o, struct pm_out *out, struct diff_input *in,
		       uint32_t i, size_t *tripped, bool *first)
{
	struct diff_event ev = { .name = pm_profile__event_name(in[0].profile, i) };
	int64_t j = new_event(in[0].profile, in[1].profile, i);
	int err;

	if (j < 0 || !pm_profile__samples(in[0].profile, i))
		return 0;
	err = diff__query(o, in[0].profile, i, &ev.old) ?:
	      diff__query(o, in[1].profile, (uint32_t)j, &ev.new) ?:
	      pm_diff__compute(ev.old, ev.new, &(struct pm_diff_opts){
			.compute = o->compute, .z = z_of(o->confidence), .w_old = o->w_old,
			.w_new = o->w_new, .dsos = o->dsos.names,
			.nr_dsos = o->dsos.nr, .syms = o->syms.names, .nr_syms = o->syms.nr,
			.relative = o->relative }, &ev.d);
	if (!err && o->json) {
		pm_diff__print_json(out, ev.name, ev.new, &ev.d);
	} else if (!err) {
		/* perf diff: a blank line between events. */
		if (!*first)
			pm_out__ch(out, '\n');
		pm_diff__print_text(out, ev.name, ev.old, ev.new, &ev.d,
				    &(struct pm_diff_print_opts){ .compute = o->compute,
								  .significance = o->interval,
								  .graph = o->graph,
								  .elide = diff__elide(o),
								  .dsos_listed = o->dsos.nr > 0 });
	}
	*first = false;
	pm_out__flush(out);
	if (!err)
		*tripped += diff__gate(o, &ev);
	pm_diff__exit(&ev.d);
	pm_profile_result__delete(ev.old);
	pm_profile_result__delete(ev.new);
	return err;
}

/* OLD's profile, read already, handed to the flame graph as its base (which it deletes). */
static int diff__base(void *arg, const char *path, struct pm_profile **out)
{
	struct diff_input *old = arg;

	(void)path;
	*out = old->profile;
	old->profile = NULL;
	return 0;
}

/* NEW's first event with samples, coloured against OLD: report --flamegraph --diff=OLD's graph. */
static int diff__flame(const struct diff_opts *o, struct diff_input *in)
{
	struct report_flame_opts fo = { .file = o->flame, .diff = o->old, .min_width = -1 };
	uint32_t ev, n = pm_profile__nr_events(in[1].profile);

	for (ev = 0; ev < n && !pm_profile__samples(in[1].profile, ev); ev++)
		;
	if (!n) {
		error("%s: no events to draw", in[1].name);
		return PM_EXIT_FAILURE;
	}
	return report_flame__run(&fo, &(struct report_flame_input){
		.profile = in[1].profile, .name = in[1].name, .event = ev < n ? ev : 0, .width = -1,
		.r = in[1].r, .load = diff__base, .load_arg = &in[0] });
}

static int diff__run(const struct diff_opts *o, struct diff_input *in)
{
	struct pm_out out;
	size_t tripped = 0;
	bool first = true;
	uint32_t i;
	int err = 0;

	if (diff_input__load(&in[0], o->old, o) || diff_input__load(&in[1], o->new, o))
		return PM_EXIT_FAILURE;
	if (o->flame)
		return diff__flame(o, in);
	if (pm_out__init_fd(&out, STDOUT_FILENO, 1 << 16)) {
		error("out of memory");
		return PM_EXIT_FAILURE;
	}
	for (i = 0; i < pm_profile__nr_events(in[0].profile) && !err; i++)
		err = diff__event(o, &out, in, i, &tripped, &first);
	pm_out__flush(&out);
	if (!err && out.err && out.err != -EPIPE)
		err = out.err;
	pm_out__exit(&out);
	if (err == -ENOMEM)
		error("out of memory");
	else if (err)
		error("%s", strerror(-err));
	if (first && !err)
		error("%s and %s: no event with samples in both", in[0].name, in[1].name);
	if (err || first)
		return PM_EXIT_FAILURE;
	if (tripped)
		error("%zu row%s over --fail-above", tripped, tripped > 1 ? "s" : "");
	return tripped ? PM_EXIT_GATE : PM_EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {
		.keys = { PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_SYM },
		.nr_keys = 2,
		.compute = PM_DIFF_DELTA_ABS,
		.confidence = 99,
	};
	struct diff_input in[2] = { { .fd = -1 }, { .fd = -1 } };
	int ret;

	if (argp_parse(&diff_argp, argc, argv, 0, NULL, &o))
		return PM_EXIT_USAGE;
	signal(SIGPIPE, SIG_IGN);
	ret = diff__run(&o, in);
	diff_input__exit(&in[0]);
	diff_input__exit(&in[1]);
	free(o.comms.copy);
	free(o.dsos.copy);
	free(o.syms.copy);
	return ret;
}
