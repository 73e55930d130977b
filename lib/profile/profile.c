// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/buf.h"
#include "base/cache.h"
#include "base/hashtab.h"
#include "base/sat.h"
#include "profile/profile_int.h"

/* ---- tables ---- */

static uint64_t frame_key_hash(const struct pm_hashtab *t, const struct frame *k)
{
	uint64_t h = hash_words(t, ((uint64_t)k->dso << 32 | k->sym) ^ ((uint64_t)k->f.kernel << 63),
				k->f.addr ^ ((uint64_t)k->dso_id << 32));

	if (k->f.ip || k->f.map.start || k->f.inlined || k->linkage || k->srcline)
		h = hash_words(t, h ^ k->f.ip ^ ((uint64_t)k->srcline << 32),
			       k->f.map.start ^ ((uint64_t)k->linkage << 1 | k->f.inlined));
	return h;
}

static uint64_t frame_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	return frame_key_hash(t, frame_at(arg, (uint32_t)id));
}

/* Two interned frames: strings by id, the rest by value. */
static bool frame_equal(uint64_t id, const void *key, void *arg)
{
	const struct frame *a = frame_at(arg, (uint32_t)id), *b = key;

	return a->dso == b->dso && a->dso_id == b->dso_id && a->sym == b->sym &&
	       a->map_file == b->map_file && a->build_id == b->build_id &&
	       a->linkage == b->linkage && a->srcline == b->srcline &&
	       a->f.addr == b->f.addr && a->f.kernel == b->f.kernel && a->f.ip == b->f.ip &&
	       a->f.in_file == b->f.in_file &&
	       a->f.map.start == b->f.map.start && a->f.map.limit == b->f.map.limit &&
	       a->f.map.pgoff == b->f.map.pgoff && a->f.inlined == b->f.inlined;
}

/* A context's key: every field but its node and counts. */
static uint64_t ctx_key_hash(const struct pm_hashtab *t, const struct ctx *c)
{
	return hash_words(t, (uint64_t)c->event << 32 | c->comm,
			  hash_words(t, (uint64_t)(uint32_t)c->pid << 32 | (uint32_t)c->tid,
				     (uint64_t)c->state << 32 | (uint32_t)c->cpu));
}

static uint64_t ctx_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	return ctx_key_hash(t, &((const struct pm_profile *)arg)->ctxs[id]);
}

static bool ctx_equal(uint64_t id, const void *key, void *arg)
{
	const struct ctx *c = &((const struct pm_profile *)arg)->ctxs[id], *k = key;

	return c->event == k->event && c->comm == k->comm && c->pid == k->pid &&
	       c->tid == k->tid && c->cpu == k->cpu && c->state == k->state;
}

/* What stack_find looks up. */
struct stack_key {
	uint32_t ctx, nr;
	const uint32_t *ids;
};

static uint64_t stack_key_hash(const struct pm_hashtab *t, uint32_t ctx, const uint32_t *ids,
			       uint32_t nr)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_bytes(t, ids, nr * sizeof(*ids)), ctx);
}

static uint64_t stack_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	const struct pm_profile *p = arg;
	const struct stack *st = &p->stacks[id];

	return stack_key_hash(t, st->ctx, p->stack_ids + st->off, st->nr);
}

static bool stack_equal(uint64_t id, const void *key, void *arg)
{
	const struct pm_profile *p = arg;
	const struct stack *st = &p->stacks[id];
	const struct stack_key *k = key;

	return st->ctx == k->ctx && st->nr == k->nr &&
	       !memcmp(p->stack_ids + st->off, k->ids, k->nr * sizeof(*k->ids));
}

static const struct pm_hashtab_ops frame_ops = { .hash = frame_hash, .equal = frame_equal };
static const struct pm_hashtab_ops ctx_ops = { .hash = ctx_hash, .equal = ctx_equal };
static const struct pm_hashtab_ops stack_ops = { .hash = stack_hash, .equal = stack_equal };

