// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "format/clock.h"
#include "base/emit.h"
#include "base/hashtab.h"
#include "profile/offcpu.h"
#include "format/perf_data.h"
#include "export/speedscope.h"

#define SS_SEEN_BITS 12
#define SS_OUT_BUF (256u << 10)
/* The events of a thread whose tid is 0 (the idle task) are one thread per CPU. */
#define SS_IDLE_TID 0
/* The events made of off-CPU spans, as report names them: not evsels of the file. */
enum { SS_EV_OFFCPU = -1, SS_EV_WALL = -2 };
#define SS_NR_SYNTH 2

enum { SS_EVENT_UNSEEN, SS_EVENT_EXPORTED, SS_EVENT_SKIPPED };

/* A frame: its key in the pool, "label\0file" (file_len 0: no file known). */
struct ss_frame {
	uint32_t off, len, file_len;
};

/* A stack: its innermost frame under its caller's stack (node 0: the empty stack). */
struct ss_node {
	uint32_t parent, frame, depth;
};

struct ss_thread {
	int32_t pid, tid, cpu;		/* cpu: for the idle task, else -1 */
	int evsel;			/* or SS_EV_OFFCPU, SS_EV_WALL */
	char *comm;			/* the last one seen */
	uint32_t node;			/* the current run's stack; 0: none yet */
	uint64_t first;			/* the first run's start */
	uint64_t start, end;		/* the current run */
	uint64_t written;		/* the end of the last run in runs */
	uint64_t samples;
	struct pm_buf runs;		/* varints: stack, gap before, length */
};

struct ss_event {
	uint8_t state;
	bool timed;			/* periods in nanoseconds, samples with times */
	bool any, spanned;
	uint64_t first, last;		/* the runs' span over every thread of the event */
};

/* A frame named before, by address, while the namer's generation holds. */
struct ss_seen {
	uint64_t ip, lookup, gen;	/* gen 0: empty */
	int32_t pid;
	uint16_t cpumode;
	uint32_t id;
};

struct pm_speedscope {
	struct pm_reader *r;
	struct pm_namer *namer;
	struct pm_speedscope_opts o;
	struct ss_event *events;	/* by evsel idx */
	size_t nr_events;
	struct ss_event synth[SS_NR_SYNTH];	/* by -1 - SS_EV_* */
	struct pm_offcpu pair;		/* the spans of offcpu-time and wall-time */
	int off_on;			/* 0: not decided (first sample); 1: pairing; -1: not */
	bool off_ended;
	struct ss_thread *threads;
	size_t nr_threads, cap_threads;
	struct pm_hashtab thread_tab;	/* evsel, idle CPU, tid -> index */
	struct ss_frame *frames;
	size_t nr_frames, cap_frames;
	struct pm_buf pool;
	struct pm_hashtab frame_tab;
	struct ss_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct pm_hashtab node_tab;	/* parent << 32 | frame -> node */
	struct ss_seen *seen;
	struct pm_buf key;		/* scratch: a frame's key, a profile's name */
	uint64_t runs;
	uint32_t path[PM_PROFILE_MAX_FRAMES];	/* scratch: the frames a run enters */
};

/* --- frames and stacks ---------------------------------------------------- */

static const char *frame_key(const struct pm_speedscope *s, const struct ss_frame *f)
{
	return (const char *)s->pool.data + f->off;
}

static uint64_t frame_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct pm_speedscope *s = arg;
	const struct ss_frame *f = &s->frames[val];

	return pm_hashtab__hash_bytes(t, frame_key(s, f), f->len + 1 + f->file_len);
}

static bool frame_equal(uint64_t val, const void *key, void *arg)
{
	const struct pm_speedscope *s = arg;
	const struct ss_frame *f = &s->frames[val];
	const struct pm_buf *k = key;

	return f->len + 1 + f->file_len == k->len && !memcmp(frame_key(s, f), k->data, k->len);
}

static const struct pm_hashtab_ops frame_ops = { .hash = frame_hash, .equal = frame_equal };

