// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec diff's model: two results paired by key values and sorted as perf
 * diff sorts them (builtin-diff.c: the compute column of the new file,
 * then the baseline's period, then the sort keys).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "profile/diff.h"

/* The rows of one result, in a table by the names their keys show. */
struct pairing {
	const struct pm_profile_result *res;
};

static int str_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

/* Equal key values: the names the keys show (an address only without a symbol). */
static bool row__same(const struct pm_profile_result *r, const struct pm_profile_row *a,
		      const struct pm_profile_row *b)
{
	size_t i;

	for (i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]) {
		case PM_PROFILE_KEY_COMM:
			if (str_cmp(a->comm, b->comm))
				return false;
			break;
		case PM_PROFILE_KEY_DSO:
			if (str_cmp(a->frame->dso, b->frame->dso))
				return false;
			break;
		default:
			if (str_cmp(a->frame->sym, b->frame->sym) ||
			    (!a->frame->sym && a->frame->addr != b->frame->addr))
				return false;
			break;
		}
	}
	return true;
}

static uint64_t hash_str(const struct pm_hashtab *t, uint64_t h, const char *s)
{
	return pm_hashtab__hash_more(t, h, s ? pm_hashtab__hash_bytes(t, s, strlen(s)) : 0);
}

static uint64_t row__hash(const struct pm_hashtab *t, const struct pm_profile_result *r,
			  const struct pm_profile_row *row)
{
	uint64_t h = 0;
	size_t i;

	for (i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]) {
		case PM_PROFILE_KEY_COMM:
			h = hash_str(t, h, row->comm);
			break;
		case PM_PROFILE_KEY_DSO:
			h = hash_str(t, h, row->frame->dso);
			break;
		default:
			h = hash_str(t, h, row->frame->sym);
			if (!row->frame->sym)
				h = pm_hashtab__hash_more(t, h, row->frame->addr);
			break;
		}
	}
	return h;
}

static uint64_t pairing__hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct pairing *p = arg;

	return row__hash(t, p->res, &p->res->rows[val]);
}

static bool pairing__equal(uint64_t val, const void *key, void *arg)
{
	const struct pairing *p = arg;

	return row__same(p->res, &p->res->rows[val], key);
}

static const struct pm_hashtab_ops pairing_ops = {
	.hash = pairing__hash,
	.equal = pairing__equal,
};

static bool keys_supported(const struct pm_profile_result *r)
{
	size_t i;

	for (i = 0; i < r->nr_keys; i++)
		if (r->keys[i] != PM_PROFILE_KEY_COMM && r->keys[i] != PM_PROFILE_KEY_DSO &&
		    r->keys[i] != PM_PROFILE_KEY_SYM)
			return false;
	return true;
}

void pm_diff__interval(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2, double z,
		       double *lo, double *hi)
{
	double p1 = (k1 + 1.0) / (n1 + 2.0), p2 = (k2 + 1.0) / (n2 + 2.0);
	double se = sqrt(p1 * (1 - p1) / (n1 + 2.0) + p2 * (1 - p2) / (n2 + 2.0));

	*lo = 100.0 * (p2 - p1 - z * se);
	*hi = 100.0 * (p2 - p1 + z * se);
}

const struct pm_profile_row *pm_diff_row__key(const struct pm_diff_row *r)
{
	return r->new ? r->new : r->old;
}

const struct pm_profile_graph *pm_diff_row__graph(const struct pm_diff_row *r, int side)
{
	const struct pm_profile_row *row = side ? r->new : r->old;

	if (!row)
		return NULL;
	return r->graph[side].nodes ? &r->graph[side] : &row->graph;
}

bool pm_diff__frame_same(const struct pm_profile_frame *a, const struct pm_profile_frame *b)
{
	if ((a->sym == NULL) != (b->sym == NULL) || str_cmp(a->dso, b->dso))
		return false;
	return a->sym ? !strcmp(a->sym, b->sym) : a->addr == b->addr;
}

#define NO_NODE UINT32_MAX

/* Two graphs merged into out: each side's node of a path, NO_NODE where it has none. */
struct graph_merge {
	const struct pm_profile_graph *g[2];
	struct pm_profile_graph out;
	size_t cap;
};

/* A child of the merged node: its node on each side, and their sums. */
struct merge_kid {
	uint32_t at[2];
	uint64_t period;
	const char *name;
	size_t order;
};

static int kid_cmp(const void *va, const void *vb)
{
	const struct merge_kid *a = va, *b = vb;
	int c;

	/* As the graphs are sorted (profile_callgraph.c): largest first, then by name. */
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	c = str_cmp(a->name, b->name);
	return c ? c : a->order < b->order ? -1 : a->order > b->order;
}

