// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "builtin.h"
#include "live-events.h"

/* One fd per event, CPU and task, and a few of our own. */
static void live_events__raise_nofile(const struct record *rec)
{
	pm_raise_nofile((rlim_t)pm_count_open_fds() + 16 +
			(rlim_t)rec->cpus.nr * rec->targets.nr * rec->opts->evlist.nr);
}

int live_events__open(struct record *rec, struct pm_live *live, int watch_fd)
{
	struct record_opts *o = rec->opts;
	bool system_wide = rec->targets.tids[0] == -1;
	struct pm_event_config cfg = {
		.freq = o->freq,
		.period = o->period,
		.callchain = o->callchain,
		.dwarf = o->dwarf,
		.dwarf_stack = o->dwarf_stack,
		.inherit = !system_wide,
		.lost_format = true,
	};
	struct pm_evset set = {
		.evlist = &o->evlist,
		.tids = rec->targets.tids,
		.nr_tids = rec->targets.nr,
		.mmap_pages = o->mmap_pages,
		.cgroup = rec->cgroup_fd >= 0,
		.cgroup_fd = rec->cgroup_fd,
		.skip_gone = o->uid_str != NULL,
	};
	struct pm_evset_error e;
	int err;

	rec->drain = pm_drain__new(&(struct pm_drain_config){
		.cpus = rec->cpus.cpus,
		.nr_cpus = rec->cpus.nr,
		.sink = pm_live__sink(live),
		.watch_fd = watch_fd,
	});
	if (!rec->drain) {
		error("cannot set up the rings: %s", strerror(errno));
		return PM_EXIT_FAILURE;
	}
	live_events__raise_nofile(rec);
	set.drain = rec->drain;
	err = pm_evset__open(&set, &cfg, &e);
	o->mmap_pages = set.mmap_pages;
	if (err) {
		record__report_evset_error(rec, &e);
		return PM_EXIT_FAILURE;
	}
	err = pm_drain__start(rec->drain, &set.opened);
	if (!err)
		err = pm_live__start(live);
	if (!err)
		err = pm_live__synthesize(live, system_wide ? NULL : rec->targets.tids,
					  rec->targets.nr);
	if (err) {
		error("cannot start: %s", strerror(-err));
		return PM_EXIT_FAILURE;
	}
	pm_drain__ioctl_all(rec->drain, PERF_EVENT_IOC_ENABLE);
	return 0;
}
