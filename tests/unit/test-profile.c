// SPDX-License-Identifier: GPL-2.0
/*
 * lib/profile and lib/profile_print: a known call tree (three callers of
 * one hot function, recursion, a shared-library function, kernel frames on
 * a user stack, unresolved frames) with a total period of 1000, so that
 * every percentage is exact; rows, orders and call graphs as perf report
 * (6.1) prints them for the same samples.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "print/profile_print.h"
#include "tap.h"

#define F(d, s) { .dso = d, .sym = s }
#define K(s) { .dso = "[kernel.kallsyms]", .sym = s, .kernel = true }

static const struct pm_profile_frame s1[] = { F("prog", "hot"), F("prog", "c1"), F("prog", "main"), F("prog", "_start") };
static const struct pm_profile_frame s2[] = { F("prog", "hot"), F("prog", "c2"), F("prog", "main"), F("prog", "_start") };
static const struct pm_profile_frame s3[] = {
	F("prog", "hot"), F("prog", "rec"), F("prog", "rec"), F("prog", "rec"),
	F("prog", "main"), F("prog", "_start"),
};
static const struct pm_profile_frame s4[] = { F("libc.so.6", "memset"), F("prog", "lib"), F("prog", "main"), F("prog", "_start") };
static const struct pm_profile_frame s6[] = { K("page_fault"), F("prog", "hot"), F("prog", "c3"), F("prog", "main"), F("prog", "_start") };
static const struct pm_profile_frame s7[] = { { .dso = "prog", .addr = 0x1234 }, F("prog", "main"), F("prog", "_start") };
static const struct pm_profile_frame s8[] = { { .addr = 0xdead } };

struct spec {
	const struct pm_profile_frame *f;
	uint32_t nr;
	const char *comm;
	int32_t tid, cpu;
	uint64_t period, time;
};

#define S(a) a, sizeof(a) / sizeof(a[0])

/* Total 1000: prog (tid 100 and 101, cpu 0) 950, other (tid 200, cpu 1) 50. */
static const struct spec specs[] = {
	{ S(s1), "prog", 100, 0, 100, 1 }, { S(s1), "prog", 100, 0, 100, 2 },
	{ S(s1), "prog", 100, 0, 100, 3 }, { S(s2), "prog", 100, 0, 100, 4 },
	{ S(s2), "prog", 100, 0, 100, 5 }, { S(s3), "prog", 100, 0, 150, 6 },
	{ S(s4), "prog", 100, 0, 100, 7 }, { S(s1), "prog", 101, 0, 50, 8 },
	{ S(s6), "prog", 100, 0, 100, 9 }, { S(s7), "prog", 100, 0, 50, 10 },
	{ S(s8), "other", 200, 1, 50, 11 },
};

static struct pm_profile *build(void)
{
	struct pm_profile *p = pm_profile__new();
	size_t i;
	int ok = p && pm_profile__add_event(p, "cycles") == 0;

	for (i = 0; ok && i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct pm_profile_sample s = {
			.event = 0, .comm = specs[i].comm, .pid = specs[i].tid == 101 ? 100 : specs[i].tid,
			.tid = specs[i].tid, .cpu = specs[i].cpu, .time = specs[i].time,
			.period = specs[i].period, .frames = specs[i].f, .nr_frames = specs[i].nr,
		};

		ok = pm_profile__add(p, &s) == 0;
	}
	if (!ok) {
		printf("Bail out! cannot build the profile\n");
		exit(1);
	}
	return p;
}

static const char *row_name(const struct pm_profile_row *r)
{
	static char b[32];

	if (r->frame->sym)
		return r->frame->sym;
	snprintf(b, sizeof(b), "%#llx", (unsigned long long)r->frame->addr);
	return b;
}

/* "name:period" per shown row, period self or children, joined by spaces. */
static char *rows_str(const struct pm_profile_result *r)
{
	static char b[1024];
	size_t i, n = 0;

	b[0] = '\0';
	for (i = 0; i < r->nr_shown && n < sizeof(b) - 64; i++)
		n += (size_t)snprintf(b + n, sizeof(b) - n, "%s%s:%llu", i ? " " : "",
				      row_name(&r->rows[i]),
				      (unsigned long long)(r->children ? r->rows[i].children_period :
							   r->rows[i].self_period));
	return b;
}

static struct pm_profile_result *query(struct pm_profile *p, const struct pm_profile_query *q)
{
	struct pm_profile_result *r;
	int err = pm_profile__query(p, q, &r);

	if (err) {
		printf("Bail out! query failed: %d\n", err);
		exit(1);
	}
	return r;
}

static int check_rows(struct pm_profile *p, const struct pm_profile_query *q, const char *want,
		      const char *what)
{
	struct pm_profile_result *r = query(p, q);
	int ok = tap_ok(!strcmp(rows_str(r), want), "%s: %s", what, rows_str(r));

	if (!ok)
		printf("# want %s\n", want);
	pm_profile_result__delete(r);
	return ok;
}

static char *text(struct pm_profile_result *r, bool samples)
{
	struct pm_profile_print_opts o = { .show_samples = samples };
	struct pm_out b = { 0 };
	char *s;

	pm_profile__print_text(&b, &r, 1, &o);
	pm_out__ch(&b, '\0');
	s = b.err ? NULL : strdup(b.buf);
	pm_out__exit(&b);
	return s;
}

static int same_text(const char *got, const char *want, const char *what)
{
	int ok = tap_ok(got && !strcmp(got, want), "%s", what);

	if (!ok)
		printf("# got:\n%s\n# want:\n%s\n", got ? got : "(null)", want);
	return ok;
}

static void test_self(struct pm_profile *p)
{
	struct pm_profile_query q = { .event = 0 };
	struct pm_profile_result *r = query(p, &q);
	uint64_t sum = 0;
	size_t i;

	tap_ok(r->total_period == 1000 && r->total_samples == 11 && r->shown_period == 1000,
	       "totals: 11 samples, period 1000");
	tap_ok(!strcmp(rows_str(r), "hot:700 page_fault:100 memset:100 0xdead:50 0x1234:50"),
	       "self rows by period, ties by comm then dso ([kernel.kallsyms] < libc.so.6): %s",
	       rows_str(r));
	for (i = 0; i < r->nr_rows; i++)
		sum += r->rows[i].self_period;
	tap_ok(sum == 1000 && r->rows[0].self_samples == 7, "self periods sum to the total; hot has 7 samples");
	tap_ok(r->rows[1].frame->kernel && !r->rows[2].frame->kernel && !r->rows[3].frame->dso,
	       "kernel flag and unknown dso kept on the rows");
	pm_profile_result__delete(r);
}

