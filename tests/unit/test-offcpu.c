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
	pm_offcpu__switch_in(&o, 110 * MS, -1, 10);
	pm_offcpu__switch_out(&o, 115 * MS, 1, 10, 10, S_PREEMPT, 8);
	pm_offcpu__switch_in(&o, 118 * MS, -1, 10);
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
	pm_offcpu__switch_in(&o, 120 * MS, -1, 99);
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
	pm_offcpu__switch_in(&o, 130 * MS, -1, 20);
	sp = span_of(&s, 20, 100 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED,
	       "a span open across a lost range is not charged");
	/* 21's switch-in was lost: it is next seen going out again. */
	pm_offcpu__switch_out(&o, 140 * MS, 0, 21, 21, S_SLEEP, 3);
	sp = span_of(&s, 21, 101 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED && sp->end == 140 * MS,
	       "out twice without an in: the first span is unattributed");
	pm_offcpu__switch_in(&o, 150 * MS, -1, 21);
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
	pm_offcpu__thread_exit(&o, 110 * MS, 1, 31);
	pm_offcpu__switch_out(&o, 111 * MS, 1, 31, 31, S_DEAD, 3);
	pm_offcpu__time(&o, 195 * MS);
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
	/*
	 * 25 ms past a recording 0 ms long: a quiet stretch (a sleeper's last
	 * switch-in) is no reason to doubt a time; only an absurd one is held.
	 */
	tap_ok(s.nr == 1 && !o.holding, "a span ending after a quiet stretch is charged at once");
	pm_offcpu__time(&o, 126 * MS);
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

/* Times the recording's: a first record at 1 s and its clock at 3 s. */
static void span_of_recording(struct pm_offcpu *o, struct seen *s)
{
	pm_offcpu__init(o, &ops, s);
	pm_offcpu__seen(o, 1000 * MS, 1, true);
	pm_offcpu__seen(o, 3000 * MS, 1, true);
}

static void test_backwards(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };
	const struct pm_offcpu_span *sp;

	span_of_recording(&o, &s);
	/* 50 runs until 3.1 s; its switch-out says 2.1 s (moved back 1 s). */
	pm_offcpu__switch_in(&o, 3000 * MS, -1, 50);
	pm_offcpu__seen(&o, 3100 * MS, 50, true);
	pm_offcpu__switch_out(&o, 2100 * MS, 0, 50, 50, S_SLEEP, 1);
	pm_offcpu__switch_in(&o, 3200 * MS, -1, 50);
	sp = span_of(&s, 50, 3100 * MS);
	tap_ok(sp && sp->end == 3200 * MS && sp->kind == PM_OFFCPU_CHARGED &&
	       o.stats.backwards == 1 && o.stats.blocked_ns == 100 * MS,
	       "a switch-out before its thread's last record: from that record on, counted");
	/* A switch-in before its switch-out (the two swapped) charges nothing. */
	pm_offcpu__switch_out(&o, 3300 * MS, 0, 50, 50, S_SLEEP, 2);
	pm_offcpu__switch_in(&o, 3250 * MS, -1, 50);
	tap_ok(o.stats.backwards == 2 && o.stats.spans == 1 && s.dropped == 1,
	       "a switch-in before its switch-out: dropped, counted");
	/* 51's switch-out came before its FORK (read first): not before its birth. */
	pm_offcpu__switch_out(&o, 2500 * MS, 0, 51, 51, S_SLEEP, 3);
	pm_offcpu__thread_fork(&o, 3300 * MS, 51);
	pm_offcpu__switch_in(&o, 3400 * MS, -1, 51);
	sp = span_of(&s, 51, 3300 * MS);
	tap_ok(sp && sp->end == 3400 * MS && o.stats.backwards == 3,
	       "a span open before its thread's FORK starts at the FORK, counted");
	/* Never twice: a span that starts inside the last one starts at its end. */
	pm_offcpu__switch_out(&o, 3500 * MS, 0, 52, 52, S_SLEEP, 4);
	pm_offcpu__switch_in(&o, 3600 * MS, -1, 52);
	pm_offcpu__switch_out(&o, 3550 * MS, 0, 52, 52, S_SLEEP, 5);
	pm_offcpu__switch_in(&o, 3650 * MS, -1, 52);
	sp = span_of(&s, 52, 3600 * MS);
	tap_ok(sp && sp->end == 3650 * MS && o.stats.backwards == 4 &&
	       o.stats.blocked_ns == 100 * MS + 100 * MS + 100 * MS + 50 * MS,
	       "a span is never charged twice");
	pm_offcpu__exit(&o);
}

