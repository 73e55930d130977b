// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "profile/offcpu.h"
#include "format/perf_data.h"
#include "base/sat.h"
#include "format/tpformat.h"

struct pm_offcpu_thread {
	int32_t pid, tid;
	int32_t cpu;		/* of the switch-out */
	bool open;		/* off CPU since out */
	/* A LOST record came while it was off CPU: its switch-in may be among the lost. */
	bool tainted;
	bool ran;		/* a record showed it on CPU since its last switch-in */
	bool in_seen;		/* a switch-in of it came, on in_cpu, since its birth or death */
	int32_t in_cpu;
	bool exited;		/* its EXIT came; a FORK of its tid is a new thread */
	enum pm_offcpu_state state;
	uint64_t out;
	uint64_t stack;
	uint64_t born;		/* its FORK's time; 0: before the recording */
	/* The latest time of its own records, switch-outs aside: no span starts sooner. */
	uint64_t now;
};

struct pm_offcpu_cpu {
	/* Switch-ins elsewhere of threads last switched in here, that ran since. */
	uint64_t pending;
	uint64_t last_switch;	/* the time of the last sched_switch recorded here */
};

int pm_offcpu__init(struct pm_offcpu *o, const struct pm_offcpu_ops *ops, void *ctx)
{
	*o = (struct pm_offcpu){ .ops = ops, .ctx = ctx };
	pm_hashtab__init(&o->by_tid, NULL, NULL);
	pm_hashtab__init(&o->by_cpu, NULL, NULL);
	return 0;
}

void pm_offcpu__exit(struct pm_offcpu *o)
{
	pm_hashtab__exit(&o->by_tid);
	pm_hashtab__exit(&o->by_cpu);
	free(o->threads);
	free(o->cpus);
	free(o->evsels);
	*o = (struct pm_offcpu){ 0 };
}

static struct pm_offcpu_thread *offcpu__find(struct pm_offcpu *o, int32_t tid)
{
	uint64_t idx;

	if (tid <= 0 || !pm_hashtab__find_int(&o->by_tid, (uint32_t)tid, &idx))
		return NULL;
	return &o->threads[idx];
}

static struct pm_offcpu_thread *offcpu__thread(struct pm_offcpu *o, int32_t tid)
{
	struct pm_offcpu_thread *t = offcpu__find(o, tid);

	if (t)
		return t;
	if (pm_array__grow((void **)&o->threads, &o->cap_threads, o->nr_threads,
			   sizeof(*o->threads)) ||
	    pm_hashtab__insert_int(&o->by_tid, (uint32_t)tid, o->nr_threads))
		return NULL;
	t = &o->threads[o->nr_threads++];
	*t = (struct pm_offcpu_thread){ .tid = tid };
	return t;
}

/* ---- the CPUs whose switches are recorded ---- */

static struct pm_offcpu_cpu *offcpu__cpu(struct pm_offcpu *o, int32_t cpu, bool add)
{
	uint64_t idx;

	if (pm_hashtab__find_int(&o->by_cpu, (uint32_t)cpu, &idx))
		return &o->cpus[idx];
	if (!add ||
	    pm_array__grow((void **)&o->cpus, &o->cap_cpus, o->nr_cpus, sizeof(*o->cpus)) ||
	    pm_hashtab__insert_int(&o->by_cpu, (uint32_t)cpu, o->nr_cpus))
		return NULL;
	o->cpus[o->nr_cpus] = (struct pm_offcpu_cpu){ 0 };
	return &o->cpus[o->nr_cpus++];
}

/*
 * A sched_switch recorded on cpu (what gives switch-outs, a SWITCH record
 * only shows the thread ran): so were the switch-outs missing there before it.
 */
static void offcpu__cpu_live(struct pm_offcpu *o, int32_t cpu)
{
	struct pm_offcpu_cpu *c = offcpu__cpu(o, cpu, false);

	if (c) {
		o->stats.missed_outs += c->pending;
		c->pending = 0;
	}
}

/* A sched_switch recorded on cpu at time: what the CPU ran after it is known. */
static int offcpu__cpu_switched(struct pm_offcpu *o, int32_t cpu, uint64_t time)
{
	struct pm_offcpu_cpu *c = cpu >= 0 ? offcpu__cpu(o, cpu, true) : NULL;

	if (cpu >= 0 && !c)
		return -ENOMEM;
	if (c && time > c->last_switch)
		c->last_switch = time;
	return 0;
}

