/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PROFILE_H
#define PMREC_PROFILE_H

/*
 * A profile: samples weighted by period, per event, keyed by comm, pid,
 * tid and cpu, with their call stacks merged into a tree (one node per
 * distinct path from the outermost caller), so that memory grows with the
 * number of distinct names and stacks, not with the number of samples.
 * `report`, flame graphs and pprof all read it.
 *
 * The profile does not name addresses: callers hand it frames already
 * resolved to a dso and a symbol.  Strings are copied (once each).
 *
 * Queries follow perf report (tools/perf/util/hist.c, sort.c,
 * ui/hist.c, ui/stdio/hist.c, callchain.c): rows per sort-key tuple with
 * self and children (inclusive) periods, sorted as perf sorts them, and a
 * call graph under each row.  Results point into the profile (frames,
 * names): they stay valid while it lives, samples added or not.
 *
 * Memory is bounded by distinct names, contexts and stacks; a stack seen
 * before costs one hash probe per sample plus a cached look-up per frame.
 * Not thread-safe.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pm_profile;

/* Frames a sample keeps beyond this are dropped (the outermost ones, as perf's --max-stack). */
#define PM_PROFILE_MAX_FRAMES 1024

/* A mapping of a file (or of the kernel) into an address space, as pprof describes it. */
struct pm_profile_map {
	uint64_t start, limit, pgoff;
	const char *file;	/* path, "[kernel.kallsyms]", "[module]"; NULL: no mapping */
	const char *build_id;	/* hex; NULL: unknown */
};

struct pm_profile_frame {
	const char *dso;	/* NULL: no mapping (shown as [unknown]) */
	/*
	 * Tells apart files of one dso name (perf: the dso's long name, its
	 * path): rows merge them, as perf's do, call graphs do not.  NULL: dso.
	 */
	const char *dso_id;
	const char *sym;	/* NULL: no symbol; the frame is then named by addr */
	/*
	 * With sym, the symbol's start (0 if unknown): symbols of one name
	 * at different places stay apart, as perf keeps them (PLT stubs,
	 * static functions, two builds of one program).  Never the ip: a
	 * frame is a function, not an address.  Without sym, the address
	 * that identifies and names the frame (perf shows the map-relative
	 * address in the Symbol column, the ip in call graphs).
	 */
	uint64_t addr;
	bool in_file;		/* without sym: addr is the offset in dso's file (pm_frame) */
	bool kernel;		/* [k] rather than [.] */
	/*
	 * Left zero by callers that want a frame per function (report, flame
	 * graphs); set by those that want a frame per address (pprof): frames
	 * that differ in any of these stay apart.
	 */
	uint64_t ip;		/* the address named: a return address one byte back */
	struct pm_profile_map map;	/* the mapping of ip; zero: none known */
	const char *linkage;	/* the symbol as its file spells it (mangled); NULL: sym */
	bool inlined;		/* a function inlined at ip into the next frame */
	/*
	 * The source line of the frame's address ("file.c:12", as perf's
	 * srcline key shows it; with the file's path for pprof), set by
	 * callers that sort by it or export lines; frames of one function at
	 * different lines then stay apart.  NULL: none.
	 */
	const char *srcline;
};

/* perf's srcline of an address without one. */
#define PM_SRCLINE_UNKNOWN "??:0"

/* Why a sample's thread was where it was: on a CPU, or off it (offcpu.h). */
enum pm_profile_state {
	PM_PROFILE_STATE_ON_CPU,	/* every sampled event */
	PM_PROFILE_STATE_BLOCKED,	/* off CPU, not runnable */
	PM_PROFILE_STATE_RUNNABLE,	/* off CPU, waiting for one */
	PM_PROFILE_STATE__NR,
};

/* "on-cpu", "blocked", "runnable". */
const char *pm_profile_state__name(enum pm_profile_state state);

struct pm_profile_sample {
	uint32_t event;		/* from pm_profile__add_event() */
	const char *comm;	/* NULL: shown as ":<tid>", as perf does */
	int32_t pid, tid;
	int32_t cpu;		/* -1: not recorded */
	enum pm_profile_state state;
	uint64_t time;
	uint64_t period;
	/*
	 * Innermost first: frames[0] is the sample's own ip.  At least one,
	 * given as frames or, when frames is NULL, as frame_ids (from
	 * pm_profile__frame_id): a caller that meets an address again can keep
	 * its id rather than name it again.
	 */
	const struct pm_profile_frame *frames;
	const uint32_t *frame_ids;
	uint32_t nr_frames;
	/*
	 * Several samples of one context and stack at once (0 or 1: one):
	 * period is their sum, time the earliest and last_time the latest.
	 * Each must pass the time filter (pm_profile__in_time).
	 */
	uint64_t samples, last_time;
};

struct pm_profile *pm_profile__new(void);
void pm_profile__delete(struct pm_profile *p);

/* Registers an event (its name is copied); returns its index or -ENOMEM. */
int pm_profile__add_event(struct pm_profile *p, const char *name);
uint32_t pm_profile__nr_events(const struct pm_profile *p);
const char *pm_profile__event_name(const struct pm_profile *p, uint32_t event);