static void test_zero(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };
	const struct pm_offcpu_span *sp;

	span_of_recording(&o, &s);
	pm_offcpu__switch_out(&o, 0, 0, 60, 60, S_SLEEP, 1);
	pm_offcpu__switch_in(&o, 3000 * MS, -1, 60);
	sp = span_of(&s, 60, 1000 * MS);
	tap_ok(sp && sp->end == 3000 * MS && o.stats.zero_times == 1 && o.clock.first == 1000 * MS,
	       "a switch-out at 0: from the recording's first time, counted");
	pm_offcpu__switch_out(&o, 3100 * MS, 0, 60, 60, S_SLEEP, 2);
	pm_offcpu__switch_in(&o, 0, -1, 60);
	tap_ok(o.stats.zero_times == 2 && s.dropped == 1 && o.stats.spans == 1,
	       "a switch-in at 0: nothing charged, counted");
	pm_offcpu__exit(&o);
}

static void test_past_end(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };
	const struct pm_offcpu_span *sp;

	span_of_recording(&o, &s);
	pm_offcpu__switch_out(&o, 3000 * MS, 0, 70, 70, S_SLEEP, 1);
	pm_offcpu__switch_in(&o, UINT64_MAX, -1, 70);
	tap_ok(s.nr == 0 && o.holding, "a switch-in at 2^64-1 is held");
	pm_offcpu__seen(&o, 3100 * MS, 71, true);
	tap_ok(o.holding && o.clock.confirmed == 3100 * MS && pm_offcpu__end_time(&o) == 3100 * MS,
	       "the recording's end is not 2^64-1");
	/* Then 70 runs at 3.2 s: its switch-in was past that. */
	pm_offcpu__seen(&o, 3200 * MS, 70, true);
	sp = span_of(&s, 70, 3000 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED && sp->end == 3200 * MS &&
	       o.stats.past_end == 1 && o.stats.spans == 0 && o.stats.unattributed_ns == 200 * MS,
	       "a switch-in past what follows: not charged, counted");
	pm_offcpu__exit(&o);

	/* Held to the end: past the end, its time until the end unattributed. */
	s = (struct seen){ 0 };
	span_of_recording(&o, &s);
	pm_offcpu__switch_out(&o, 3300 * MS, 0, 72, 72, S_SLEEP, 2);
	pm_offcpu__switch_in(&o, UINT64_MAX, -1, 72);
	pm_offcpu__seen(&o, 3400 * MS, 1, true);
	pm_offcpu__end(&o);
	sp = span_of(&s, 72, 3300 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED && sp->end == 3400 * MS &&
	       o.stats.past_end == 1 && o.stats.spans == 0 && o.stats.unattributed_ns == 100 * MS,
	       "a switch-in past the recording's end: not charged, counted");
	pm_offcpu__exit(&o);

	/* 73 leaves at 2^64-1 and is still out at the end. */
	s = (struct seen){ 0 };
	span_of_recording(&o, &s);
	pm_offcpu__switch_out(&o, UINT64_MAX, 0, 73, 73, S_SLEEP, 3);
	pm_offcpu__seen(&o, 3400 * MS, 1, true);
	pm_offcpu__end(&o);
	tap_ok(o.stats.past_end == 1 && o.stats.spans == 0 && s.dropped == 1 &&
	       o.stats.at_end_ns == 0, "a switch-out past the recording's end: not charged, counted");
	pm_offcpu__exit(&o);

	/* Its switch-in follows (the rounds left it in place): the same count. */
	s = (struct seen){ 0 };
	span_of_recording(&o, &s);
	pm_offcpu__switch_out(&o, UINT64_MAX, 0, 74, 74, S_SLEEP, 4);
	pm_offcpu__switch_in(&o, 3400 * MS, -1, 74);
	pm_offcpu__end(&o);
	tap_ok(o.stats.past_end == 1 && o.stats.backwards == 0 && o.stats.spans == 0 &&
	       s.dropped == 1, "a switch-out at 2^64-1 before its switch-in: past the end, counted");
	pm_offcpu__exit(&o);
}