/*
 * A switch-in on cpu of a thread that ran since its switch-in on was: the
 * switch-out on was between them is missing, from the file if was went on
 * recording switches (it is cpu, or it records one later).
 */
static int offcpu__missed_out(struct pm_offcpu *o, int32_t was, int32_t cpu)
{
	struct pm_offcpu_cpu *c;

	if (was == cpu) {
		o->stats.missed_outs++;
		return 0;
	}
	c = offcpu__cpu(o, was, true);
	if (!c)
		return -ENOMEM;
	c->pending++;
	return 0;
}

/* ---- the recording's span ---- */

/*
 * A quiet stretch before the last record can be long (a recorded task
 * that sleeps a second after milliseconds of work ends with one switch-in
 * a second after everything else), so only a time absurdly far past the
 * rest is disbelieved: more than OFFCPU_GAP_FACTOR times the recording's
 * span so far, or than OFFCPU_GAP_FLOOR_NS when that span is short.
 */
#define OFFCPU_GAP_FACTOR 1000
#define OFFCPU_GAP_FLOOR_NS (10 * 1000000000ULL)

/*
 * Whether time may end the recording: not absurdly further past the latest
 * time another record reached (a lone time at the end of the u64 range is
 * not the end of a recording of seconds).
 */
static bool clock__believed(const struct pm_offcpu_clock *c, uint64_t time)
{
	uint64_t span = c->confirmed - c->first;

	if (span < OFFCPU_GAP_FLOOR_NS)
		span = OFFCPU_GAP_FLOOR_NS;
	/* With no time reached twice yet, there is nothing to judge by. */
	return time <= c->confirmed || !c->confirmed ||
	       (time - c->confirmed) / OFFCPU_GAP_FACTOR <= span;
}

uint64_t pm_offcpu__end_time(const struct pm_offcpu *o)
{
	const struct pm_offcpu_clock *c = &o->clock;

	return clock__believed(c, c->last) ? c->last : c->confirmed;
}

/* Every span, charged or not, goes through here once: the stats and ops->span. */
static int offcpu__emit(struct pm_offcpu *o, const struct pm_offcpu_span *sp)
{
	struct pm_offcpu_stats *st = &o->stats;
	uint64_t ns = sp->end - sp->start;

	if (sp->kind == PM_OFFCPU_UNATTRIBUTED) {
		st->unattributed_spans++;
		pm_add_sat(&st->unattributed_ns, ns);
	} else if (sp->kind != PM_OFFCPU_DROPPED) {
		st->spans++;
		pm_add_sat(sp->state == PM_OFFCPU_BLOCKED ? &st->blocked_ns : &st->runnable_ns, ns);
		if (sp->kind == PM_OFFCPU_AT_END) {
			st->at_end_threads++;
			pm_add_sat(&st->at_end_ns, ns);
		}
	}
	return o->ops && o->ops->span ? o->ops->span(o->ctx, sp) : 0;
}

/* The held span, charged: a later record reached its end. */
static int offcpu__settle(struct pm_offcpu *o)
{
	struct pm_offcpu_thread *t = offcpu__find(o, o->held.tid);

	o->holding = false;
	if (t && o->held.end > t->now)
		t->now = o->held.end;
	return offcpu__emit(o, &o->held);
}

/* The held span's end was past what came after (time, or the end): not charged. */
static int offcpu__unhold(struct pm_offcpu *o, uint64_t time)
{
	struct pm_offcpu_span *sp = &o->held;

	o->holding = false;
	o->stats.past_end++;
	sp->kind = PM_OFFCPU_UNATTRIBUTED;
	sp->end = time < sp->start ? sp->start : time < sp->end ? time : sp->end;
	return offcpu__emit(o, sp);
}

int pm_offcpu__time(struct pm_offcpu *o, uint64_t time)
{
	struct pm_offcpu_clock *c = &o->clock;

	if (!time)
		return 0;
	if (!c->first || time < c->first)
		c->first = time;
	if ((time < c->last ? time : c->last) > c->confirmed)
		c->confirmed = time < c->last ? time : c->last;
	if (time > c->last)
		c->last = time;
	return o->holding && o->held.end <= c->confirmed ? offcpu__settle(o) : 0;
}

/* ---- pairing ---- */

