// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/buf.h"
#include "base/hashtab.h"
#include "base/sat.h"
#include "profile/profile_int.h"

/*
 * Queries: the profile's stack tree read into rows of a sort-key tuple,
 * summed and sorted as perf report does (hist.c, sort.c).
 */
static const char *const key_names[PM_PROFILE_KEY__NR] = {
	[PM_PROFILE_KEY_COMM] = "comm",
	[PM_PROFILE_KEY_PID] = "pid",
	[PM_PROFILE_KEY_TID] = "tid",
	[PM_PROFILE_KEY_CPU] = "cpu",
	[PM_PROFILE_KEY_DSO] = "dso",
	[PM_PROFILE_KEY_SYM] = "sym",
	[PM_PROFILE_KEY_SRCLINE] = "srcline",
	[PM_PROFILE_KEY_STATE] = "state",
};

int pm_profile_key__parse(const char *name, enum pm_profile_key *key)
{
	int k;

	if (!strcmp(name, "symbol")) {
		*key = PM_PROFILE_KEY_SYM;
		return 0;
	}
	for (k = 0; k < PM_PROFILE_KEY__NR; k++) {
		if (!strcmp(name, key_names[k])) {
			*key = (enum pm_profile_key)k;
			return 0;
		}
	}
	return -EINVAL;
}

const char *pm_profile_key__name(enum pm_profile_key key)
{
	return (unsigned)key < PM_PROFILE_KEY__NR ? key_names[key] : NULL;
}

static uint64_t rowkey_hash(const struct pm_hashtab *t, const struct rowkey *k)
{
	return hash_words(t, ((uint64_t)k->comm << 32 | k->dso) ^ k->addr,
			  hash_words(t, (uint64_t)(uint32_t)k->pid << 32 | (uint32_t)k->tid,
				     ((uint64_t)k->sym << 32 | (uint32_t)k->cpu) ^ k->kernel ^
				     (uint64_t)k->srcline << 1 ^ (uint64_t)k->state << 33));
}

static uint64_t row_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	return rowkey_hash(t, &((const struct qstate *)arg)->keys[id]);
}

/* Keys are zeroed before they are filled: memcmp sees no stray padding. */
static bool row_equal(uint64_t id, const void *key, void *arg)
{
	return !memcmp(&((const struct qstate *)arg)->keys[id], key, sizeof(struct rowkey));
}

static const struct pm_hashtab_ops row_ops = { .hash = row_hash, .equal = row_equal };

