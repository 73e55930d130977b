// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "base/bigmem.h"
#include "base/buf.h"
#include "base/hashtab.h"
#include "base/sat.h"
#include "profile/profile_int.h"

/*
 * The call graph under each row shown (perf's callchain.c): the paths of
 * the row's samples merged into a tree, cut under the graph limit, its
 * children sorted largest first.
 */
struct gnode {
	uint32_t frame, parent, first_child, next_sibling, nr_children;
	uint64_t period, samples, ends;
};

struct gstate {
	struct qstate *qs;
	struct gnode *g;
	size_t nr, cap;
	struct pm_hashtab tab;	/* (parent, frame) -> gnode; roots are not in it */
	uint32_t *roots;	/* per row: its graph's root, NONE when not shown */
};

/* The key of a graph node: its parent and frame, as one word. */
static uint64_t gnode_key(uint32_t parent, uint32_t frame)
{
	return (uint64_t)parent << 32 | frame;
}

/* Keys stay in the nodes (8-byte slots: a graph table can be larger than the profile). */
static uint64_t gnode_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	const struct gnode *g = &((const struct gstate *)arg)->g[id];

	return pm_hashtab__hash_u64(t, gnode_key(g->parent, g->frame));
}

static bool gnode_equal(uint64_t id, const void *key, void *arg)
{
	const struct gnode *g = &((const struct gstate *)arg)->g[id];

	return gnode_key(g->parent, g->frame) == *(const uint64_t *)key;
}

static const struct pm_hashtab_ops gnode_ops = { .hash = gnode_hash, .equal = gnode_equal };

static uint32_t gnode__new(struct gstate *gs, uint32_t parent, uint32_t frame)
{
	uint32_t id;

	if (gs->nr >= UINT32_MAX / 2 || pm_bigmem__grow((void **)&gs->g, &gs->cap, gs->nr, sizeof(*gs->g)))
		return NONE;
	id = (uint32_t)gs->nr++;
	gs->g[id] = (struct gnode){
		.frame = frame, .parent = parent, .first_child = NONE, .next_sibling = NONE,
	};
	if (parent != NONE) {
		gs->g[id].next_sibling = gs->g[parent].first_child;
		gs->g[parent].first_child = id;
		gs->g[parent].nr_children++;
	}
	return id;
}

static uint32_t gchild(struct gstate *gs, uint32_t parent, uint32_t frame)
{
	uint64_t key = gnode_key(parent, frame), h = pm_hashtab__hash_u64(&gs->tab, key), found;
	uint32_t id;

	if (pm_hashtab__find(&gs->tab, h, &key, &found))
		return (uint32_t)found;
	id = gnode__new(gs, parent, frame);
	if (id != NONE && pm_hashtab__insert(&gs->tab, h, id))
		return NONE;
	return id;
}

/* Adds the chain path[from] towards path[0] (caller order) or path[nr-1] (callee). */
static int graph_add(struct gstate *gs, uint32_t root, uint32_t from, uint32_t nr,
		     const struct node *leaf)
{
	struct pm_profile *p = gs->qs->p;
	bool caller = gs->qs->q->order == PM_PROFILE_ORDER_CALLER;
	uint32_t cur = root, i = from;

	gs->g[root].period += leaf->self_period;
	gs->g[root].samples += leaf->self_samples;
	for (;;) {
		cur = gchild(gs, cur, p->nodes[p->path[i]].frame);
		if (cur == NONE)
			return -ENOMEM;
		pm_add_sat(&gs->g[cur].period, leaf->self_period);
		gs->g[cur].samples += leaf->self_samples;
		if (caller ? i == 0 : i == nr - 1)
			break;
		i += caller ? -1 : 1;
	}
	gs->g[cur].ends += leaf->self_samples;
	return 0;
}

static int graphs_collect(struct gstate *gs)
{
	struct qstate *qs = gs->qs;
	struct pm_profile *p = qs->p;
	bool caller = qs->q->order == PM_PROFILE_ORDER_CALLER;
	struct contrib *cb;
	struct contrib_walk w = { 0 };
	size_t n;
	int err = -ENOMEM;

	if (contrib_walk__init(&w, qs->nr_all))
		goto out;
	cb = w.cb;
	for (n = 0; n < p->nr_nodes; n++) {
		const struct node *x = &p->nodes[n];
		uint32_t nr, k, i, root;

		if (!x->self_samples || qs->node_row[n] == NONE)
			continue;
		nr = profile__path_of(p, (uint32_t)n);
		if (qs->q->children)
			k = qstate__path_contribs(qs, nr, cb, w.stamp, w.pos, (uint32_t)n);
		else
			k = 1, cb[0] = (struct contrib){ .row = qs->node_row[n] };
		for (i = 0; i < k; i++) {
			root = gs->roots[cb[i].row];
			if (root == NONE)
				continue;
			/* The ip's row keeps the whole chain: from the root in caller order. */
			err = graph_add(gs, root, !i && caller ? nr - 1 : cb[i].from, nr, x);
			if (err)
				goto out;
		}
	}
	err = 0;
out:
	contrib_walk__exit(&w);
	return err;
}

