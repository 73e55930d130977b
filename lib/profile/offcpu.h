/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_OFFCPU_H
#define PMREC_OFFCPU_H

/*
 * Off-CPU time: each thread's switch-out paired with its next switch-in,
 * in time order, whatever CPUs they happen on (a thread that migrates is
 * switched in on another CPU).  A switch-out comes from a
 * sched:sched_switch sample (its prev_state says why the thread left: not
 * runnable, "blocked", or still runnable, preempted: the time until it runs
 * again is run-queue latency); a switch-in from the same tracepoint's
 * next_pid (system-wide recordings) or from a SWITCH / SWITCH_CPU_WIDE
 * record (PERF_RECORD_MISC_SWITCH_OUT clear).
 *
 * Time is never invented: a LOST record means switches of some CPU were
 * dropped, any of which may have been the switch-in of any thread then
 * off CPU, so the spans open at that moment are closed as unattributed
 * (counted, not charged) when their switch-in comes.  A thread still off
 * CPU when the recording ends is charged until its end and flagged; a
 * thread that exits is closed.
 *
 * Nor is it believed when it contradicts itself (an edited or corrupt
 * file): a span is charged only inside its thread's known life (from its
 * FORK, not before its own last record, nor before the end of its last
 * span) and the recording's span, and a switch whose time is zero, goes
 * backwards, or lies past the end (the thread's exit, or the recording's)
 * is counted in the stats, once.  The recording's end is its latest time
 * unless that time stands further past the others than the recording so
 * far is long (one record at 2^64-1): a span that ends at such a time is
 * held until a later record reaches it, and is past the end if none does.
 *
 * A switch-in may also never have been recorded: some kernels sample no
 * switch away from some tasks (a guest's agent), so what a CPU switches
 * to after one of them has no record.  When the thread then shows it ran
 * (a sample, its switch-out again, its exit), it came back on that CPU
 * after the last switch recorded there: the span is charged up to that
 * switch, the rest counted, not charged (partial_spans).
 *
 * A switch-in of a thread that ran since its last switch-in means the
 * switch-out between them is missing, but not always from the file: it
 * happened on the CPU of that last switch-in, whose switches may no longer
 * have been recorded (-a stops its CPUs one after another) or were lost (a
 * LOST record comes after the records it lost).  So it is counted only
 * once a later sched_switch on that CPU shows its switches still recorded, and
 * not if a LOST record comes first; a thread whose switch-in was never
 * seen (born on a CPU not yet recorded) has no such CPU.
 *
 *	struct pm_offcpu o;
 *	pm_offcpu__init(&o, &ops, ctx);
 *	... pm_offcpu__record() as a pipeline consumer, or the calls below ...
 *	pm_offcpu__end(&o);
 *	pm_offcpu__exit(&o);
 */
#include <stdbool.h>
#include <stdint.h>

#include "base/hashtab.h"
#include "reader/reader.h"
#include "reader/rec_info.h"

enum pm_offcpu_state {
	PM_OFFCPU_NONE,		/* not an off-CPU sample */
	PM_OFFCPU_BLOCKED,	/* left the CPU not runnable: sleep, I/O, lock */
	PM_OFFCPU_RUNNABLE,	/* left it runnable (preempted): waited for a CPU */
};

/* prev_state as the kernel reports it (trace/events/sched.h): a letter's bit, 0 "R". */
#define PM_OFFCPU_TASK_DEAD 0x30	/* X and Z: the last switch-out of a thread */
#define PM_OFFCPU_TASK_REPORT 0xff	/* the states that are not runnable */

enum pm_offcpu_span_kind {
	PM_OFFCPU_CHARGED,	/* paired: charge end - start to the stack */
	PM_OFFCPU_AT_END,	/* still off CPU at the end: charged until then, flagged */
	PM_OFFCPU_UNATTRIBUTED,	/* across a lost range, or its switch-in missed */
	PM_OFFCPU_DROPPED,	/* no span (idle, a dead thread's last switch): the handle back */
};

struct pm_offcpu_span {
	int32_t pid, tid;
	int32_t cpu;			/* of the switch-out */
	uint64_t start, end;		/* ns */
	enum pm_offcpu_state state;
	enum pm_offcpu_span_kind kind;
	uint64_t stack;			/* what ops->keep gave for the switch-out */
};

struct pm_offcpu_ops {
	/*
	 * A switch-out sample: keep what its span will be charged to in
	 * *handle (ops->span gets it back, once).  Called from
	 * pm_offcpu__record only; the direct calls take the handle.
	 */
	int (*keep)(void *ctx, const struct pm_record *rec, const struct pm_sample *s,
		    uint64_t *handle);
	/* Every span, however it closed: charged or not, its handle is done with. */
	int (*span)(void *ctx, const struct pm_offcpu_span *sp);
};