static bool in_list(const int32_t *v, size_t n, int32_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool pm_profile_filter__keeps(const struct pm_profile_filter *f, const struct pm_profile_ctx *c,
			      bool *shown)
{
	size_t i;

	*shown = true;
	if (!f)
		return true;
	if (f->nr_cpus && !in_list(f->cpus, f->nr_cpus, c->cpu))
		return false;
	if (f->nr_comms) {
		*shown = false;
		for (i = 0; i < f->nr_comms && !*shown; i++)
			*shown = c->comm && !strcmp(f->comms[i], c->comm);
	}
	if (f->nr_pids && !in_list(f->pids, f->nr_pids, c->pid))
		*shown = false;
	if (f->nr_tids && !in_list(f->tids, f->nr_tids, c->tid))
		*shown = false;
	return true;
}

static int ctx_classify(struct qstate *qs)
{
	const struct pm_profile_filter *f = qs->q->filter;
	struct pm_profile *p = qs->p;
	struct pm_profile_result *r = qs->r;
	size_t c;

	qs->ctx_state = calloc(p->nr_ctxs ? p->nr_ctxs : 1, 1);
	if (!qs->ctx_state)
		return -ENOMEM;
	for (c = 0; c < p->nr_ctxs; c++) {
		const struct ctx *x = &p->ctxs[c];
		const struct pm_profile_ctx pc = {
			.event = x->event, .comm = str_at(p, x->comm),
			.pid = x->pid, .tid = x->tid, .cpu = x->cpu, .state = x->state,
		};
		bool shown;

		if (x->event != qs->q->event || !pm_profile_filter__keeps(f, &pc, &shown))
			continue;
		qs->ctx_state[c] = shown ? CTX_SHOWN : CTX_HIDDEN;
		r->total_samples += x->samples;
		pm_add_sat(&r->total_period, x->period);
		if (shown) {
			r->shown_samples += x->samples;
			pm_add_sat(&r->shown_period, x->period);
		}
	}
	return 0;
}

static uint32_t row_find(struct qstate *qs, const struct rowkey *k, uint32_t node)
{
	struct pm_profile *p = qs->p;
	struct pm_profile_result *r = qs->r;
	const struct node *n = &p->nodes[node];
	const struct ctx *c = &p->ctxs[n->ctx];
	uint64_t h = rowkey_hash(&qs->row_tab, k), found;
	uint32_t id;

	if (pm_hashtab__find(&qs->row_tab, h, k, &found))
		return (uint32_t)found;
	if (pm_bigmem__grow((void **)&qs->keys, &qs->keys_cap, r->nr_rows, sizeof(*qs->keys)) ||
	    pm_array__grow((void **)&r->rows, &qs->rows_cap, r->nr_rows, sizeof(*r->rows)))
		return NONE;
	id = (uint32_t)r->nr_rows;
	qs->keys[id] = *k;
	if (pm_hashtab__insert(&qs->row_tab, h, id))
		return NONE;
	r->nr_rows++;
	r->rows[id] = (struct pm_profile_row){
		.comm = str_at(p, c->comm), .pid = n->pid, .tid = n->tid, .cpu = c->cpu,
		.state = c->state, .frame = &frame_at(p, n->frame)->f,
		.first_node = node,
	};
	return id;
}

/* The row of every frame node of a shown context: one lookup per node. */
static int rows_assign(struct qstate *qs)
{
	struct pm_profile *p = qs->p;
	struct rowkey k;
	size_t n;

	qs->node_row = pm_bigmem__alloc(p->nr_nodes * sizeof(*qs->node_row));
	if (!qs->node_row)
		return -ENOMEM;
	for (n = 0; n < p->nr_nodes; n++) {
		const struct node *x = &p->nodes[n];
		const struct frame *f;
		const struct ctx *c;

		qs->node_row[n] = NONE;
		if (x->frame == NONE || qs->ctx_state[x->ctx] != CTX_SHOWN)
			continue;
		c = &p->ctxs[x->ctx];
		/* memcmp compares keys: no padding may differ. */
		memset(&k, 0, sizeof(k));
		k.comm = qs->has[PM_PROFILE_KEY_COMM] ? c->comm : 0;
		k.pid = qs->has[PM_PROFILE_KEY_PID] ? c->pid : 0;
		k.tid = qs->has[PM_PROFILE_KEY_TID] ? c->tid : 0;
		k.cpu = qs->has[PM_PROFILE_KEY_CPU] ? c->cpu : 0;
		k.state = qs->has[PM_PROFILE_KEY_STATE] ? c->state : 0;
		f = frame_at(p, x->frame);
		if (qs->has[PM_PROFILE_KEY_SYM] || qs->has[PM_PROFILE_KEY_DSO])
			k.dso = f->dso;
		if (qs->has[PM_PROFILE_KEY_SYM]) {
			k.sym = f->sym;
			k.addr = f->f.addr;
			k.kernel = f->f.kernel;
		}
		k.srcline = qs->has[PM_PROFILE_KEY_SRCLINE] ? f->srcline : 0;
		qs->node_row[n] = row_find(qs, &k, (uint32_t)n);
		if (qs->node_row[n] == NONE)
			return -ENOMEM;
	}
	return 0;
}

uint32_t qstate__path_contribs(struct qstate *qs, uint32_t nr, struct contrib *out,
			       uint32_t *stamp, uint32_t *pos, uint32_t leaf)
{
	struct pm_profile *p = qs->p;
	bool caller = qs->q->order == PM_PROFILE_ORDER_CALLER;
	uint32_t i, n = 0, row;

	for (i = 0; i < nr; i++) {
		row = qs->node_row[p->path[i]];
		if (stamp[row] != leaf) {
			stamp[row] = leaf;
			pos[row] = n;
			out[n++] = (struct contrib){ .row = row, .from = i };
		} else if (caller && pos[row]) {
			/* Caller order meets the outermost occurrence first. */
			out[pos[row]].from = i;
		}
	}
	return n;
}

int contrib_walk__init(struct contrib_walk *w, size_t nr_rows)
{
	size_t n = nr_rows ? nr_rows : 1;

	w->cb = malloc(PM_PROFILE_MAX_FRAMES * sizeof(*w->cb));
	w->stamp = malloc(n * sizeof(*w->stamp));
	w->pos = malloc(n * sizeof(*w->pos));
	if (!w->cb || !w->stamp || !w->pos)
		return -ENOMEM;
	memset(w->stamp, 0xff, n * sizeof(*w->stamp));
	return 0;
}

void contrib_walk__exit(struct contrib_walk *w)
{
	free(w->cb);
	free(w->stamp);
	free(w->pos);
}

static int rows_sum(struct qstate *qs)
{
	struct pm_profile *p = qs->p;
	struct pm_profile_result *r = qs->r;
	bool caller = qs->q->order == PM_PROFILE_ORDER_CALLER;
	struct contrib_walk w = { 0 };
	size_t n;

	if (qs->q->children && contrib_walk__init(&w, r->nr_rows)) {
		contrib_walk__exit(&w);
		return -ENOMEM;
	}
	for (n = 0; n < p->nr_nodes; n++) {
		const struct node *x = &p->nodes[n];
		struct pm_profile_row *row;
		uint32_t nr, i, k, depth;

		if (!x->self_samples || qs->node_row[n] == NONE)
			continue;
		row = &r->rows[qs->node_row[n]];
		pm_add_sat(&row->self_period, x->self_period);
		row->self_samples += x->self_samples;
		if (!qs->q->children)
			continue;
		nr = profile__path_of(p, (uint32_t)n);
		k = qstate__path_contribs(qs, nr, w.cb, w.stamp, w.pos, (uint32_t)n);
		for (i = 0; i < k; i++) {
			row = &r->rows[w.cb[i].row];
			pm_add_sat(&row->children_period, x->self_period);
			row->children_samples += x->self_samples;
			/* The row of the ip keeps the whole chain. */
			if (!i)
				depth = nr;
			else
				depth = caller ? w.cb[i].from + 1 : nr - w.cb[i].from;
			if (depth > row->max_depth)
				row->max_depth = depth;
		}
	}
	contrib_walk__exit(&w);
	return 0;
}

static bool row_present(const struct qstate *qs, const struct pm_profile_row *row)
{
	return qs->q->children ? row->children_samples : row->self_samples;
}

/* perf's output order (hist_entry__sort over the sort list "overhead_children,overhead,KEYS"). */
static int row_cmp(const void *va, const void *vb, void *arg)
{
	const struct qstate *qs = arg;
	const struct pm_profile_row *a = va, *b = vb;
	size_t i;
	int c;

	/* Rows no sample made (the ones of callers, without children) go away at the end. */
	if (row_present(qs, a) != row_present(qs, b))
		return row_present(qs, a) ? -1 : 1;
	if (qs->q->children) {
		if (a->children_period != b->children_period)
			return a->children_period > b->children_period ? -1 : 1;
		/*
		 * __hpp__sort_acc: caller above callee within one thread (a row's
		 * pid and tid are its first node's, whatever the keys).
		 */
		if (qs->q->callchain && a->pid == b->pid && a->tid == b->tid &&
		    a->max_depth != b->max_depth) {
			c = CMP(a->max_depth, b->max_depth);
			return qs->q->order == PM_PROFILE_ORDER_CALLER ? -c : c;
		}
	}
	if (a->self_period != b->self_period)
		return a->self_period > b->self_period ? -1 : 1;
	for (i = 0; i < qs->r->nr_keys; i++) {
		switch (qs->r->keys[i]) {
		case PM_PROFILE_KEY_COMM:
			c = strcmp(a->comm, b->comm);
			break;
		case PM_PROFILE_KEY_PID:
			c = CMP(a->pid, b->pid);
			break;
		case PM_PROFILE_KEY_TID:
			c = CMP(a->tid, b->tid);
			break;
		case PM_PROFILE_KEY_CPU:
			c = CMP(a->cpu, b->cpu);
			break;
		case PM_PROFILE_KEY_STATE:
			c = CMP(a->state, b->state);
			break;
		case PM_PROFILE_KEY_DSO:
			c = cmp_str(a->frame->dso, b->frame->dso);
			break;
		case PM_PROFILE_KEY_SRCLINE:
			c = cmp_str(a->frame->srcline, b->frame->srcline);
			break;
		default:
			c = cmp_str(a->frame->sym, b->frame->sym);
			break;
		}
		if (c)
			return c;
	}
	/* perf leaves equal names in its input tree's order: by address. */
	if (qs->has[PM_PROFILE_KEY_SYM] && a->frame->addr != b->frame->addr)
		return CMP(a->frame->addr, b->frame->addr);
	return CMP(a->first_node, b->first_node);
}

uint64_t pm_profile_result__base(const struct pm_profile_result *r)
{
	return r->relative ? r->shown_period : r->total_period;
}

double pm_profile_result__percent(const struct pm_profile_result *r,
				  const struct pm_profile_row *row)
{
	uint64_t base = pm_profile_result__base(r);

	if (!base)
		return 0;
	return (double)(r->children ? row->children_period : row->self_period) * 100.0 / base;
}

static void rows_limit(struct pm_profile_result *r, const struct pm_profile_query *q)
{
	size_t i;

	for (i = 0; i < r->nr_rows; i++) {
		/* perf compares floats (hists__fprintf's percent < min_pcnt). */
		if ((float)pm_profile_result__percent(r, &r->rows[i]) < (float)q->percent_limit)
			break;
		if (q->max_rows && i == q->max_rows)
			break;
	}
	r->nr_shown = i;
}

void pm_profile_result__delete(struct pm_profile_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_rows; i++)
		free(r->rows[i].graph.nodes);
	free(r->rows);
	free(r->event_name);
	free(r);
}

