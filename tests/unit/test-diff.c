// SPDX-License-Identifier: GPL-2.0
/*
 * lib/profile/diff and lib/print/diff_print: two profiles of known
 * periods (totals 1000 and 2000, so every share is exact) paired by name,
 * a row on one side only each way, rows of one name merged (their call
 * graphs too), perf diff's order for delta,
 * delta-abs and ratio, its table, and the interval's coverage.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print/diff_print.h"
#include "profile/diff.h"
#include "tap.h"

struct spec {
	const char *dso, *sym;
	uint64_t period, samples;
	uint64_t addr;		/* the symbol's start */
};

/* old: a 40 %, b 30 %, c 20 %, gone 10 %.  new: a 30 %, b 50 %, c 15 %, born 5 %. */
static const struct spec old_specs[] = {
	{ "prog", "a", 400, 40, 0 }, { "prog", "b", 300, 30, 0 }, { "prog", "c", 200, 20, 0 },
	{ "libc.so.6", "gone", 100, 10, 0 },
};
static const struct spec new_specs[] = {
	{ "prog", "a", 600, 60, 0 }, { "prog", "b", 1000, 100, 0 }, { "prog", "c", 300, 30, 0 },
	{ "[kernel.kallsyms]", "born", 100, 10, 0 },
};

static struct pm_profile *build(const struct spec *sp, size_t n)
{
	struct pm_profile *p = pm_profile__new();
	bool ok = p && pm_profile__add_event(p, "cycles") == 0;
	size_t i;

	for (i = 0; ok && i < n; i++) {
		struct pm_profile_frame f = { .dso = sp[i].dso, .sym = sp[i].sym,
					      .addr = sp[i].addr, .kernel = sp[i].dso[0] == '[' };
		struct pm_profile_sample s = {
			.comm = "prog", .pid = 1, .tid = 1, .cpu = 0, .time = i + 1,
			.period = sp[i].period, .samples = sp[i].samples, .last_time = i + 1,
			.frames = &f, .nr_frames = 1,
		};

		ok = pm_profile__add(p, &s) == 0;
	}
	if (!ok) {
		printf("Bail out! cannot build a profile\n");
		exit(1);
	}
	return p;
}

static const char *sym(const struct pm_diff_row *r)
{
	return pm_diff_row__key(r)->frame->sym;
}

static bool order_is(const struct pm_diff *d, const char *const *want, size_t n)
{
	size_t i;

	if (d->nr != n)
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(sym(&d->rows[i]), want[i]))
			return false;
	return true;
}

static int run(const struct pm_profile_result *o, const struct pm_profile_result *n,
	       enum pm_diff_compute c, struct pm_diff *d)
{
	return pm_diff__compute(o, n, &(struct pm_diff_opts){ .compute = c, .z = 2.576 }, d);
}

/* perf diff's --symbols: other rows left out; relative: shares of the rows kept. */
static void test_filter(struct pm_profile_result *o, struct pm_profile_result *n)
{
	static const char *const syms[] = { "a", "born" };
	struct pm_diff_opts opts = { .compute = PM_DIFF_DELTA, .z = 2.576, .syms = syms,
				     .nr_syms = 2 };
	struct pm_diff d;

	tap_ok(!pm_diff__compute(o, n, &opts, &d) && d.nr == 2 && d.rows[0].old_pct == 0 &&
	       fabs(d.rows[1].old_pct - 40.0) < 1e-9, "--symbols: two rows, shares of the totals");
	pm_diff__exit(&d);
	opts.relative = true;
	tap_ok(!pm_diff__compute(o, n, &opts, &d) && d.nr == 2 &&
	       fabs(d.rows[1].old_pct - 100.0) < 1e-9 && fabs(d.rows[1].new_pct - 600.0 / 7) < 1e-9,
	       "relative: shares of the rows kept");
	pm_diff__exit(&d);
}

