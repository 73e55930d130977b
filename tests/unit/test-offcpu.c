// SPDX-License-Identifier: GPL-2.0
/*
 * The off-CPU pairing (lib/profile/offcpu.c) on switches made up here: a thread
 * that migrates, one preempted, a lost range, a thread alive at the end,
 * one that exits, the idle task; and the same through pm_offcpu__record
 * with SWITCH and LOST records.
 */
#include <stdint.h>
#include <string.h>

#include "profile/offcpu.h"
#include "format/perf_data.h"
#include "tap.h"

#define MS 1000000ull
#define S_SLEEP 1ull		/* prev_state "S" */
#define S_PREEMPT 0x100ull	/* "R+" */
#define S_DEAD 0x20ull		/* "Z" */

struct seen {
	struct pm_offcpu_span spans[32];
	int nr;
	int dropped;
};

static int on_span(void *ctx, const struct pm_offcpu_span *sp)
{
	struct seen *s = ctx;

	if (sp->kind == PM_OFFCPU_DROPPED) {
		s->dropped++;
		return 0;
	}
	if (s->nr < 32)
		s->spans[s->nr++] = *sp;
	return 0;
}

static const struct pm_offcpu_ops ops = { .span = on_span };

static const struct pm_offcpu_span *span_of(const struct seen *s, int32_t tid, uint64_t start)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->spans[i].tid == tid && s->spans[i].start == start)
			return &s->spans[i];
	return NULL;
}

static void test_migration_and_preemption(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };
	const struct pm_offcpu_span *sp;

	pm_offcpu__init(&o, &ops, &s);
	/* 10 sleeps out on CPU 0 and in on CPU 1 (a migration), then back. */
	pm_offcpu__switch_out(&o, 100 * MS, 0, 10, 10, S_SLEEP, 7);
	pm_offcpu__switch_in(&o, 110 * MS, 10);
	pm_offcpu__switch_out(&o, 115 * MS, 1, 10, 10, S_PREEMPT, 8);
	pm_offcpu__switch_in(&o, 118 * MS, 10);
	sp = span_of(&s, 10, 100 * MS);
	tap_ok(sp && sp->end == 110 * MS && sp->state == PM_OFFCPU_BLOCKED &&
	       sp->kind == PM_OFFCPU_CHARGED && sp->stack == 7 && sp->cpu == 0,
	       "a migrating thread's sleep: 10 ms blocked, charged to its switch-out's stack");
	sp = span_of(&s, 10, 115 * MS);
	tap_ok(sp && sp->end == 118 * MS && sp->state == PM_OFFCPU_RUNNABLE && sp->stack == 8,
	       "preempted: 3 ms waiting for a CPU");
	tap_ok(o.stats.blocked_ns == 10 * MS && o.stats.runnable_ns == 3 * MS &&
	       o.stats.spans == 2 && o.stats.switch_ins == 2, "stats split blocked and runnable");
	/* A switch-in of a thread never seen going out charges nothing. */
	pm_offcpu__switch_in(&o, 120 * MS, 99);
	tap_ok(s.nr == 2 && o.stats.switch_ins == 2, "a switch-in without a switch-out is ignored");
	pm_offcpu__exit(&o);
}

static void test_lost_range(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };
	const struct pm_offcpu_span *sp;

	pm_offcpu__init(&o, &ops, &s);
	pm_offcpu__switch_out(&o, 100 * MS, 0, 20, 20, S_SLEEP, 1);
	pm_offcpu__switch_out(&o, 101 * MS, 1, 21, 21, S_SLEEP, 2);
	/* Switches of CPU 1 lost up to 105 ms: 20's switch-in may be among them. */
	pm_offcpu__lost(&o, 105 * MS);
	pm_offcpu__switch_in(&o, 130 * MS, 20);
	sp = span_of(&s, 20, 100 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED,
	       "a span open across a lost range is not charged");
	/* 21's switch-in was lost: it is next seen going out again. */
	pm_offcpu__switch_out(&o, 140 * MS, 0, 21, 21, S_SLEEP, 3);
	sp = span_of(&s, 21, 101 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED && sp->end == 140 * MS,
	       "out twice without an in: the first span is unattributed");
	pm_offcpu__switch_in(&o, 150 * MS, 21);
	sp = span_of(&s, 21, 140 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_CHARGED && sp->end == 150 * MS,
	       "a span opened after the loss is charged");
	tap_ok(o.stats.unattributed_ns == 30 * MS + 39 * MS && o.stats.unattributed_spans == 2 &&
	       o.stats.blocked_ns == 10 * MS && o.stats.lost_records == 1,
	       "unattributed time counted apart: 69 ms");
	pm_offcpu__exit(&o);
}

