/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_READER_QUEUE_H
#define PMREC_READER_QUEUE_H

/*
 * Time ordering of records with perf's FINISHED_ROUND rule (format doc,
 * section 6): at each round, deliver the queued records whose time is at
 * most the largest time seen at the previous round.  Memory holds about
 * two rounds of records; pm_oqueue__bytes() says how much, for callers
 * that bound it.
 */
#include <stddef.h>
#include <stdint.h>

#include "reader/reader.h"

/* Records are carved from chunks of this size; tests/fuzz/run builds smaller ones. */
#ifndef PM_QCHUNK_SIZE
#define PM_QCHUNK_SIZE (1024 * 1024)
#endif

struct pm_qchunk;

struct pm_queued {
	struct pm_qchunk *chunk;	/* the arena chunk that holds it */
	uint64_t offset;
	uint64_t extra_size;
	uint64_t data[];	/* the record, header.size bytes */
};

struct pm_qent {
	uint64_t time;
	uint64_t seq;		/* arrival order breaks ties */
	struct pm_queued *e;
};

/*
 * A run: records that arrived in time order, ent[head..nr).  A perf.data
 * file is a sequence of such runs (each ring's chunk of a pass is sorted),
 * so merging runs costs log(number of runs) per record, where one heap of
 * records costs log(number of records) in cache misses.
 */
struct pm_qrun {
	struct pm_qent *ent;
	size_t head;
	size_t nr;
	size_t cap;
};

/* The run heap's entries carry the head's keys. */
struct pm_qtop {
	uint64_t time;
	uint64_t seq;
	size_t run;
};

struct pm_oqueue {
	struct pm_qrun *runs;	/* a pool: indices stay valid */
	size_t nr_runs;		/* runs ever made (live or free) */
	size_t cap_runs;
	size_t *free_runs;	/* emptied runs, kept with their arrays */
	size_t nr_free;
	struct pm_qtop *heap;	/* one entry per live run */
	size_t nr;		/* live runs */
	size_t tail;		/* run of the last push, or SIZE_MAX */
	uint64_t seq;
	uint64_t max_time;	/* largest time queued so far */
	uint64_t next_flush;	/* limit of the next round */
	struct pm_queued *popped;	/* owned until the next pop */
	struct pm_qchunk *chunks;	/* every chunk holding records */
	struct pm_qchunk *cur;		/* records are carved from it */
	struct pm_qchunk *spares;	/* emptied chunks kept for reuse (by next) */
	size_t nr_spares;
	/*
	 * Memory: bytes carved from the chunks (popped records included
	 * until their chunk goes or is compacted), of which live_bytes are
	 * queued records; and the run arrays.
	 */
	size_t chunk_bytes;
	size_t live_bytes;
	size_t array_bytes;
	size_t kept_bytes;		/* of the free runs' arrays over QRUN_KEEP entries */
	size_t nr_mapped;		/* chunks mapped, spares included */
	size_t compact_above;		/* see pm_oqueue__set_compact_above() */
};

void pm_oqueue__init(struct pm_oqueue *q);
void pm_oqueue__exit(struct pm_oqueue *q);
/*
 * Pops compact the records only while the chunks hold more than bytes (0,
 * the default: always).  A round's flush empties its chunks by its end;
 * compacting them halfway copied half of each round a second time, cold
 * (queued a round ago).  A caller that bounds the queue at B sets B / 2:
 * popping down to B / 2 still reclaims whatever the order.
 */
void pm_oqueue__set_compact_above(struct pm_oqueue *q, size_t bytes);
/* Copies rec into the queue. */
int pm_oqueue__push(struct pm_oqueue *q, const struct pm_record *rec, uint64_t time);
/*
 * FINISHED_ROUND seen: returns the time limit up to which records can now be
 * popped.
 */
uint64_t pm_oqueue__round(struct pm_oqueue *q);
/*
 * Pops the oldest record with time <= limit into *rec (valid until the next
 * pop); returns 1, or 0 when there is none.
 */
int pm_oqueue__pop(struct pm_oqueue *q, uint64_t limit, struct pm_record *rec);
/*
 * Memory the queue holds: its records, the popped ones whose space is not
 * reclaimed yet, and its bookkeeping; 0 when empty.  Whatever the order of
 * the records, popping reclaims (records are compacted when more than half
 * of the chunks' bytes are popped ones, above the compaction threshold), so
 * popping until this is small (not below the threshold) bounds the queue's
 * memory: within it plus two chunks.
 */
static inline size_t pm_oqueue__bytes(const struct pm_oqueue *q)
{
	return q->chunk_bytes + q->array_bytes;
}
/*
 * What the chunks take in the address space, counted apart from the bytes
 * above: tests and fuzzers check that pm_oqueue__bytes() keeps it bounded.
 */
size_t pm_oqueue__mapped_bytes(const struct pm_oqueue *q);

#endif