/* The id of the frame whose key is in s->key (label_len bytes of label, NUL, file). */
static int ss__intern(struct pm_speedscope *s, size_t label_len, uint32_t *id)
{
	uint64_t h = pm_hashtab__hash_bytes(&s->frame_tab, s->key.data, s->key.len), v;
	int err;

	if (pm_hashtab__find(&s->frame_tab, h, &s->key, &v)) {
		*id = (uint32_t)v;
		return 0;
	}
	if (s->nr_frames >= UINT32_MAX - 1 || s->pool.len + s->key.len > UINT32_MAX ||
	    pm_array__grow((void **)&s->frames, &s->cap_frames, s->nr_frames, sizeof(*s->frames)))
		return -ENOMEM;
	err = pm_buf__append(&s->pool, s->key.data, s->key.len);
	if (err)
		return err;
	s->frames[s->nr_frames] = (struct ss_frame){
		.off = (uint32_t)(s->pool.len - s->key.len), .len = (uint32_t)label_len,
		.file_len = (uint32_t)(s->key.len - label_len - 1),
	};
	err = pm_hashtab__insert(&s->frame_tab, h, s->nr_frames);
	if (err)
		return err;
	*id = (uint32_t)s->nr_frames++;
	return 0;
}

/* The id of a named frame: its label (report's) and mapped file. */
static int ss__frame_named(struct pm_speedscope *s, const struct pm_frame *f, uint32_t *id)
{
	size_t label_len;
	int err;

	s->key.len = 0;
	err = pm_frame__label(&s->key, f->sym, f->dso, f->in_file, f->dsoff);
	label_len = s->key.len;
	if (!err)
		err = pm_buf__append(&s->key, "", 1);
	if (!err && f->dso)
		err = pm_buf__append(&s->key, f->dso, strlen(f->dso));
	return err ? err : ss__intern(s, label_len, id);
}

static struct ss_seen *ss__seen(struct pm_speedscope *s, int32_t pid,
				const struct pm_named_frame *fr)
{
	uint64_t h = pm_mix64(fr->lookup ^ ((uint64_t)(uint32_t)pid << 32) ^
			      pm_mix64(fr->ip ^ fr->cpumode));

	return &s->seen[h >> (64 - SS_SEEN_BITS)];
}

/* The id of frame fr of process pid, named unless met under this naming generation. */
static int ss__frame(struct pm_speedscope *s, int32_t pid, struct pm_named_frame *fr,
		     uint32_t *id)
{
	struct ss_seen *e = NULL;
	int err;

	/* An inlined frame's name comes with it: one address has several. */
	if (!fr->inlined) {
		e = ss__seen(s, pid, fr);
		if (e->gen == pm_namer__generation(s->namer) && e->ip == fr->ip &&
		    e->lookup == fr->lookup && e->pid == pid && e->cpumode == fr->cpumode) {
			*id = e->id;
			return 0;
		}
	}
	pm_namer__name(s->namer, pid, fr);
	err = ss__frame_named(s, &fr->f, id);
	if (err || !e)
		return err;
	/* The generation after naming: naming may refuse a file, and start one. */
	*e = (struct ss_seen){ .ip = fr->ip, .lookup = fr->lookup,
			       .gen = pm_namer__generation(s->namer), .pid = pid,
			       .cpumode = fr->cpumode, .id = *id };
	return 0;
}

/* The stack of frame id called from stack parent. */
static int ss__node(struct pm_speedscope *s, uint32_t parent, uint32_t id, uint32_t *node)
{
	uint64_t key = (uint64_t)parent << 32 | id, v;
	int err;

	if (pm_hashtab__find_int(&s->node_tab, key, &v)) {
		*node = (uint32_t)v;
		return 0;
	}
	if (s->nr_nodes >= UINT32_MAX - 1 ||
	    pm_array__grow((void **)&s->nodes, &s->cap_nodes, s->nr_nodes, sizeof(*s->nodes)))
		return -ENOMEM;
	s->nodes[s->nr_nodes] = (struct ss_node){ .parent = parent, .frame = id,
						  .depth = s->nodes[parent].depth + 1 };
	err = pm_hashtab__insert_int(&s->node_tab, key, s->nr_nodes);
	if (err)
		return err;
	*node = (uint32_t)s->nr_nodes++;
	return 0;
}