static void test_children(struct pm_profile *p)
{
	struct pm_profile_query q = {
		.event = 0, .children = true, .callchain = true, .order = PM_PROFILE_ORDER_CALLER,
	};
	struct pm_profile_result *r;

	/*
	 * rec is on its sample's chain three times and counts once; hot
	 * gets page_fault's sample as a caller.  Equal rows of one thread:
	 * deeper chains first in caller order (perf's __hpp__sort_acc).
	 */
	check_rows(p, &q, "_start:950 main:950 hot:800 c1:350 c2:200 rec:150 page_fault:100 "
		   "memset:100 c3:100 lib:100 0xdead:50 0x1234:50",
		   "children rows, caller order tie-break");
	q.order = PM_PROFILE_ORDER_CALLEE;
	check_rows(p, &q, "_start:950 main:950 hot:800 c1:350 c2:200 rec:150 c3:100 lib:100 "
		   "memset:100 page_fault:100 0xdead:50 0x1234:50",
		   "children rows, callee order tie-break");
	/* Without call chains perf does not look at depths: self, then the keys. */
	q.callchain = false;
	check_rows(p, &q, "_start:950 main:950 hot:800 c1:350 c2:200 rec:150 page_fault:100 "
		   "memset:100 c3:100 lib:100 0xdead:50 0x1234:50",
		   "children rows without call chains: self, then keys");
	r = query(p, &q);
	tap_ok(r->rows[2].self_period == 700 && r->rows[2].children_samples == 8 &&
	       r->rows[5].children_samples == 1 && r->rows[0].self_samples == 0,
	       "children rows keep self periods and count each sample once");
	pm_profile_result__delete(r);
}

static void test_keys(struct pm_profile *p)
{
	enum pm_profile_key cpu[] = { PM_PROFILE_KEY_CPU };
	enum pm_profile_key tid[] = { PM_PROFILE_KEY_TID };
	enum pm_profile_key pid_comm[] = { PM_PROFILE_KEY_PID, PM_PROFILE_KEY_COMM };
	enum pm_profile_key dso[] = { PM_PROFILE_KEY_DSO };
	enum pm_profile_key sym_comm[] = { PM_PROFILE_KEY_SYM, PM_PROFILE_KEY_COMM };
	enum pm_profile_key twice[] = { PM_PROFILE_KEY_SYM, PM_PROFILE_KEY_SYM };
	struct pm_profile_query q = { .event = 0, .keys = cpu, .nr_keys = 1 };
	struct pm_profile_result *r;
	enum pm_profile_key k;

	r = query(p, &q);
	tap_ok(r->nr_rows == 2 && r->rows[0].cpu == 0 && r->rows[0].self_period == 950 &&
	       r->rows[1].cpu == 1 && r->rows[1].self_period == 50, "sort cpu");
	pm_profile_result__delete(r);
	q.keys = tid;
	r = query(p, &q);
	tap_ok(r->nr_rows == 3 && r->rows[0].tid == 100 && r->rows[0].self_period == 900 &&
	       r->rows[1].tid == 101 && r->rows[2].tid == 200, "sort tid: ties by tid, ascending");
	pm_profile_result__delete(r);
	q.keys = pid_comm;
	q.nr_keys = 2;
	r = query(p, &q);
	tap_ok(r->nr_rows == 2 && r->rows[0].pid == 100 && r->rows[0].self_period == 950 &&
	       !strcmp(r->rows[1].comm, "other"), "sort pid,comm: threads of one process merge");
	pm_profile_result__delete(r);
	q.keys = dso;
	q.nr_keys = 1;
	q.children = true;
	r = query(p, &q);
	tap_ok(r->nr_rows == 4 && !strcmp(r->rows[0].frame->dso, "prog") &&
	       r->rows[0].children_period == 950 && r->rows[0].self_period == 750 &&
	       !r->rows[3].frame->dso, "sort dso with children: once per sample per dso, unknown last");
	pm_profile_result__delete(r);
	q.keys = sym_comm;
	q.nr_keys = 2;
	q.children = false;
	r = query(p, &q);
	tap_ok(r->nr_rows == 5 && r->keys[0] == PM_PROFILE_KEY_SYM && r->keys[1] == PM_PROFILE_KEY_COMM &&
	       !strcmp(rows_str(r), "hot:700 memset:100 page_fault:100 0xdead:50 0x1234:50"),
	       "sort sym,comm: ties by symbol name first: %s", rows_str(r));
	pm_profile_result__delete(r);
	q.keys = twice;
	tap_ok(pm_profile__query(p, &q, &r) == -EINVAL && !r, "a repeated key is refused");
	q.keys = NULL;
	q.event = 1;
	tap_ok(pm_profile__query(p, &q, &r) == -EINVAL, "an unknown event is refused");
	tap_ok(!pm_profile_key__parse("symbol", &k) && k == PM_PROFILE_KEY_SYM &&
	       !pm_profile_key__parse("tid", &k) && k == PM_PROFILE_KEY_TID &&
	       !pm_profile_key__parse("srcline", &k) && k == PM_PROFILE_KEY_SRCLINE &&
	       !pm_profile_key__parse("state", &k) && k == PM_PROFILE_KEY_STATE &&
	       pm_profile_key__parse("dso_from", &k) == -EINVAL, "key names as perf spells them");
}

static void test_totals(struct pm_profile *p)
{
	size_t n = pm_profile__nr_nodes(p), i, ctxs = 0;
	uint64_t *period = calloc(n, sizeof(*period)), *samples = calloc(n, sizeof(*samples));
	struct pm_profile_node node;
	struct pm_profile_ctx ctx;
	bool ok = period && samples;

	if (ok)
		pm_profile__node_totals(p, period, samples);
	for (i = 1; ok && i < n; i++) {
		ok = !pm_profile__node(p, (uint32_t)i, &node, &ctx);
		/* Contexts: prog/100 has 900, prog/101 50, other 50. */
		if (ok && !node.frame) {
			ctxs++;
			ok = period[i] == (ctx.tid == 100 ? 900u : 50u) && node.parent == 0;
		}
		if (ok && node.frame && !strcmp(node.frame->sym ? node.frame->sym : "", "_start") &&
		    ctx.tid == 100)
			ok = period[i] == 900 && samples[i] == 9 && node.depth == 1;
	}
	tap_ok(ok && ctxs == 3 && period[0] == 1000 && samples[0] == 11,
	       "node totals: root 1000, contexts and _start inclusive");
	free(period);
	free(samples);
}

