/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PROFILE_INT_H
#define PMREC_PROFILE_INT_H

/*
 * The profile's insides, shared by the model that samples fill
 * (profile.c), the queries that read it into rows (profile_query.c) and
 * the call graphs under the rows (profile_callgraph.c), and by the unit
 * tests; callers see profile.h only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/hashtab.h"
#include "base/intern.h"
#include "profile/profile.h"

/*
 * Every table is a pm_hashtab from a key to a uint32 id, an index into an
 * array that keeps the order things were first seen in (hashtab.h has the
 * rule for hostile input).
 */
#define NONE UINT32_MAX
#define FRAME_BLOCK 1024u
#define CTX_SEEN_BITS 8
#define CTX_SEEN (1u << CTX_SEEN_BITS)

struct stack {
	uint32_t ctx, nr, leaf;
	size_t off;		/* into stack_ids */
};

struct ctx {
	uint32_t event, comm, node;
	uint32_t last;		/* the leaf of its last new stack; node: none yet */
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
	/*
	 * The thread of the sample that made it: a row's thread, which perf's
	 * children order compares, when contexts do not keep threads apart.
	 */
	int32_t pid, tid;
	uint64_t self_period, self_samples;
};

struct event {
	char *name;
	uint64_t samples, period;
	uint64_t first_time, last_time;
};

struct pm_profile {
	struct pm_intern strs;	/* every string once: its id + 1 is its key */

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
	 * a hit costs a compare instead of interning the command name.  A
	 * direct-mapped cache (base/cache.h): a slot's context is compared
	 * whole, so a collision costs a look-up, never a wrong context.
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

	/* Contexts without threads (pm_profile__merge_threads). */
	bool merge_threads;
	int32_t adding_pid, adding_tid;	/* the sample being added: new nodes are its */

	pm_profile_observe_fn *observe;	/* NULL: nobody watches the samples go in */
	void *observe_arg;

	uint32_t path[PM_PROFILE_MAX_FRAMES];	/* scratch for queries */
	uint32_t above[PM_PROFILE_MAX_FRAMES];	/* scratch for path_find */
};

/* Two words, as the tables of several-field keys hash them. */
static inline uint64_t hash_words(const struct pm_hashtab *t, uint64_t a, uint64_t b)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_u64(t, a), b);
}

static inline struct frame *frame_at(const struct pm_profile *p, uint32_t id)
{
	return &p->frame_blocks[id / FRAME_BLOCK][id % FRAME_BLOCK];
}

static inline const char *str_at(const struct pm_profile *p, uint32_t id1)
{
	return id1 ? pm_intern__str(&p->strs, id1 - 1) : NULL;
}

/* Innermost first into p->path; returns the number of frames. */
uint32_t profile__path_of(struct pm_profile *p, uint32_t leaf);

/* ---- queries ---- */

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
uint32_t qstate__path_contribs(struct qstate *qs, uint32_t nr, struct contrib *out,
			       uint32_t *stamp, uint32_t *pos, uint32_t leaf);

/* Scratch for qstate__path_contribs(). */
struct contrib_walk {
	struct contrib *cb;
	uint32_t *stamp, *pos;
};

int contrib_walk__init(struct contrib_walk *w, size_t nr_rows);
void contrib_walk__exit(struct contrib_walk *w);

static inline int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;	/* unknown last, as perf's cmp_null */
	return strcmp(a, b);
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* Builds the call graph of every row shown (profile_callgraph.c). */
int qstate__build_graphs(struct qstate *qs);

#endif