static void test_missed_out(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };

	span_of_recording(&o, &s);
	/* The same switch-in twice (next_pid, then a SWITCH record): not counted. */
	pm_offcpu__switch_in(&o, 3000 * MS, -1, 80);
	pm_offcpu__switch_in(&o, 3000 * MS + 10, -1, 80);
	tap_ok(o.stats.missed_outs == 0, "a switch-in seen twice is no missing switch-out");
	/* It runs (a sample), then is switched in again: the switch-out is missing. */
	pm_offcpu__seen(&o, 3100 * MS, 80, true);
	pm_offcpu__switch_in(&o, 3200 * MS, -1, 80);
	tap_ok(o.stats.missed_outs == 1 && s.nr == 0, "a switch-in after it ran: counted");
	/* Switch-ins lost with the switch-outs: a LOST record explains them. */
	pm_offcpu__seen(&o, 3300 * MS, 80, true);
	pm_offcpu__lost(&o, 3350 * MS);
	pm_offcpu__switch_in(&o, 3400 * MS, -1, 80);
	tap_ok(o.stats.missed_outs == 1, "not after a LOST record");
	/* Out after its EXIT and never in again: not charged at the end. */
	pm_offcpu__thread_exit(&o, 3500 * MS, -1, 81);
	pm_offcpu__switch_out(&o, 3600 * MS, 0, 81, 81, S_SLEEP, 1);
	pm_offcpu__end(&o);
	tap_ok(o.stats.at_end_threads == 0 && o.stats.missed_ins == 1 &&
	       o.stats.unattributed_spans == 1, "an exited thread out at the end is not charged");
	pm_offcpu__exit(&o);
}

/*
 * The switch-out missing between two switch-ins was on the CPU of the
 * first: counted once that CPU records a later switch, not when its
 * switches stop first (the end of -a) or a LOST record comes first, nor
 * for a thread whose switch-in was never seen (born on a CPU not yet
 * recorded, at the start of -a).
 */
static void test_missed_out_edges(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };

	span_of_recording(&o, &s);
	/* 90 is born, runs on a CPU whose switches are not recorded yet, then in on 1. */
	pm_offcpu__thread_fork(&o, 3000 * MS, 90);
	pm_offcpu__seen(&o, 3010 * MS, 90, true);
	pm_offcpu__switch_in(&o, 3020 * MS, 1, 90);
	tap_ok(o.stats.missed_outs == 0, "a thread whose switch-in was never seen: not counted");
	/* In on 1, runs, in on 0: counted when 1 records a switch later. */
	pm_offcpu__seen(&o, 3030 * MS, 90, true);
	pm_offcpu__switch_in(&o, 3040 * MS, 0, 90);
	tap_ok(o.stats.missed_outs == 0, "a switch-out missing on another CPU: not counted yet");
	pm_offcpu__switch_out(&o, 3050 * MS, 1, 91, 91, S_SLEEP, 1);
	tap_ok(o.stats.missed_outs == 1, "counted when that CPU records a switch after it");
	/* In on 0, runs, in on 1: a LOST record (of CPU 0's, maybe) comes before 0 switches. */
	pm_offcpu__seen(&o, 3060 * MS, 90, true);
	pm_offcpu__switch_in(&o, 3070 * MS, 1, 90);
	pm_offcpu__lost(&o, 3080 * MS);
	pm_offcpu__switch_out(&o, 3090 * MS, 0, 92, 92, S_SLEEP, 2);
	tap_ok(o.stats.missed_outs == 1, "not when a LOST record comes before that CPU's next switch");
	/* In on 1, runs, in on 0; 1 records nothing more (its switches stopped first). */
	pm_offcpu__seen(&o, 3100 * MS, 90, true);
	pm_offcpu__switch_in(&o, 3110 * MS, 0, 90);
	pm_offcpu__end(&o);
	tap_ok(o.stats.missed_outs == 1, "not when that CPU records no switch after it");
	pm_offcpu__exit(&o);
}

