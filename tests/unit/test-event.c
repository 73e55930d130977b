// SPDX-License-Identifier: GPL-2.0
/*
 * The attrs pm_evlist__config builds from the record options that change
 * them on every event (--all-user, --all-kernel, -d) or on the first one
 * only (--switch-events), as perf record 6.1 sets them, and the tracking
 * event that carries the side-band records instead of the first.
 */
#include <stdlib.h>
#include <string.h>

#include "record/event.h"
#include "tap.h"

static int build(struct pm_evlist *l, const char *spec, const struct pm_event_config *cfg)
{
	char *bad = NULL;
	int err;

	*l = (struct pm_evlist){ 0 };
	err = pm_evlist__add(l, spec, &bad);
	free(bad);
	if (!err)
		pm_evlist__config(l, cfg);
	return err;
}

static void test_modes(void)
{
	struct pm_evlist l;
	const struct perf_event_attr *a, *b;

	build(&l, "cpu-clock,page-faults:k", &(struct pm_event_config){ .mode = PM_EVENT_MODE_USER });
	a = &l.events[0].attr;
	b = &l.events[1].attr;
	tap_ok(a->exclude_kernel && !a->exclude_user && !a->exclude_hv,
	       "--all-user excludes the kernel, the hypervisor bit as named (perf 6.1)");
	tap_ok(b->exclude_kernel && !b->exclude_user && b->exclude_hv,
	       "and overrides a :k modifier");
	pm_evlist__exit(&l);

	build(&l, "cpu-clock,page-faults:u", &(struct pm_event_config){ .mode = PM_EVENT_MODE_KERNEL });
	a = &l.events[0].attr;
	b = &l.events[1].attr;
	tap_ok(a->exclude_user && !a->exclude_kernel && b->exclude_user && !b->exclude_kernel,
	       "--all-kernel excludes user space on every event, over :u");
	pm_evlist__exit(&l);

	build(&l, "cpu-clock:u", &(struct pm_event_config){ 0 });
	a = &l.events[0].attr;
	tap_ok(a->exclude_kernel && !a->exclude_user, "without either, the modifiers decide");
	pm_evlist__exit(&l);
}

static void test_addr_and_switch(void)
{
	struct pm_evlist l;
	const struct perf_event_attr *a, *b;

	build(&l, "cpu-clock,page-faults",
	      &(struct pm_event_config){ .sample_addr = true, .context_switch = true });
	a = &l.events[0].attr;
	b = &l.events[1].attr;
	tap_ok((a->sample_type & PERF_SAMPLE_ADDR) && (b->sample_type & PERF_SAMPLE_ADDR),
	       "-d samples the address on every event");
	tap_ok(a->mmap_data && !b->mmap_data, "and records data mappings once, on the first");
	tap_ok(a->context_switch && !b->context_switch,
	       "--switch-events asks the first event only for switch records");
	tap_ok(pm_evlist__sample_time_offset(&l) == 32, "the sample's time stays before ADDR");
	pm_evlist__exit(&l);

	build(&l, "cpu-clock", &(struct pm_event_config){ 0 });
	a = &l.events[0].attr;
	tap_ok(!(a->sample_type & PERF_SAMPLE_ADDR) && !a->mmap_data && !a->context_switch,
	       "none of them by default");
	tap_ok(a->sample_type & PERF_SAMPLE_CPU, "the CPU is always sampled (--sample-cpu)");
	tap_ok(a->sample_type & PERF_SAMPLE_TIME, "and the time (-T)");
	pm_evlist__exit(&l);
}

static void test_tracking(void)
{
	struct pm_evlist l = { 0 };
	const struct perf_event_attr *a, *t;
	char *bad = NULL;

	tap_ok(!pm_evlist__add(&l, "cpu-clock", &bad) && !pm_evlist__add_tracking(&l) &&
	       l.nr == 2 && l.tracking == 1, "the tracking event is added last");
	free(bad);
	pm_evlist__config(&l, &(struct pm_event_config){ .freq = 99, .context_switch = true,
							  .enable_on_exec = true, .build_id = true });
	a = &l.events[0].attr;
	t = &l.events[1].attr;
	tap_ok(t->type == PERF_TYPE_SOFTWARE && t->config == PERF_COUNT_SW_DUMMY &&
	       !strcmp(l.events[1].name, "dummy"), "as a dummy event");
	tap_ok(t->mmap && t->mmap2 && t->comm && t->comm_exec && t->task && t->build_id &&
	       t->context_switch, "it asks for the side-band records");
	tap_ok(!a->mmap && !a->mmap2 && !a->comm && !a->task && !a->build_id && !a->context_switch,
	       "the first event no longer does (no record comes twice)");
	tap_ok(a->disabled && a->enable_on_exec && !t->disabled && !t->enable_on_exec,
	       "it is enabled at its open, the others later");
	tap_ok(!t->freq && t->sample_period == 1 && a->freq && a->sample_freq == 99,
	       "it never samples by rate; the others do");
	tap_ok(t->sample_type == a->sample_type, "its records carry the same trailer");
	pm_evlist__exit(&l);
	tap_ok(l.tracking == 0, "an emptied list tracks with its first event again");
}

int main(void)
{
	test_modes();
	test_addr_and_switch();
	test_tracking();
	return tap_done();
}
