// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "print/diff_print.h"

/* The unresolved symbol and dso columns as perf sizes them (as report's table). */
#define UNRESOLVED_SYM_WIDTH (4 + 2 + 16)
#define UNRESOLVED_DSO_WIDTH 16
#define BASELINE_WIDTH 8
#define INTERVAL_WIDTH 17

static const char *const compute_headers[] = {
	[PM_DIFF_DELTA] = "Delta",
	[PM_DIFF_DELTA_ABS] = "Delta Abs",
	[PM_DIFF_RATIO] = "Ratio",
	[PM_DIFF_WDIFF] = "Weighted diff",
};

/* perf's widths of the compute columns (columns[] of builtin-diff.c), or the header's. */
static size_t compute_width(enum pm_diff_compute c)
{
	size_t w = c >= PM_DIFF_RATIO ? 14 : 7, h = strlen(compute_headers[c]);

	return h > w ? h : w;
}

static const char *key_header(enum pm_profile_key k)
{
	return k == PM_PROFILE_KEY_COMM ? "Command" : k == PM_PROFILE_KEY_DSO ? "Shared Object" :
	       "Symbol";
}

static const char *dso_name(const struct pm_profile_row *row)
{
	return row->frame->dso ? row->frame->dso : "[unknown]";
}

static size_t key_width(const struct pm_profile_result *res, const struct pm_profile_row *row,
			enum pm_profile_key k, bool dsos_listed)
{
	size_t i, w;
	bool has_sym = false;

	if (k == PM_PROFILE_KEY_COMM)
		return strlen(row->comm);
	if (k == PM_PROFILE_KEY_SYM)
		return row->frame->sym ? 4 + strlen(row->frame->sym) : UNRESOLVED_SYM_WIDTH;
	for (i = 0; i < res->nr_keys; i++)
		has_sym |= res->keys[i] == PM_PROFILE_KEY_SYM;
	w = strlen(dso_name(row));
	/* hists__set_unres_dso_col_len: room for an address. */
	return has_sym && !dsos_listed && !row->frame->sym && w < UNRESOLVED_DSO_WIDTH ?
	       UNRESOLVED_DSO_WIDTH : w;
}

static void spaces(struct pm_out *o, size_t n)
{
	while (n--)
		pm_out__ch(o, ' ');
}

/* Names come from the input: control characters would drive the terminal. */
static size_t put_name(struct pm_out *o, const char *s)
{
	pm_out__term_str(o, s, strlen(s), false);
	return strlen(s);
}

static size_t key_cell(struct pm_out *o, const struct pm_profile_row *row, enum pm_profile_key k)
{
	char b[48];

	if (k == PM_PROFILE_KEY_COMM)
		return put_name(o, row->comm);
	if (k == PM_PROFILE_KEY_DSO)
		return put_name(o, dso_name(row));
	pm_out__printf(o, "[%c] ", row->frame->kernel ? 'k' : '.');
	if (row->frame->sym)
		return 4 + put_name(o, row->frame->sym);
	snprintf(b, sizeof(b), "%-#.*" PRIx64, 16, row->frame->addr);
	pm_out__str(o, b);
	return 4 + strlen(b);
}

static void compute_cell(struct pm_out *o, const struct pm_diff_row *r, enum pm_diff_compute c,
			 size_t w)
{
	char b[64] = "";

	if (r->new && c < PM_DIFF_RATIO)
		snprintf(b, sizeof(b), "%+4.2F%%", r->delta);
	else if (r->new && !r->old)
		snprintf(b, sizeof(b), "N/A");	/* perf: no ratio or wdiff without a baseline */
	else if (r->new && c == PM_DIFF_RATIO && r->ratio > 0.0)
		snprintf(b, sizeof(b), "%14.6F", r->ratio);
	else if (r->new && c == PM_DIFF_WDIFF)
		snprintf(b, sizeof(b), "%14" PRId64, r->wdiff);
	pm_out__printf(o, "%*s", (int)w, b);
}

static void interval_cell(struct pm_out *o, const struct pm_diff_row *r)
{
	char b[64];

	snprintf(b, sizeof(b), "%+.2f..%+.2f%s", r->lo, r->hi, r->significant ? " " : "~");
	pm_out__printf(o, "  %*s", INTERVAL_WIDTH, b);
}

