// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "profile/profile.h"
#include "base/sat.h"

/*
 * Every table is a pm_hashtab from a key to a uint32 id, an index into an
 * array that keeps the order things were first seen in (hashtab.h has the
 * rule for hostile input).
 */
#define NONE UINT32_MAX
#define FRAME_BLOCK 1024u
#define CTX_SEEN 256u

struct stack {
	uint32_t ctx, nr, leaf;
	size_t off;		/* into stack_ids */
};

struct str {
	const char *s;
	uint32_t len;
};

struct ctx {
	uint32_t event, comm, node;
	int32_t pid, tid, cpu;
	enum pm_profile_state state;
	uint64_t samples, period;
};

struct frame {
	struct pm_profile_frame f;	/* first: results point at it */
	uint32_t dso, dso_id, sym;	/* string ids + 1, 0 for NULL */
	uint32_t map_file, build_id, linkage, srcline;
};

struct node {
	uint32_t parent, frame, ctx, depth;
	uint64_t self_period, self_samples;
};

struct event {
	char *name;
	uint64_t samples, period;
	uint64_t first_time, last_time;
};

struct pm_profile {
	char *arena;		/* current string block */
	size_t arena_left;
	char **blocks;
	size_t nr_blocks, blocks_cap;

	struct str *strs;
	size_t nr_strs, strs_cap;
	struct pm_hashtab str_tab;

	struct frame **frame_blocks;	/* blocks keep addresses stable for results */
	size_t nr_frames, frame_blocks_cap;
	struct pm_hashtab frame_tab;

	struct ctx *ctxs;
	size_t nr_ctxs, ctxs_cap;
	struct pm_hashtab ctx_tab;

	struct node *nodes;
	size_t nr_nodes, nodes_cap;
	/* (parent << 32 | frame) -> node: the biggest table, its keys in its slots. */
	struct pm_hashtab node_tab;

	/*
	 * Contexts met lately, by thread, CPU and event (id + 1, 0 empty):
	 * samples of an -a recording alternate between CPUs and threads, and
	 * a hit costs a compare instead of interning the command name.
	 */
	uint32_t ctx_seen[CTX_SEEN];

	struct stack *stacks;
	size_t nr_stacks, stacks_cap;
	uint32_t *stack_ids;
	size_t nr_stack_ids, stack_ids_cap;
	/*
	 * Every distinct stack (context and frame ids, innermost first) once,
	 * with its leaf node: a sample whose stack was seen costs one probe
	 * here instead of one node-table probe per frame.
	 */
	struct pm_hashtab stack_tab;

	struct event *events;
	size_t nr_events, events_cap;

	uint64_t (*slices)[2];
	size_t nr_slices;

	pm_profile_observe_fn *observe;	/* NULL: nobody watches the samples go in */
	void *observe_arg;

	uint32_t path[PM_PROFILE_MAX_FRAMES];	/* scratch for queries */
};

/* Two words, as the tables of several-field keys hash them. */
static uint64_t hash_words(const struct pm_hashtab *t, uint64_t a, uint64_t b)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_u64(t, a), b);
}

/* ---- tables ---- */

/* What str_find looks up. */
struct str_key {
	const char *s;
	size_t len;
};

static uint64_t str_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	const struct pm_profile *p = arg;

	return pm_hashtab__hash_bytes(t, p->strs[id].s, p->strs[id].len);
}

static bool str_equal(uint64_t id, const void *key, void *arg)
{
	const struct str *e = &((const struct pm_profile *)arg)->strs[id];
	const struct str_key *k = key;

	return e->len == k->len && !memcmp(e->s, k->s, k->len);
}

static struct frame *frame_at(const struct pm_profile *p, uint32_t id)
{
	return &p->frame_blocks[id / FRAME_BLOCK][id % FRAME_BLOCK];
}

/* The per-address fields (ip, map) are mostly zero: they only add to the hash when set. */
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

