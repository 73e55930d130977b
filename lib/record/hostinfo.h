/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_HOSTINFO_H
#define PMREC_HOSTINFO_H

/*
 * Payloads of the perf.data header features that describe the machine:
 * HOSTNAME, OSRELEASE, ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CPU_TOPOLOGY.
 * The payload is appended to out exactly as perf 6.1 reads it (file section
 * and pipe HEADER_FEATURE alike).
 */
#include "base/buf.h"

/* Returns 0, -EOPNOTSUPP for features not described here, or -errno. */
int pm_hostinfo__feature(struct pm_buf *out, int feat);

#endif
