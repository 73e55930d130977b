/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITCODE_H
#define PMREC_JITCODE_H

/*
 * The code that jitdump files (lib/jitdump.h) describe, fed into the JIT
 * names of a recording (lib/jitsym.h) at the time it was loaded, as perf
 * inject --jit puts an MMAP2 of each piece of code at its load time.
 *
 * A JIT reuses the memory of code it threw away, and moves code: an
 * address names different functions over a run.  When the file's times
 * and the samples' are one clock (the jitdump's are CLOCK_MONOTONIC unless
 * its header says it used the CPU's counter, the recording's with record
 * -k mono), a load or move is added to the table only once the records
 * read reach its time (pm_jitcode__advance, called in time order), and
 * the table's rule "the range added last wins" then names each sample by
 * the code that was there when it ran.  Otherwise (untimed) every load is
 * added at once, in file order: the last code at an address names it.
 *
 * A CODE_LOAD's source is the file and line its CODE_DEBUG_INFO gives for
 * the code's first address.  Bounded: the file is read one record at a
 * time, none over PM_JITCODE_MAX_RECORD bytes (a larger one is a fault),
 * and PM_JITSYM_MAX_ENTRIES loads are held at most.
 */
#include <stdbool.h>
#include <stdint.h>

#include "jitdump.h"
#include "jitsym.h"

#define PM_JITCODE_MAX_RECORD (16u << 20)

struct pm_jitcode;

/* What one file held. */
struct pm_jitcode_stats {
	uint64_t loads, moves, lines, unwinding, skipped;
	bool bad;			/* err says where and why the reading stopped */
	struct pm_jitdump_error err;
	bool truncated;			/* more loads than the bound */
	bool arch_time;			/* times of the CPU's counter: untimed */
};

/* Loads into t (not owned), which must outlive it.  NULL with errno. */
struct pm_jitcode *pm_jitcode__new(struct pm_jitsyms *t);
void pm_jitcode__delete(struct pm_jitcode *c);

/*
 * Reads the jitdump on fd as process pid's code, named dso in outputs (a
 * string that must outlive c: the file's path).  timed: the samples' clock
 * is CLOCK_MONOTONIC (a file whose header says otherwise is read untimed).
 * 0 with st filled (the loads before a fault are kept: st->bad), or a
 * negative errno (-ENOMEM, a read error).
 */
int pm_jitcode__read(struct pm_jitcode *c, int fd, int32_t pid, const char *dso, bool timed,
		     struct pm_jitcode_stats *st);
/*
 * Adds to the table every load and move of the timed files up to time,
 * in time order.  0, or what pm_jitsyms__add returned (-E2BIG: the
 * table's bound; the loads left are dropped).
 */
int pm_jitcode__advance(struct pm_jitcode *c, uint64_t time);

#endif