static void test_compute(struct pm_profile_result *o, struct pm_profile_result *n)
{
	static const char *const by_delta[] = { "b", "born", "c", "a", "gone" };
	static const char *const by_abs[] = { "b", "a", "c", "born", "gone" };
	static const char *const by_ratio[] = { "b", "a", "c", "born", "gone" };
	struct pm_diff d;

	tap_ok(!run(o, n, PM_DIFF_DELTA, &d) && order_is(&d, by_delta, 5),
	       "delta: largest first, rows only in OLD last");
	tap_ok(fabs(d.rows[0].delta - 20.0) < 1e-9 && d.rows[0].old && d.rows[0].new &&
	       d.rows[0].old_samples == 30 && d.rows[0].new_samples == 100,
	       "b: +20 points, its sample counts from both sides");
	tap_ok(!d.rows[1].old && fabs(d.rows[1].delta - 5.0) < 1e-9,
	       "born: only in NEW, its delta its share");
	tap_ok(!d.rows[4].new && d.rows[4].delta == 0 && d.rows[4].old_pct == 10.0,
	       "gone: only in OLD, no delta");
	pm_diff__exit(&d);
	tap_ok(!run(o, n, PM_DIFF_DELTA_ABS, &d) && order_is(&d, by_abs, 5),
	       "delta-abs: by size; c and born tie at 5, the baseline first");
	pm_diff__exit(&d);
	tap_ok(!run(o, n, PM_DIFF_RATIO, &d) && order_is(&d, by_ratio, 5) &&
	       fabs(d.rows[0].ratio - 1000.0 / 300) < 1e-9,
	       "ratio: of periods; rows without a baseline after those with one");
	pm_diff__exit(&d);
}

static void test_text(struct pm_profile_result *o, struct pm_profile_result *n)
{
	static const char want[] =
		"# Event 'cycles'\n"
		"#\n"
		"# Baseline    Delta  Shared Object      Symbol  \n"
		"# ........  .......  .................  ........\n"
		"#\n"
		"    30.00%  +20.00%  prog               [.] b\n"
		"             +5.00%  [kernel.kallsyms]  [k] born\n"
		"    20.00%   -5.00%  prog               [.] c\n"
		"    40.00%  -10.00%  prog               [.] a\n"
		"    10.00%           libc.so.6          [.] gone\n";
	struct pm_out out;
	struct pm_diff d;

	if (pm_out__init(&out, NULL, NULL, 4096) || run(o, n, PM_DIFF_DELTA, &d)) {
		tap_ok(0, "perf diff's table");
		return;
	}
	pm_diff__print_text(&out, "cycles", o, n, &d,
			    &(struct pm_diff_print_opts){ .compute = PM_DIFF_DELTA });
	tap_ok(out.len == strlen(want) && !memcmp(out.buf, want, out.len), "perf diff's table");
	if (out.len != strlen(want) || memcmp(out.buf, want, out.len))
		printf("# got:\n%.*s", (int)out.len, out.buf);
	pm_diff__exit(&d);
	pm_out__exit(&out);
}

/* Draws of two equal shares: the 99 % interval holds 0 in about 99 % of them. */
static void test_interval(void)
{
	unsigned int seed = 41, held = 0, i, j, k1, k2;
	double lo, hi;

	for (i = 0; i < 2000; i++) {
		for (j = k1 = k2 = 0; j < 500; j++) {
			k1 += rand_r(&seed) % 10 < 3;
			k2 += rand_r(&seed) % 10 < 3;
		}
		pm_diff__interval(k1, 500, k2, 500, 2.576, &lo, &hi);
		held += lo <= 0 && hi >= 0;
	}
	tap_ok(held >= 1960 && held < 2000, "coverage of the 99 %% interval: %u of 2000", held);
	pm_diff__interval(30, 100, 60, 100, 2.576, &lo, &hi);
	tap_ok(lo > 0 && hi < 60 && lo < 30 && hi > 30, "30 of 100 to 60 of 100: grew, around +30");
	pm_diff__interval(1, 1000, 3, 1000, 2.576, &lo, &hi);
	tap_ok(lo < 0 && hi > 0, "1 to 3 samples of 1000: noise");
}

/*
 * Rows of one name in one file are one row, as perf diff collapses them by
 * name: the _start of ld.so and of the program under --sort sym, and two
 * static functions of one name in one program under --sort dso,sym.
 */
