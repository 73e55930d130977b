/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CLOCK_H
#define PMREC_CLOCK_H

/*
 * The sample clock of a recording (record -k, perf's --clockid).  The
 * kernel stamps samples with attr.clockid when attr.use_clockid is set;
 * perf names the clock in two header features:
 *
 *   CLOCKID     u64 resolution of the clock in ns (clock_getres);
 *   CLOCK_DATA  u32 version (1), u32 clockid, u64 wall-clock ns, u64 the
 *               clock's ns, read one right after the other at the start,
 *               so a sample time t is at wall-clock wall + (t - clock).
 *
 * Runtimes that write jitdump files stamp their records with the same
 * clock (CLOCK_MONOTONIC), which is how their code loads are ordered
 * against samples.
 */
#include <stdint.h>

#include "base/buf.h"

struct pm_clock_ref {
	int32_t clockid;
	uint64_t res_ns;		/* 0: unknown (CLOCKID is then left out, as perf) */
	uint64_t wall_ns;		/* CLOCK_REALTIME, ns since the epoch */
	uint64_t clock_ns;		/* clockid's time, read right after wall_ns */
};

/*
 * perf's clock names: monotonic (mono), monotonic_raw (raw), realtime
 * (real), boottime (boot), tai, in any case, with or without a CLOCK_
 * prefix, or a clock number.  -EINVAL for anything else.
 */
int pm_clock__parse(const char *s, int32_t *clockid);
/* perf's name of a clock ("monotonic", ...), or NULL for other numbers. */
const char *pm_clock__name(int32_t clockid);
/* The resolution and the reference pair of clockid, read now; 0 or -errno. */
int pm_clock__reference(int32_t clockid, struct pm_clock_ref *ref);
/* The CLOCKID and CLOCK_DATA payloads, as perf 6.1 reads them. */
int pm_clock__clockid_feature(const struct pm_clock_ref *ref, struct pm_buf *out);
int pm_clock__data_feature(const struct pm_clock_ref *ref, struct pm_buf *out);

#endif