static size_t node__nr_kids(const struct pm_profile_graph *g, uint32_t n)
{
	size_t nr = 0;
	uint32_t c;

	if (n != NO_NODE)
		for (c = g->nodes[n].first_child; c; c = g->nodes[c].next_sibling)
			nr++;
	return nr;
}

/* Of k[0..nr), the first side's child of frame f's function not paired yet; nr if none. */
static size_t merge__partner(const struct graph_merge *m, const struct merge_kid *k, size_t nr,
			     const struct pm_profile_frame *f)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (k[i].at[0] != NO_NODE && k[i].at[1] == NO_NODE &&
		    pm_diff__frame_same(m->g[0]->nodes[k[i].at[0]].frame, f))
			break;
	return i;
}

/*
 * The children of at[0] and at[1]: the first side's, each joined by the
 * second side's child of its function, then the second side's others (as
 * perf merges the call chains of entries it collapses).
 */
static struct merge_kid *merge__kids(const struct graph_merge *m, const uint32_t at[2], size_t *nr)
{
	size_t cap = node__nr_kids(m->g[0], at[0]) + node__nr_kids(m->g[1], at[1]), i;
	struct merge_kid *k = malloc((cap ? cap : 1) * sizeof(*k));
	int side;
	uint32_t c;

	*nr = 0;
	if (!k)
		return NULL;
	for (side = 0; side < 2; side++) {
		const struct pm_profile_graph *g = m->g[side];

		if (at[side] == NO_NODE)
			continue;
		for (c = g->nodes[at[side]].first_child; c; c = g->nodes[c].next_sibling) {
			const struct pm_profile_graph_node *x = &g->nodes[c];

			i = side ? merge__partner(m, k, *nr, x->frame) : *nr;
			if (i == *nr)
				k[(*nr)++] = (struct merge_kid){
					.at = { NO_NODE, NO_NODE }, .name = x->frame->sym, .order = i,
				};
			k[i].at[side] = c;
			k[i].period += x->period;
		}
	}
	qsort(k, *nr, sizeof(*k), kid_cmp);
	return k;
}

/* Appends the merge of at[0] and at[1] and of their subtrees; its index, NO_NODE on ENOMEM. */
static uint32_t merge__node(struct graph_merge *m, const uint32_t at[2])
{
	struct pm_profile_graph_node *n;
	struct merge_kid *k;
	uint32_t idx, sub, prev = 0;
	size_t nr, i;
	bool run = true;
	int side;

	if (pm_array__grow((void **)&m->out.nodes, &m->cap, m->out.nr, sizeof(*m->out.nodes)))
		return NO_NODE;
	idx = (uint32_t)m->out.nr++;
	n = &m->out.nodes[idx];
	*n = (struct pm_profile_graph_node){ 0 };
	for (side = 0; side < 2; side++) {
		const struct pm_profile_graph_node *x;

		if (at[side] == NO_NODE)
			continue;
		x = &m->g[side]->nodes[at[side]];
		n->frame = x->frame;
		n->period += x->period;
		n->samples += x->samples;
		run = run && x->run;
	}
	k = merge__kids(m, at, &nr);
	if (!k)
		return NO_NODE;
	m->out.nodes[idx].run = run && nr == 1;
	for (i = 0; i < nr; i++) {
		sub = merge__node(m, k[i].at);
		if (sub == NO_NODE) {
			free(k);
			return NO_NODE;
		}
		if (i)
			m->out.nodes[prev].next_sibling = sub;
		else
			m->out.nodes[idx].first_child = sub;
		prev = sub;
	}
	free(k);
	return idx;
}

/*
 * Row row of side joins diff row r: its call graph merges into r's.  Each
 * graph was cut at the query's limit on its own, so a path under it in
 * every row of the name stays out even where their sum would be over it.
 */