static void test_limits(struct pm_profile *p)
{
	struct pm_profile_query q = { .event = 0, .percent_limit = 10 };
	struct pm_profile_result *r;

	check_rows(p, &q, "hot:700 page_fault:100 memset:100", "percent limit keeps rows at the limit");
	q.percent_limit = 10.01;
	check_rows(p, &q, "hot:700", "percent limit drops rows under it");
	q.percent_limit = 0;
	q.max_rows = 2;
	r = query(p, &q);
	tap_ok(r->nr_shown == 2 && r->nr_rows == 5, "max_rows shows 2 of 5 rows");
	pm_profile_result__delete(r);
}

static void test_filters(struct pm_profile *p)
{
	const char *other[] = { "other" };
	int32_t cpu1[] = { 1 }, tid101[] = { 101 };
	struct pm_profile_filter f = { .comms = other, .nr_comms = 1 };
	struct pm_profile_query q = { .event = 0, .filter = &f };
	struct pm_profile_result *r;

	r = query(p, &q);
	tap_ok(r->nr_rows == 1 && r->total_period == 1000 && r->shown_period == 50 &&
	       pm_profile_result__percent(r, &r->rows[0]) == 5.0 && r->elide_comm,
	       "comm filter hides, the total stays (perf's absolute percentage)");
	pm_profile_result__delete(r);
	f.relative = true;
	r = query(p, &q);
	tap_ok(pm_profile_result__percent(r, &r->rows[0]) == 100.0, "relative: percent of what is shown");
	pm_profile_result__delete(r);
	f = (struct pm_profile_filter){ .cpus = cpu1, .nr_cpus = 1 };
	r = query(p, &q);
	tap_ok(r->nr_rows == 1 && r->total_period == 50 && pm_profile_result__percent(r, &r->rows[0]) == 100.0,
	       "cpu filter drops: the total is the cpu's");
	pm_profile_result__delete(r);
	f = (struct pm_profile_filter){ .tids = tid101, .nr_tids = 1 };
	check_rows(p, &q, "hot:50", "tid filter");
}

static void test_graphs(struct pm_profile *p)
{
	struct pm_profile_query q = { .event = 0, .graph = true, .graph_limit = 0.5, .max_rows = 1 };
	struct pm_profile_result *r = query(p, &q);
	const struct pm_profile_graph *g = &r->rows[0].graph;
	uint32_t hot, c1;

	/* Callee order: hot, then its callers, largest first. */
	hot = g->nr ? g->nodes[0].first_child : 0;
	c1 = hot ? g->nodes[hot].first_child : 0;
	tap_ok(hot && !g->nodes[hot].next_sibling && g->nodes[hot].period == 700 && !g->nodes[hot].run &&
	       c1 && !strcmp(g->nodes[c1].frame->sym, "c1") && g->nodes[c1].period == 350 &&
	       g->nodes[c1].samples == 4 && g->nodes[c1].run &&
	       !strcmp(g->nodes[g->nodes[c1].next_sibling].frame->sym, "c2"),
	       "callee graph of hot: hot -> c1 (350, a run to _start), then c2");
	pm_profile_result__delete(r);
	q.order = PM_PROFILE_ORDER_CALLER;
	q.children = true;
	q.max_rows = 3;
	r = query(p, &q);
	g = &r->rows[2].graph;	/* hot */
	hot = g->nodes[0].first_child;
	tap_ok(!strcmp(r->rows[2].frame->sym, "hot") && g->nodes[hot].period == 700 &&
	       !strcmp(g->nodes[hot].frame->sym, "_start") &&
	       !strcmp(g->nodes[g->nodes[hot].next_sibling].frame->sym, "hot") &&
	       g->nodes[g->nodes[hot].next_sibling].period == 100,
	       "children, caller order: hot keeps its whole chains (700) and the chain from itself as a caller (100)");
	pm_profile_result__delete(r);
}

static const char golden_self[] =
	"#\n"
	"# Total Lost Samples: 0\n"
	"#\n"
	"# Samples: 11  of event 'cycles'\n"
	"# Event count (approx.): 1000\n"
	"#\n"
	"# Overhead       Samples  Command  Shared Object      Symbol                \n"
	"# ........  ............  .......  .................  ......................\n"
	"#\n"
	"    70.00%             7  prog     prog               [.] hot\n"
	"            |\n"
	"            ---hot\n"
	"               |          \n"
	"               |--35.00%--c1\n"
	"               |          main\n"
	"               |          _start\n"
	"               |          \n"
	"               |--20.00%--c2\n"
	"               |          main\n"
	"               |          _start\n"
	"               |          \n"
	"                --15.00%--rec\n"
	"                          rec\n"
	"                          rec\n"
	"                          main\n"
	"                          _start\n"
	"\n"
	"    10.00%             1  prog     [kernel.kallsyms]  [k] page_fault\n"
	"            |\n"
	"            ---page_fault\n"
	"               hot\n"
	"               c3\n"
	"               main\n"
	"               _start\n"
	"\n"
	"    10.00%             1  prog     libc.so.6          [.] memset\n"
	"            |\n"
	"            ---memset\n"
	"               lib\n"
	"               main\n"
	"               _start\n"
	"\n"
	"     5.00%             1  other    [unknown]          [.] 0x000000000000dead\n"
	"            |\n"
	"            ---0xdead\n"
	"\n"
	"     5.00%             1  prog     prog               [.] 0x0000000000001234\n"
	"            |\n"
	"            ---0x1234\n"
	"               main\n"
	"               _start\n"
	"\n"
	"\n"
	"\n";

static void test_text(struct pm_profile *p)
{
	enum pm_profile_key keys[] = { PM_PROFILE_KEY_COMM, PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_SYM };
	struct pm_profile_query q = { .event = 0, .graph = true, .graph_limit = 0.5 };
	struct pm_profile_result *r = query(p, &q);
	char *t = text(r, true), *at;

	same_text(t, golden_self, "text: perf report --stdio --no-children -n -g callee");
	free(t);
	pm_profile_result__delete(r);

	/* A limit of 8% cuts c1, c2 and rec under main, and the kernel and unresolved rows. */
	q = (struct pm_profile_query){
		.event = 0, .keys = keys, .nr_keys = 3, .children = true, .callchain = true,
		.order = PM_PROFILE_ORDER_CALLER, .graph = true, .graph_limit = 8, .max_rows = 1,
	};
	r = query(p, &q);
	/* Sized over every row: [kernel.kallsyms] is not shown but counts. */
	t = text(r, false);
	at = t ? strstr(t, "# Children") : NULL;
	tap_ok(at && strstr(at, "Shared Object      Symbol  ") != NULL,
	       "column widths fit every row, shown or not");
	pm_profile_result__delete(r);
	free(t);
}