/* ---- strings ---- */

/* Interns s: returns its id + 1, 0 for NULL, or 0 with *err set. */
static uint32_t str_find(struct pm_profile *p, const char *s, size_t len, int *err)
{
	uint32_t id;

	if (!s)
		return 0;
	if (pm_intern__id(&p->strs, s, len, &id, NULL)) {
		*err = -ENOMEM;
		return 0;
	}
	return id + 1;
}

/* ---- frames, contexts, nodes ---- */

static uint32_t str_find0(struct pm_profile *p, const char *s, int *err)
{
	return str_find(p, s, s ? strlen(s) : 0, err);
}

static uint32_t frame_intern(struct pm_profile *p, const struct pm_profile_frame *f, int *err)
{
	struct frame k = {
		.f = *f,
		.dso = str_find0(p, f->dso, err),
		.dso_id = str_find0(p, f->dso_id, err),
		.sym = str_find0(p, f->sym, err),
		.map_file = str_find0(p, f->map.file, err),
		.build_id = str_find0(p, f->map.build_id, err),
		.linkage = str_find0(p, f->linkage, err),
		.srcline = str_find0(p, f->srcline, err),
	};
	struct frame *nf;
	uint64_t h, found;
	uint32_t id;

	if (*err)
		return NONE;
	if (k.dso_id == k.dso)
		k.dso_id = 0;	/* one frame whether the id is given or not */
	if (k.linkage == k.sym)
		k.linkage = 0;	/* the same: a name that needs no demangling */
	h = frame_key_hash(&p->frame_tab, &k);
	if (pm_hashtab__find(&p->frame_tab, h, &k, &found))
		return (uint32_t)found;
	if (p->nr_frames >= UINT32_MAX / 2)
		goto nomem;
	if (p->nr_frames % FRAME_BLOCK == 0) {
		if (pm_array__grow((void **)&p->frame_blocks, &p->frame_blocks_cap,
				   p->nr_frames / FRAME_BLOCK, sizeof(*p->frame_blocks)))
			goto nomem;
		nf = malloc(FRAME_BLOCK * sizeof(*nf));
		if (!nf)
			goto nomem;
		p->frame_blocks[p->nr_frames / FRAME_BLOCK] = nf;
	}
	id = (uint32_t)p->nr_frames++;
	nf = frame_at(p, id);
	*nf = k;
	nf->f.dso = str_at(p, k.dso);
	nf->f.dso_id = str_at(p, k.dso_id ? k.dso_id : k.dso);
	nf->f.sym = str_at(p, k.sym);
	nf->f.map.file = str_at(p, k.map_file);
	nf->f.map.build_id = str_at(p, k.build_id);
	nf->f.linkage = str_at(p, k.linkage ? k.linkage : k.sym);
	nf->f.srcline = str_at(p, k.srcline);
	if (pm_hashtab__insert(&p->frame_tab, h, id))
		goto nomem;
	return id;
nomem:
	*err = -ENOMEM;
	return NONE;
}

static uint32_t node__new(struct pm_profile *p, uint32_t parent, uint32_t frame, uint32_t ctx)
{
	uint32_t id;

	if (p->nr_nodes >= UINT32_MAX / 2 ||
	    pm_bigmem__grow((void **)&p->nodes, &p->nodes_cap, p->nr_nodes, sizeof(*p->nodes)))
		return NONE;
	id = (uint32_t)p->nr_nodes++;
	p->nodes[id] = (struct node){
		.parent = parent, .frame = frame, .ctx = ctx,
		.depth = parent == NONE || frame == NONE ? 0 : p->nodes[parent].depth + 1,
		.pid = p->adding_pid, .tid = p->adding_tid,
	};
	return id;
}

/* The thread a sample's context keeps: none when threads are merged. */
static int32_t ctx_pid(const struct pm_profile *p, const struct pm_profile_sample *s)
{
	return p->merge_threads ? -1 : s->pid;
}