/* --- samples --------------------------------------------------------------- */

static const struct pm_offcpu_ops ss_offcpu_ops;

struct pm_speedscope *pm_speedscope__new(struct pm_reader *r, const struct pm_speedscope_opts *o)
{
	struct pm_speedscope *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->r = r;
	s->o = *o;
	pm_offcpu__init(&s->pair, &ss_offcpu_ops, s);
	s->synth[-1 - SS_EV_OFFCPU] = (struct ss_event){
		.timed = true, .state = !o->event || !strcmp(o->event, "offcpu-time") ?
					SS_EVENT_EXPORTED : SS_EVENT_SKIPPED };
	s->synth[-1 - SS_EV_WALL] = (struct ss_event){
		.timed = true, .state = o->wall && (!o->event || !strcmp(o->event, "wall-time")) ?
					SS_EVENT_EXPORTED : SS_EVENT_SKIPPED };
	pm_hashtab__init(&s->thread_tab, NULL, NULL);
	pm_hashtab__init(&s->frame_tab, &frame_ops, s);
	pm_hashtab__init(&s->node_tab, NULL, NULL);
	s->seen = calloc(1u << SS_SEEN_BITS, sizeof(*s->seen));
	/* Node 0, the empty stack, is the root of every other. */
	s->nodes = calloc(64, sizeof(*s->nodes));
	if (!s->seen || !s->nodes) {
		pm_speedscope__delete(s);
		errno = ENOMEM;
		return NULL;
	}
	s->cap_nodes = 64;
	s->nr_nodes = 1;
	return s;
}

void pm_speedscope__delete(struct pm_speedscope *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_threads; i++) {
		free(s->threads[i].comm);
		pm_buf__exit(&s->threads[i].runs);
	}
	free(s->threads);
	free(s->events);
	pm_offcpu__exit(&s->pair);
	free(s->frames);
	free(s->nodes);
	free(s->seen);
	pm_hashtab__exit(&s->thread_tab);
	pm_hashtab__exit(&s->frame_tab);
	pm_hashtab__exit(&s->node_tab);
	pm_buf__exit(&s->pool);
	pm_buf__exit(&s->key);
	free(s);
}

void pm_speedscope__set_namer(struct pm_speedscope *s, struct pm_namer *n)
{
	s->namer = n;
}

void pm_speedscope__set_name(struct pm_speedscope *s, const char *name)
{
	s->o.name = name;
}