static void test_text_options(struct pm_profile *p)
{
	const char *other[] = { "other" };
	struct pm_profile_filter f = { .comms = other, .nr_comms = 1 };
	struct pm_profile_query q = { .event = 0, .graph = true, .graph_limit = 0.5 };
	struct pm_profile_print_opts o = { .width = 20 };
	struct pm_profile_result *r = query(p, &q);
	struct pm_out b = { 0 };
	size_t i, len = 0, longest = 0, lines = 0;
	char *t;

	pm_profile__print_text(&b, &r, 1, &o);
	if (!b.err) {
		for (i = 0; i < b.len; i++, len++) {
			if (b.buf[i] != '\n')
				continue;
			longest = len > longest ? len : longest;
			len = (size_t)-1;
			lines++;
		}
	}
	tap_ok(lines > 40 && longest == 20 && b.len && b.buf[b.len - 1] == '\n',
	       "width cuts every line at 20 bytes (%zu lines, longest %zu)", lines, longest);
	pm_out__exit(&b);
	pm_profile_result__delete(r);
	q.filter = &f;
	r = query(p, &q);
	t = text(r, false);
	/* The dso column makes room for an address (hists__set_unres_dso_col_len). */
	tap_ok(t && strstr(t, "# Overhead  Shared Object     Symbol") &&
	       strstr(t, "     5.00%  [unknown]         [.] 0x000000000000dead\n"),
	       "one comm filtered: its column is elided");
	free(t);
	pm_profile_result__delete(r);
}

static void test_text_golden_children(void)
{
	/* _start 950 of 1000 (a 50 sample without _start), main -> hot 700, lib -> memset 100. */
	static const struct pm_profile_frame a[] = { F("prog", "hot"), F("prog", "main"), F("prog", "_start") };
	static const struct pm_profile_frame b[] = { F("libc.so.6", "memset"), F("prog", "lib"), F("prog", "main"), F("prog", "_start") };
	static const struct pm_profile_frame c[] = { F("prog", "x"), F("prog", "main"), F("prog", "_start") };
	static const struct pm_profile_frame d[] = { F("prog", "y") };
	struct pm_profile *p = pm_profile__new();
	struct pm_profile_sample s = { .event = 0, .comm = "prog", .pid = 1, .tid = 1 };
	struct pm_profile_query q = {
		.event = 0, .children = true, .callchain = true, .order = PM_PROFILE_ORDER_CALLER,
		.graph = true, .graph_limit = 8, .max_rows = 1,
	};
	struct pm_profile_result *r;
	char *t, *at;

	pm_profile__add_event(p, "cycles");
	s.period = 700, s.frames = a, s.nr_frames = 3;
	pm_profile__add(p, &s);
	s.period = 100, s.frames = b, s.nr_frames = 4;
	pm_profile__add(p, &s);
	s.period = 150, s.frames = c, s.nr_frames = 3;	/* x: 15%, over the limit */
	pm_profile__add(p, &s);
	s.period = 50, s.frames = d, s.nr_frames = 1;
	pm_profile__add(p, &s);
	r = query(p, &q);
	t = text(r, false);
	at = t ? strstr(t, "# Children") : NULL;
	/* x (15%) sorts between hot and lib. */
	same_text(at, "# Children      Self  Command  Shared Object  Symbol    \n"
		  "# ........  ........  .......  .............  ..........\n"
		  "#\n"
		  "    95.00%     0.00%  prog     prog           [.] _start\n"
		  "            |\n"
		  "            ---_start\n"
		  "               main\n"
		  "               |          \n"
		  "               |--70.00%--hot\n"
		  "               |          \n"
		  "               |--15.00%--x\n"
		  "               |          \n"
		  "                --10.00%--lib\n"
		  "                          memset\n"
		  "\n"
		  "\n"
		  "\n", "text: children, caller graph with a limit, one row");
	free(t);
	pm_profile_result__delete(r);
	pm_profile__delete(p);
}

static const char golden_json[] =
	"{\"lost_samples\":3,\"events\":[{\"event\":\"cycles\",\"mode\":\"children\",\"order\":\"callee\","
	"\"sort\":[\"sym\"],\"samples\":2,\"period\":30,\"shown_samples\":2,\"shown_period\":30,\"rows\":["
	"{\"sym\":\"f\\\"\\u001b\\ufffd\xc3\xa9\",\"kernel\":false,\"percent\":100.00,\"self_period\":10,"
	"\"self_samples\":1,\"children_period\":30,\"children_samples\":2,\"callchain\":["
	"{\"sym\":\"f\\\"\\u001b\\ufffd\xc3\xa9\",\"dso\":\"d\",\"kernel\":false,\"period\":30,\"samples\":2,\"next\":[]}]},"
	"{\"sym\":null,\"addr\":\"0xbeef\",\"kernel\":true,\"percent\":66.67,\"self_period\":20,"
	"\"self_samples\":1,\"children_period\":20,\"children_samples\":1,\"callchain\":["
	"{\"sym\":null,\"dso\":null,\"addr\":\"0xbeef\",\"kernel\":true,\"period\":20,\"samples\":1,\"next\":["
	"{\"sym\":\"f\\\"\\u001b\\ufffd\xc3\xa9\",\"dso\":\"d\",\"kernel\":false,\"period\":20,\"samples\":1,\"next\":[]}]}]}"
	"]}]}\n";

static void test_json(void)
{
	/*
	 * A hostile name: a quote, an escape character, a stray byte, and é in
	 * UTF-8.  In callee order, f's own sample and f as the caller of 0xbeef
	 * both start at f: one path of 30.
	 */
	static const char name[] = "f\"\x1b\xff\xc3\xa9";
	const struct pm_profile_frame a[] = { { .dso = "d", .sym = name } };
	const struct pm_profile_frame b[] = { { .addr = 0xbeef, .kernel = true }, { .dso = "d", .sym = name } };
	enum pm_profile_key sym[] = { PM_PROFILE_KEY_SYM };
	struct pm_profile *p = pm_profile__new();
	struct pm_profile_sample s = { .event = 0, .comm = "c", .pid = 1, .tid = 1 };
	struct pm_profile_query q = { .event = 0, .keys = sym, .nr_keys = 1, .children = true, .graph = true };
	struct pm_profile_print_opts o = { .lost_samples = 3 };
	struct pm_profile_result *r;
	struct pm_out out = { 0 };
	char *t;

	pm_profile__add_event(p, "cycles");
	s.period = 10, s.frames = a, s.nr_frames = 1;
	pm_profile__add(p, &s);
	s.period = 20, s.frames = b, s.nr_frames = 2;
	pm_profile__add(p, &s);
	r = query(p, &q);
	pm_profile__print_json(&out, &r, 1, &o);
	pm_out__ch(&out, '\0');
	tap_ok(!out.err && !strcmp(out.buf, golden_json),
	       "JSON document: exact integers, escaped names");
	if (out.buf && strcmp(out.buf, golden_json))
		printf("# got %s", out.buf);
	pm_out__exit(&out);
	t = text(r, false);
	tap_ok(t && strstr(t, "[.] f\"??\xc3\xa9") != NULL,
	       "text: a control character and an invalid byte print as '?', UTF-8 as it is");
	free(t);
	pm_profile_result__delete(r);
	pm_profile__delete(p);
}