static void test_same_names(void)
{
	static const struct spec old_sp[] = {
		{ "prog", "main", 900, 90, 0 }, { "prog", "spin", 100, 10, 0x1000 },
	};
	static const struct spec new_sp[] = {
		{ "prog", "main", 700, 70, 0 }, { "ld-linux-x86-64.so.2", "_start", 100, 10, 0x1ab70 },
		{ "prog", "_start", 200, 20, 0x1110 }, { "prog", "spin", 500, 50, 0x1000 },
		{ "prog", "spin", 500, 50, 0x2000 },
	};
	static const enum pm_profile_key by_sym[] = { PM_PROFILE_KEY_SYM };
	static const enum pm_profile_key by_dso_sym[] = { PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_SYM };
	static const char *const want_sym[] = { "spin", "_start", "main" };
	static const char *const want_dso_sym[] = { "spin", "_start", "_start", "main" };
	struct pm_profile *po = build(old_sp, 2), *pn = build(new_sp, 5);
	struct pm_profile_query q = { .keys = by_sym, .nr_keys = 1 };
	struct pm_profile_result *o = NULL, *n = NULL;
	struct pm_diff d = { 0 };

	tap_ok(!pm_profile__query(po, &q, &o) && !pm_profile__query(pn, &q, &n) &&
	       !run(o, n, PM_DIFF_DELTA, &d) && order_is(&d, want_sym, 3) &&
	       d.rows[0].new_period == 1000 && d.rows[0].new_samples == 100 &&
	       d.rows[0].old_period == 100 && d.rows[1].new_period == 300 && !d.rows[1].old,
	       "--sort sym: one row per name, the periods summed");
	pm_diff__exit(&d);
	pm_profile_result__delete(o);
	pm_profile_result__delete(n);
	o = n = NULL;
	q = (struct pm_profile_query){ .keys = by_dso_sym, .nr_keys = 2 };
	tap_ok(!pm_profile__query(po, &q, &o) && !pm_profile__query(pn, &q, &n) &&
	       !run(o, n, PM_DIFF_DELTA, &d) && order_is(&d, want_dso_sym, 4) &&
	       d.rows[0].new_period == 1000 && fabs(d.rows[0].delta - 40.0) < 1e-9,
	       "--sort dso,sym: the static functions of one name in a file are one row");
	pm_diff__exit(&d);
	pm_profile_result__delete(o);
	pm_profile_result__delete(n);
	pm_profile__delete(po);
	pm_profile__delete(pn);
}

/* A profile of samples with call chains: chains[i] innermost first, of periods[i]. */
static struct pm_profile *build_chains(const struct spec (*chains)[2], const uint64_t *periods,
				       size_t n)
{
	struct pm_profile *p = pm_profile__new();
	bool ok = p && pm_profile__add_event(p, "cycles") == 0;
	size_t i, k;

	for (i = 0; ok && i < n; i++) {
		struct pm_profile_frame f[2];
		struct pm_profile_sample s = {
			.comm = "prog", .pid = 1, .tid = 1, .time = i + 1, .period = periods[i],
			.samples = periods[i] / 10, .last_time = i + 1, .frames = f, .nr_frames = 2,
		};

		for (k = 0; k < 2; k++)
			f[k] = (struct pm_profile_frame){ .dso = chains[i][k].dso,
							  .sym = chains[i][k].sym,
							  .addr = chains[i][k].addr };
		ok = pm_profile__add(p, &s) == 0;
	}
	if (!ok) {
		printf("Bail out! cannot build a profile\n");
		exit(1);
	}
	return p;
}

/*
 * Merged rows merge their call graphs too, as perf diff merges the call
 * chains of the entries it collapses: the _start of ld.so (called from
 * boot) and the program's (from init) are one row under --sort sym, whose
 * graph holds both paths, the larger first.  Its first frames stay two, as
 * perf's do: they are functions of two files.
 */