/*
 * Closes t's span at end, as kind says (a tainted span is never charged),
 * charged only where the thread was known to be off CPU: not before its
 * birth or the recording's first time (nor, t->out saw to it, before its
 * last record: so never twice).
 */
static int offcpu__close(struct pm_offcpu *o, struct pm_offcpu_thread *t, uint64_t end,
			 enum pm_offcpu_span_kind kind)
{
	struct pm_offcpu_span sp = {
		.pid = t->pid, .tid = t->tid, .cpu = t->cpu, .start = t->out, .end = end,
		.state = t->state, .kind = t->tainted ? PM_OFFCPU_UNATTRIBUTED : kind,
		.stack = t->stack,
	};

	t->open = false;
	t->ran = false;
	if (sp.start < t->born)
		sp.start = t->born;
	if (sp.start < o->clock.first)
		sp.start = o->clock.first;
	if (sp.end < sp.start)
		sp.end = sp.start;
	if (sp.kind == PM_OFFCPU_CHARGED && !clock__believed(&o->clock, sp.end)) {
		o->held = sp;
		o->holding = true;
		return 0;
	}
	return offcpu__emit(o, &sp);
}

/* The handle of a switch-out that opens no span. */
static int offcpu__drop(struct pm_offcpu *o, uint64_t handle)
{
	return o->ops && o->ops->span ?
		o->ops->span(o->ctx, &(struct pm_offcpu_span){ .kind = PM_OFFCPU_DROPPED,
							       .stack = handle }) : 0;
}

/* The held span's thread has a record before the held end: that end went past it. */
static int offcpu__check_held(struct pm_offcpu *o, uint64_t time, int32_t tid)
{
	if (!o->holding || o->held.tid != tid || !time || time >= o->held.end)
		return 0;
	return offcpu__unhold(o, time);
}

/* A record of t at time, the clock already moved: ran, it shows t on CPU. */
static void thread__saw(struct pm_offcpu_thread *t, uint64_t time, bool ran)
{
	if (time > t->now)
		t->now = time;
	t->ran |= ran && !t->open;
}

int pm_offcpu__seen(struct pm_offcpu *o, uint64_t time, int32_t tid, bool ran)
{
	struct pm_offcpu_thread *t;
	int err = pm_offcpu__time(o, time) ?: offcpu__check_held(o, time, tid);

	t = offcpu__find(o, tid);
	if (err || !t)
		return err;
	thread__saw(t, time, ran);
	return 0;
}


/* A switch time that contradicts what came before: counted once, under its first kind. */
static void offcpu__odd_time(struct pm_offcpu *o, uint64_t time, uint64_t before)
{
	if (!time)
		o->stats.zero_times++;
	else if (time < before)
		o->stats.backwards++;
}

/*
 * t, off CPU as far as we know, shows at time that it ran on cpu since (a
 * sample of it, its switch-out again, its exit): its switch-in is missing.
 * A lost one (t is tainted) charges nothing.  Otherwise it may never have
 * been recorded: on some machines the kernel samples no sched_switch in
 * the context of some tasks (a guest's agent), so what a CPU switches to
 * after one of them has no record.  t came back on cpu after the last
 * switch recorded there, which switched to another task: its span is
 * charged up to that switch, and the rest, which holds its switch-in, is
 * counted, not charged.  Without such a switch since t's switch-out,
 * nothing is charged.
 */
static int offcpu__in_missed(struct pm_offcpu *o, struct pm_offcpu_thread *t, uint64_t time,
			     int32_t cpu)
{
	const struct pm_offcpu_cpu *c = cpu >= 0 ? offcpu__cpu(o, cpu, false) : NULL;
	uint64_t end = c ? c->last_switch : 0;

	o->stats.missed_ins++;
	if (t->tainted || end <= t->out || end > time) {
		t->tainted = true;
		return offcpu__close(o, t, time, PM_OFFCPU_UNATTRIBUTED);
	}
	o->stats.partial_spans++;
	pm_add_sat(&o->stats.partial_rest_ns, time - end);
	return offcpu__close(o, t, end, PM_OFFCPU_CHARGED);
}