/*
 * Time slices ([start, end] inclusive; UINT64_MAX for an open end), as perf
 * report --time: samples outside every slice are not added at all, so they
 * count in no total.  Time is the one filter applied when adding, because
 * the profile keeps no per-sample data.  The array is copied.
 */
int pm_profile__set_time_filter(struct pm_profile *p, const uint64_t (*slices)[2],
				size_t nr);
/* Whether a sample at time passes the time filter. */
bool pm_profile__in_time(const struct pm_profile *p, uint64_t time);

/*
 * Per-sample data the profile does not keep, for whoever wants it (a
 * timeline): fn is called for every sample counted (after the time filter)
 * with the stack node it went to (the innermost frame's), its time, and its
 * samples and period.  Several samples added at once (samples > 1) come at
 * their earliest time: a caller that wants each one's time adds them one by
 * one, as the report sink does when the profile is observed.  NULL: none.
 */
typedef void pm_profile_observe_fn(void *arg, uint32_t node, uint64_t time, uint64_t samples,
				   uint64_t period);
void pm_profile__observe(struct pm_profile *p, pm_profile_observe_fn *fn, void *arg);
bool pm_profile__observed(const struct pm_profile *p);

/*
 * From now on, one context for all the threads of a command (pid and tid
 * -1 in results), where no output tells threads apart: perf's hist entries
 * have no thread unless sorted or filtered by one.  A command that starts
 * again and again (a shell loop), or runs many threads, then has one stack
 * tree, not one per thread to build, walk and merge again into rows.  A
 * row's pid and tid stay those of the first sample that reached it, as in
 * perf, so rows and their order are the same.
 */
void pm_profile__merge_threads(struct pm_profile *p);

/* O(frames).  0, -EINVAL (unknown event, no frame, an unknown id) or -ENOMEM. */
int pm_profile__add(struct pm_profile *p, const struct pm_profile_sample *s);

/* Where a sample went: its context, stack and event. */
struct pm_profile_place {
	uint32_t ctx, node, event;
};
/*
 * pm_profile__add, and *at where the sample went (node UINT32_MAX when the
 * time filter dropped it): a caller that meets the same context and stack
 * again adds the next sample there in O(1), with pm_profile__add_again.
 */
int pm_profile__add_placed(struct pm_profile *p, const struct pm_profile_sample *s,
			   struct pm_profile_place *at);
/* A sample of this time and period where *at says (from pm_profile__add_placed). */
void pm_profile__add_again(struct pm_profile *p, const struct pm_profile_place *at,
			   uint64_t time, uint64_t period);
/*
 * The id of frame f (its strings copied): equal frames have one id, valid
 * for the profile's life.  0 or -ENOMEM.
 */
int pm_profile__frame_id(struct pm_profile *p, const struct pm_profile_frame *f, uint32_t *id);

/* Samples and period added to an event (after the time filter). */
uint64_t pm_profile__samples(const struct pm_profile *p, uint32_t event);
uint64_t pm_profile__period(const struct pm_profile *p, uint32_t event);
/* The times of the first and last samples added to an event; -ENOENT if none. */
int pm_profile__time_range(const struct pm_profile *p, uint32_t event, uint64_t *first,
			   uint64_t *last);
/* Distinct strings and stack-tree nodes (memory is proportional to them). */
size_t pm_profile__nr_strings(const struct pm_profile *p);
size_t pm_profile__nr_nodes(const struct pm_profile *p);

/*
 * The stack tree, for flame graphs and pprof: node 0 is the root of all;
 * its children are one node per context (event, comm, pid, tid, cpu) with
 * no frame; below them, one node per frame of a distinct path, outermost
 * caller first.  Nodes are numbered in creation order, a parent before its
 * children.
 */
struct pm_profile_node {
	uint32_t parent;
	uint32_t depth;		/* frames from the context node: 1 for the outermost */
	const struct pm_profile_frame *frame;	/* NULL for the root and contexts */
	uint64_t self_period;	/* samples whose innermost frame this is */
	uint64_t self_samples;
};

struct pm_profile_ctx {
	uint32_t event;
	const char *comm;
	int32_t pid, tid, cpu;
	enum pm_profile_state state;
};

/* Fills *n for node id; ctx (may be NULL) gets the node's context.  -ENOENT past the end. */
int pm_profile__node(const struct pm_profile *p, uint32_t id, struct pm_profile_node *n,
		     struct pm_profile_ctx *ctx);
/*
 * Total (inclusive) period and samples of every node, indexed by node id,
 * in one pass: arrays of pm_profile__nr_nodes() entries.
 */
void pm_profile__node_totals(const struct pm_profile *p, uint64_t *period, uint64_t *samples);

enum pm_profile_key {
	PM_PROFILE_KEY_COMM,
	PM_PROFILE_KEY_PID,
	PM_PROFILE_KEY_TID,
	PM_PROFILE_KEY_CPU,
	PM_PROFILE_KEY_DSO,
	PM_PROFILE_KEY_SYM,
	PM_PROFILE_KEY_SRCLINE,
	PM_PROFILE_KEY_STATE,
	PM_PROFILE_KEY__NR,
};

