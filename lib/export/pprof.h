/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PPROF_H
#define PMREC_PPROF_H

/*
 * One event of a profile as pprof's profile.proto (google/pprof,
 * proto/profile.proto), gzip-compressed as pprof files are: what `go tool
 * pprof`, Pyroscope and Parca read.
 *
 * The profile must hold a frame per address (pm_report_sink.addrs): each
 * distinct address of a mapping is one Location, its frames one Line each
 * (functions inlined there first, the function they were inlined into
 * last), with its Mapping (range, file offset, file, build id).  Every
 * Mapping says has_functions, so pprof keeps pmrec's names rather than
 * looking for the files again.  Function names are report's: demangled,
 * "[file]" or "[unknown]" where no symbol covers the address, as folded
 * stacks name them; system_name is the symbol as the file spells it.
 *
 * Values: samples/count, then the summed period as cpu/nanoseconds
 * (cpu-clock, task-clock) or events/count.  Samples with equal stacks and
 * labels are one Sample.  Strings that are not valid UTF-8 get U+FFFD for
 * each bad byte (protobuf strings must be UTF-8).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/emit.h"
#include "base/file.h"
#include "export/gzout.h"
#include "profile/profile.h"
#include "reader/reader.h"

enum pm_pprof_label {
	PM_PPROF_LABEL_PID = 1 << 0,	/* num label "pid" */
	PM_PPROF_LABEL_TID = 1 << 1,	/* num label "tid" */
	PM_PPROF_LABEL_COMM = 1 << 2,	/* string label "comm" */
	PM_PPROF_LABEL_CPU = 1 << 3,	/* num label "cpu", on samples that recorded it */
};

#define PM_PPROF_LABELS_DEFAULT (PM_PPROF_LABEL_PID | PM_PPROF_LABEL_TID | PM_PPROF_LABEL_COMM)

/* "pid", "tid", "comm", "cpu": 0 or -EINVAL. */
int pm_pprof_label__parse(const char *name, enum pm_pprof_label *l);

struct pm_pprof_opts {
	uint32_t event;			/* of the profile */
	unsigned labels;		/* PM_PPROF_LABEL_* */
	bool cpu_time;			/* periods are nanoseconds of CPU time */
	/* With cpu_time, what time: "off-cpu" or "wall" (synthesized events); NULL: "cpu". */
	const char *time_kind;
	const char *event_name;		/* period_type's type when not cpu_time; a comment */
	uint64_t period;		/* Profile.period */
	int64_t time_nanos;		/* Profile.time_nanos; 0: unknown */
	int64_t duration_nanos;
	/* Samples of other comms, pids, tids and CPUs are left out (relative is moot). */
	const struct pm_profile_filter *filter;	/* NULL: none */
};

/*
 * The options the input implies for event (profile event = evsel index, as
 * pm_report_sink registers them): cpu_time for the software cpu-clock and
 * task-clock, and for the events report synthesizes past the input's
 * (offcpu-time, wall-time: time_kind "off-cpu", "wall"); period the attr's
 * sample period, or with frequency sampling (or a synthesized event)
 * the mean period of the samples; duration from the first to the last
 * sample; time_nanos the first sample's time on the wall clock when the
 * file has a clock reference (HEADER_CLOCK_DATA), else 0 (unknown).
 * labels is left to the caller.  0 or -EINVAL (no such event).
 */
int pm_pprof_opts__from_input(struct pm_pprof_opts *o, struct pm_reader *r,
			      const struct pm_profile *p, uint32_t event);

/*
 * The profile.proto bytes, uncompressed, written on out a field at a
 * time (not flushed).  0, -EINVAL, -ENOMEM or out's error.
 */
int pm_pprof__encode(const struct pm_profile *p, const struct pm_pprof_opts *o,
		     struct pm_out *out);
/* The same, gzip-compressed, through write.  0, write's error, -EINVAL or -ENOMEM. */
int pm_pprof__write(const struct pm_profile *p, const struct pm_pprof_opts *o,
		    pm_write_fn *write, void *arg);

#endif
