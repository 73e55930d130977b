// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report's off-CPU options and notes: the analysis is in
 * lib/offcpu.c (pairing) and lib/offcpu_sink.c (profile samples).
 */
#include <inttypes.h>
#include <stdio.h>

#include "report-offcpu.h"

enum {
	OPT_WALL = 0x1100,
};

static const struct argp_option offcpu_options[] = {
	{ .name = "wall", .key = OPT_WALL,
	  .doc = "The wall-clock view: the event wall-time, on-CPU samples of cpu-clock or "
		 "task-clock as their nanoseconds plus the off-CPU time of a recording made "
		 "with record --off-cpu, so a thread's total is its life (shown unless "
		 "--event names another)" },
	{ 0 },
};

static error_t offcpu_parse_opt(int key, char *arg, struct argp_state *state)
{
	bool *wall = state->input;

	(void)arg;
	switch (key) {
	case OPT_WALL:
		*wall = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp report_offcpu_argp = {
	.options = offcpu_options,
	.parser = offcpu_parse_opt,
};

int report_offcpu__init(struct report_offcpu *o, bool wall, struct pm_report_sink *k,
			struct pm_reader *r, struct pm_consumer *c)
{
	int err;

	*c = (struct pm_consumer){ 0 };
	o->wall = wall;
	o->on = pm_offcpu__wanted(r);
	if (!o->on && !o->wall)
		return 0;
	err = pm_offcpu_sink__init(&o->sink, k, o->wall);
	if (!err)
		*c = (struct pm_consumer){ .record = pm_offcpu_sink__record, .ctx = &o->sink };
	return err;
}

int report_offcpu__finish(struct report_offcpu *o)
{
	return o->sink.k ? pm_offcpu_sink__finish(&o->sink) : 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

void report_offcpu__notes(const struct report_offcpu *o, const char *cmd, const char *name)
{
	const struct pm_offcpu_stats *st = &o->sink.pair.stats;

	if (o->wall && !o->on)
		fprintf(stderr, "%s: %s: warning: no off-CPU time in the wall-clock view: the "
			"recording has no sched:sched_switch sampled on every switch "
			"(record --off-cpu)\n", cmd, name);
	if (o->wall && !o->sink.clock_seen)
		fprintf(stderr, "%s: %s: warning: no on-CPU time in the wall-clock view: the "
			"recording has no cpu-clock or task-clock samples\n", cmd, name);
	if (!o->on)
		return;
	if (st->switch_outs && !st->switch_ins)
		fprintf(stderr, "%s: %s: warning: %" PRIu64 " switch-outs but no switch-in: "
			"the recording has no SWITCH records (record --off-cpu adds them for "
			"tasks; -a needs none), so no off-CPU time is charged\n",
			cmd, name, st->switch_outs);
	if (st->at_end_threads)
		fprintf(stderr, "%s: %s: %" PRIu64 " threads were off CPU when the recording "
			"ended: %.3f ms charged until its end\n", cmd, name, st->at_end_threads,
			ms(st->at_end_ns));
	if (st->unattributed_spans)
		fprintf(stderr, "%s: %s: warning: %.3f ms off CPU (%" PRIu64 " spans) not "
			"attributed: their switches fell in ranges lost while recording "
			"(%" PRIu64 " LOST records)\n", cmd, name, ms(st->unattributed_ns),
			st->unattributed_spans, st->lost_records);
}

void report_offcpu__exit(struct report_offcpu *o)
{
	if (o->sink.k)
		pm_offcpu_sink__exit(&o->sink);
}