struct pm_offcpu_stats {
	uint64_t switch_outs;		/* of threads (not idle) */
	uint64_t switch_ins;		/* that closed a span */
	uint64_t spans;			/* charged, at the end included */
	uint64_t blocked_ns, runnable_ns;
	uint64_t at_end_threads, at_end_ns;	/* part of blocked_ns/runnable_ns */
	uint64_t unattributed_spans, unattributed_ns;
	/*
	 * Spans whose switch-in never came (the thread ran again, out again, or
	 * exited): unattributed, or partial_spans of them charged until the
	 * last switch recorded on the CPU it came back on (its switch-in not
	 * recorded), the partial_rest_ns after that switch charged to none.
	 */
	uint64_t missed_ins;
	uint64_t partial_spans, partial_rest_ns;
	/*
	 * Switch-ins of a thread seen on CPU since its last one, whose CPU
	 * went on recording switches after: its switch-out is missing.
	 */
	uint64_t missed_outs;
	/* Switch times that contradict the rest, each switch counted under one. */
	uint64_t zero_times;		/* 0 */
	uint64_t backwards;		/* before the thread's last record, birth or switch-out */
	uint64_t past_end;		/* after the thread's exit or the recording's end */
	uint64_t lost_records;		/* LOST records (their ranges) */
	uint64_t exits;
};

struct pm_offcpu_thread;
struct pm_offcpu_cpu;

/* The sched_switch fields of one event (by its attr index). */
struct pm_offcpu_evsel {
	bool checked;
	const struct pm_tp_field *prev_pid, *prev_state, *next_pid;	/* NULL: not sched_switch */
};

/* The recording's times (0 is no time): what its span is made of. */
struct pm_offcpu_clock {
	uint64_t first, last;		/* the earliest and the latest */
	uint64_t confirmed;		/* the latest that another record reached too */
};

struct pm_offcpu {
	const struct pm_offcpu_ops *ops;
	void *ctx;
	struct pm_offcpu_thread *threads;	/* in order first seen */
	size_t nr_threads, cap_threads;
	struct pm_hashtab by_tid;	/* tid -> index */
	/* Each CPU's switch-ins whose switch-out went missing there, not yet counted. */
	struct pm_offcpu_cpu *cpus;
	size_t nr_cpus, cap_cpus;
	struct pm_hashtab by_cpu;	/* cpu -> index */
	struct pm_offcpu_evsel *evsels;
	size_t nr_evsels;
	struct pm_offcpu_clock clock;
	/* A span that ends at a time no other record has reached yet. */
	struct pm_offcpu_span held;
	bool holding;
	struct pm_offcpu_stats stats;
};

/* 0 or -ENOMEM. */
int pm_offcpu__init(struct pm_offcpu *o, const struct pm_offcpu_ops *ops, void *ctx);
void pm_offcpu__exit(struct pm_offcpu *o);

/* Whether a recording has what the analysis needs: a sched:sched_switch event sampled every time. */
bool pm_offcpu__wanted(struct pm_reader *r);
/* Whether s is a sched:sched_switch sample that pm_offcpu__record pairs. */
bool pm_offcpu__is_switch(struct pm_offcpu *o, const struct pm_sample *s);

/*
 * The steps, for records decoded elsewhere (and the unit test); each 0 or
 * a negative errno.  cpu -1: not known (the records without one are one
 * CPU).  A switch-out shows its CPU's switches recorded at its time.
 */
int pm_offcpu__switch_out(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t pid,
			  int32_t tid, uint64_t prev_state, uint64_t handle);
int pm_offcpu__switch_in(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t tid);
int pm_offcpu__lost(struct pm_offcpu *o, uint64_t time);
int pm_offcpu__thread_exit(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t tid);
/*
 * A sample of thread tid on cpu (-1: unknown) at time that is no switch:
 * it runs there.  Off CPU as far as we know, its switch-in is missing.
 */
int pm_offcpu__running(struct pm_offcpu *o, uint64_t time, int32_t cpu, int32_t tid);
/* A new thread tid (its FORK): its life starts at time. */
int pm_offcpu__thread_fork(struct pm_offcpu *o, uint64_t time, int32_t tid);
/*
 * A record of thread tid (tid <= 0: of none) at time that is no switch of
 * it; ran: it shows the thread on CPU (a sample, a SWITCH out record).
 */
int pm_offcpu__seen(struct pm_offcpu *o, uint64_t time, int32_t tid, bool ran);
/* Widens the recording's span to time (0: no time). */
int pm_offcpu__time(struct pm_offcpu *o, uint64_t time);
/* The recording's end as believed: its latest time, unless that stands too far past the rest. */
uint64_t pm_offcpu__end_time(const struct pm_offcpu *o);
/* The threads still off CPU, charged until the recording's end and flagged. */
int pm_offcpu__end(struct pm_offcpu *o);

/* A pm_consume_fn: arg is the pm_offcpu. */
int pm_offcpu__record(void *arg, const struct pm_record *rec, const struct pm_rec_info *in);

#endif
