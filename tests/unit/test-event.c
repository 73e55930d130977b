// SPDX-License-Identifier: GPL-2.0
/*
 * The attrs pm_evlist__config builds from the record options that change
 * them on every event (--all-user, --all-kernel, -d) or on the first one
 * only (--switch-events), as perf record 6.1 sets them.
 */
#include <stdlib.h>

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

int main(void)
{
	test_modes();
	test_addr_and_switch();
	return tap_done();
}