static void test_same_names_graph(void)
{
	static const struct spec old_ch[][2] = {
		{ { "prog", "_start", 0, 0, 0x1110 }, { "prog", "init", 0, 0, 0x1000 } },
		{ { "prog", "main", 0, 0, 0x1200 }, { "prog", "init", 0, 0, 0x1000 } },
	};
	static const struct spec new_ch[][2] = {
		{ { "ld-linux-x86-64.so.2", "_start", 0, 0, 0x1ab70 },
		  { "ld-linux-x86-64.so.2", "boot", 0, 0, 0x1a000 } },
		{ { "ld-linux-x86-64.so.2", "_start", 0, 0, 0x1ab70 },
		  { "ld-linux-x86-64.so.2", "boot2", 0, 0, 0x1a100 } },
		{ { "prog", "_start", 0, 0, 0x1110 }, { "prog", "init", 0, 0, 0x1000 } },
		{ { "prog", "_start", 0, 0, 0x1110 }, { "prog", "fini", 0, 0, 0x1300 } },
		{ { "prog", "main", 0, 0, 0x1200 }, { "prog", "init", 0, 0, 0x1000 } },
	};
	static const uint64_t old_periods[] = { 100, 900 };
	static const uint64_t new_periods[] = { 600, 200, 400, 200, 600 };
	static const enum pm_profile_key by_sym[] = { PM_PROFILE_KEY_SYM };
	static const char want[] =
		"            --+40.00%-- _start (0.00% -> 40.00%)\n"
		"                --+30.00%-- boot (0.00% -> 30.00%)\n"
		"                --+10.00%-- boot2 (0.00% -> 10.00%)\n"
		"            --+20.00%-- _start (10.00% -> 30.00%)\n"
		"                --+10.00%-- init (10.00% -> 20.00%)\n"
		"                --+10.00%-- fini (0.00% -> 10.00%)\n";
	struct pm_profile *po = build_chains(old_ch, old_periods, 2);
	struct pm_profile *pn = build_chains(new_ch, new_periods, 5);
	struct pm_profile_query q = { .keys = by_sym, .nr_keys = 1, .callchain = true,
				      .order = PM_PROFILE_ORDER_CALLEE, .graph = true,
				      .graph_limit = 0.5 };
	struct pm_profile_result *o = NULL, *n = NULL;
	const struct pm_profile_graph *g;
	struct pm_diff d = { 0 };
	struct pm_out out;
	const char *text;

	if (pm_out__init(&out, NULL, NULL, 4096) || pm_profile__query(po, &q, &o) ||
	    pm_profile__query(pn, &q, &n) || run(o, n, PM_DIFF_DELTA, &d)) {
		tap_ok(0, "rows of one name: their call graphs merged");
		return;
	}
	g = d.nr ? pm_diff_row__graph(&d.rows[0], 1) : NULL;
	if (g && g->nr == 7) {
		const struct pm_profile_graph_node *ld = &g->nodes[g->nodes[0].first_child];
		const struct pm_profile_graph_node *prog = &g->nodes[ld->next_sibling];
		const struct pm_profile_graph_node *boot = &g->nodes[ld->first_child];
		const struct pm_profile_graph_node *init = &g->nodes[prog->first_child];

		tap_ok(d.nr == 2 && !strcmp(sym(&d.rows[0]), "_start") &&
		       g->nodes[0].period == 1400 && g->nodes[0].samples == 140 &&
		       !strcmp(ld->frame->dso, "ld-linux-x86-64.so.2") && ld->period == 800 &&
		       !strcmp(boot->frame->sym, "boot") && boot->next_sibling &&
		       !strcmp(g->nodes[boot->next_sibling].frame->sym, "boot2") &&
		       ld->next_sibling && !strcmp(prog->frame->dso, "prog") && prog->period == 600 &&
		       !strcmp(init->frame->sym, "init") && init->next_sibling &&
		       !strcmp(g->nodes[init->next_sibling].frame->sym, "fini"),
		       "rows of one name: their call graphs merged, the larger path first");
	} else {
		tap_ok(0, "rows of one name: their call graphs merged, the larger path first");
		printf("# %zu rows, graph of %zu nodes\n", d.nr, g ? g->nr : 0);
	}
	pm_diff__print_text(&out, "cycles", o, n, &d,
			    &(struct pm_diff_print_opts){ .compute = PM_DIFF_DELTA, .graph = true });
	text = out.len ? strstr(out.buf, "[.] _start\n") : NULL;
	if (!tap_ok(text && !strncmp(text + strlen("[.] _start\n"), want, strlen(want)),
		    "the merged row's graph printed: every path, shares of both sides"))
		printf("# got:\n%.*s", (int)out.len, out.buf);
	pm_diff__exit(&d);
	pm_out__exit(&out);
	pm_profile_result__delete(o);
	pm_profile_result__delete(n);
	pm_profile__delete(po);
	pm_profile__delete(pn);
}

int main(void)
{
	static const enum pm_profile_key keys[] = { PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_SYM };
	static const enum pm_profile_key comm[] = { PM_PROFILE_KEY_COMM };
	struct pm_profile *po = build(old_specs, 4), *pn = build(new_specs, 4);
	struct pm_profile_query q = { .keys = keys, .nr_keys = 2 };
	struct pm_profile_result *o = NULL, *n = NULL, *c = NULL;
	struct pm_diff d;

	if (pm_profile__query(po, &q, &o) || pm_profile__query(pn, &q, &n)) {
		printf("Bail out! query\n");
		return 1;
	}
	test_compute(o, n);
	test_text(o, n);
	test_filter(o, n);
	q = (struct pm_profile_query){ .keys = comm, .nr_keys = 1 };
	tap_ok(!pm_profile__query(pn, &q, &c) && run(o, c, PM_DIFF_DELTA, &d) ==
	       -EINVAL, "results of other keys are refused");
	test_interval();
	test_same_names();
	test_same_names_graph();
	pm_profile_result__delete(o);
	pm_profile_result__delete(n);
	pm_profile_result__delete(c);
	pm_profile__delete(po);
	pm_profile__delete(pn);
	return tap_done();
}
