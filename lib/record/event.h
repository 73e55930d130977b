/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_EVENT_H
#define PMREC_EVENT_H

/*
 * Events named on the command line (-e), turned into perf_event_attrs the way
 * perf names them: software events and their aliases, hardware events,
 * tracepoints SUBSYS:NAME, and the :u / :k modifiers.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

struct pm_event {
	char *name;			/* canonical, e.g. "cpu-clock:u" */
	char *tracepoint;		/* "sys:name" for tracepoints, else NULL */
	char *filter;			/* tracepoint filter expression or NULL */
	bool every;			/* sampled on every event, whatever -F and -c say */
	bool immediate;			/* opened enabled (the tracking event) */
	struct perf_event_attr attr;
	uint64_t *ids;			/* kernel sample ids, one per opened fd */
	size_t nr_ids;
};

struct pm_evlist {
	struct pm_event *events;
	size_t nr;
	size_t tracking;		/* the event that carries the side-band records */
};

/* --all-user, --all-kernel: one mode for every event, over its modifiers. */
enum pm_event_mode {
	PM_EVENT_MODE_AS_NAMED,
	PM_EVENT_MODE_USER,		/* exclude_kernel */
	PM_EVENT_MODE_KERNEL,		/* exclude_user */
};

/* How events are sampled; filled from -F, -c, -g and the target kind. */
struct pm_event_config {
	uint64_t freq;			/* samples/s when period is 0 */
	uint64_t period;		/* fixed period, or 0 */
	bool callchain;
	bool dwarf;			/* user regs + stack copy for unwinding */
	uint32_t dwarf_stack;
	bool inherit;
	bool enable_on_exec;
	bool overwrite;			/* backward rings */
	bool lost_format;		/* PERF_FORMAT_LOST (kernel 6.0+) */
	bool build_id;			/* build ids in MMAP2 records (kernel 5.12+) */
	bool sample_addr;		/* -d: PERF_SAMPLE_ADDR, and data mappings */
	bool context_switch;		/* --switch-events: SWITCH(_CPU_WIDE) records */
	enum pm_event_mode mode;
	bool use_clockid;		/* -k: samples timed by clockid, not the perf clock */
	int32_t clockid;
	uint32_t watermark;		/* wake-up every this many bytes */
};

/*
 * Adds every event of a comma-separated list.  On -ENOENT (unknown event) or
 * -EINVAL (bad modifier), *bad points to the offending name inside spec's
 * copy and must be freed by the caller.
 */
int pm_evlist__add(struct pm_evlist *l, const char *spec, char **bad);
/* Sets the filter of the last event; -EINVAL if it is not a tracepoint. */
int pm_evlist__set_filter(struct pm_evlist *l, const char *filter);
/*
 * Appends a dummy event that carries the side-band records (MMAP, COMM,
 * FORK, ...) instead of the first event, and is opened enabled: it tracks
 * the tasks while the others are still disabled (perf's tracking event).
 */
int pm_evlist__add_tracking(struct pm_evlist *l);
/* Fills every attr from cfg; the tracking event also carries side-band records. */
void pm_evlist__config(struct pm_evlist *l, const struct pm_event_config *cfg);
bool pm_evlist__has_tracepoints(const struct pm_evlist *l);
/* Records the sample id of a newly opened fd of event idx. */
int pm_evlist__add_id(struct pm_evlist *l, size_t idx, uint64_t id);
void pm_evlist__exit(struct pm_evlist *l);

/* Size of the sample_id trailer that every non-sample record carries. */
size_t pm_evlist__trailer_size(const struct pm_evlist *l);
/* Where that trailer's time is: this many bytes before the record's end. */
size_t pm_evlist__trailer_time_end(const struct pm_evlist *l);

/*
 * Offset of the u64 time in a SAMPLE of the configured events (they share
 * the fields before it), or 0 when samples carry no time.
 */
size_t pm_evlist__sample_time_offset(const struct pm_evlist *l);

/* perf's name for an attr of type/config, or NULL (for the reader too). */
const char *pm_event__builtin_name(uint32_t type, uint64_t config);

#endif
