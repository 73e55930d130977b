/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_UPLOADER_H
#define PMREC_UPLOADER_H

/*
 * The windows of `pmrec agent` on their way to the server, so that the
 * drain never waits for the network: pm_uploader__push queues a window in
 * memory and returns; a thread of its own sends them oldest first, one try
 * at a time (each bounded by the timeout, pyroscope.h), the same window
 * again after a failure, waiting longer each time (backoff).  Windows keep
 * their order: a window is sent only once those before it are.
 *
 * Memory is bounded: with max_windows queued, the oldest not being sent
 * makes room: it goes to the spool (uploader_spool.h) when there is one,
 * else it is dropped.  The thread sends the oldest window of the two, so
 * windows leave in order whichever holds them; at close, what memory still
 * holds goes to the spool, for the next run.  Every window is counted:
 * given, sent, retried, rejected by the server, spooled, dropped.
 */
#include <stddef.h>
#include <stdint.h>

#include "export/pyroscope.h"
#include "export/uploader_spool.h"

struct pm_uploader;

struct pm_uploader_config {
	struct pm_pyroscope_config server;
	size_t max_windows;		/* queued in memory; 0: 8 */
	long backoff_min_ms;		/* the wait after a first failure; 0: 250 */
	long backoff_max_ms;		/* doubled up to this; 0: 10000 */
	struct pm_spool *spool;		/* NULL: none; the uploader's from now on */
};

struct pm_uploader_counts {
	uint64_t windows;		/* given to push */
	uint64_t sent;			/* accepted by the server */
	uint64_t retries;		/* tries that failed, the window kept */
	uint64_t rejected;		/* refused (4xx), not sent again */
	uint64_t dropped;		/* the oldest, for room, or left at close */
	uint64_t spooled;		/* written to the spool */
	uint64_t queued;		/* in memory now */
	uint64_t in_spool;		/* in the spool now, left by a previous run included */
	long last_status;		/* of the last try; 0: no answer */
	char last_error[PM_PYROSCOPE_ERRLEN];	/* of the last failed try; "": none */
};

/* Starts the sender thread.  NULL and errno on failure (cfg->spool deleted). */
struct pm_uploader *pm_uploader__new(const struct pm_uploader_config *cfg);

/*
 * Queues w (its data, malloc'ed, is the uploader's from now on, whatever
 * happens) and returns at once: the queue's room is made when it is made.
 */
void pm_uploader__push(struct pm_uploader *u, const struct pm_pyroscope_window *w);

void pm_uploader__counts(struct pm_uploader *u, struct pm_uploader_counts *c);

/*
 * Takes no more windows; the thread sends what is queued, trying again
 * until grace_ms have passed, then stops and is joined.  What memory still
 * holds goes to the spool, or counts as dropped without one.  Frees u.
 * Safe on NULL.
 */
void pm_uploader__close(struct pm_uploader *u, long grace_ms, struct pm_uploader_counts *c);

#endif
