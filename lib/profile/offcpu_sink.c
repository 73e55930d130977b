// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "profile/offcpu_sink.h"
#include "format/perf_data.h"

bool pm_offcpu_sink__is_clock(const struct pm_evsel *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE &&
	       (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

/* A free stack slot, its index in *idx. */
static struct pm_offcpu_stack *sink__stack_slot(struct pm_offcpu_sink *o, uint32_t *idx)
{
	struct pm_offcpu_stack *st;

	if (o->free_stack) {
		*idx = o->free_stack - 1;
		st = &o->stacks[*idx];
		o->free_stack = st->next_free;
		return st;
	}
	if (o->nr_stacks >= UINT32_MAX ||
	    pm_array__grow((void **)&o->stacks, &o->cap_stacks, o->nr_stacks, sizeof(*o->stacks)))
		return NULL;
	*idx = (uint32_t)o->nr_stacks;
	st = &o->stacks[o->nr_stacks++];
	*st = (struct pm_offcpu_stack){ 0 };
	return st;
}

/* offcpu's keep: the switch-out's stack, named now (the mappings are as they are now). */
static int sink__keep(void *ctx, const struct pm_record *rec, const struct pm_sample *s,
		      uint64_t *handle)
{
	struct pm_offcpu_sink *o = ctx;
	struct pm_offcpu_stack *st;
	const uint32_t *ids;
	uint32_t idx, *n;
	size_t nr;
	int err = pm_report_sink__stack(o->k, rec, s, &ids, &nr);

	if (err)
		return err;
	st = sink__stack_slot(o, &idx);
	if (!st)
		return -ENOMEM;
	if (nr > st->cap) {
		n = realloc(st->ids, nr * sizeof(*n));
		if (!n) {
			st->next_free = o->free_stack;
			o->free_stack = idx + 1;
			return -ENOMEM;
		}
		st->ids = n;
		st->cap = (uint32_t)nr;
	}
	memcpy(st->ids, ids, nr * sizeof(*ids));
	st->nr = (uint32_t)nr;
	*handle = idx;
	return 0;
}

static int sink__add(struct pm_offcpu_sink *o, const struct pm_offcpu_span *sp,
		     const struct pm_offcpu_stack *st, uint32_t event)
{
	return pm_profile__add(o->profile, &(struct pm_profile_sample){
		.event = event,
		.comm = pm_namer__comm(o->k->namer, sp->tid),
		.pid = sp->pid, .tid = sp->tid, .cpu = sp->cpu,
		.state = sp->state == PM_OFFCPU_BLOCKED ? PM_PROFILE_STATE_BLOCKED :
							  PM_PROFILE_STATE_RUNNABLE,
		.time = sp->start,
		.period = sp->end - sp->start,
		.frame_ids = st->ids, .nr_frames = st->nr,
	});
}

/* offcpu's span: charged ones become samples; every one gives its stack back. */
static int sink__span(void *ctx, const struct pm_offcpu_span *sp)
{
	struct pm_offcpu_sink *o = ctx;
	struct pm_offcpu_stack *st;
	int err = 0;

	if (sp->stack >= o->nr_stacks)
		return 0;
	st = &o->stacks[sp->stack];
	if (sp->kind == PM_OFFCPU_AT_END && o->nr_at_end < PM_OFFCPU_SINK_AT_END)
		o->at_end[o->nr_at_end++] = sp->tid;
	if ((sp->kind == PM_OFFCPU_CHARGED || sp->kind == PM_OFFCPU_AT_END) && sp->end > sp->start) {
		err = sink__add(o, sp, st, o->event);
		if (!err && o->wall)
			err = sink__add(o, sp, st, o->wall_event);
	}
	st->next_free = o->free_stack;
	o->free_stack = (uint32_t)sp->stack + 1;
	return err;
}

static const struct pm_offcpu_ops sink_ops = { .keep = sink__keep, .span = sink__span };

int pm_offcpu_sink__init(struct pm_offcpu_sink *o, struct pm_report_sink *k, bool wall)
{
	int ev;

	*o = (struct pm_offcpu_sink){ .k = k, .profile = k->profile, .wall = wall };
	pm_offcpu__init(&o->pair, &sink_ops, o);
	ev = pm_profile__add_event(o->profile, "offcpu-time");
	if (ev < 0)
		return ev;
	o->event = (uint32_t)ev;
	if (wall) {
		ev = pm_profile__add_event(o->profile, "wall-time");
		if (ev < 0)
			return ev;
		o->wall_event = (uint32_t)ev;
	}
	return 0;
}

void pm_offcpu_sink__exit(struct pm_offcpu_sink *o)
{
	size_t i;

	pm_offcpu__exit(&o->pair);
	for (i = 0; i < o->nr_stacks; i++)
		free(o->stacks[i].ids);
	free(o->stacks);
	*o = (struct pm_offcpu_sink){ 0 };
}

int pm_offcpu_sink__finish(struct pm_offcpu_sink *o)
{
	return pm_offcpu__end(&o->pair);
}

/*
 * With wall, the clock events' samples count in wall-time, from the first
 * one on: the events up to e's (a stream's come with its records).
 */
static int sink__redirect(struct pm_offcpu_sink *o, const struct pm_evsel *e)
{
	const struct pm_evsel *x;
	int err = 0;

	while (!err && e->idx >= 0 && o->nr_redirected <= (size_t)e->idx) {
		x = pm_reader__evsel(o->k->r, o->nr_redirected);
		if (x && pm_offcpu_sink__is_clock(x))
			err = pm_report_sink__redirect(o->k, x->idx, o->wall_event);
		o->nr_redirected++;
	}
	return err;
}

int pm_offcpu_sink__record(void *arg, const struct pm_record *rec, const struct pm_rec_info *in)
{
	struct pm_offcpu_sink *o = arg;
	int err;

	if (o->wall && rec->header->type == PERF_RECORD_SAMPLE && in->s.evsel) {
		o->clock_seen |= pm_offcpu_sink__is_clock(in->s.evsel);
		err = sink__redirect(o, in->s.evsel);
		if (err)
			return err;
	}
	return pm_offcpu__record(&o->pair, rec, in);
}