static int32_t ctx_tid(const struct pm_profile *p, const struct pm_profile_sample *s)
{
	return p->merge_threads ? -1 : s->tid;
}

static uint32_t ctx_find(struct pm_profile *p, const struct pm_profile_sample *s, int *err)
{
	char tidname[16];
	const char *comm = s->comm;
	struct ctx k;
	uint32_t id, node;
	uint64_t h, found;

	if (!comm) {
		/* perf's name for a thread it saw no COMM for. */
		snprintf(tidname, sizeof(tidname), ":%d", s->tid);
		comm = tidname;
	}
	k = (struct ctx){
		.event = s->event, .comm = str_find(p, comm, strlen(comm), err),
		.pid = ctx_pid(p, s), .tid = ctx_tid(p, s), .cpu = s->cpu,
		.state = s->state < PM_PROFILE_STATE__NR ? s->state : PM_PROFILE_STATE_ON_CPU,
	};
	if (*err)
		return NONE;
	h = ctx_key_hash(&p->ctx_tab, &k);
	if (pm_hashtab__find(&p->ctx_tab, h, &k, &found))
		return (uint32_t)found;
	if (p->nr_ctxs >= UINT32_MAX / 2 ||
	    pm_array__grow((void **)&p->ctxs, &p->ctxs_cap, p->nr_ctxs, sizeof(*p->ctxs)))
		goto nomem;
	id = (uint32_t)p->nr_ctxs;
	node = node__new(p, 0, NONE, id);
	if (node == NONE)
		goto nomem;
	k.node = k.last = node;
	p->ctxs[id] = k;
	if (pm_hashtab__insert(&p->ctx_tab, h, id))
		goto nomem;
	p->nr_ctxs++;
	return id;
nomem:
	*err = -ENOMEM;
	return NONE;
}

static uint32_t child_find(struct pm_profile *p, uint32_t parent, uint32_t frame, uint32_t ctx)
{
	uint64_t key = (uint64_t)parent << 32 | frame, found;
	uint32_t id;

	if (pm_hashtab__find_int(&p->node_tab, key, &found))
		return (uint32_t)found;
	id = node__new(p, parent, frame, ctx);
	if (id != NONE && pm_hashtab__insert_int(&p->node_tab, key, id))
		return NONE;
	return id;
}

/* ---- public: building ---- */