/* Whether a period counts nanoseconds: the clock events, whose samples have times. */
static bool evsel__timed(const struct pm_evsel *e)
{
	const struct perf_event_attr *a = &e->attr;

	return a->type == PERF_TYPE_SOFTWARE && (a->sample_type & PERF_SAMPLE_TIME) &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The state of evsel e, looked at once (a stream's attrs come with its records). */
static struct ss_event *ss__event(struct pm_speedscope *s, const struct pm_evsel *e)
{
	size_t idx = (size_t)e->idx, n = idx + 1;
	struct ss_event *ev;

	if (idx >= s->nr_events) {
		ev = realloc(s->events, n * sizeof(*ev));
		if (!ev)
			return NULL;
		memset(ev + s->nr_events, 0, (n - s->nr_events) * sizeof(*ev));
		s->events = ev;
		s->nr_events = n;
	}
	ev = &s->events[idx];
	if (ev->state == SS_EVENT_UNSEEN) {
		ev->state = !s->o.event ||
			    !strcmp(pm_evsel__name(pm_reader__evsel(s->r, idx)), s->o.event) ?
			    SS_EVENT_EXPORTED : SS_EVENT_SKIPPED;
		ev->timed = evsel__timed(e);
	}
	return ev;
}

static struct ss_event *ss__event_at(struct pm_speedscope *s, int evsel)
{
	return evsel < 0 ? &s->synth[-1 - evsel] : &s->events[evsel];
}

static const char *ss__event_name(struct pm_speedscope *s, int evsel)
{
	return evsel == SS_EV_OFFCPU ? "offcpu-time" : evsel == SS_EV_WALL ? "wall-time" :
	       pm_evsel__name(pm_reader__evsel(s->r, (size_t)evsel));
}

static struct ss_thread *ss__thread(struct pm_speedscope *s, int evsel, int32_t pid, int32_t tid,
				    int32_t cpu)
{
	int32_t idle_cpu = tid == SS_IDLE_TID ? cpu : -1;
	uint64_t key = (uint64_t)(uint16_t)evsel << 48 |
		       (uint64_t)(uint16_t)(idle_cpu + 1) << 32 | (uint32_t)tid, v;
	struct ss_thread *t;

	if (pm_hashtab__find_int(&s->thread_tab, key, &v))
		return &s->threads[v];
	if (pm_array__grow((void **)&s->threads, &s->cap_threads, s->nr_threads,
			   sizeof(*s->threads)) ||
	    pm_hashtab__insert_int(&s->thread_tab, key, s->nr_threads))
		return NULL;
	t = &s->threads[s->nr_threads++];
	*t = (struct ss_thread){ .pid = pid, .tid = tid, .cpu = idle_cpu, .evsel = evsel };
	return t;
}

static int runs__varint(struct pm_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (unsigned char)v;
	return pm_buf__append(b, tmp, n);
}

static uint64_t runs__get(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end && shift < 64) {
		unsigned char c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		shift += 7;
	}
	return v;
}

/* Ends the thread's current run: into its buffer. */
static int ss__put_run(struct pm_speedscope *s, struct ss_thread *t)
{
	int err = runs__varint(&t->runs, t->node) ?: runs__varint(&t->runs, t->start - t->written) ?:
		  runs__varint(&t->runs, t->end - t->start);

	t->written = t->end;
	s->runs++;
	return err;
}

/*
 * Places a sample of stack node on its thread's line (see speedscope.h);
 * exact: an off-CPU span, which starts where it started unless that is
 * before the line's end.
 */
static int ss__place(struct pm_speedscope *s, struct ss_thread *t, const struct ss_event *ev,
		     uint32_t node, uint64_t time, uint64_t period, bool exact)
{
	uint64_t start = t->end;
	int err;

	/*
	 * Timer jitter leaves gaps of a fraction of a period between the
	 * samples of a running thread: not time it spent elsewhere, and
	 * each gap would cut a run in two around an empty sample.  Under half a
	 * period, the sample starts where the previous one ended, at most
	 * half a period early: the next gap absorbs that.
	 */
	if (ev->timed) {
		start = time > period ? time - period : 0;
		if (t->node && start < t->end + (exact ? 0 : period / 2))
			start = t->end;
	}
	t->samples++;
	if (t->node == node && start == t->end) {
		t->end = t->end + period < t->end ? UINT64_MAX : t->end + period;
		return 0;
	}
	if (t->node) {
		err = ss__put_run(s, t);
		if (err)
			return err;
	} else {
		t->first = start;
	}
	t->node = node;
	t->start = start;
	t->end = start + period < start ? UINT64_MAX : start + period;
	return 0;
}

static bool ss__keeps(const struct pm_speedscope *s, const struct pm_profile_ctx *c,
		      uint64_t time)
{
	bool shown;

	if (s->o.time && (time < s->o.time[0] || time > s->o.time[1]))
		return false;
	return pm_profile_filter__keeps(s->o.filter, c, &shown) && shown;
}

static int ss__comm(struct ss_thread *t, const char *comm)
{
	if (!comm || (t->comm && !strcmp(t->comm, comm)))
		return 0;
	free(t->comm);
	t->comm = strdup(comm);
	return t->comm ? 0 : -ENOMEM;
}

/* The stack node of a sample: its call chain, innermost frames as report keeps them. */
static int ss__stack_node(struct pm_speedscope *s, const struct pm_record *rec,
			  const struct pm_sample *smp, uint32_t *node)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct pm_named_frame *nf;
	size_t nr, i;
	uint32_t id;
	int err;

	err = pm_namer__chain(s->namer, cpumode, smp, &nf, &nr);
	if (err)
		return err;
	*node = 0;
	if (nr > PM_PROFILE_MAX_FRAMES)
		nr = PM_PROFILE_MAX_FRAMES;
	for (i = nr; i-- > 0 && !err;)
		err = ss__frame(s, (int32_t)smp->pid, &nf[i], &id) ?: ss__node(s, *node, id, node);
	/* A sample without an ip still counts, as perf's [unknown]. */
	if (!err && !nr)
		err = ss__frame_named(s, &(struct pm_frame){ 0 }, &id) ?: ss__node(s, 0, id, node);
	return err;
}