/* "comm", "pid", "tid", "cpu", "dso", "sym" (perf's "symbol" too), "srcline", "state": 0 or -EINVAL. */
int pm_profile_key__parse(const char *name, enum pm_profile_key *key);
const char *pm_profile_key__name(enum pm_profile_key key);

/*
 * Call-graph order: callee starts each path at the row's function and walks
 * out to its callers (perf's default with --no-children), caller starts at
 * the outermost caller (perf's default with --children).
 */
enum pm_profile_order {
	PM_PROFILE_ORDER_CALLEE,
	PM_PROFILE_ORDER_CALLER,
};

struct pm_profile_filter {
	/*
	 * Hide samples of other threads, as perf's --comms/--pid/--tid: they
	 * still count in the total unless relative is set.  An empty list
	 * does not filter.
	 */
	const char *const *comms;
	size_t nr_comms;
	const int32_t *pids;
	size_t nr_pids;
	const int32_t *tids;
	size_t nr_tids;
	/* Drop samples of other CPUs, as perf's --cpu: they count nowhere. */
	const int32_t *cpus;
	size_t nr_cpus;
	/* Percentages of the samples shown (perf's --percentage relative). */
	bool relative;
};

/*
 * How f treats the samples of context c, as perf report's filters do:
 * false drops them (another CPU: they count nowhere); else *shown says
 * whether they are shown or hidden (hidden ones count in the total).
 * f NULL keeps and shows everything.
 */
bool pm_profile_filter__keeps(const struct pm_profile_filter *f, const struct pm_profile_ctx *c,
			      bool *shown);

struct pm_profile_query {
	uint32_t event;
	const enum pm_profile_key *keys;	/* NULL: comm,dso,sym */
	size_t nr_keys;
	bool children;		/* inclusive periods (perf's --children) */
	/*
	 * The file has call chains and the user wants them (perf's
	 * use_callchain): with children, equal rows of one thread are then
	 * ordered caller first, as perf does.
	 */
	bool callchain;
	enum pm_profile_order order;
	double percent_limit;	/* rows under it are not shown */
	size_t max_rows;	/* 0: no limit */
	bool graph;		/* build call graphs for the rows shown */
	double graph_limit;	/* percent of the total under which a path is cut (perf: 0.5) */
	const struct pm_profile_filter *filter;	/* NULL: none */
};

struct pm_profile_graph_node {
	const struct pm_profile_frame *frame;	/* NULL for the root */
	uint64_t period;	/* this path and its extensions */
	uint64_t samples;
	uint32_t first_child;	/* 0: none (node 0 is the root) */
	uint32_t next_sibling;	/* 0: none; siblings by period, largest first */
	/*
	 * The node continues in its only child with no path ending here
	 * (perf prints such a run as one node of its radix tree); counts
	 * children before the graph limit cut any.
	 */
	bool run;
};

struct pm_profile_graph {
	struct pm_profile_graph_node *nodes;	/* nodes[0]: the root */
	size_t nr;
};

struct pm_profile_row {
	/* The row's key values (meaningful for the query's keys only). */
	const char *comm;
	int32_t pid, tid, cpu;
	enum pm_profile_state state;
	const struct pm_profile_frame *frame;	/* dso, sym, addr, kernel */
	uint64_t self_period, self_samples;
	uint64_t children_period, children_samples;	/* with children only */
	struct pm_profile_graph graph;	/* with graph, for the rows shown */
	/* Private: perf's tie-break inputs. */
	uint32_t first_node, max_depth;
};

struct pm_profile_result {
	char *event_name;
	enum pm_profile_key keys[PM_PROFILE_KEY__NR];
	size_t nr_keys;
	bool children;
	/* Samples and period of the event after the cpu filter (perf's total_period). */
	uint64_t total_samples, total_period;
	/* The same for the samples not hidden by the filter. */
	uint64_t shown_samples, shown_period;
	/* Sorted rows; the first nr_shown pass the percent limit and max_rows. */
	struct pm_profile_row *rows;
	size_t nr_rows, nr_shown;
	bool graph;
	enum pm_profile_order order;
	double graph_limit;
	bool relative;
	/* The text omits the command column when a one-name filter fixes it, as perf does. */
	bool elide_comm;
};

/* 0, -EINVAL (unknown event or key, repeated key) or -ENOMEM; *out is freed by the caller. */
int pm_profile__query(struct pm_profile *p, const struct pm_profile_query *q,
		      struct pm_profile_result **out);
void pm_profile_result__delete(struct pm_profile_result *r);

/* The denominator of row percentages: the total, or with relative the part shown. */
uint64_t pm_profile_result__base(const struct pm_profile_result *r);
/* A row's percentage as perf computes it (children's with children). */
double pm_profile_result__percent(const struct pm_profile_result *r,
				  const struct pm_profile_row *row);

#endif