/* A switch-out, the recording's clock already moved to time. */
static int offcpu__out(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t pid,
		       int32_t tid, uint64_t prev_state, uint64_t handle)
{
	struct pm_offcpu_thread *t;
	int err = offcpu__check_held(o, time, tid);

	/* The idle task is one per CPU, all of tid 0. */
	if (err || tid <= 0)
		return offcpu__drop(o, handle) ?: err;
	t = offcpu__thread(o, tid);
	if (!t) {
		offcpu__drop(o, handle);
		return -ENOMEM;
	}
	/*
	 * A time absurdly past the rest: not a switch-out to charge from.
	 * Said here, not at the switch-in it would contradict, so the count
	 * is the same wherever the file's rounds put the record.
	 */
	if (time && !clock__believed(&o->clock, time)) {
		o->stats.past_end++;
		return offcpu__drop(o, handle);
	}
	/* Out twice without an in between: the switch-in was never seen. */
	if (t->open)
		err = offcpu__in_missed(o, t, time, cpu);
	/* A dead thread's last switch: nothing waits for it. */
	if (err || (prev_state & PM_OFFCPU_TASK_DEAD)) {
		o->stats.exits += !err;
		t->ran = false;
		t->in_seen = false;
		return offcpu__drop(o, handle) ?: err;
	}
	o->stats.switch_outs++;
	offcpu__odd_time(o, time, t->now);
	t->open = true;
	t->tainted = false;
	t->pid = pid;
	t->cpu = cpu;
	/* Off CPU no sooner than its own last record showed it. */
	t->out = time < t->now ? t->now : time;
	t->stack = handle;
	t->state = prev_state & PM_OFFCPU_TASK_REPORT ? PM_OFFCPU_BLOCKED : PM_OFFCPU_RUNNABLE;
	return 0;
}

/* A switch-in, the recording's clock already moved to time. */
static int offcpu__in(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t tid)
{
	struct pm_offcpu_thread *t;
	int err = offcpu__check_held(o, time, tid);

	if (err || tid <= 0)
		return err;
	t = offcpu__thread(o, tid);
	if (!t)
		return -ENOMEM;
	if (!t->open) {
		/*
		 * Not off CPU as far as we know: its switch-out was before the
		 * recording or lost, or this is the same switch seen twice
		 * (sched_switch's next_pid and a SWITCH record); but if it ran
		 * since its last switch-in, the switch-out that ended that is missing.
		 */
		if (!time)
			o->stats.zero_times++;
		else if (!clock__believed(&o->clock, time))
			o->stats.past_end++;
		else if (t->ran && t->in_seen)
			err = offcpu__missed_out(o, t->in_cpu, cpu);
		t->ran = false;
	} else if (!time || time < t->out) {
		offcpu__odd_time(o, time, t->out);
		err = offcpu__close(o, t, t->out, PM_OFFCPU_DROPPED);
	} else {
		o->stats.switch_ins++;
		err = offcpu__close(o, t, time, PM_OFFCPU_CHARGED);
	}
	t->in_seen = true;
	t->in_cpu = cpu;
	if (!(o->holding && o->held.tid == tid) && clock__believed(&o->clock, time) &&
	    time > t->now)
		t->now = time;
	return err;
}

int pm_offcpu__running(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t tid)
{
	struct pm_offcpu_thread *t;
	/* Once: a time moved to twice would count as reached twice (confirmed). */
	int err = pm_offcpu__time(o, time) ?: offcpu__check_held(o, time, tid);

	t = offcpu__find(o, tid);
	if (err || !t)
		return err;
	if (t->open && time > t->out && clock__believed(&o->clock, time))
		err = offcpu__in_missed(o, t, time, cpu);
	if (!err)
		thread__saw(t, time, true);
	return err;
}

int pm_offcpu__switch_out(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t pid,
			  int32_t tid, uint64_t prev_state, uint64_t handle)
{
	int err = pm_offcpu__time(o, time);

	if (err) {
		offcpu__drop(o, handle);
		return err;
	}
	offcpu__cpu_live(o, cpu);
	return offcpu__out(o, time, cpu, pid, tid, prev_state, handle) ?:
	       offcpu__cpu_switched(o, cpu, time);
}

int pm_offcpu__switch_in(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t tid)
{
	return pm_offcpu__time(o, time) ?: offcpu__in(o, time, cpu, tid) ?:
	       offcpu__cpu_switched(o, cpu, time);
}