static const enum pm_profile_key default_keys[] = {
	PM_PROFILE_KEY_COMM, PM_PROFILE_KEY_DSO, PM_PROFILE_KEY_SYM,
};

int pm_profile__query(struct pm_profile *p, const struct pm_profile_query *q,
		      struct pm_profile_result **out)
{
	const enum pm_profile_key *keys = q->keys ? q->keys : default_keys;
	size_t nr_keys = q->keys ? q->nr_keys : 3, i;
	struct qstate qs = { .p = p, .q = q };
	struct pm_profile_result *r;
	int err;

	*out = NULL;
	if (q->event >= p->nr_events || !nr_keys || nr_keys > PM_PROFILE_KEY__NR)
		return -EINVAL;
	pm_hashtab__init(&qs.row_tab, &row_ops, &qs);
	for (i = 0; i < nr_keys; i++) {
		if ((unsigned)keys[i] >= PM_PROFILE_KEY__NR || qs.has[keys[i]])
			return -EINVAL;
		qs.has[keys[i]] = true;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	qs.r = r;
	memcpy(r->keys, keys, nr_keys * sizeof(*keys));
	r->nr_keys = nr_keys;
	r->children = q->children;
	r->graph = q->graph;
	r->order = q->order;
	r->graph_limit = q->graph_limit;
	r->relative = q->filter && q->filter->relative;
	r->elide_comm = q->filter && q->filter->nr_comms == 1;
	r->event_name = strdup(p->events[q->event].name);
	err = r->event_name ? 0 : -ENOMEM;
	if (!err)
		err = ctx_classify(&qs);
	if (!err)
		err = rows_assign(&qs);
	if (!err)
		err = rows_sum(&qs);
	if (!err) {
		if (r->nr_rows)
			qsort_r(r->rows, r->nr_rows, sizeof(*r->rows), row_cmp, &qs);
		qs.nr_all = r->nr_rows;
		while (r->nr_rows && !row_present(&qs, &r->rows[r->nr_rows - 1]))
			r->nr_rows--;
		rows_limit(r, q);
		if (q->graph)
			err = qstate__build_graphs(&qs);
	}
	free(qs.ctx_state);
	pm_bigmem__free(qs.node_row, p->nr_nodes * sizeof(*qs.node_row));
	pm_bigmem__free(qs.keys, qs.keys_cap * sizeof(*qs.keys));
	pm_hashtab__exit(&qs.row_tab);
	if (err) {
		pm_profile_result__delete(r);
		return err;
	}
	*out = r;
	return 0;
}