static void test_bounded(void)
{
	struct pm_profile *p = pm_profile__new();
	struct pm_profile_frame f[3];
	char comm[16], dso[16], syms[3][16];
	struct pm_profile_sample s = { .event = 0, .comm = comm, .frames = f, .nr_frames = 3 };
	size_t strs = 0, nodes = 0, i;
	int ok = 1;

	pm_profile__add_event(p, "cycles");
	/* 100 distinct stacks, names rewritten in the same buffers every time. */
	for (i = 0; i < 200000 && ok; i++) {
		int k = (int)(i % 100);

		snprintf(comm, sizeof(comm), "t%d", k % 4);
		snprintf(dso, sizeof(dso), "lib%d.so", k % 2);
		snprintf(syms[0], sizeof(syms[0]), "leaf%d", k);
		snprintf(syms[1], sizeof(syms[1]), "mid%d", k % 10);
		snprintf(syms[2], sizeof(syms[2]), "main");
		f[0] = (struct pm_profile_frame){ .dso = dso, .sym = syms[0] };
		f[1] = (struct pm_profile_frame){ .dso = dso, .sym = syms[1] };
		f[2] = (struct pm_profile_frame){ .dso = dso, .sym = syms[2] };
		s.tid = s.pid = k % 4;
		s.period = 1;
		ok = pm_profile__add(p, &s) == 0;
		if (i == 999) {
			strs = pm_profile__nr_strings(p);
			nodes = pm_profile__nr_nodes(p);
		}
	}
	tap_ok(ok && strs == pm_profile__nr_strings(p) && nodes == pm_profile__nr_nodes(p) &&
	       strs == 4 + 2 + 100 + 10 + 1 && pm_profile__samples(p, 0) == 200000,
	       "200000 samples of 100 stacks: %zu strings, %zu nodes, as after 1000", strs, nodes);
	pm_profile__delete(p);
}

static void test_tree_and_input(void)
{
	static struct pm_profile_frame deep[PM_PROFILE_MAX_FRAMES + 10];
	uint64_t slices[1][2] = { { 5, 7 } };
	struct pm_profile *p = pm_profile__new();
	struct pm_profile_sample s = { .event = 0, .tid = 42, .period = 1, .frames = deep };
	struct pm_profile_node n;
	struct pm_profile_ctx ctx;
	size_t i;
	int ok = 1;

	for (i = 0; i < PM_PROFILE_MAX_FRAMES + 10; i++)
		deep[i] = (struct pm_profile_frame){ .dso = "d", .sym = "r" };
	pm_profile__add_event(p, "e");
	tap_ok(pm_profile__add(p, &s) == -EINVAL, "a sample without frames is refused");
	s.event = 1;
	s.nr_frames = 1;
	tap_ok(pm_profile__add(p, &s) == -EINVAL, "a sample of an unknown event is refused");
	s.event = 0;
	s.nr_frames = PM_PROFILE_MAX_FRAMES + 10;
	ok = pm_profile__add(p, &s) == 0;
	/* Root, context, then one node per kept frame. */
	tap_ok(ok && pm_profile__nr_nodes(p) == 2 + PM_PROFILE_MAX_FRAMES &&
	       !pm_profile__node(p, 1 + PM_PROFILE_MAX_FRAMES, &n, &ctx) &&
	       n.depth == PM_PROFILE_MAX_FRAMES && n.self_period == 1 && n.parent == PM_PROFILE_MAX_FRAMES &&
	       !strcmp(ctx.comm, ":42") && !strcmp(n.frame->sym, "r"),
	       "frames past the maximum are dropped; a thread without comm is :tid");
	tap_ok(pm_profile__node(p, 2 + PM_PROFILE_MAX_FRAMES, &n, NULL) == -ENOENT, "node ids end");
	pm_profile__set_time_filter(p, slices, 1);
	for (i = 1; i <= 10; i++) {
		s.time = i;
		s.nr_frames = 1;
		pm_profile__add(p, &s);
	}
	tap_ok(pm_profile__samples(p, 0) == 1 + 3, "time slices keep samples 5..7 only");
	pm_profile__delete(p);
}

/* Two builds of one program: one row (perf sorts dso by name), two call paths. */
static void test_dso_id(void)
{
	const struct pm_profile_frame a[] = {
		{ .dso = "prog", .dso_id = "/a/prog", .sym = "hot" },
		{ .dso = "prog", .dso_id = "/a/prog", .sym = "main" },
	};
	const struct pm_profile_frame b[] = {
		{ .dso = "prog", .dso_id = "/b/prog", .sym = "hot" },
		{ .dso = "prog", .dso_id = "/b/prog", .sym = "main" },
	};
	struct pm_profile *p = pm_profile__new();
	struct pm_profile_sample s = { .event = 0, .comm = "prog", .pid = 1, .tid = 1, .nr_frames = 2 };
	struct pm_profile_query q = { .event = 0, .graph = true };
	struct pm_profile_result *r;
	const struct pm_profile_graph *g;

	pm_profile__add_event(p, "e");
	s.period = 3, s.frames = a;
	pm_profile__add(p, &s);
	s.period = 1, s.frames = b;
	pm_profile__add(p, &s);
	r = query(p, &q);
	g = &r->rows[0].graph;
	tap_ok(r->nr_rows == 1 && r->rows[0].self_period == 4 && g->nr == 5 &&
	       g->nodes[g->nodes[0].first_child].period == 3 &&
	       !strcmp(g->nodes[g->nodes[0].first_child].frame->dso_id, "/a/prog") &&
	       g->nodes[g->nodes[g->nodes[0].first_child].next_sibling].period == 1,
	       "dso_id: files of one name share a row, not a call path");
	pm_profile_result__delete(r);
	pm_profile__delete(p);

	/* Two PLT stubs: one name, two starts, two rows (perf's _sort__sym_cmp). */
	{
		const struct pm_profile_frame plt1[] = { { .dso = "libc.so.6", .sym = "@plt", .addr = 0x1000 } };
		const struct pm_profile_frame plt2[] = { { .dso = "libc.so.6", .sym = "@plt", .addr = 0x2000 } };

		p = pm_profile__new();
		pm_profile__add_event(p, "e");
		s.nr_frames = 1;
		s.period = 1, s.frames = plt2;
		pm_profile__add(p, &s);
		s.period = 1, s.frames = plt1;
		pm_profile__add(p, &s);
		r = query(p, &q);
		tap_ok(r->nr_rows == 2 && r->rows[0].frame->addr == 0x1000 && r->rows[1].frame->addr == 0x2000,
		       "symbols of one name at two starts: two rows, by address on ties");
		pm_profile_result__delete(r);
		pm_profile__delete(p);
	}
}