static void test_end_exit_idle(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };
	const struct pm_offcpu_span *sp;

	pm_offcpu__init(&o, &ops, &s);
	pm_offcpu__switch_out(&o, 100 * MS, 0, 30, 30, S_SLEEP, 1);
	pm_offcpu__switch_out(&o, 100 * MS, 1, 0, 0, 0, 2);
	/* 31 runs, exits (EXIT record), then leaves the CPU for good. */
	pm_offcpu__thread_exit(&o, 110 * MS, 31);
	pm_offcpu__switch_out(&o, 111 * MS, 1, 31, 31, S_DEAD, 3);
	pm_offcpu__time(&o, 200 * MS);
	pm_offcpu__end(&o);
	sp = span_of(&s, 30, 100 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_AT_END && sp->end == 200 * MS,
	       "a thread off CPU at the end is charged until the end, flagged");
	tap_ok(o.stats.at_end_threads == 1 && o.stats.at_end_ns == 100 * MS,
	       "at-end time counted");
	tap_ok(!span_of(&s, 31, 111 * MS) && o.stats.exits == 1 && s.dropped == 2,
	       "an exited thread's last switch and the idle task's open nothing");
	pm_offcpu__exit(&o);
}

/* A SWITCH record with a sample_id trailer of tid, time, cpu. */
static void switch_record(uint64_t *buf, struct pm_record *rec, struct pm_rec_info *in,
			  uint32_t type, uint16_t misc, int32_t tid, uint64_t time)
{
	static struct perf_event_header h;

	h = (struct perf_event_header){ .type = type, .misc = misc, .size = 8 };
	buf[0] = 0;
	memcpy(buf, &h, sizeof(h));
	*rec = (struct pm_record){ .header = &h, .data = buf };
	*in = (struct pm_rec_info){ .has_time = true, .has_pid = true, .has_cpu = true,
				    .time = time, .pid = tid, .tid = tid };
}

static void test_records(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };
	struct pm_record rec;
	struct pm_rec_info in;
	uint64_t buf[4];
	const struct pm_offcpu_span *sp;

	pm_offcpu__init(&o, &ops, &s);
	pm_offcpu__switch_out(&o, 100 * MS, 0, 40, 40, S_SLEEP, 1);
	switch_record(buf, &rec, &in, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, 40,
		      100 * MS);
	pm_offcpu__record(&o, &rec, &in);
	tap_ok(s.nr == 0, "a SWITCH out record closes nothing");
	switch_record(buf, &rec, &in, PERF_RECORD_SWITCH_CPU_WIDE, 0, 40, 125 * MS);
	pm_offcpu__record(&o, &rec, &in);
	sp = span_of(&s, 40, 100 * MS);
	tap_ok(sp && sp->end == 125 * MS && sp->kind == PM_OFFCPU_CHARGED,
	       "a SWITCH_CPU_WIDE in record is the switch-in");
	pm_offcpu__switch_out(&o, 130 * MS, 0, 40, 40, S_SLEEP, 2);
	switch_record(buf, &rec, &in, PERF_RECORD_LOST, 0, 0, 131 * MS);
	pm_offcpu__record(&o, &rec, &in);
	switch_record(buf, &rec, &in, PERF_RECORD_SWITCH, 0, 40, 140 * MS);
	pm_offcpu__record(&o, &rec, &in);
	sp = span_of(&s, 40, 130 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED && o.stats.lost_records == 1,
	       "a LOST record makes the open span unattributed");
	pm_offcpu__exit(&o);
}

int main(void)
{
	test_migration_and_preemption();
	test_lost_range();
	test_end_exit_idle();
	test_records();
	return tap_done();
}