struct pm_profile *pm_profile__new(void)
{
	struct pm_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pm_intern__init(&p->strs);
	pm_hashtab__init(&p->frame_tab, &frame_ops, p);
	pm_hashtab__init(&p->ctx_tab, &ctx_ops, p);
	pm_hashtab__init(&p->node_tab, NULL, NULL);
	pm_hashtab__init(&p->stack_tab, &stack_ops, p);
	/* Node 0: the root of every context. */
	if (node__new(p, NONE, NONE, NONE) == NONE) {
		pm_bigmem__free(p->nodes, p->nodes_cap * sizeof(*p->nodes));
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void pm_profile__delete(struct pm_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < (p->nr_frames + FRAME_BLOCK - 1) / FRAME_BLOCK; i++)
		free(p->frame_blocks[i]);
	for (i = 0; i < p->nr_events; i++)
		free(p->events[i].name);
	pm_intern__exit(&p->strs);
	free(p->frame_blocks);
	pm_hashtab__exit(&p->frame_tab);
	free(p->ctxs);
	pm_hashtab__exit(&p->ctx_tab);
	pm_bigmem__free(p->nodes, p->nodes_cap * sizeof(*p->nodes));
	pm_hashtab__exit(&p->node_tab);
	pm_bigmem__free(p->stacks, p->stacks_cap * sizeof(*p->stacks));
	pm_bigmem__free(p->stack_ids, p->stack_ids_cap * sizeof(*p->stack_ids));
	pm_hashtab__exit(&p->stack_tab);
	free(p->events);
	free(p->slices);
	free(p);
}

int pm_profile__add_event(struct pm_profile *p, const char *name)
{
	char *copy;

	if (p->nr_events >= INT32_MAX ||
	    pm_array__grow((void **)&p->events, &p->events_cap, p->nr_events, sizeof(*p->events)))
		return -ENOMEM;
	copy = strdup(name ? name : "");
	if (!copy)
		return -ENOMEM;
	p->events[p->nr_events] = (struct event){ .name = copy };
	return (int)p->nr_events++;
}

uint32_t pm_profile__nr_events(const struct pm_profile *p)
{
	return (uint32_t)p->nr_events;
}

const char *pm_profile__event_name(const struct pm_profile *p, uint32_t event)
{
	return event < p->nr_events ? p->events[event].name : NULL;
}

int pm_profile__set_time_filter(struct pm_profile *p, const uint64_t (*slices)[2], size_t nr)
{
	uint64_t (*copy)[2] = NULL;

	if (nr) {
		copy = calloc(nr, sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, slices, nr * sizeof(*copy));
	}
	free(p->slices);
	p->slices = copy;
	p->nr_slices = nr;
	return 0;
}

static bool in_time(const struct pm_profile *p, uint64_t t)
{
	size_t i;

	if (!p->nr_slices)
		return true;
	for (i = 0; i < p->nr_slices; i++)
		if (t >= p->slices[i][0] && t <= p->slices[i][1])
			return true;
	return false;
}

bool pm_profile__in_time(const struct pm_profile *p, uint64_t time)
{
	return in_time(p, time);
}

/*
 * The leaf of the path of ids[0..nr) (innermost first) under ctx, made as
 * needed.  A thread's new stack mostly shares its callers with the one
 * before it: the part they share is found by walking that one's nodes up,
 * loads of nodes just made, instead of a node-table probe per frame.
 */
static uint32_t path_find(struct pm_profile *p, uint32_t ctx, const uint32_t *ids, uint32_t nr)
{
	struct ctx *c = &p->ctxs[ctx];
	uint32_t node = c->node, m, depth = 0, i;

	for (m = c->last; m != c->node && depth < PM_PROFILE_MAX_FRAMES; m = p->nodes[m].parent)
		p->above[depth++] = m;
	if (m != c->node)
		depth = 0;	/* deeper than a stack can be: start from the root */
	/* above[depth - 1] is the outermost frame's node. */
	for (i = 0; i < depth && i < nr && p->nodes[p->above[depth - 1 - i]].frame == ids[nr - 1 - i];
	     i++)
		node = p->above[depth - 1 - i];
	for (nr -= i; node != NONE && nr--;)
		node = child_find(p, node, ids[nr], ctx);
	if (node != NONE)
		c->last = node;
	return node;
}

static uint32_t stack_find(struct pm_profile *p, uint32_t ctx, const uint32_t *ids, uint32_t nr)
{
	uint64_t h = stack_key_hash(&p->stack_tab, ctx, ids, nr), found;
	uint32_t leaf;

	if (pm_hashtab__find(&p->stack_tab, h, &(struct stack_key){ .ctx = ctx, .nr = nr, .ids = ids },
			     &found))
		return p->stacks[found].leaf;
	leaf = path_find(p, ctx, ids, nr);
	if (leaf == NONE || p->nr_stacks >= UINT32_MAX / 2 ||
	    pm_bigmem__grow((void **)&p->stacks, &p->stacks_cap, p->nr_stacks, sizeof(*p->stacks)))
		return NONE;
	if (p->nr_stack_ids + nr > p->stack_ids_cap) {
		size_t cap = p->stack_ids_cap ? p->stack_ids_cap : 4096;
		uint32_t *a;

		while (cap < p->nr_stack_ids + nr)
			cap *= 2;
		a = pm_bigmem__resize(p->stack_ids, p->stack_ids_cap * sizeof(*a), cap * sizeof(*a));
		if (!a)
			return NONE;
		p->stack_ids = a;
		p->stack_ids_cap = cap;
	}
	memcpy(p->stack_ids + p->nr_stack_ids, ids, nr * sizeof(*ids));
	p->stacks[p->nr_stacks] = (struct stack){
		.ctx = ctx, .nr = nr, .leaf = leaf, .off = p->nr_stack_ids,
	};
	p->nr_stack_ids += nr;
	if (pm_hashtab__insert(&p->stack_tab, h, p->nr_stacks))
		return NONE;
	p->nr_stacks++;
	return leaf;
}

static bool same_ctx(const struct pm_profile *p, const struct ctx *c,
		     const struct pm_profile_sample *s)
{
	return c->event == s->event && c->pid == ctx_pid(p, s) && c->tid == ctx_tid(p, s) &&
	       c->cpu == s->cpu &&
	       c->state == s->state && s->comm && !strcmp(s->comm, str_at(p, c->comm));
}

/* The ctx_seen slot of a sample's thread, CPU and event. */
static uint32_t *ctx_seen_slot(struct pm_profile *p, const struct pm_profile_sample *s)
{
	uint64_t h = pm_cache__mix((uint64_t)(uint32_t)ctx_tid(p, s) << 32 | (uint32_t)s->cpu,
				   s->event);

	return &p->ctx_seen[pm_cache__slot(h, CTX_SEEN_BITS)];
}

/* n samples of ctx's stack ending at node, of this summed period, from time first to last. */
static void profile__count(struct pm_profile *p, uint32_t ctx, uint32_t node, uint32_t event,
			   uint64_t n, uint64_t period, uint64_t first, uint64_t last)
{
	struct event *ev = &p->events[event];

	pm_add_sat(&p->nodes[node].self_period, period);
	pm_add_sat(&p->nodes[node].self_samples, n);
	pm_add_sat(&p->ctxs[ctx].period, period);
	pm_add_sat(&p->ctxs[ctx].samples, n);
	pm_add_sat(&ev->period, period);
	if (!ev->samples || first < ev->first_time)
		ev->first_time = first;
	if (last > ev->last_time)
		ev->last_time = last;
	pm_add_sat(&ev->samples, n);
	if (p->observe)
		p->observe(p->observe_arg, node, first, n, period);
}

void pm_profile__merge_threads(struct pm_profile *p)
{
	p->merge_threads = true;
}

void pm_profile__observe(struct pm_profile *p, pm_profile_observe_fn *fn, void *arg)
{
	p->observe = fn;
	p->observe_arg = arg;
}

bool pm_profile__observed(const struct pm_profile *p)
{
	return p->observe != NULL;
}

void pm_profile__add_again(struct pm_profile *p, const struct pm_profile_place *at,
			   uint64_t time, uint64_t period)
{
	if (at->node != NONE && in_time(p, time))
		profile__count(p, at->ctx, at->node, at->event, 1, period, time, time);
}

int pm_profile__add(struct pm_profile *p, const struct pm_profile_sample *s)
{
	struct pm_profile_place at;

	return pm_profile__add_placed(p, s, &at);
}

int pm_profile__add_placed(struct pm_profile *p, const struct pm_profile_sample *s,
			   struct pm_profile_place *at)
{
	uint32_t n, i, ctx, node, *seen;
	int err = 0;

