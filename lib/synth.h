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
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

/* PERF_RECORD_MMAP "[kernel.kallsyms]_text" covering _text.._etext. */
int pm_synth__kernel_mmap(struct pm_buf *out, size_t trailer_size);
/* COMM for every thread of pid and MMAP2 for each of its executable maps. */
int pm_synth__task(struct pm_buf *out, pid_t pid, size_t trailer_size);
/* pm_synth__task for every process in /proc; vanished processes are skipped. */
int pm_synth__all_tasks(struct pm_buf *out, size_t trailer_size);

#endif
