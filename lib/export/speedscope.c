// SPDX-License-Identifier: GPL-2.0
/* Samples named and placed on their threads' lines; speedscope_json.c writes them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "base/intern.h"
#include "format/perf_data.h"
#include "export/speedscope.h"
#include "export/speedscope_int.h"
#include "profile/frame_ids.h"
#include "profile/offcpu.h"

/* --- frames and stacks ---------------------------------------------------- */

/* The id of the frame whose key is in s->key: its label, NUL, its file. */
static int ss__intern(struct pm_speedscope *s, uint32_t *id)
{
	return pm_intern__id(&s->frames, s->key.data, s->key.len, id, NULL);
}

/* The id of a named frame: its label (report's) and mapped file. */
static int ss__frame_named(struct pm_speedscope *s, const struct pm_frame *f, uint32_t *id)
{
	int err;

	s->key.len = 0;
	err = pm_frame__label(&s->key, f->sym, f->dso, f->in_file, f->dsoff);
	if (!err)
		err = pm_buf__append(&s->key, "", 1);
	if (!err && f->dso)
		err = pm_buf__append(&s->key, f->dso, strlen(f->dso));
	return err ? err : ss__intern(s, id);
}

/* A frame just named (pm_frame_id_fn). */
static int ss__named(void *arg, int32_t pid, const struct pm_named_frame *fr, uint32_t *id)
{
	(void)pid;
	return ss__frame_named(arg, &fr->f, id);
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
	pm_intern__init(&s->frames);
	pm_hashtab__init(&s->node_tab, NULL, NULL);
	/* Node 0, the empty stack, is the root of every other. */
	s->nodes = calloc(64, sizeof(*s->nodes));
	if (pm_frame_ids__init(&s->frame_ids, ss__named, s) || !s->nodes) {
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
	free(s->nodes);
	pm_frame_ids__exit(&s->frame_ids);
	pm_hashtab__exit(&s->thread_tab);
	pm_intern__exit(&s->frames);
	pm_hashtab__exit(&s->node_tab);
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

struct ss_event *speedscope__event_at(struct pm_speedscope *s, int evsel)
{
	return evsel < 0 ? &s->synth[-1 - evsel] : &s->events[evsel];
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

	err = pm_frame_ids__chain(s->namer, cpumode, smp, &nf, &nr);
	if (err)
		return err;
	*node = 0;
	for (i = nr; i-- > 0 && !err;)
		err = pm_frame_ids__get(&s->frame_ids, s->namer, (int32_t)smp->pid, &nf[i], &id) ?:
		      ss__node(s, *node, id, node);
	/* A sample without an ip still counts, as perf's [unknown]. */
	if (!err && !nr)
		err = ss__frame_named(s, &(struct pm_frame){ 0 }, &id) ?: ss__node(s, 0, id, node);
	return err;
}

/* Places node on the line of thread tid in event evsel, if exported. */
static int ss__put(struct pm_speedscope *s, int evsel, const struct pm_profile_ctx *c,
		   uint32_t node, uint64_t time, uint64_t period, bool exact)
{
	struct ss_event *ev = speedscope__event_at(s, evsel);
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
	      ss__intern(s, &id) ?: ss__node(s, (uint32_t)sp->stack, id, &node);
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

int speedscope__end(struct pm_speedscope *s)
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
	for (i = 0; i < s->nr_threads; i++) {
		t = &s->threads[i];
		ev = speedscope__event_at(s, t->evsel);
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