	at->node = NONE;
	if (s->event >= p->nr_events || !s->nr_frames || !(s->frames || s->frame_ids))
		return -EINVAL;
	if (!in_time(p, s->time))
		return 0;
	p->adding_pid = s->pid;
	p->adding_tid = s->tid;
	seen = ctx_seen_slot(p, s);
	if (!*seen || !same_ctx(p, &p->ctxs[*seen - 1], s)) {
		ctx = ctx_find(p, s, &err);
		if (err)
			return err;
		*seen = ctx + 1;
	}
	ctx = *seen - 1;
	n = s->nr_frames < PM_PROFILE_MAX_FRAMES ? s->nr_frames : PM_PROFILE_MAX_FRAMES;
	for (i = 0; i < n; i++) {
		if (!s->frames) {
			if (s->frame_ids[i] >= p->nr_frames)
				return -EINVAL;
			p->path[i] = s->frame_ids[i];
			continue;
		}
		p->path[i] = frame_intern(p, &s->frames[i], &err);
		if (err)
			return err;
	}
	node = stack_find(p, ctx, p->path, n);
	if (node == NONE)
		return -ENOMEM;
	profile__count(p, ctx, node, s->event, s->samples ? s->samples : 1, s->period, s->time,
		       s->last_time > s->time ? s->last_time : s->time);
	*at = (struct pm_profile_place){ .ctx = ctx, .node = node, .event = s->event };
	return 0;
}

int pm_profile__frame_id(struct pm_profile *p, const struct pm_profile_frame *f, uint32_t *id)
{
	int err = 0;

	*id = frame_intern(p, f, &err);
	return err;
}

uint64_t pm_profile__samples(const struct pm_profile *p, uint32_t event)
{
	return event < p->nr_events ? p->events[event].samples : 0;
}

uint64_t pm_profile__period(const struct pm_profile *p, uint32_t event)
{
	return event < p->nr_events ? p->events[event].period : 0;
}

int pm_profile__time_range(const struct pm_profile *p, uint32_t event, uint64_t *first,
			   uint64_t *last)
{
	if (event >= p->nr_events || !p->events[event].samples)
		return -ENOENT;
	*first = p->events[event].first_time;
	*last = p->events[event].last_time;
	return 0;
}

size_t pm_profile__nr_strings(const struct pm_profile *p)
{
	return pm_intern__nr(&p->strs);
}

size_t pm_profile__nr_nodes(const struct pm_profile *p)
{
	return p->nr_nodes;
}

int pm_profile__node(const struct pm_profile *p, uint32_t id, struct pm_profile_node *out,
		     struct pm_profile_ctx *ctx)
{
	const struct node *n;