int pm_offcpu__lost(struct pm_offcpu *o, uint64_t time)
{
	size_t i;
	int err = pm_offcpu__time(o, time);

	o->stats.lost_records++;
	/* Any of them may have been switched in in the range lost, or out. */
	for (i = 0; i < o->nr_threads; i++) {
		o->threads[i].tainted |= o->threads[i].open;
		o->threads[i].ran = false;
	}
	/* The switch-outs missing since the last LOST record may be among those it lost. */
	for (i = 0; i < o->nr_cpus; i++)
		o->cpus[i].pending = 0;
	return err;
}

int pm_offcpu__thread_exit(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t tid)
{
	struct pm_offcpu_thread *t;
	int err = pm_offcpu__seen(o, time, tid, false);

	t = err || tid <= 0 ? NULL : offcpu__thread(o, tid);
	if (!t)
		return err ?: tid > 0 ? -ENOMEM : 0;
	t->exited = true;
	/* It ran to exit: a span still open lost its switch-in. */
	if (!t->open)
		return 0;
	return offcpu__in_missed(o, t, time, cpu);
}

int pm_offcpu__thread_fork(struct pm_offcpu *o, uint64_t time, int32_t tid)
{
	struct pm_offcpu_thread *t;
	int err = pm_offcpu__seen(o, time, tid, false);

	t = err || tid <= 0 || !time ? NULL : offcpu__thread(o, tid);
	if (!t)
		return err ?: tid > 0 && time ? -ENOMEM : 0;
	/* A span open before the thread was born began at a time gone backwards. */
	if (t->open) {
		o->stats.backwards += t->out && t->out < time;
		t->born = time;
		return 0;
	}
	/* Its tid again, after an exit: a new thread. */
	*t = (struct pm_offcpu_thread){ .tid = tid, .born = time, .now = time };
	return 0;
}

int pm_offcpu__end(struct pm_offcpu *o)
{
	uint64_t end = pm_offcpu__end_time(o);
	struct pm_offcpu_thread *t;
	size_t i;
	int err = 0;

	if (o->holding)
		err = o->held.end <= end ? offcpu__settle(o) : offcpu__unhold(o, end);
	for (i = 0; i < o->nr_threads && !err; i++) {
		t = &o->threads[i];
		if (!t->open)
			continue;
		if (t->out > end) {
			o->stats.past_end++;
			err = offcpu__close(o, t, end, PM_OFFCPU_DROPPED);
		} else if (t->exited) {
			/* Out after its exit and never in again: not off CPU, dead. */
			o->stats.missed_ins++;
			t->tainted = true;
			err = offcpu__close(o, t, end, PM_OFFCPU_UNATTRIBUTED);
		} else {
			err = offcpu__close(o, t, end, PM_OFFCPU_AT_END);
		}
	}
	return err;
}

/* ---- records ---- */

static const struct pm_tp_field *tp_field(const struct pm_tp_event *ev, const char *name)
{
	size_t i;

	for (i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name) && ev->fields[i].size <= 8 &&
		    !(ev->fields[i].flags & (PM_TP_FIELD_ARRAY | PM_TP_FIELD_DYNAMIC |
					     PM_TP_FIELD_RELATIVE)))
			return &ev->fields[i];
	return NULL;
}

static bool is_switch_event(const struct pm_evsel *e)
{
	return e->attr.type == PERF_TYPE_TRACEPOINT && e->tp &&
	       !strcmp(e->tp->full_name, "sched:sched_switch");
}

bool pm_offcpu__wanted(struct pm_reader *r)
{
	size_t i, n = pm_reader__nr_evsels(r);

	for (i = 0; i < n; i++) {
		const struct pm_evsel *e = pm_reader__evsel(r, i);

		if (is_switch_event(e) && !e->attr.freq && e->attr.sample_period == 1)
			return true;
	}
	return false;
}

static const struct pm_offcpu_evsel *offcpu__evsel(struct pm_offcpu *o, const struct pm_evsel *e)
{
	struct pm_offcpu_evsel *oe;
	size_t n = (size_t)e->idx + 1;

	if (e->idx < 0)
		return NULL;
	if (n > o->nr_evsels) {
		oe = realloc(o->evsels, n * sizeof(*oe));
		if (!oe)
			return NULL;
		memset(oe + o->nr_evsels, 0, (n - o->nr_evsels) * sizeof(*oe));
		o->evsels = oe;
		o->nr_evsels = n;
	}
	oe = &o->evsels[e->idx];
	if (!oe->checked && is_switch_event(e) && !e->attr.freq && e->attr.sample_period == 1) {
		oe->prev_pid = tp_field(e->tp, "prev_pid");
		oe->prev_state = tp_field(e->tp, "prev_state");
		oe->next_pid = tp_field(e->tp, "next_pid");
		if (!oe->prev_pid || !oe->prev_state || !oe->next_pid)
			oe->prev_pid = oe->prev_state = oe->next_pid = NULL;
	}
	oe->checked = true;
	return oe;
}