static void header(struct pm_out *o, const struct pm_profile_result *keys, const size_t *w,
		   const struct pm_diff_print_opts *po, bool dots)
{
	size_t i, n;

	pm_out__str(o, "# ");
	if (dots) {
		pm_out__str(o, "........  ");
		for (n = compute_width(po->compute); n; n--)
			pm_out__ch(o, '.');
		if (po->significance)
			pm_out__str(o, "  .................");
	} else {
		pm_out__printf(o, "Baseline  %*s", (int)compute_width(po->compute),
			       compute_headers[po->compute]);
		if (po->significance)
			pm_out__printf(o, "  %*s", INTERVAL_WIDTH, "Interval");
	}
	for (i = 0; i < keys->nr_keys; i++) {
		if (po->elide & 1u << keys->keys[i])
			continue;
		pm_out__str(o, "  ");
		if (!dots) {
			pm_out__printf(o, "%-*s", (int)w[i], key_header(keys->keys[i]));
			continue;
		}
		for (n = w[i]; n; n--)
			pm_out__ch(o, '.');
	}
	pm_out__ch(o, '\n');
}

/* The two graphs of a row and what a path's share is of. */
struct graph_pair {
	const struct pm_profile_graph *g[2];	/* old, new; nodes NULL: no graph */
	uint64_t base[2];
};

/* The child of node n of graph g (n 0: the root) that is frame f; 0: none. */
static uint32_t graph_child(const struct pm_profile_graph *g, uint32_t n,
			    const struct pm_profile_frame *f)
{
	uint32_t c;

	if (!g->nodes || n == UINT32_MAX)
		return 0;
	for (c = g->nodes[n].first_child; c; c = g->nodes[c].next_sibling)
		if (pm_diff__frame_same(g->nodes[c].frame, f))
			return c;
	return 0;
}

static double graph_pct(const struct graph_pair *gp, int side, uint32_t n)
{
	if (!n || !gp->base[side])
		return 0;
	return gp->g[side]->nodes[n].period * 100.0 / gp->base[side];
}

static void graph_line(struct pm_out *o, const struct graph_pair *gp, size_t depth,
		       const uint32_t at[2])
{
	const struct pm_profile_graph *g = at[1] ? gp->g[1] : gp->g[0];
	const struct pm_profile_frame *f = g->nodes[at[1] ? at[1] : at[0]].frame;
	double p0 = graph_pct(gp, 0, at[0]), p1 = graph_pct(gp, 1, at[1]);
	char b[48];

	spaces(o, 12 + 4 * depth);
	pm_out__printf(o, "--%+.2f%%-- ", p1 - p0);
	if (f->sym) {
		put_name(o, f->sym);
	} else {
		snprintf(b, sizeof(b), "%#" PRIx64, f->addr);
		pm_out__str(o, b);
	}
	pm_out__printf(o, " (%.2f%% -> %.2f%%)\n", p0, p1);
}

/* The children of new's node at[1] and old's at[0]: new's, then those only in old. */
static void graph_children(struct pm_out *o, const struct graph_pair *gp, size_t depth,
			   const uint32_t at[2])
{
	uint32_t c, next[2];
	int side;

	for (side = 1; side >= 0; side--) {
		const struct pm_profile_graph *g = gp->g[side];

		if (!g->nodes || (!at[side] && depth))
			continue;
		for (c = g->nodes[at[side]].first_child; c; c = g->nodes[c].next_sibling) {
			next[side] = c;
			next[!side] = depth && !at[!side] ? 0 :
				      graph_child(gp->g[!side], at[!side], g->nodes[c].frame);
			/* A path of both was shown with new's. */
			if (side == 0 && next[1])
				continue;
			graph_line(o, gp, depth, next);
			graph_children(o, gp, depth + 1, next);
		}
	}
}

static void row_graph(struct pm_out *o, const struct pm_profile_result *old,
		      const struct pm_profile_result *new, const struct pm_diff_row *r)
{
	static const struct pm_profile_graph none;
	const struct pm_profile_graph *g0 = pm_diff_row__graph(r, 0), *g1 = pm_diff_row__graph(r, 1);
	struct graph_pair gp = {
		.g = { g0 ? g0 : &none, g1 ? g1 : &none },
		.base = { pm_profile_result__base(old), pm_profile_result__base(new) },
	};
	static const uint32_t root[2];

	graph_children(o, &gp, 0, root);
}

