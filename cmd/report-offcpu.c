// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report's off-CPU options and notes: the analysis is in
 * lib/profile/offcpu.c (pairing) and lib/profile/offcpu_sink.c (profile samples).
 */
#include <inttypes.h>

#include "builtin.h"
#include "format/perf_data.h"
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

static int report_offcpu__start(struct report_offcpu *o)
{
	size_t i;

	o->decided = true;
	o->on = pm_offcpu__wanted(o->r);
	for (i = 0; i < pm_reader__nr_evsels(o->r); i++)
		o->switch_records |= pm_reader__evsel(o->r, i)->attr.context_switch;
	if (!o->on && !o->wall)
		return 0;
	return pm_offcpu_sink__init(&o->sink, o->k, o->wall);
}

static int report_offcpu__record(void *arg, const struct pm_record *rec,
				 const struct pm_rec_info *in)
{
	struct report_offcpu *o = arg;

	if (!o->decided) {
		if (rec->header->type != PERF_RECORD_SAMPLE)
			return 0;
		o->err = report_offcpu__start(o);
		if (o->err)
			return o->err;
	}
	return o->sink.k ? pm_offcpu_sink__record(&o->sink, rec, in) : 0;
}

int report_offcpu__init(struct report_offcpu *o, bool wall, struct pm_report_sink *k,
			struct pm_reader *r, struct pm_consumer *c)
{
	*o = (struct report_offcpu){ .wall = wall, .k = k, .r = r };
	*c = (struct pm_consumer){ .record = report_offcpu__record, .ctx = o };
	return 0;
}

int report_offcpu__finish(struct report_offcpu *o)
{
	return o->sink.k ? pm_offcpu_sink__finish(&o->sink) : 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

void report_offcpu__notes(const struct report_offcpu *o, const char *name)
{
	const struct pm_offcpu_stats *st = &o->sink.pair.stats;
	struct pm_cmd_msg tids = { 0 };
	size_t i;

	if (o->wall && !o->on)
		warning_at(name, "no off-CPU time in the wall-clock view: the recording has no "
			   "sched:sched_switch sampled on every switch (record --off-cpu)");
	if (o->wall && !o->sink.clock_seen)
		warning_at(name, "no on-CPU time in the wall-clock view: the recording has no "
			   "cpu-clock or task-clock samples");
	if (!o->on)
		return;
	/*
	 * A recording of whole CPUs misses a few at its edges (the CPUs' events
	 * start and stop one after another); one of tasks without SWITCH
	 * records sees only the switch-ins from one recorded thread to another.
	 */
	if (st->missed_ins * 4 > st->switch_outs && !o->switch_records)
		warning_at(name, "%" PRIu64 " of %" PRIu64 " switch-outs have no switch-in: the "
			   "recording has no SWITCH records, which a recording of tasks needs "
			   "(record --off-cpu adds them; -a needs none)",
			   st->missed_ins, st->switch_outs);
	if (st->at_end_threads) {
		for (i = 0; i < o->sink.nr_at_end; i++)
			pm_cmd_msg__add(&tids, "%s %d", i ? "," : "", o->sink.at_end[i]);
		note("%s: %" PRIu64 " threads were off CPU when the recording ended: %.3f ms "
		     "charged until its end (tid%s%s)", name, st->at_end_threads, ms(st->at_end_ns),
		     pm_cmd_msg__text(&tids), st->at_end_threads > o->sink.nr_at_end ? ", ..." : "");
		pm_cmd_msg__exit(&tids);
	}
	if (st->unattributed_spans)
		note("%s: %.3f ms off CPU (%" PRIu64 " spans) not attributed: the switch that ended "
		     "them may be lost (%" PRIu64 " LOST records) or was not recorded (%" PRIu64
		     " missing)", name, ms(st->unattributed_ns), st->unattributed_spans,
		     st->lost_records, st->missed_ins);
	if (st->partial_spans)
		note("%s: %" PRIu64 " switch-ins were not recorded (some kernels sample no switch away "
		     "from some tasks): those spans are charged until the last switch recorded on "
		     "the CPU each thread came back on; the %.3f ms from those switches to the "
		     "threads' next records is charged to none", name, st->partial_spans,
		     ms(st->partial_rest_ns));
	if (st->zero_times || st->backwards || st->past_end || st->missed_outs)
		note("%s: switch times that contradict the rest: %" PRIu64 " at 0, %" PRIu64
		     " before their thread's last record, birth or switch-out, %" PRIu64 " past "
		     "the end; %" PRIu64 " switch-ins with no switch-out: off-CPU time charged only "
		     "within each thread's life and the recording", name, st->zero_times,
		     st->backwards, st->past_end, st->missed_outs);
}

void report_offcpu__exit(struct report_offcpu *o)
{
	if (o->sink.k)
		pm_offcpu_sink__exit(&o->sink);
}