	if (id >= p->nr_nodes)
		return -ENOENT;
	n = &p->nodes[id];
	*out = (struct pm_profile_node){
		.parent = n->parent == NONE ? 0 : n->parent,
		.depth = n->depth,
		.frame = n->frame == NONE ? NULL : &frame_at(p, n->frame)->f,
		.self_period = n->self_period,
		.self_samples = n->self_samples,
	};
	if (ctx) {
		const struct ctx *c = n->ctx == NONE ? NULL : &p->ctxs[n->ctx];

		*ctx = c ? (struct pm_profile_ctx){
			.event = c->event, .comm = str_at(p, c->comm),
			.pid = c->pid, .tid = c->tid, .cpu = c->cpu, .state = c->state,
		} : (struct pm_profile_ctx){ .cpu = -1 };
	}
	return 0;
}

void pm_profile__node_totals(const struct pm_profile *p, uint64_t *period, uint64_t *samples)
{
	size_t i;

	for (i = 0; i < p->nr_nodes; i++) {
		period[i] = p->nodes[i].self_period;
		samples[i] = p->nodes[i].self_samples;
	}
	/* Parents come before their children. */
	for (i = p->nr_nodes; --i > 0;) {
		pm_add_sat(&period[p->nodes[i].parent], period[i]);
		samples[p->nodes[i].parent] += samples[i];
	}
}

static const char *const state_names[PM_PROFILE_STATE__NR] = {
	[PM_PROFILE_STATE_ON_CPU] = "on-cpu",
	[PM_PROFILE_STATE_BLOCKED] = "blocked",
	[PM_PROFILE_STATE_RUNNABLE] = "runnable",
};

const char *pm_profile_state__name(enum pm_profile_state state)
{
	return (unsigned)state < PM_PROFILE_STATE__NR ? state_names[state] : "?";
}

uint32_t profile__path_of(struct pm_profile *p, uint32_t leaf)
{
	uint32_t n = 0, m;

	for (m = leaf; p->nodes[m].frame != NONE; m = p->nodes[m].parent)
		p->path[n++] = m;
	return n;
}
