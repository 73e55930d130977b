/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_STAGE_H
#define PMREC_STAGE_H

/*
 * The staging buffer between the drain and the output: drain passes copy
 * what they took from the rings into it, whole passes at a time, and a
 * writer thread writes them to the sink and commits, so a stalled disk or
 * pipe stalls the writer, not the drain.  The memory is bounded (cap
 * bytes): a pass that does not fit is not taken from the rings at all, and
 * what the kernel then cannot put in a full ring it counts as lost (LOST
 * records, PERF_FORMAT_LOST), exactly as without a staging buffer.
 *
 * Every commit ends on a pass: the file's data.size covers whole passes,
 * each closed by its FINISHED_ROUND, as when the drain writes itself.
 *
 * One producer (the drain) and one consumer (the writer); the state is
 * shared under a mutex, the bytes are copied and written outside it (the
 * producer owns the free space, the writer the staged bytes).  The unit
 * tests call pm_stage__write() in place of the thread.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "record/drain.h"

/* A pass in the buffer: where it ends (in bytes ever staged) and its samples. */
struct pm_stage_pass {
	uint64_t end;
	uint64_t samples;
};

struct pm_stage_stats {
	uint64_t samples;		/* written and committed */
	uint64_t bytes;
	uint64_t dropped_samples;	/* staged, then lost to a write error */
	uint64_t dropped_bytes;
	uint64_t deferred;		/* passes that found no room */
	uint64_t peak;			/* most bytes staged at once */
};

struct pm_stage {
	unsigned char *buf;
	size_t cap;
	size_t batch;			/* most bytes per write: room frees up as it goes */
	struct pm_drain_sink sink;
	int room_fd;			/* eventfd: room was made while the drain waited */
	pthread_t thread;
	bool running;
	/* Under lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* writer: passes or stop; flush: all written */
	uint64_t head;			/* bytes ever staged */
	uint64_t tail;			/* bytes ever written */
	uint64_t base;			/* byte at buf[0]: rebased when empty */
	struct pm_stage_pass *passes;	/* queue of staged passes, oldest at first */
	size_t nr_passes, first, cap_passes;
	bool waiting;			/* the drain wants room_fd written */
	bool stop;			/* the writer ends (after its current write) */
	int err;			/* the sink's first error; nothing is written after it */
	struct pm_stage_stats stats;
};

/* A buffer of cap bytes (its pages are touched only as they fill) in front of sink. */
int pm_stage__init(struct pm_stage *s, size_t cap, const struct pm_drain_sink *sink);
/* The writer thread. */
int pm_stage__start(struct pm_stage *s);

/*
 * 0 when len bytes fit now (or the writer failed: pm_stage__append says
 * so); else -ENOSPC, and room_fd becomes readable once the writer has made
 * room.  Only the drain adds bytes: what fits stays fitting.
 */
int pm_stage__reserve(struct pm_stage *s, size_t len);
/* Consumes room_fd's wake-up. */
void pm_stage__clear_room(struct pm_stage *s);
/*
 * Copies one whole pass (the records of its rings and its FINISHED_ROUND)
 * into the buffer, which must have room (else -ENOSPC, and nothing is
 * counted).  The writer's error, if it failed: the pass then counts as
 * dropped.
 */
int pm_stage__append(struct pm_stage *s, const struct iovec *iov, int iovcnt, uint64_t samples);

/*
 * The writer's step: writes and commits the staged passes, at most batch
 * bytes in whole passes (one pass at least).  0, or the sink's error, which
 * drops everything staged and is returned by every later call.
 */
int pm_stage__write(struct pm_stage *s);
/* Waits until every staged pass is written (or the writer failed); its error. */
int pm_stage__flush(struct pm_stage *s);
/* The stats, read consistently. */
void pm_stage__stats(struct pm_stage *s, struct pm_stage_stats *out);
/* Ends the writer after its current write (flush first to write it all), frees all. */
void pm_stage__exit(struct pm_stage *s);

#endif