static const struct pm_hashtab_ops str_ops = { .hash = str_hash, .equal = str_equal };
static const struct pm_hashtab_ops frame_ops = { .hash = frame_hash, .equal = frame_equal };
static const struct pm_hashtab_ops ctx_ops = { .hash = ctx_hash, .equal = ctx_equal };
static const struct pm_hashtab_ops stack_ops = { .hash = stack_hash, .equal = stack_equal };

/* ---- strings ---- */

static char *arena__alloc(struct pm_profile *p, size_t n)
{
	size_t sz = n > 65536 ? n : 65536;
	char *b;

	if (n <= p->arena_left) {
		b = p->arena;
		p->arena += n;
		p->arena_left -= n;
		return b;
	}
	if (pm_array__grow((void **)&p->blocks, &p->blocks_cap, p->nr_blocks, sizeof(*p->blocks)))
		return NULL;
	b = malloc(sz);
	if (!b)
		return NULL;
	p->blocks[p->nr_blocks++] = b;
	if (sz > n) {
		p->arena = b + n;
		p->arena_left = sz - n;
	}
	return b;
}

/* Interns s: returns its id + 1, 0 for NULL, or 0 with *err set. */
static uint32_t str_find(struct pm_profile *p, const char *s, size_t len, int *err)
{
	uint64_t h, found;
	uint32_t id;
	char *copy;

	if (!s)
		return 0;
	if (len >= UINT32_MAX || p->nr_strs >= UINT32_MAX / 2 - 1) {
		*err = -ENOMEM;
		return 0;
	}
	h = pm_hashtab__hash_bytes(&p->str_tab, s, len);
	if (pm_hashtab__find(&p->str_tab, h, &(struct str_key){ .s = s, .len = len }, &found))
		return (uint32_t)found + 1;
	if (pm_array__grow((void **)&p->strs, &p->strs_cap, p->nr_strs, sizeof(*p->strs)) ||
	    !(copy = arena__alloc(p, len + 1))) {
		*err = -ENOMEM;
		return 0;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	id = (uint32_t)p->nr_strs;
	p->strs[id] = (struct str){ .s = copy, .len = (uint32_t)len };
	if (pm_hashtab__insert(&p->str_tab, h, id)) {
		*err = -ENOMEM;
		return 0;
	}
	p->nr_strs++;
	return id + 1;
}

static const char *str_at(const struct pm_profile *p, uint32_t id1)
{
	return id1 ? p->strs[id1 - 1].s : NULL;
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
	    pm_array__grow((void **)&p->nodes, &p->nodes_cap, p->nr_nodes, sizeof(*p->nodes)))
		return NONE;
	id = (uint32_t)p->nr_nodes++;
	p->nodes[id] = (struct node){
		.parent = parent, .frame = frame, .ctx = ctx,
		.depth = parent == NONE || frame == NONE ? 0 : p->nodes[parent].depth + 1,
	};
	return id;
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
		.pid = s->pid, .tid = s->tid, .cpu = s->cpu,
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
	k.node = node;
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
	pm_hashtab__init(&p->str_tab, &str_ops, p);
	pm_hashtab__init(&p->frame_tab, &frame_ops, p);
	pm_hashtab__init(&p->ctx_tab, &ctx_ops, p);
	pm_hashtab__init(&p->node_tab, NULL, NULL);
	pm_hashtab__init(&p->stack_tab, &stack_ops, p);
	/* Node 0: the root of every context. */
	if (node__new(p, NONE, NONE, NONE) == NONE) {
		free(p->nodes);
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
	for (i = 0; i < p->nr_blocks; i++)
		free(p->blocks[i]);
	for (i = 0; i < (p->nr_frames + FRAME_BLOCK - 1) / FRAME_BLOCK; i++)
		free(p->frame_blocks[i]);
	for (i = 0; i < p->nr_events; i++)
		free(p->events[i].name);
	free(p->blocks);
	free(p->strs);
	pm_hashtab__exit(&p->str_tab);
	free(p->frame_blocks);
	pm_hashtab__exit(&p->frame_tab);
	free(p->ctxs);
	pm_hashtab__exit(&p->ctx_tab);
	free(p->nodes);
	pm_hashtab__exit(&p->node_tab);
	free(p->stacks);
	free(p->stack_ids);
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

/* The leaf of the path of ids[0..nr) (innermost first) under ctx, made as needed. */
static uint32_t path_find(struct pm_profile *p, uint32_t ctx, const uint32_t *ids, uint32_t nr)
{
	uint32_t node = p->ctxs[ctx].node;

	while (node != NONE && nr--)
		node = child_find(p, node, ids[nr], ctx);
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
	    pm_array__grow((void **)&p->stacks, &p->stacks_cap, p->nr_stacks, sizeof(*p->stacks)))
		return NONE;
	if (p->nr_stack_ids + nr > p->stack_ids_cap) {
		size_t cap = p->stack_ids_cap ? p->stack_ids_cap : 4096;
		uint32_t *a;

		while (cap < p->nr_stack_ids + nr)
			cap *= 2;
		a = realloc(p->stack_ids, cap * sizeof(*a));
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
	return c->event == s->event && c->pid == s->pid && c->tid == s->tid && c->cpu == s->cpu &&
	       c->state == s->state && s->comm && !strcmp(s->comm, str_at(p, c->comm));
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
	seen = &p->ctx_seen[((uint32_t)s->tid * 0x9e3779b1u ^ (uint32_t)s->cpu * 0x85ebca6bu ^
			     s->event) % CTX_SEEN];
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
	return p->nr_strs;
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

/* ---- queries ---- */

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

static const char *const state_names[PM_PROFILE_STATE__NR] = {
	[PM_PROFILE_STATE_ON_CPU] = "on-cpu",
	[PM_PROFILE_STATE_BLOCKED] = "blocked",
	[PM_PROFILE_STATE_RUNNABLE] = "runnable",
};

const char *pm_profile_state__name(enum pm_profile_state state)
{
	return (unsigned)state < PM_PROFILE_STATE__NR ? state_names[state] : "?";
}

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

enum { CTX_SKIP, CTX_HIDDEN, CTX_SHOWN };

/* The frame part is by names: perf's rows merge files of one dso name. */
struct rowkey {
	uint32_t comm, dso, sym, kernel, srcline;
	int32_t pid, tid, cpu;
	uint32_t state;
	uint64_t addr;
};

struct qstate {
	struct pm_profile *p;
	const struct pm_profile_query *q;
	struct pm_profile_result *r;
	bool has[PM_PROFILE_KEY__NR];
	uint8_t *ctx_state;
	uint32_t *node_row;
	struct rowkey *keys;
	size_t keys_cap, rows_cap;
	size_t nr_all;		/* rows made, before the empty ones are cut */
	struct pm_hashtab row_tab;	/* rowkey -> row */
};

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
	const struct ctx *c = &p->ctxs[p->nodes[node].ctx];
	uint64_t h = rowkey_hash(&qs->row_tab, k), found;
	uint32_t id;

	if (pm_hashtab__find(&qs->row_tab, h, k, &found))
		return (uint32_t)found;
	if (pm_array__grow((void **)&qs->keys, &qs->keys_cap, r->nr_rows, sizeof(*qs->keys)) ||
	    pm_array__grow((void **)&r->rows, &qs->rows_cap, r->nr_rows, sizeof(*r->rows)))
		return NONE;
	id = (uint32_t)r->nr_rows;
	qs->keys[id] = *k;
	if (pm_hashtab__insert(&qs->row_tab, h, id))
		return NONE;
	r->nr_rows++;
	r->rows[id] = (struct pm_profile_row){
		.comm = str_at(p, c->comm), .pid = c->pid, .tid = c->tid, .cpu = c->cpu,
		.state = c->state, .frame = &frame_at(p, p->nodes[node].frame)->f,
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

	qs->node_row = malloc(p->nr_nodes * sizeof(*qs->node_row));
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

/* Innermost first into p->path; returns the number of frames. */
static uint32_t path_of(struct pm_profile *p, uint32_t leaf)
{
	uint32_t n = 0, m;

	for (m = leaf; p->nodes[m].frame != NONE; m = p->nodes[m].parent)
		p->path[n++] = m;
	return n;
}

/*
 * perf's hist_iter_cumulative: a sample adds its period once to each
 * distinct row along its chain, the row of its own ip first, so recursion
 * counts once.  The callchain a row keeps starts where the row is first met
 * walking the chain in the query's order, and its length is what perf
 * compares (callchain max_depth) to put callers above callees on ties.
 */
struct contrib {
	uint32_t row, from;	/* from: index in p->path where the row's chain starts */
};

/* stamp and pos are per row: the leaf that last saw the row, and where in out. */
static uint32_t path_contribs(struct qstate *qs, uint32_t nr, struct contrib *out,
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

/* Scratch for path_contribs(). */
struct walk {
	struct contrib *cb;
	uint32_t *stamp, *pos;
};

static int walk__init(struct walk *w, size_t nr_rows)
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

static void walk__exit(struct walk *w)
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
	struct walk w = { 0 };
	size_t n;

	if (qs->q->children && walk__init(&w, r->nr_rows)) {
		walk__exit(&w);
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
		nr = path_of(p, (uint32_t)n);
		k = path_contribs(qs, nr, w.cb, w.stamp, w.pos, (uint32_t)n);
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
	walk__exit(&w);
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;	/* unknown last, as perf's cmp_null */
	return strcmp(a, b);
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static bool row_present(const struct qstate *qs, const struct pm_profile_row *row)
{
	return qs->q->children ? row->children_samples : row->self_samples;
}

/* perf's output order (hist_entry__sort over the sort list "overhead_children,overhead,KEYS"). */
static int row_cmp(const void *va, const void *vb, void *arg)
{
	const struct qstate *qs = arg;
	const struct pm_profile_row *a = va, *b = vb;
	const struct ctx *ca, *cb;
	size_t i;
	int c;

	/* Rows no sample made (the ones of callers, without children) go away at the end. */
	if (row_present(qs, a) != row_present(qs, b))
		return row_present(qs, a) ? -1 : 1;
	if (qs->q->children) {
		if (a->children_period != b->children_period)
			return a->children_period > b->children_period ? -1 : 1;
		ca = &qs->p->ctxs[qs->p->nodes[a->first_node].ctx];
		cb = &qs->p->ctxs[qs->p->nodes[b->first_node].ctx];
		/* __hpp__sort_acc: caller above callee within one thread. */
		if (qs->q->callchain && ca->pid == cb->pid && ca->tid == cb->tid &&
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

/* ---- call graphs ---- */

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

	if (gs->nr >= UINT32_MAX / 2 || pm_array__grow((void **)&gs->g, &gs->cap, gs->nr, sizeof(*gs->g)))
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
	struct walk w = { 0 };
	size_t n;
	int err = -ENOMEM;

	if (walk__init(&w, qs->nr_all))
		goto out;
	cb = w.cb;
	for (n = 0; n < p->nr_nodes; n++) {
		const struct node *x = &p->nodes[n];
		uint32_t nr, k, i, root;

		if (!x->self_samples || qs->node_row[n] == NONE)
			continue;
		nr = path_of(p, (uint32_t)n);
		if (qs->q->children)
			k = path_contribs(qs, nr, cb, w.stamp, w.pos, (uint32_t)n);
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
	walk__exit(&w);
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

static int graphs_build(struct qstate *qs)
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
	free(gs.g);
	pm_hashtab__exit(&gs.tab);
	return err;
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
			err = graphs_build(&qs);
	}
	free(qs.ctx_state);
	free(qs.node_row);
	free(qs.keys);
	pm_hashtab__exit(&qs.row_tab);
	if (err) {
		pm_profile_result__delete(r);
		return err;
	}
	*out = r;
	return 0;
}