bool pm_offcpu__is_switch(struct pm_offcpu *o, const struct pm_sample *s)
{
	const struct pm_offcpu_evsel *oe = s->evsel ? offcpu__evsel(o, s->evsel) : NULL;

	return oe && oe->prev_pid && (s->fields & PERF_SAMPLE_RAW);
}

static int field_int(const struct pm_tp_field *f, const struct pm_sample *s, uint64_t *v)
{
	const unsigned char *p;
	size_t len;
	int err = pm_tp_field__data(f, s->raw, s->raw_size, &p, &len);

	if (!err)
		*v = pm_tp__read_int(p, len, f->is_signed);
	return err;
}

static int offcpu__sample(struct pm_offcpu *o, const struct pm_record *rec,
			  const struct pm_rec_info *in)
{
	const struct pm_sample *s = &in->s;
	const struct pm_offcpu_evsel *oe;
	uint64_t prev_pid, prev_state, next_pid, handle = 0;
	int32_t cpu = s->fields & PERF_SAMPLE_CPU ? (int32_t)s->cpu : -1;
	int32_t tid = s->fields & PERF_SAMPLE_TID ? (int32_t)s->tid : -1;
	int err;

	if (!pm_offcpu__is_switch(o, s))
		return pm_offcpu__running(o, s->time, cpu, tid);
	oe = &o->evsels[s->evsel->idx];
	/* A record whose fields lie outside its payload pairs nothing. */
	if (field_int(oe->prev_pid, s, &prev_pid) || field_int(oe->prev_state, s, &prev_state) ||
	    field_int(oe->next_pid, s, &next_pid))
		return pm_offcpu__time(o, s->time);
	/* One record, one tick of the clock, for both switches. */
	err = pm_offcpu__time(o, s->time);
	offcpu__cpu_live(o, cpu);
	/* The idle task leaving opens nothing: no stack to keep. */
	if (!err && (int32_t)prev_pid > 0) {
		err = o->ops && o->ops->keep ? o->ops->keep(o->ctx, rec, s, &handle) : 0;
		if (!err)
			err = offcpu__out(o, s->time, cpu, (int32_t)s->pid, (int32_t)prev_pid,
					  prev_state, handle);
	}
	err = err ?: offcpu__in(o, s->time, cpu, (int32_t)next_pid);
	return err ?: offcpu__cpu_switched(o, cpu, s->time);
}

int pm_offcpu__record(void *arg, const struct pm_record *rec, const struct pm_rec_info *in)
{
	struct pm_offcpu *o = arg;
	const struct perf_event_header *h = rec->header;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return offcpu__sample(o, rec, in);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* The switched-in task is the record's own (its sample_id). */
		if (!in->has_time || !in->has_pid)
			return 0;
		/* The sched_switch sample is the switch-out; this shows the thread ran. */
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT)
			return pm_offcpu__seen(o, in->time, in->tid, true);
		return pm_offcpu__switch_in(o, in->time, in->has_cpu ? (int32_t)in->cpu : -1,
					    in->tid);
	case PERF_RECORD_LOST:
		return pm_offcpu__lost(o, in->has_time ? in->time : o->clock.last);
	case PERF_RECORD_LOST_SAMPLES:
		/* Written at the end from the events' counts; an empty one loses nothing. */
		if (in->body_len < 8 || !((const uint64_t *)rec->data)[1])
			return 0;
		return pm_offcpu__lost(o, in->has_time ? in->time : o->clock.last);
	case PERF_RECORD_EXIT:
		return in->has_time && in->has_pid ?
			pm_offcpu__thread_exit(o, in->time, in->has_cpu ? (int32_t)in->cpu : -1,
					       in->tid) : 0;
	case PERF_RECORD_FORK:
		return in->has_time && in->has_pid ? pm_offcpu__thread_fork(o, in->time, in->tid) : 0;
	default:
		return in->has_time ? pm_offcpu__seen(o, in->time, in->has_pid ? in->tid : -1,
						      false) : 0;
	}
}
