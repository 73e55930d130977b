/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SYNTH_H
#define PMREC_SYNTH_H

/*
 * Records synthesized from /proc at the start of a recording, so that perf
 * names the commands and resolves the symbols of processes that were already
 * running.  Each record is 8-aligned and ends with a zero sample_id trailer of
 * trailer_size bytes (perf parses trailers from the end of every non-sample
 * record; a missing one is fatal with several attrs).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/buf.h"

/* PERF_RECORD_MMAP "[kernel.kallsyms]_text" covering _text.._etext. */
int pm_synth__kernel_mmap(struct pm_buf *out, size_t trailer_size);
/*
 * COMM for every thread of pid and, with maps, MMAP2 for each of its
 * executable mappings.  Maps that this process may not read (another
 * user's, or a more privileged process's) leave the COMMs alone and set
 * *maps_denied (when not NULL): a recording without them still works.
 */
int pm_synth__task(struct pm_buf *out, pid_t pid, size_t trailer_size, bool maps,
		   bool *maps_denied);
/*
 * Takes the records of pm_synth__all_tasks whenever out holds flush_at bytes
 * or more, between two processes: flush consumes out (and empties it), so
 * thousands of processes pass through a small buffer that stays in cache
 * instead of a large one that faults in page by page.
 */
struct pm_synth_sink {
	int (*flush)(struct pm_buf *out, void *arg);
	void *arg;
	size_t flush_at;
};

/*
 * pm_synth__task for every process in /proc; vanished processes are skipped.
 * With a sink, records it took stay taken when a later process fails.
 */
int pm_synth__all_tasks(struct pm_buf *out, size_t trailer_size, bool maps,
			const struct pm_synth_sink *sink);

#endif