static int row__merge_graph(struct pm_diff_row *r, int side, const struct pm_profile_row *row)
{
	const struct pm_profile_graph *base = pm_diff_row__graph(r, side);
	struct graph_merge m = { .g = { base, &row->graph } };
	static const uint32_t roots[2];

	if (!base || !base->nodes || !row->graph.nodes)
		return 0;
	if (merge__node(&m, roots) == NO_NODE) {
		free(m.out.nodes);
		return -ENOMEM;
	}
	free(r->graph[side].nodes);
	r->graph[side] = m.out;
	return 0;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	if (!n)
		return true;
	for (i = 0; s && i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static bool row__kept(const struct pm_profile_row *row, const struct pm_diff_opts *o)
{
	return in_list(row->frame->dso, o->dsos, o->nr_dsos) &&
	       in_list(row->frame->sym, o->syms, o->nr_syms);
}

/* The denominator of a result's shares: with relative and a filter, the rows kept. */
static uint64_t base_of(const struct pm_profile_result *res, const struct pm_diff_opts *o,
			uint64_t *samples)
{
	uint64_t period = 0;
	size_t i;

	*samples = res->relative ? res->shown_samples : res->total_samples;
	if (!o->relative || (!o->nr_dsos && !o->nr_syms))
		return pm_profile_result__base(res);
	*samples = 0;
	for (i = 0; i < res->nr_rows; i++) {
		if (!row__kept(&res->rows[i], o))
			continue;
		period += res->rows[i].self_period;
		*samples += res->rows[i].self_samples;
	}
	return period;
}

static void side__add(const struct pm_profile_result *res, const struct pm_profile_row *row,
		      uint64_t *period, uint64_t *samples)
{
	*period += res->children ? row->children_period : row->self_period;
	*samples += res->children ? row->children_samples : row->self_samples;
}

static void row__compute(struct pm_diff_row *d, const struct pm_profile_result *old,
			 const struct pm_profile_result *new, const struct pm_diff_opts *o)
{
	uint64_t n[2], base[2] = { base_of(old, o, &n[0]), base_of(new, o, &n[1]) };

	d->old_pct = d->old && base[0] ? d->old_period * 100.0 / base[0] : 0.0;
	d->new_pct = d->new && base[1] ? d->new_period * 100.0 / base[1] : 0.0;
	if (d->new) {
		d->delta = d->new_pct - d->old_pct;
		d->ratio = (double)d->new_period / (double)(d->old_period ? d->old_period : 1);
		d->wdiff = (int64_t)(d->new_period * (uint64_t)o->w_new -
				     d->old_period * (uint64_t)o->w_old);
	}
	pm_diff__interval(d->old_samples, n[0], d->new_samples, n[1], o->z, &d->lo, &d->hi);
	d->significant = d->lo > 0 || d->hi < 0;
}

#define NO_ROW SIZE_MAX

/*
 * The diff rows of new's rows (those kept), in their order: rows that show
 * the same names share one, as perf diff collapses a file's entries by
 * name (sort__sym_sort in diff mode: the _start of ld.so and a program's
 * are one row under --sort sym).  The old group of the same names (old_t:
 * each group's first row) joins it; old_drow[first] says where, + 1.
 */
static int group_new(struct pm_diff *d, const struct pm_profile_result *new,
		     const struct pm_profile_result *old, const struct pm_diff_opts *o,
		     struct pm_hashtab *old_t, size_t *old_drow)
{
	size_t *drow = calloc(new->nr_rows + 1, sizeof(*drow));
	struct pairing p = { .res = new };
	struct pm_hashtab t;
	size_t i;
	uint64_t v, h;
	int err = drow ? 0 : -ENOMEM;

	pm_hashtab__init(&t, &pairing_ops, &p);
	for (i = 0; !err && i < new->nr_rows; i++) {
		const struct pm_profile_row *row = &new->rows[i];
		struct pm_diff_row *r;

		if (!row__kept(row, o))
			continue;
		h = row__hash(&t, new, row);
		if (pm_hashtab__find(&t, h, row, &v)) {
			drow[i] = drow[v];
			err = row__merge_graph(&d->rows[drow[i]], 1, row);
		} else {
			err = pm_hashtab__insert(&t, h, i);
			drow[i] = d->nr++;
			d->rows[drow[i]] = (struct pm_diff_row){ .new = row };
			if (pm_hashtab__find(old_t, row__hash(old_t, old, row), row, &v)) {
				d->rows[drow[i]].old = &old->rows[v];
				old_drow[v] = drow[i] + 1;
			}
		}
		r = &d->rows[drow[i]];
		side__add(new, row, &r->new_period, &r->new_samples);
	}
	pm_hashtab__exit(&t);
	free(drow);
	return err;
}

static int pair(struct pm_diff *d, const struct pm_profile_result *old,
		const struct pm_profile_result *new, const struct pm_diff_opts *o)
{
	/* Of each old row, the first of its names; of that, its diff row + 1. */
	size_t *first = calloc(old->nr_rows + 1, sizeof(*first));
	size_t *old_drow = calloc(old->nr_rows + 1, sizeof(*old_drow));
	struct pairing p = { .res = old };
	struct pm_hashtab t;
	size_t i;
	uint64_t v, h;
	int err = first && old_drow ? 0 : -ENOMEM;

	pm_hashtab__init(&t, &pairing_ops, &p);
	for (i = 0; !err && i < old->nr_rows; i++) {
		first[i] = NO_ROW;
		if (!row__kept(&old->rows[i], o))
			continue;
		h = row__hash(&t, old, &old->rows[i]);
		if (pm_hashtab__find(&t, h, &old->rows[i], &v))
			first[i] = v;
		else if (!(err = pm_hashtab__insert(&t, h, i)))
			first[i] = i;
	}
	if (!err)
		err = group_new(d, new, old, o, &t, old_drow);
	for (i = 0; !err && i < old->nr_rows; i++) {
		struct pm_diff_row *r;

		if (first[i] == NO_ROW)
			continue;
		if (!old_drow[first[i]]) {
			d->rows[d->nr] = (struct pm_diff_row){ .old = &old->rows[i] };
			old_drow[first[i]] = ++d->nr;
		}
		r = &d->rows[old_drow[first[i]] - 1];
		side__add(old, &old->rows[i], &r->old_period, &r->old_samples);
		if (first[i] != i)
			err = row__merge_graph(r, 0, &old->rows[i]);
	}
	pm_hashtab__exit(&t);
	free(first);
	free(old_drow);
	return err;
}

struct sort_ctx {
	enum pm_diff_compute compute;
	const struct pm_profile_result *res;
};

static int cmp_doubles(double l, double r)
{
	return l > r ? -1 : l < r ? 1 : 0;
}

static double compute_value(enum pm_diff_compute compute, const struct pm_diff_row *r)
{
	switch (compute) {
	case PM_DIFF_DELTA:
		return r->delta;
	case PM_DIFF_DELTA_ABS:
		return fabs(r->delta);
	default:
		return r->ratio;
	}
}

static int key_cmp(const struct pm_profile_result *res, const struct pm_profile_row *a,
		   const struct pm_profile_row *b)
{
	size_t i;
	int c = 0;

	for (i = 0; i < res->nr_keys && !c; i++) {
		switch (res->keys[i]) {
		case PM_PROFILE_KEY_COMM:
			c = str_cmp(a->comm, b->comm);
			break;
		case PM_PROFILE_KEY_DSO:
			c = str_cmp(a->frame->dso, b->frame->dso);
			break;
		default:
			/* perf's cmp_null: a row without a symbol after those with one. */
			c = !a->frame->sym || !b->frame->sym ? -str_cmp(a->frame->sym, b->frame->sym) :
			    strcmp(a->frame->sym, b->frame->sym);
			break;
		}
	}
	return c;
}

/* perf diff's order: rows of the new file first, by compute; then baseline period; then keys. */
static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct pm_diff_row *a = pa, *b = pb;
	const struct sort_ctx *s = arg;
	int c;

	if (!a->new != !b->new)
		return a->new ? -1 : 1;
	if (a->new) {
		/* Only a delta has a meaning without a baseline: the others go below. */
		if (s->compute >= PM_DIFF_RATIO && !a->old != !b->old)
			return a->old ? -1 : 1;
		if (s->compute == PM_DIFF_WDIFF)
			c = a->wdiff > b->wdiff ? -1 : a->wdiff < b->wdiff;
		else
			c = cmp_doubles(compute_value(s->compute, a), compute_value(s->compute, b));
		if (c)
			return c;
	}
	if (a->old_period != b->old_period)
		return a->old_period > b->old_period ? -1 : 1;
	return key_cmp(s->res, pm_diff_row__key(a), pm_diff_row__key(b));
}

int pm_diff__compute(const struct pm_profile_result *old, const struct pm_profile_result *new,
		     const struct pm_diff_opts *o, struct pm_diff *out)
{
	size_t i;
	int err;

	*out = (struct pm_diff){ 0 };
	if (old->nr_keys != new->nr_keys || memcmp(old->keys, new->keys, sizeof(old->keys[0]) *
						   old->nr_keys) || !keys_supported(old))
		return -EINVAL;
	out->rows = calloc(old->nr_rows + new->nr_rows + 1, sizeof(*out->rows));
	err = out->rows ? pair(out, old, new, o) : -ENOMEM;
	if (err) {
		pm_diff__exit(out);
		return err;
	}
	for (i = 0; i < out->nr; i++)
		row__compute(&out->rows[i], old, new, o);
	qsort_r(out->rows, out->nr, sizeof(*out->rows), row_cmp,
		&(struct sort_ctx){ .compute = o->compute, .res = new });
	return 0;
}

void pm_diff__exit(struct pm_diff *d)
{
	size_t i;

	for (i = 0; d->rows && i < d->nr; i++) {
		free(d->rows[i].graph[0].nodes);
		free(d->rows[i].graph[1].nodes);
	}
	free(d->rows);
	*d = (struct pm_diff){ 0 };
}