static bool graph_sane(const struct pm_profile_graph *g, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t c;

	for (c = g->nodes[n].first_child; c; c = g->nodes[c].next_sibling) {
		if (!graph_sane(g, c) || (g->nodes[c].next_sibling &&
					  g->nodes[g->nodes[c].next_sibling].period > g->nodes[c].period))
			return false;
		sum += g->nodes[c].period;
	}
	return sum <= g->nodes[n].period;
}

/* Samples given by frame ids count as the same samples given by frames. */
static void test_frame_ids(void)
{
	struct pm_profile *p = pm_profile__new(), *q = pm_profile__new();
	struct pm_profile_sample s = { .event = 0, .comm = "prog", .pid = 1, .tid = 1, .period = 1 };
	char hot[] = "hot";
	uint32_t ids[2], again, bad = 99;
	struct pm_profile_query qq = { .event = 0, .graph = true };
	struct pm_profile_result *a, *b;
	const struct pm_profile_frame f[] = { F("prog", "hot"), F("prog", "main") };
	bool ok;

	pm_profile__add_event(p, "e");
	pm_profile__add_event(q, "e");
	ok = !pm_profile__frame_id(p, &f[0], &ids[0]) && !pm_profile__frame_id(p, &f[1], &ids[1]);
	/* Equal contents, another buffer: one frame. */
	ok = ok && !pm_profile__frame_id(p, &(struct pm_profile_frame)F("prog", hot), &again) &&
	     again == ids[0] && ids[0] != ids[1];
	hot[0] = 'c';
	ok = ok && !pm_profile__frame_id(p, &(struct pm_profile_frame)F("prog", hot), &again) &&
	     again != ids[0];
	tap_ok(ok, "frame ids: equal frames share one id, a changed name gets another");

	s.nr_frames = 2;
	s.frame_ids = ids;
	pm_profile__add(p, &s);
	pm_profile__add(p, &s);
	s.frame_ids = NULL;
	s.frames = f;
	pm_profile__add(q, &s);
	pm_profile__add(q, &s);
	a = query(p, &qq);
	b = query(q, &qq);
	tap_ok(a->nr_rows == b->nr_rows && a->rows[0].self_period == 2 &&
	       b->rows[0].self_period == 2 && !strcmp(a->rows[0].frame->sym, "hot") &&
	       a->rows[0].graph.nr == b->rows[0].graph.nr,
	       "a sample by frame ids counts as the same sample by frames");
	pm_profile_result__delete(a);
	pm_profile_result__delete(b);

	s.frames = NULL;
	s.frame_ids = &bad;
	s.nr_frames = 1;
	tap_ok(pm_profile__add(p, &s) == -EINVAL && pm_profile__samples(p, 0) == 2,
	       "an id the profile never gave is -EINVAL and counts nothing");
	pm_profile__delete(p);
	pm_profile__delete(q);
}

/*
 * a and b print the same call-graph table and event 0 spans the same
 * times.  Deletes both.
 */
static bool profiles_agree(struct pm_profile *a, struct pm_profile *b)
{
	struct pm_profile_query q = { .event = 0, .graph = true };
	struct pm_profile_result *ra = query(a, &q), *rb = query(b, &q);
	char *ta = text(ra, true), *tb = text(rb, true);
	uint64_t fa = 0, la = 0, fb = 0, lb = 0;
	bool same;

	pm_profile__time_range(a, 0, &fa, &la);
	pm_profile__time_range(b, 0, &fb, &lb);
	same = ta && tb && !strcmp(ta, tb) && fa == fb && la == lb;
	if (!same)
		printf("# one:\n%s# other:\n%s", ta ? ta : "", tb ? tb : "");
	free(ta);
	free(tb);
	pm_profile_result__delete(ra);
	pm_profile_result__delete(rb);
	pm_profile__delete(a);
	pm_profile__delete(b);
	return same;
}

/* The specs, then a caller and its callee in thread 102 and another root in 103. */
static struct pm_profile *build_threads(bool merge)
{
	static const struct pm_profile_frame ta[] = { F("prog", "ta"), F("prog", "tx") };
	static const struct pm_profile_frame tb[] = { F("prog", "tb") };
	struct pm_profile *p = build();
	struct pm_profile_sample s = { .comm = "prog", .pid = 102, .tid = 102, .cpu = 0,
				       .time = 12, .period = 40, .frames = ta, .nr_frames = 2 };

	if (merge)
		pm_profile__merge_threads(p);
	pm_profile__add(p, &s);
	s.pid = s.tid = 103;
	s.frames = tb;
	s.nr_frames = 1;
	pm_profile__add(p, &s);
	return p;
}

/* q's rows as text, with their pids and tids. */
static char *rows_of(struct pm_profile *p, const struct pm_profile_query *q)
{
	struct pm_profile_result *r = query(p, q);
	char *t = text(r, true), *out = NULL;
	size_t i, n = t ? strlen(t) + 32 * r->nr_rows : 0;

	if (t && (out = malloc(n + 1))) {
		size_t at = (size_t)snprintf(out, n, "%s", t);

		for (i = 0; i < r->nr_rows && at < n; i++)
			at += (size_t)snprintf(out + at, n - at, "%d/%d ", r->rows[i].pid,
					       r->rows[i].tid);
	}
	free(t);
	pm_profile_result__delete(r);
	return out;
}

/*
 * Threads merged: one tree for the command, and every query answers as
 * with a tree per thread, rows' threads and children order included (the
 * depth tie-break compares rows of one thread only: ta and tx, not tb).
 */