/* Places node on the line of thread tid in event evsel, if exported. */
static int ss__put(struct pm_speedscope *s, int evsel, const struct pm_profile_ctx *c,
		   uint32_t node, uint64_t time, uint64_t period, bool exact)
{
	struct ss_event *ev = ss__event_at(s, evsel);
	struct ss_thread *t;
	int err;

	if (ev->state != SS_EVENT_EXPORTED)
		return 0;
	t = ss__thread(s, evsel, c->pid, c->tid, c->cpu);
	if (!t)
		return -ENOMEM;
	err = ss__comm(t, c->comm);
	if (err)
		return err;
	ev->any = true;
	return ss__place(s, t, ev, node, time, period, exact);
}

static int ss__sample(struct pm_speedscope *s, const struct pm_record *rec,
		      const struct pm_sample *smp)
{
	int32_t cpu = smp->fields & PERF_SAMPLE_CPU ? (int32_t)smp->cpu : -1;
	struct ss_event *ev = ss__event(s, smp->evsel);
	struct pm_profile_ctx c;
	bool wall;
	uint32_t node;
	int err;

	if (!ev)
		return -ENOMEM;
	/* The wall-clock view takes the clock events' samples, as report --wall. */
	wall = ev->timed && s->synth[-1 - SS_EV_WALL].state == SS_EVENT_EXPORTED;
	if ((ev->state != SS_EVENT_EXPORTED && !wall) || !smp->period)
		return 0;
	c = (struct pm_profile_ctx){ .event = (uint32_t)smp->evsel->idx,
				     .comm = pm_namer__comm(s->namer, (int32_t)smp->tid),
				     .pid = (int32_t)smp->pid, .tid = (int32_t)smp->tid,
				     .cpu = cpu };
	if (!ss__keeps(s, &c, smp->time))
		return 0;
	err = ss__stack_node(s, rec, smp, &node) ?:
	      ss__put(s, smp->evsel->idx, &c, node, smp->time, smp->period, false);
	if (!err && wall)
		err = ss__put(s, SS_EV_WALL, &c, node, smp->time, smp->period, false);
	return err;
}

/* offcpu's keep: the switch-out's stack node, named now. */
static int ss__off_keep(void *ctx, const struct pm_record *rec, const struct pm_sample *smp,
			uint64_t *handle)
{
	uint32_t node;
	int err = ss__stack_node(ctx, rec, smp, &node);

	*handle = node;
	return err;
}

/*
 * offcpu's span: a charged one is a sample of its stack under a frame that
 * says why the thread was off CPU, at its own time, in offcpu-time and in
 * the wall-clock view.  Filtered by its start, as report's samples.
 */