/*
 * A switch-in never recorded (the kernel samples no switch away from some
 * tasks): the thread shows it ran on a CPU, and came back there after the
 * last switch recorded on it.  Charged up to that switch, the rest counted.
 */
static void test_in_not_recorded(void)
{
	struct pm_offcpu o;
	struct seen s = { 0 };
	const struct pm_offcpu_span *sp;

	pm_offcpu__init(&o, &ops, &s);
	/* 90 sleeps on CPU 0; 91 comes in there at 104 ms, 90 runs at 106 ms. */
	pm_offcpu__switch_out(&o, 100 * MS, 0, 90, 90, S_SLEEP, 1);
	pm_offcpu__switch_in(&o, 104 * MS, 0, 91);
	pm_offcpu__running(&o, 106 * MS, 0, 90);
	sp = span_of(&s, 90, 100 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_CHARGED && sp->end == 104 * MS &&
	       o.stats.missed_ins == 1 && o.stats.partial_spans == 1 &&
	       o.stats.partial_rest_ns == 2 * MS,
	       "a sample after its switch-out: charged to the CPU's last switch, 2 ms counted");
	/* No switch on CPU 1 since 92 left: nothing known, nothing charged. */
	pm_offcpu__switch_out(&o, 110 * MS, 1, 92, 92, S_SLEEP, 2);
	pm_offcpu__running(&o, 115 * MS, 1, 92);
	sp = span_of(&s, 92, 110 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED && sp->end == 115 * MS &&
	       o.stats.partial_spans == 1 && o.stats.missed_ins == 2,
	       "no switch on its CPU since: unattributed");
	/* Out twice: 93 came back on CPU 0 after 94 came in at 203 ms. */
	pm_offcpu__switch_out(&o, 200 * MS, 0, 93, 93, S_SLEEP, 3);
	pm_offcpu__switch_in(&o, 203 * MS, 0, 94);
	pm_offcpu__switch_out(&o, 205 * MS, 0, 93, 93, S_SLEEP, 4);
	sp = span_of(&s, 93, 200 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_CHARGED && sp->end == 203 * MS &&
	       o.stats.partial_rest_ns == 4 * MS,
	       "out twice: the first span charged to the switch before the second");
	/* Its exit: the same. */
	pm_offcpu__switch_out(&o, 300 * MS, 1, 95, 95, S_SLEEP, 5);
	pm_offcpu__switch_in(&o, 301 * MS, 1, 96);
	pm_offcpu__thread_exit(&o, 305 * MS, 1, 95);
	sp = span_of(&s, 95, 300 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_CHARGED && sp->end == 301 * MS &&
	       o.stats.partial_spans == 3, "an exit after its switch-out: the same");
	/* After a LOST record nothing is charged: the switch-in may be among the lost. */
	pm_offcpu__switch_out(&o, 400 * MS, 0, 97, 97, S_SLEEP, 6);
	pm_offcpu__lost(&o, 401 * MS);
	pm_offcpu__switch_in(&o, 402 * MS, 0, 98);
	pm_offcpu__running(&o, 403 * MS, 0, 97);
	sp = span_of(&s, 97, 400 * MS);
	tap_ok(sp && sp->kind == PM_OFFCPU_UNATTRIBUTED && o.stats.partial_spans == 3,
	       "across a LOST record: unattributed");
	/* A sample at 2^64-1 of a thread off CPU: not the recording's end, nothing charged. */
	pm_offcpu__switch_out(&o, 500 * MS, 0, 99, 99, S_SLEEP, 7);
	pm_offcpu__switch_in(&o, 501 * MS, 0, 98);
	pm_offcpu__running(&o, UINT64_MAX, 0, 99);
	tap_ok(pm_offcpu__end_time(&o) == 501 * MS && o.stats.partial_spans == 3,
	       "a sample at 2^64-1: the end stays %llu ms, nothing charged",
	       (unsigned long long)(pm_offcpu__end_time(&o) / MS));
	pm_offcpu__exit(&o);
}

int main(void)
{
	test_migration_and_preemption();
	test_in_not_recorded();
	test_lost_range();
	test_end_exit_idle();
	test_records();
	test_backwards();
	test_zero();
	test_past_end();
	test_missed_out();
	test_missed_out_edges();
	return tap_done();
}
