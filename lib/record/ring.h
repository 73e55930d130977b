/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_RING_H
#define PMREC_RING_H

/*
 * The mmap core: a reader over one perf ring buffer (control page + 2^n data
 * pages).  The kernel's side of the protocol (barriers, overwrite mode,
 * wrap, loss) is in lib/README.md, "the kernel's ring buffer", from
 * kernel/events/ring_buffer.c and include/uapi/linux/perf_event.h.
 *
 * A drain pass takes exactly one acquire-load of data_head (pm_ring__peek),
 * hands the pending bytes out as at most two contiguous spans that can go to
 * writev() straight from the mapping, and then release-stores data_tail
 * (pm_ring__release).  Reading the head once per pass is what keeps pmrec from
 * writing a record twice.  Head and tail are free-running u64 byte counts;
 * all arithmetic on them is modular.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <linux/perf_event.h>

#include "base/buf.h"

/* Largest record the kernel can emit (u16 size, 8-aligned). */
#define PM_RING_MAX_RECORD 65528

struct pm_ring {
	struct perf_event_mmap_page *ctl;
	unsigned char *data;
	uint64_t size;			/* data area bytes, a power of two */
	uint64_t mask;
	uint64_t tail;			/* everything before this was consumed */
	void *map;			/* NULL for memory attached by tests */
	size_t map_len;
	int fd;				/* owner fd; -1 for attached memory */
	int refcnt;			/* fds writing here; lib/record/drain.c moves it */
	bool backward;			/* write_backward, mapped read-only */
	unsigned char *scratch;		/* PM_RING_MAX_RECORD bytes, on demand */
	uint64_t corrupt;		/* times the reader had to resync */
};

/* The bytes [start, end) of a ring, as one or two pieces of the mapping. */
struct pm_span {
	uint64_t start;
	uint64_t end;
	struct iovec iov[2];
	int iovcnt;
};

/* Maps fd's buffer: 1 control page + data_pages (a power of two). */
int pm_ring__mmap(struct pm_ring *r, int fd, size_t data_pages, bool overwrite);
/* Uses caller memory (control page at base, data after it) for unit tests. */
void pm_ring__attach_mem(struct pm_ring *r, void *base, uint64_t data_offset,
			 uint64_t data_size);
/* Takes a reference for a fd redirected into the ring. */
void pm_ring__get(struct pm_ring *r);
/* Drops a reference; returns the references left. */
int pm_ring__put(struct pm_ring *r);
/* Unmaps and closes the owner fd; the ring must be drained by the caller. */
void pm_ring__unmap(struct pm_ring *r);

/*
 * Snapshot of the pending bytes, from one load of data_head.  Returns the
 * number of pending bytes (0 when empty).  When head has run more than a
 * buffer ahead of the tail (impossible unless memory is corrupt), the pending
 * data cannot be trusted: the span is reset to empty at head and the resync
 * is counted.
 */
uint64_t pm_ring__peek(struct pm_ring *r, struct pm_span *s);
/* One acquire-load of data_head: where the kernel's next record will start. */
uint64_t pm_ring__head(const struct pm_ring *r);
/* Marks the span consumed: release-store of data_tail = s->end. */
void pm_ring__release(struct pm_ring *r, const struct pm_span *s);

/*
 * Iterates the records of a span.  *pos starts at s->start.  Returns 1 and
 * sets *ev to the record (in the mapping, or in the ring's scratch copy when
 * it straddles the end), 0 at the end of the span, or -EBADMSG when a header
 * is invalid (size < 8, not 8-aligned, or past the end of the span): the
 * span's remaining bytes are then unusable.
 */
int pm_ring__next(struct pm_ring *r, const struct pm_span *s, uint64_t *pos,
		  const struct perf_event_header **ev);

/*
 * The ring positions whose samples count: [from, to), or from on when !ended.
 * The zero window keeps every sample.
 */
struct pm_ring_window {
	uint64_t from;
	uint64_t to;
	bool ended;
};

/* What a drain pass needs to know about a span, from its headers alone. */
struct pm_ring_scan {
	uint64_t samples;		/* inside the window */
	uint64_t outside;		/* samples outside it */
	uint64_t lost;			/* sum of PERF_RECORD_LOST counts */
	uint64_t mmap2;			/* MMAP2 records, which name mapped files */
	uint64_t mmap2_build_id;	/* those flagged PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint64_t exits;			/* EXIT records */
	uint64_t first_time;		/* of the first sample inside, 0 if none */
	uint64_t last_time;		/* largest time of those */
	uint64_t valid;			/* bytes of whole, valid records */
};

/* Whether the sample at ring position pos counts. */
bool pm_ring_window__holds(const struct pm_ring_window *w, uint64_t pos);

/*
 * Walks the record headers of a span without copying anything.  time_off is
 * the offset of the u64 time field in a SAMPLE (0: none).  Returns 0, or
 * -EBADMSG when a header is invalid: only the first sc->valid bytes may then
 * be used.
 */
int pm_ring__scan(const struct pm_ring *r, const struct pm_span *s, size_t time_off,
		  const struct pm_ring_window *w, struct pm_ring_scan *sc);

/*
 * For a paused backward (overwrite) ring: appends the complete records from
 * the newest back to the oldest still intact, in oldest-first order, to out.
 * Stops at a zero header (the buffer never wrapped) or one buffer's worth.
 */
int pm_ring__read_backward(struct pm_ring *r, struct pm_buf *out);

#endif