static int ss__off_span(void *ctx, const struct pm_offcpu_span *sp)
{
	static const char *const why[] = { "[off-CPU blocked]", "[off-CPU runnable]" };
	struct pm_speedscope *s = ctx;
	const char *label = why[sp->state == PM_OFFCPU_RUNNABLE];
	struct pm_profile_ctx c = { .comm = pm_namer__comm(s->namer, sp->tid), .pid = sp->pid,
				    .tid = sp->tid, .cpu = sp->cpu };
	uint64_t len = sp->end - sp->start;
	uint32_t id, node;
	int err;

	if ((sp->kind != PM_OFFCPU_CHARGED && sp->kind != PM_OFFCPU_AT_END) || !len ||
	    !ss__keeps(s, &c, sp->start))
		return 0;
	s->key.len = 0;
	err = pm_buf__append(&s->key, label, strlen(label) + 1) ?:
	      ss__intern(s, strlen(label), &id) ?: ss__node(s, (uint32_t)sp->stack, id, &node);
	if (!err)
		err = ss__put(s, SS_EV_OFFCPU, &c, node, sp->end, len, true);
	if (!err)
		err = ss__put(s, SS_EV_WALL, &c, node, sp->end, len, true);
	return err;
}

static const struct pm_offcpu_ops ss_offcpu_ops = { .keep = ss__off_keep, .span = ss__off_span };

int pm_speedscope__record(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in)
{
	struct pm_speedscope *s = ctx;
	int err;

	/* A file's events are all known by its first sample, a stream's too. */
	if (!s->off_on && rec->header->type == PERF_RECORD_SAMPLE)
		s->off_on = pm_offcpu__wanted(s->r) &&
			    (s->synth[0].state == SS_EVENT_EXPORTED ||
			     s->synth[1].state == SS_EVENT_EXPORTED) ? 1 : -1;
	if (s->off_on > 0) {
		err = pm_offcpu__record(&s->pair, rec, in);
		if (err)
			return err;
	}
	return rec->header->type == PERF_RECORD_SAMPLE ? ss__sample(s, rec, &in->s) : 0;
}

/* --- the document ---------------------------------------------------------- */

struct ss_writer {
	struct pm_speedscope *s;
	struct pm_out *o;
	uint64_t base, end;		/* the event's span */
	bool first;			/* no item written yet in the list */
};

static void ss__item(struct ss_writer *w)
{
	if (!w->first)
		pm_out__ch(w->o, ',');
	w->first = false;
}

/* A stack as frame ids, outermost first; node 0 (not sampled) is []. */
static void ss__stack(struct ss_writer *w, uint32_t node, uint64_t weight)
{
	struct pm_speedscope *s = w->s;
	size_t n = 0;

	(void)weight;
	for (; node; node = s->nodes[node].parent)
		s->path[n++] = s->nodes[node].frame;
	ss__item(w);
	pm_out__ch(w->o, '[');
	while (n) {
		pm_out__u64(w->o, s->path[--n]);
		if (n)
			pm_out__ch(w->o, ',');
	}
	pm_out__ch(w->o, ']');
}

static void ss__weight(struct ss_writer *w, uint32_t node, uint64_t weight)
{
	(void)node;
	ss__item(w);
	pm_out__u64(w->o, weight);
}

/*
 * Each of a thread's runs as a sample of its stack weighing its length,
 * after an empty sample for the time before it in which the thread was not
 * sampled; the last up to the event's end, so that every thread of the
 * event spans the same time.
 */
static void ss__runs(struct ss_writer *w, const struct ss_thread *t,
		     void (*put)(struct ss_writer *w, uint32_t node, uint64_t weight))
{
	const unsigned char *p = t->runs.data, *end = p + t->runs.len;
	uint64_t at = 0, prev = w->base, start, len;
	uint32_t node;

	w->first = true;
	while (p < end) {
		node = (uint32_t)runs__get(&p, end);
		start = at + runs__get(&p, end);
		len = runs__get(&p, end);
		at = start + len;
		if (start > prev)
			put(w, 0, start - prev);
		put(w, node, len);
		prev = at;
	}
	if (w->end > prev)
		put(w, 0, w->end - prev);
}

/*
 * "comm tid", the idle task's CPU, and the event when several are
 * exported.  The idle task has no COMM record: perf calls it swapper.
 */