static void test_merge_threads(void)
{
	struct pm_profile *a = build_threads(false), *b = build_threads(true);
	struct pm_profile_query q = { .event = 0, .graph = true, .callchain = true };
	int i, same = 0;

	for (i = 0; i < 4; i++) {
		char *ra, *rb;

		q.children = i & 1;
		q.order = i & 2 ? PM_PROFILE_ORDER_CALLER : PM_PROFILE_ORDER_CALLEE;
		ra = rows_of(a, &q);
		rb = rows_of(b, &q);
		if (ra && rb && !strcmp(ra, rb))
			same++;
		else
			printf("# per thread:\n%s\n# merged:\n%s\n", ra ? ra : "", rb ? rb : "");
		free(ra);
		free(rb);
	}
	tap_ok(same == 4, "threads merged: rows, their threads, order and graphs as per thread");
	tap_ok(pm_profile__nr_nodes(b) < pm_profile__nr_nodes(a),
	       "threads merged: fewer stack nodes (%zu, per thread %zu)", pm_profile__nr_nodes(b),
	       pm_profile__nr_nodes(a));
	pm_profile__delete(a);
	pm_profile__delete(b);
}

/* Event 0 of p: samples, period and first and last times. */
static bool event_is(struct pm_profile *p, uint64_t samples, uint64_t period, uint64_t first,
		     uint64_t last)
{
	uint64_t f = 0, l = 0;

	return !pm_profile__time_range(p, 0, &f, &l) && pm_profile__samples(p, 0) == samples &&
	       pm_profile__period(p, 0) == period && f == first && l == last;
}

/*
 * The specs added again where their first sample went (same context and
 * stack) make the same profile as adding each; under a time filter, a
 * sample outside it is not counted either way.
 */
static void test_add_again(void)
{
	static const uint64_t slice[1][2] = { { 3, 9 } };
	struct pm_profile_place at[sizeof(specs) / sizeof(specs[0])];
	struct pm_profile *a = pm_profile__new(), *b = pm_profile__new();
	size_t i, j;
	int err = 0;
	bool counts;

	pm_profile__add_event(a, "cycles");
	pm_profile__add_event(b, "cycles");
	pm_profile__set_time_filter(a, slice, 1);
	pm_profile__set_time_filter(b, slice, 1);
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct pm_profile_sample s = {
			.event = 0, .comm = specs[i].comm, .pid = specs[i].tid,
			.tid = specs[i].tid, .cpu = specs[i].cpu, .time = specs[i].time,
			.period = specs[i].period, .frames = specs[i].f, .nr_frames = specs[i].nr,
		};

		err |= pm_profile__add(a, &s);
		for (j = 0; j < i; j++)
			if (specs[j].f == specs[i].f && specs[j].tid == specs[i].tid &&
			    at[j].node != UINT32_MAX)
				break;
		if (j < i) {
			pm_profile__add_again(b, &at[j], s.time, s.period);
			at[i].node = UINT32_MAX;
		} else {
			err |= pm_profile__add_placed(b, &s, &at[i]);
		}
	}
	counts = event_is(b, 7, pm_profile__period(a, 0), 3, 9) && at[0].node == UINT32_MAX;
	tap_ok(profiles_agree(a, b) && !err && counts,
	       "add_again where the first sample went: the same profile, time filter included");
}

/* Samples given at once (samples, period summed, first and last time) count as given one by one. */
static void test_add_many(void)
{
	static const uint64_t times[] = { 5, 3, 9 }, periods[] = { 10, 20, 30 };
	struct pm_profile *a = pm_profile__new(), *b = pm_profile__new();
	struct pm_profile_sample s = {
		.event = 0, .comm = "prog", .pid = 1, .tid = 1, .cpu = 0,
		.frames = s1, .nr_frames = sizeof(s1) / sizeof(s1[0]),
	};
	size_t i;
	int err = 0;
	bool counts;

	pm_profile__add_event(a, "cycles");
	pm_profile__add_event(b, "cycles");
	for (i = 0; i < 3; i++) {
		s.time = times[i];
		s.period = periods[i];
		err |= pm_profile__add(a, &s);
	}
	s.samples = 3;
	s.time = 3;
	s.last_time = 9;
	s.period = 60;
	err |= pm_profile__add(b, &s);
	counts = event_is(b, 3, 60, 3, 9);
	tap_ok(profiles_agree(a, b) && !err && counts,
	       "three samples added at once count as added one by one");
}