void pm_diff__print_text(struct pm_out *o, const char *event, const struct pm_profile_result *old,
			 const struct pm_profile_result *keys, const struct pm_diff *d,
			 const struct pm_diff_print_opts *po)
{
	size_t w[PM_PROFILE_KEY__NR], i, k, len, last = 0;

	for (k = 0; k < keys->nr_keys; k++)
		if (!(po->elide & 1u << keys->keys[k]))
			last = k;
	/* perf sizes the key columns over every row (hists__calc_col_len). */
	for (k = 0; k < keys->nr_keys; k++) {
		w[k] = strlen(key_header(keys->keys[k]));
		for (i = 0; i < d->nr; i++) {
			len = key_width(keys, pm_diff_row__key(&d->rows[i]), keys->keys[k],
					po->dsos_listed);
			w[k] = len > w[k] ? len : w[k];
		}
	}
	pm_out__printf(o, "# Event '%s'\n#\n", event);
	header(o, keys, w, po, false);
	header(o, keys, w, po, true);
	pm_out__str(o, "#\n");
	for (i = 0; i < d->nr; i++) {
		const struct pm_diff_row *r = &d->rows[i];

		if (r->old)
			pm_out__printf(o, "  %*.2f%%", BASELINE_WIDTH - 1, r->old_pct);
		else
			spaces(o, 2 + BASELINE_WIDTH);
		pm_out__str(o, "  ");
		compute_cell(o, r, po->compute, compute_width(po->compute));
		if (po->significance)
			interval_cell(o, r);
		for (k = 0; k < keys->nr_keys; k++) {
			if (po->elide & 1u << keys->keys[k])
				continue;
			pm_out__str(o, "  ");
			len = key_cell(o, pm_diff_row__key(r), keys->keys[k]);
			/* perf pads every column but a last symbol (comm and dso pad themselves). */
			if ((k < last || keys->keys[k] != PM_PROFILE_KEY_SYM) && len < w[k])
				spaces(o, w[k] - len);
		}
		pm_out__ch(o, '\n');
		if (po->graph)
			row_graph(o, old, keys, r);
	}
}

void pm_diff_row__print_name(struct pm_out *o, const struct pm_profile_result *keys,
			     const struct pm_diff_row *r)
{
	size_t k;

	for (k = 0; k < keys->nr_keys; k++) {
		if (k)
			pm_out__str(o, "  ");
		key_cell(o, pm_diff_row__key(r), keys->keys[k]);
	}
}

static void json_side(struct pm_out *o, const char *name, const struct pm_profile_row *row,
		      double pct, uint64_t period, uint64_t samples)
{
	pm_out__printf(o, ",\"%s\":", name);
	if (!row) {
		pm_out__str(o, "null");
		return;
	}
	pm_out__printf(o, "{\"percent\":%.4f,\"period\":%" PRIu64 ",\"samples\":%" PRIu64 "}", pct,
		       period, samples);
}

static void json_keys(struct pm_out *o, const struct pm_profile_result *keys,
		      const struct pm_profile_row *row)
{
	size_t k;

	for (k = 0; k < keys->nr_keys; k++) {
		if (k)
			pm_out__ch(o, ',');
		if (keys->keys[k] == PM_PROFILE_KEY_COMM) {
			pm_out__str(o, "\"comm\":");
			pm_out__json_cstr(o, row->comm);
		} else if (keys->keys[k] == PM_PROFILE_KEY_DSO) {
			pm_out__str(o, "\"dso\":");
			pm_out__json_cstr(o, row->frame->dso);
		} else {
			pm_out__str(o, "\"sym\":");
			pm_out__json_cstr(o, row->frame->sym);
			if (!row->frame->sym)
				pm_out__printf(o, ",\"addr\":\"%#" PRIx64 "\"", row->frame->addr);
			pm_out__printf(o, ",\"kernel\":%s", row->frame->kernel ? "true" : "false");
		}
	}
}

void pm_diff__print_json(struct pm_out *o, const char *event, const struct pm_profile_result *keys,
			 const struct pm_diff *d)
{
	size_t i;

	pm_out__str(o, "{\"event\":");
	pm_out__json_cstr(o, event);
	pm_out__str(o, ",\"rows\":[");
	for (i = 0; i < d->nr; i++) {
		const struct pm_diff_row *r = &d->rows[i];

		pm_out__str(o, i ? ",\n{" : "\n{");
		json_keys(o, keys, pm_diff_row__key(r));
		json_side(o, "old", r->old, r->old_pct, r->old_period, r->old_samples);
		json_side(o, "new", r->new, r->new_pct, r->new_period, r->new_samples);
		pm_out__printf(o, ",\"delta\":%.4f,\"interval\":[%.4f,%.4f],\"significant\":%s",
			       r->delta, r->lo, r->hi, r->significant ? "true" : "false");
		if (r->new && r->old)
			pm_out__printf(o, ",\"ratio\":%.6f", r->ratio);
		pm_out__ch(o, '}');
	}
	pm_out__str(o, "\n]}\n");
}
