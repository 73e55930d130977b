/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_TRACING_H
#define PMREC_TRACING_H

/*
 * tracefs access for tracepoint events: ids for perf_event_attr.config and
 * the "tracing data" blob that perf needs to decode tracepoint samples.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* The tracefs mount point; mounts tracefs at /sys/kernel/tracing if needed. */
int pm_tracing__dir(char *path, size_t len);
/* Id of tracepoint sys:name; -ENOENT when it does not exist. */
int pm_tracing__event_id(const char *sys, const char *name, uint64_t *id);
/* perf's tracing-data blob (version 0.6) holding the formats of nr events,
 * each given as "sys:name". */
int pm_tracing__data(struct pm_buf *out, const char *const *events, size_t nr);

#endif