/* Random stacks over a few names (so recursion is common): perf's invariants hold. */
static void test_random(void)
{
	static const char *const names[] = { "a", "b", "c", "d", NULL };
	static const char *const dsos[] = { "x", "y", NULL };
	enum pm_profile_key comm[] = { PM_PROFILE_KEY_COMM };
	struct pm_profile *p = pm_profile__new();
	struct pm_profile_frame f[12];
	struct pm_profile_sample s = { .event = 0, .frames = f };
	struct pm_profile_query q = { .event = 0, .graph = true };
	struct pm_profile_result *r, *rc;
	unsigned long x = 12345;
	uint64_t total = 0, sum = 0, csum = 0;
	bool ok = true;
	size_t i, j;

	pm_profile__add_event(p, "e");
	for (i = 0; i < 5000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		s.nr_frames = 1 + (uint32_t)((x >> 33) % 12);
		for (j = 0; j < s.nr_frames; j++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			f[j] = (struct pm_profile_frame){
				.sym = names[(x >> 33) % 5], .dso = dsos[(x >> 40) % 3], .addr = (x >> 50) % 3,
			};
		}
		s.comm = (x >> 20) & 1 ? "p" : "q";
		s.tid = s.pid = (int32_t)((x >> 22) & 3);
		s.period = (x >> 24) % 7;	/* zero periods too */
		total += s.period;
		ok &= pm_profile__add(p, &s) == 0;
	}
	r = query(p, &q);
	for (i = 0; i < r->nr_rows; i++)
		sum += r->rows[i].self_period;
	for (i = 0; i < r->nr_shown; i++)
		ok &= r->rows[i].graph.nodes[0].period == r->rows[i].self_period &&
		      graph_sane(&r->rows[i].graph, 0);
	tap_ok(ok && sum == total && r->total_period == total && r->total_samples == 5000,
	       "random: self rows sum to the total, graphs sum to their rows");
	pm_profile_result__delete(r);
	q.children = true;
	q.order = PM_PROFILE_ORDER_CALLER;
	r = query(p, &q);
	q.order = PM_PROFILE_ORDER_CALLEE;
	rc = query(p, &q);
	ok = r->nr_rows == rc->nr_rows;
	sum = 0;
	for (i = 0; ok && i < r->nr_rows; i++) {
		ok &= r->rows[i].children_period >= r->rows[i].self_period &&
		      r->rows[i].children_period <= total &&
		      r->rows[i].children_samples <= 5000;
		sum += r->rows[i].children_period;
		csum += rc->rows[i].children_period;
	}
	for (i = 0; ok && i < r->nr_shown; i++)
		ok &= r->rows[i].graph.nodes[0].period == r->rows[i].children_period &&
		      graph_sane(&r->rows[i].graph, 0);
	tap_ok(ok && sum == csum, "random: children within [self, total], the same in both orders");
	pm_profile_result__delete(r);
	pm_profile_result__delete(rc);
	q.keys = comm;
	q.nr_keys = 1;
	r = query(p, &q);
	ok = r->nr_rows == 2;
	for (i = 0; ok && i < r->nr_rows; i++)
		ok &= r->rows[i].children_period == r->rows[i].self_period;
	tap_ok(ok, "random: sorted by comm alone, a sample counts once: children == self");
	pm_profile_result__delete(r);
	pm_profile__delete(p);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A thread's new stack is found under the callers it shares with the one
 * before it: the tree holds each distinct call path of a thread once, as
 * many nodes as there are distinct prefixes of its stacks.
 */
static void test_tree_prefixes(void)
{
	enum { N = 3000, DEPTH = 12 };
	static const char *const names[] = { "a", "b", "c", "d" };
	static char *prefixes[N * DEPTH], *stacks[N], *leaves[N];
	struct pm_profile *p = pm_profile__new();
	struct pm_profile_frame f[DEPTH];
	struct pm_profile_sample s = { .event = 0, .frames = f, .period = 1, .comm = "t" };
	size_t i, j, nr = 0, distinct = 0, nr_leaves = 0;
	struct pm_profile_node node, up;
	struct pm_profile_ctx ctx;
	char path[2 * DEPTH + 8];
	unsigned long x = 777;
	char key[2 * DEPTH + 8];
	bool ok = p && pm_profile__add_event(p, "e") == 0;

	for (i = 0; ok && i < N; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		s.tid = s.pid = 1 + (int32_t)((x >> 20) & 1);
		s.nr_frames = 1 + (uint32_t)((x >> 33) % DEPTH);
		snprintf(key, sizeof(key), "%d", s.tid);
		for (j = 0; j < s.nr_frames; j++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			/* Outer frames mostly alike, inner ones not. */
			f[s.nr_frames - 1 - j] = (struct pm_profile_frame){
				.dso = "x", .sym = names[j < 4 ? (x >> 40) % 2 : (x >> 40) % 4] };
			strcat(key, f[s.nr_frames - 1 - j].sym);
			ok &= (prefixes[nr++] = strdup(key)) != NULL;
		}
		ok &= (stacks[i] = strdup(key)) != NULL;
		ok &= pm_profile__add(p, &s) == 0;
	}
	qsort(prefixes, nr, sizeof(*prefixes), str_cmp);
	/* Each sample counted at its own leaf: the paths of the nodes' self samples. */
	for (i = 0; ok && i < pm_profile__nr_nodes(p); i++) {
		if (pm_profile__node(p, (uint32_t)i, &node, &ctx) || !node.self_samples)
			continue;
		path[2 * DEPTH + 7] = '\0';
		j = 2 * DEPTH + 7;
		for (up = node; up.frame; pm_profile__node(p, up.parent, &up, NULL))
			path[--j] = up.frame->sym[0];
		snprintf(key, sizeof(key), "%d%s", ctx.tid, path + j);
		for (j = 0; j < node.self_samples && nr_leaves < N; j++)
			ok &= (leaves[nr_leaves++] = strdup(key)) != NULL;
	}
	qsort(stacks, N, sizeof(*stacks), str_cmp);
	qsort(leaves, nr_leaves, sizeof(*leaves), str_cmp);
	for (i = 0; ok && i < N; i++)
		ok &= i < nr_leaves && !strcmp(stacks[i], leaves[i]);
	tap_ok(ok && nr_leaves == N, "each of %d samples counted at the leaf of its own stack", N);
	for (i = 0; i < nr; i++)
		distinct += !i || strcmp(prefixes[i], prefixes[i - 1]);
	/* The root, a node per thread, a node per distinct path. */
	tap_ok(ok && pm_profile__nr_nodes(p) == 1 + 2 + distinct,
	       "a thread's stacks share their callers' nodes: %zu nodes for %zu paths",
	       p ? pm_profile__nr_nodes(p) : 0, distinct);
	for (i = 0; i < nr; i++)
		free(prefixes[i]);
	for (i = 0; i < N; i++)
		free(stacks[i]);
	for (i = 0; i < nr_leaves; i++)
		free(leaves[i]);
	pm_profile__delete(p);
}

/* The one statement of report's filters that flame graphs and pprof use too. */
static void test_filter_keeps(void)
{
	static const char *const comms[] = { "worker" };
	static const int32_t cpus[] = { 1 }, pids[] = { 7 };
	const struct pm_profile_filter f = {
		.comms = comms, .nr_comms = 1, .cpus = cpus, .nr_cpus = 1,
		.pids = pids, .nr_pids = 1,
	};
	struct pm_profile_ctx c = { .comm = "worker", .pid = 7, .tid = 7, .cpu = 1 };
	bool shown = false;

	tap_ok(pm_profile_filter__keeps(&f, &c, &shown) && shown, "a matching context is shown");
	c.cpu = 0;
	tap_ok(!pm_profile_filter__keeps(&f, &c, &shown), "another CPU drops the context");
	c.cpu = 1;
	c.pid = 8;
	tap_ok(pm_profile_filter__keeps(&f, &c, &shown) && !shown,
	       "another pid hides it (it still counts)");
	c.pid = 7;
	c.comm = NULL;
	tap_ok(pm_profile_filter__keeps(&f, &c, &shown) && !shown,
	       "a thread without a name matches no --comm");
	tap_ok(pm_profile_filter__keeps(NULL, &c, &shown) && shown, "no filter shows all");
}

int main(void)
{
	struct pm_profile *p = build();

	test_filter_keeps();
	test_self(p);
	test_children(p);
	test_keys(p);
	test_totals(p);
	test_limits(p);
	test_filters(p);
	test_graphs(p);
	test_text(p);
	test_text_options(p);
	pm_profile__delete(p);
	test_text_golden_children();
	test_json();
	test_bounded();
	test_tree_and_input();
	test_random();
	test_tree_prefixes();
	test_dso_id();
	test_frame_ids();
	test_add_again();
	test_add_many();
	test_merge_threads();
	return tap_done();
}