static const char *gnode_name(const struct gstate *gs, uint32_t id)
{
	return frame_at(gs->qs->p, gs->g[id].frame)->f.sym;
}

static int gnode_cmp(const void *va, const void *vb, void *arg)
{
	const struct gstate *gs = arg;
	uint32_t a = *(const uint32_t *)va, b = *(const uint32_t *)vb;
	int c;

	if (gs->g[a].period != gs->g[b].period)
		return gs->g[a].period > gs->g[b].period ? -1 : 1;
	c = cmp_str(gnode_name(gs, a), gnode_name(gs, b));
	return c ? c : CMP(a, b);
}

/* Appends g's subtree (children at or over min, largest first) to out; returns its index. */
static uint32_t graph_emit(struct gstate *gs, uint32_t g, uint64_t min,
			   struct pm_profile_graph *out, size_t *cap)
{
	uint32_t idx, *kids, nk = 0, c, i, prev = 0, sub;

	if (pm_array__grow((void **)&out->nodes, cap, out->nr, sizeof(*out->nodes)))
		return NONE;
	idx = (uint32_t)out->nr++;
	out->nodes[idx] = (struct pm_profile_graph_node){
		.frame = gs->g[g].frame == NONE ? NULL : &frame_at(gs->qs->p, gs->g[g].frame)->f,
		.period = gs->g[g].period,
		.samples = gs->g[g].samples,
		.run = gs->g[g].nr_children == 1 && !gs->g[g].ends,
	};
	if (!gs->g[g].nr_children)
		return idx;
	kids = malloc(gs->g[g].nr_children * sizeof(*kids));
	if (!kids)
		return NONE;
	for (c = gs->g[g].first_child; c != NONE; c = gs->g[c].next_sibling)
		if (gs->g[c].period >= min)
			kids[nk++] = c;
	qsort_r(kids, nk, sizeof(*kids), gnode_cmp, gs);
	for (i = 0; i < nk; i++) {
		sub = graph_emit(gs, kids[i], min, out, cap);
		if (sub == NONE) {
			free(kids);
			return NONE;
		}
		if (i)
			out->nodes[prev].next_sibling = sub;
		else
			out->nodes[idx].first_child = sub;
		prev = sub;
	}
	free(kids);
	return idx;
}

static uint64_t row_period(const struct pm_profile_result *r, const struct pm_profile_row *row)
{
	return r->children ? row->children_period : row->self_period;
}

/* The graph of a row under the limit: its root, with the row's weight. */
static int graph_root_only(struct pm_profile_row *row, bool children)
{
	row->graph.nodes = calloc(1, sizeof(*row->graph.nodes));
	if (!row->graph.nodes)
		return -ENOMEM;
	row->graph.nr = 1;
	row->graph.nodes[0] = (struct pm_profile_graph_node){
		.period = children ? row->children_period : row->self_period,
		.samples = children ? row->children_samples : row->self_samples,
	};
	return 0;
}

int qstate__build_graphs(struct qstate *qs)
{
	struct pm_profile_result *r = qs->r;
	struct gstate gs = { .qs = qs };
	uint64_t base = qs->q->filter && qs->q->filter->relative ? r->shown_period : r->total_period;
	/* perf: min_callchain_hits = callchain_total * (min_percent / 100), truncated. */
	uint64_t min = (uint64_t)((double)base * (qs->q->graph_limit / 100.0));
	size_t i, cap;
	int err = -ENOMEM;

	pm_hashtab__init(&gs.tab, &gnode_ops, &gs);
	gs.roots = malloc((qs->nr_all ? qs->nr_all : 1) * sizeof(*gs.roots));
	if (!gs.roots)
		return -ENOMEM;
	for (i = 0; i < qs->nr_all; i++)
		gs.roots[i] = NONE;
	/*
	 * Rows are sorted by now: map each shown row back through first_node.
	 * A row under the limit shows no path (none can weigh more than it):
	 * its graph is its root alone, and its paths are not collected, which
	 * spares most of the work on a system-wide profile's long tail.
	 */
	for (i = 0; i < r->nr_shown; i++) {
		if (row_period(r, &r->rows[i]) < min)
			continue;
		gs.roots[qs->node_row[r->rows[i].first_node]] = gnode__new(&gs, NONE, NONE);
		if (gs.roots[qs->node_row[r->rows[i].first_node]] == NONE)
			goto out;
	}
	err = graphs_collect(&gs);
	for (i = 0; !err && i < r->nr_shown; i++) {
		uint32_t root = gs.roots[qs->node_row[r->rows[i].first_node]];

		cap = 0;
		if (root == NONE)
			err = graph_root_only(&r->rows[i], r->children);
		else if (graph_emit(&gs, root, min, &r->rows[i].graph, &cap) == NONE)
			err = -ENOMEM;
	}
out:
	free(gs.roots);
	pm_bigmem__free(gs.g, gs.cap * sizeof(*gs.g));
	pm_hashtab__exit(&gs.tab);
	return err;
}