static int ss__name(struct pm_speedscope *s, const struct ss_thread *t, bool events)
{
	const char *comm = t->comm ? t->comm : t->tid == SS_IDLE_TID ? "swapper" : NULL;
	char num[64];
	int n;

	s->key.len = 0;
	if (comm && (pm_buf__append(&s->key, comm, strlen(comm)) ||
		     pm_buf__append(&s->key, " ", 1)))
		return -ENOMEM;
	n = t->cpu >= 0 ? snprintf(num, sizeof(num), "%d (CPU %d)", t->tid, t->cpu) :
			  snprintf(num, sizeof(num), "%d", t->tid);
	if (pm_buf__append(&s->key, num, (size_t)n))
		return -ENOMEM;
	if (events) {
		const char *ev = ss__event_name(s, t->evsel);

		if (pm_buf__append(&s->key, " ", 1) || pm_buf__append(&s->key, ev, strlen(ev)))
			return -ENOMEM;
	}
	return 0;
}

static int ss__profile(struct ss_writer *w, const struct ss_thread *t, bool events)
{
	const struct ss_event *ev = ss__event_at(w->s, t->evsel);
	struct pm_out *o = w->o;
	int err = ss__name(w->s, t, events);

	if (err)
		return err;
	/* Counts have no time to line up on: no sample for the end of the others'. */
	w->base = ev->first;
	w->end = ev->timed ? ev->last : 0;
	pm_out__str(o, "{\"type\":\"sampled\",\"name\":");
	pm_out__json_str(o, (const char *)w->s->key.data, w->s->key.len);
	pm_out__str(o, ev->timed ? ",\"unit\":\"nanoseconds\"" : ",\"unit\":\"none\"");
	pm_out__str(o, ",\"startValue\":0,\"endValue\":");
	pm_out__u64(o, ev->last - ev->first);
	pm_out__str(o, ",\n\"samples\":[");
	ss__runs(w, t, ss__stack);
	pm_out__str(o, "],\n\"weights\":[");
	ss__runs(w, t, ss__weight);
	pm_out__str(o, "]}");
	return 0;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct ss_thread *x = *(const struct ss_thread *const *)a;
	const struct ss_thread *y = *(const struct ss_thread *const *)b;

	if (x->evsel != y->evsel)
		return x->evsel < y->evsel ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Ends every thread's last run and spans its event; the threads in the profiles' order. */
static int ss__finish(struct pm_speedscope *s, struct ss_thread ***order)
{
	struct ss_thread *t;
	struct ss_event *ev;
	size_t i;
	int err;

	/* The threads still off CPU: their last spans, until the end. */
	if (s->off_on > 0 && !s->off_ended) {
		s->off_ended = true;
		err = pm_offcpu__end(&s->pair);
		if (err)
			return err;
	}
	*order = malloc((s->nr_threads ? s->nr_threads : 1) * sizeof(**order));
	if (!*order)
		return -ENOMEM;
	for (i = 0; i < s->nr_threads; i++) {
		t = &s->threads[i];
		(*order)[i] = t;
		ev = ss__event_at(s, t->evsel);
		if (t->node) {
			err = ss__put_run(s, t);
			if (err)
				return err;
			t->node = 0;
		}
		if (!ev->spanned || t->first < ev->first)
			ev->first = t->first;
		if (!ev->spanned || t->written > ev->last)
			ev->last = t->written;
		ev->spanned = true;
	}
	qsort(*order, s->nr_threads, sizeof(**order), thread_cmp);
	return 0;
}

bool pm_speedscope__has_event(struct pm_speedscope *s, const char *event)
{
	size_t i, n = pm_reader__nr_evsels(s->r);

	for (i = 0; i < n; i++)
		if (!strcmp(pm_evsel__name(pm_reader__evsel(s->r, i)), event))
			return true;
	if (!strcmp(event, "wall-time"))
		return s->o.wall;
	return !strcmp(event, "offcpu-time") && pm_offcpu__wanted(s->r);
}

static void ss__frames(struct pm_speedscope *s, struct pm_out *o)
{
	const struct ss_frame *f;
	size_t i;

	for (i = 0; i < s->nr_frames; i++) {
		f = &s->frames[i];
		pm_out__str(o, i ? ",{\"name\":" : "{\"name\":");
		pm_out__json_str(o, frame_key(s, f), f->len);
		if (f->file_len) {
			pm_out__str(o, ",\"file\":");
			pm_out__json_str(o, frame_key(s, f) + f->len + 1, f->file_len);
		}
		pm_out__ch(o, '}');
	}
}

/*
 * The document's name: the input's, and where the recording has a clock
 * reference (CLOCK_DATA), the wall-clock time its timelines start at:
 * speedscope shows times from the start only.
 */
static int ss__doc_name(struct pm_speedscope *s)
{
	uint64_t first = UINT64_MAX, wall;
	struct pm_clock_ref ref;
	char when[80];
	struct tm tm;
	time_t sec;
	size_t i, n;

	s->key.len = 0;
	for (i = 0; i < s->nr_events + SS_NR_SYNTH; i++) {
		const struct ss_event *ev = i < s->nr_events ? &s->events[i] :
					    &s->synth[i - s->nr_events];

		if (ev->timed && ev->spanned && ev->first < first)
			first = ev->first;
	}
	if (pm_buf__append(&s->key, s->o.name, strlen(s->o.name)))
		return -ENOMEM;
	if (first == UINT64_MAX || pm_reader__clock_data(s->r, &ref))
		return 0;
	wall = ref.wall_ns + (first - ref.clock_ns);	/* modular: first may precede clock_ns */
	sec = (time_t)(wall / 1000000000);
	if (!gmtime_r(&sec, &tm))
		return 0;
	n = strftime(when, sizeof(when), ", from %Y-%m-%d %H:%M:%S", &tm);
	if (!n)
		return 0;
	n += (size_t)snprintf(when + n, sizeof(when) - n, ".%06u UTC",
			      (unsigned int)(wall % 1000000000 / 1000));
	return pm_buf__append(&s->key, when, n);
}

int pm_speedscope__write(struct pm_speedscope *s, pm_write_fn *write, void *arg,
			 struct pm_speedscope_stats *st)
{
	struct ss_writer w = { .s = s };
	struct ss_thread **order = NULL;
	size_t i, active = 0, nr_events = 0;
	struct pm_out o;
	int err;

	err = ss__finish(s, &order);
	if (!err)
		err = pm_out__init(&o, write, arg, SS_OUT_BUF);
	if (err) {
		free(order);
		return err;
	}
	w.o = &o;
	for (i = 0; i < s->nr_events; i++)
		nr_events += s->events[i].any;
	for (i = 0; i < SS_NR_SYNTH; i++)
		nr_events += s->synth[i].any;
	/* The busiest thread is the one shown first. */
	for (i = 1; i < s->nr_threads; i++)
		if (order[i]->samples > order[active]->samples)
			active = i;
	err = ss__doc_name(s);
	pm_out__str(&o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
			"\"exporter\":\"pmrec report --speedscope\",\"name\":");
	pm_out__json_str(&o, (const char *)s->key.data, s->key.len);
	pm_out__str(&o, ",\"activeProfileIndex\":");
	pm_out__u64(&o, active);
	pm_out__str(&o, ",\n\"profiles\":[");
	for (i = 0; i < s->nr_threads && !err; i++) {
		pm_out__str(&o, i ? ",\n" : "\n");
		err = ss__profile(&w, order[i], nr_events > 1);
	}
	pm_out__str(&o, "],\n\"shared\":{\"frames\":[");
	ss__frames(s, &o);
	pm_out__str(&o, "]}}\n");
	pm_out__flush(&o);
	if (!err)
		err = o.err;
	if (st) {
		*st = (struct pm_speedscope_stats){ .profiles = s->nr_threads,
						    .frames = s->nr_frames, .runs = s->runs,
						    .bytes = o.total };
		for (i = 0; i < s->nr_threads; i++)
			st->samples += s->threads[i].samples;
	}
	pm_out__exit(&o);
	free(order);
	return err;
}
