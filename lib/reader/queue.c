// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/bigmem.h"
#include "reader/queue.h"
#include "reader/reader_int.h"

/*
 * Records live in chunks (PM_QCHUNK_SIZE), carved in arrival order and freed
 * when the last record of a chunk has been popped: one allocation per chunk
 * instead of one per record, and neighbours in the file stay neighbours in
 * memory.  A chunk holds any record.  Chunks are mapped, not malloc'ed, so
 * that a freed one leaves the process.
 */
_Static_assert(PM_QCHUNK_SIZE >= PM_RECORD_MAX + 64, "a chunk holds any record");

/* A run array and a run's place in the pool, heap and free list. */
#define QARRAY_OVERHEAD 16
#define QRUN_BYTES (sizeof(struct pm_qrun) + sizeof(struct pm_qtop) + sizeof(size_t))
/*
 * Emptied chunks kept for the next rounds: a round's chunks are freed when
 * it is flushed, and a chunk mapped again is faulted in and zeroed again, a
 * page at a time (a tenth of report's time on a 200 MB file).  Spares are
 * used before anything is mapped, so the most ever mapped does not grow.
 */
#define QCHUNK_SPARES 16
/*
 * Emptied runs keep arrays up to this many entries for their next use, and
 * larger ones up to QRUN_KEEP_BYTES in all: each round's runs (a ring's
 * records of a pass) grew theirs again from one entry, 12 reallocs and
 * fresh pages every round.
 */
#define QRUN_KEEP 64
#define QRUN_KEEP_BYTES ((size_t)1 << 20)

struct pm_qchunk {
	struct pm_qchunk *prev, *next;	/* in q->chunks */
	size_t used;
	size_t populated;	/* bytes of mem faulted in (pm_bigmem__populate_to) */
	size_t live;		/* records carved from it and not yet released */
	size_t idx;		/* position in the list, while compacting */
	unsigned char mem[] __attribute__((aligned(8)));
};

#define QCHUNK_MAP_SIZE (sizeof(struct pm_qchunk) + PM_QCHUNK_SIZE)

static size_t queued__size(const struct pm_queued *e)
{
	struct perf_event_header h;

	memcpy(&h, e->data, sizeof(h));
	return (sizeof(*e) + h.size + 7) & ~(size_t)7;
}

void pm_oqueue__init(struct pm_oqueue *q)
{
	*q = (struct pm_oqueue){ .tail = SIZE_MAX };
}

static void qchunk__unmap(struct pm_oqueue *q, struct pm_qchunk *c)
{
	if (!c)
		return;
	munmap(c, QCHUNK_MAP_SIZE);
	q->nr_mapped--;
}

size_t pm_oqueue__mapped_bytes(const struct pm_oqueue *q)
{
	return q->nr_mapped * QCHUNK_MAP_SIZE;
}

/* Out of the list and its bytes out of the count; kept as a spare or unmapped. */
static void oqueue__drop_chunk(struct pm_oqueue *q, struct pm_qchunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		q->chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
	q->chunk_bytes -= c->used;
	if (c == q->cur)
		q->cur = NULL;
	if (q->nr_spares < QCHUNK_SPARES) {
		c->next = q->spares;
		q->spares = c;
		q->nr_spares++;
		return;
	}
	qchunk__unmap(q, c);
}

static void qchunk__release(struct pm_oqueue *q, struct pm_qchunk *c)
{
	if (--c->live)
		return;
	if (c == q->cur) {
		/* Every record of it is gone: carve it again from the start. */
		q->chunk_bytes -= c->used;
		c->used = 0;
		return;
	}
	oqueue__drop_chunk(q, c);
}

/* The pool of runs, emptied: the queue holds nothing. */
static void oqueue__free_runs(struct pm_oqueue *q)
{
	size_t i;

	for (i = 0; i < q->nr_runs; i++)
		free(q->runs[i].ent);
	free(q->runs);
	free(q->free_runs);
	free(q->heap);
	q->runs = NULL;
	q->free_runs = NULL;
	q->heap = NULL;
	q->nr_runs = q->cap_runs = q->nr_free = q->nr = 0;
	q->kept_bytes = 0;
	q->tail = SIZE_MAX;
	q->array_bytes = 0;
}

void pm_oqueue__exit(struct pm_oqueue *q)
{
	struct pm_qchunk *c, *next;

	oqueue__free_runs(q);
	for (c = q->chunks; c; c = next) {
		next = c->next;
		qchunk__unmap(q, c);
	}
	for (c = q->spares; c; c = next) {
		next = c->next;
		qchunk__unmap(q, c);
	}
	pm_oqueue__init(q);
}

static bool qtop__before(const struct pm_qtop *a, const struct pm_qtop *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void oqueue__sift_up(struct pm_oqueue *q, size_t i)
{
	struct pm_qtop e = q->heap[i];

	while (i) {
		size_t parent = (i - 1) / 2;

		if (!qtop__before(&e, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = e;
}

static void oqueue__sift_down(struct pm_oqueue *q, size_t i)
{
	struct pm_qtop e = q->heap[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= q->nr)
			break;
		if (child + 1 < q->nr && qtop__before(&q->heap[child + 1], &q->heap[child]))
			child++;
		if (!qtop__before(&q->heap[child], &e))
			break;
		q->heap[i] = q->heap[child];
		i = child;
	}
	q->heap[i] = e;
}

/*
 * Room for one more run.  The run heap and the free list never hold more
 * entries than there are runs, so they grow with the pool.
 */
static int oqueue__grow_runs(struct pm_oqueue *q)
{
	size_t cap = q->cap_runs ? q->cap_runs * 2 : 16;
	void *p;

	if (q->nr_runs < q->cap_runs)
		return 0;
	p = realloc(q->runs, cap * sizeof(*q->runs));
	if (!p)
		return -ENOMEM;
	q->runs = p;
	p = realloc(q->heap, cap * sizeof(*q->heap));
	if (!p)
		return -ENOMEM;
	q->heap = p;
	p = realloc(q->free_runs, cap * sizeof(*q->free_runs));
	if (!p)
		return -ENOMEM;
	q->free_runs = p;
	q->cap_runs = cap;
	return 0;
}

/*
 * Renumbers the live runs 0..nr-1 and frees the rest of the pool: the pool
 * is as large as the most runs ever live, and a flush empties most of them.
 */
static void oqueue__shrink_runs(struct pm_oqueue *q)
{
	size_t cap = q->nr + 16, i, tail = SIZE_MAX;
	struct pm_qrun *runs = malloc(cap * sizeof(*runs));
	size_t *free_runs = malloc(cap * sizeof(*free_runs));
	struct pm_qtop *heap;

	if (!runs || !free_runs) {
		free(runs);
		free(free_runs);
		return;
	}
	q->array_bytes = q->nr * QRUN_BYTES;
	for (i = 0; i < q->nr; i++) {
		size_t old = q->heap[i].run;

		runs[i] = q->runs[old];
		q->runs[old].ent = NULL;
		if (runs[i].cap)
			q->array_bytes += runs[i].cap * sizeof(*runs[i].ent) + QARRAY_OVERHEAD;
		if (old == q->tail)
			tail = i;
		q->heap[i].run = i;
	}
	for (i = 0; i < q->nr_runs; i++)
		free(q->runs[i].ent);
	free(q->runs);
	free(q->free_runs);
	q->runs = runs;
	q->free_runs = free_runs;
	heap = realloc(q->heap, cap * sizeof(*heap));
	if (heap)
		q->heap = heap;
	q->cap_runs = cap;
	q->nr_runs = q->nr;
	q->nr_free = 0;
	q->kept_bytes = 0;
	q->tail = tail;
}

/* Appends ent to run r; its head (and so the run heap) does not change. */
static int qrun__append(struct pm_oqueue *q, struct pm_qrun *r, const struct pm_qent *ent)
{
	if (r->nr == r->cap && r->head >= r->nr / 2 && r->head) {
		/* Reclaim the popped prefix before growing: runs can live long. */
		memmove(r->ent, r->ent + r->head, (r->nr - r->head) * sizeof(*r->ent));
		r->nr -= r->head;
		r->head = 0;
	}
	if (r->nr == r->cap) {
		/* From 1: hostile files can make a run of every record. */
		size_t cap = r->cap ? r->cap * 2 : 1;
		struct pm_qent *p = realloc(r->ent, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		q->array_bytes += (cap - r->cap) * sizeof(*p) + (r->cap ? 0 : QARRAY_OVERHEAD);
		r->ent = p;
		r->cap = cap;
	}
	r->ent[r->nr++] = *ent;
	return 0;
}

/* A new run holding ent, in the run heap. */
static int oqueue__new_run(struct pm_oqueue *q, const struct pm_qent *ent)
{
	size_t idx;

	if (q->nr_free) {
		idx = q->free_runs[q->nr_free - 1];
		if (q->runs[idx].cap > QRUN_KEEP)
			q->kept_bytes -= q->runs[idx].cap * sizeof(struct pm_qent);
	} else {
		if (oqueue__grow_runs(q))
			return -ENOMEM;
		idx = q->nr_runs;
		q->runs[idx] = (struct pm_qrun){ 0 };
	}
	if (qrun__append(q, &q->runs[idx], ent))
		return -ENOMEM;
	if (q->nr_free) {
		q->nr_free--;
	} else {
		/* Counted as used, not as allocated: the pool doubles. */
		q->nr_runs++;
		q->array_bytes += QRUN_BYTES;
	}
	q->heap[q->nr] = (struct pm_qtop){ .time = ent->time, .seq = ent->seq, .run = idx };
	oqueue__sift_up(q, q->nr++);
	q->tail = idx;
	return 0;
}

/* Room for size bytes (a multiple of 8) in the current chunk. */
static void *oqueue__carve(struct pm_oqueue *q, size_t size, struct pm_qchunk **chunk)
{
	struct pm_qchunk *c = q->cur;
	void *p;

	if (!c || PM_QCHUNK_SIZE - c->used < size) {
		size_t populated = 0;

		/* The old chunk, still in use, goes with its last release. */
		if (q->spares) {
			c = q->spares;
			q->spares = c->next;
			q->nr_spares--;
			populated = c->populated;
		} else {
			c = mmap(NULL, QCHUNK_MAP_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (c == MAP_FAILED)
				return NULL;
			q->nr_mapped++;
		}
		*c = (struct pm_qchunk){ .next = q->chunks, .populated = populated };
		if (q->chunks)
			q->chunks->prev = c;
		q->chunks = c;
		q->cur = c;
	}
	/*
	 * Faulted in ahead of the carving, a step at a time: a page at a
	 * time cost a trap per page (report on 12 MB: 3,450 faults, 2,590
	 * populated; CPU -4 %), the whole chunk at once a small input's 1 MiB.
	 */
	if (c->used + size > c->populated)
		pm_bigmem__populate_to(c->mem, PM_QCHUNK_SIZE, &c->populated, c->used + size);
	p = c->mem + c->used;
	c->used += size;
	c->live++;
	q->chunk_bytes += size;
	*chunk = c;
	return p;
}

/*
 * Moves the queued records into new chunks, chunk by chunk so that each old
 * one is unmapped as soon as it is emptied: memory peaks at the old chunks
 * plus one, and popped records pinning half-empty chunks are reclaimed.
 * Out of memory, it stops and the records stay where they are.
 */
static void oqueue__compact(struct pm_oqueue *q)
{
	size_t nr_chunks = 0, n = 0, i, j, *pos;
	struct pm_qchunk *c, *next, *nc;
	struct pm_qent **order;

	for (c = q->chunks; c; c = c->next)
		c->idx = nr_chunks++;
	for (i = 0; i < q->nr; i++) {
		const struct pm_qrun *r = &q->runs[q->heap[i].run];

		n += r->nr - r->head;
	}
	order = malloc((n ? n : 1) * sizeof(*order));
	pos = calloc(nr_chunks + 1, sizeof(*pos));
	if (!order || !pos)
		goto out;
	/* Counting sort of the entries by chunk. */
	for (i = 0; i < q->nr; i++) {
		struct pm_qrun *r = &q->runs[q->heap[i].run];

		for (j = r->head; j < r->nr; j++)
			pos[r->ent[j].e->chunk->idx + 1]++;
	}
	for (i = 0; i < nr_chunks; i++)
		pos[i + 1] += pos[i];
	for (i = 0; i < q->nr; i++) {
		struct pm_qrun *r = &q->runs[q->heap[i].run];

		for (j = r->head; j < r->nr; j++)
			order[pos[r->ent[j].e->chunk->idx]++] = &r->ent[j];
	}
	/* New records go to new chunks; a chunk left empty goes now. */
	c = q->cur;
	q->cur = NULL;
	if (c && !c->live)
		oqueue__drop_chunk(q, c);
	for (i = 0; i < n; i++) {
		struct pm_queued *e = order[i]->e, *moved;
		size_t size = queued__size(e);

		moved = oqueue__carve(q, size, &nc);
		if (!moved)
			break;
		memcpy(moved, e, size);
		moved->chunk = nc;
		order[i]->e = moved;
		qchunk__release(q, e->chunk);
	}
	/* Chunks that held only popped records. */
	for (c = q->chunks; c; c = next) {
		next = c->next;
		if (!c->live && c != q->cur)
			oqueue__drop_chunk(q, c);
	}
out:
	free(order);
	free(pos);
}

int pm_oqueue__push(struct pm_oqueue *q, const struct pm_record *rec, uint64_t time)
{
	size_t size = rec->header->size;
	struct pm_qchunk *c;
	struct pm_qent ent;
	struct pm_queued *e;
	int err;

	e = oqueue__carve(q, (sizeof(*e) + size + 7) & ~(size_t)7, &c);
	if (!e)
		return -ENOMEM;
	*e = (struct pm_queued){
		.chunk = c,
		.offset = rec->offset,
		.extra_size = rec->extra_size,
	};
	memcpy(e->data, rec->data, size);
	ent = (struct pm_qent){ .time = time, .seq = q->seq, .e = e };
	if (q->tail != SIZE_MAX &&
	    time >= q->runs[q->tail].ent[q->runs[q->tail].nr - 1].time)
		err = qrun__append(q, &q->runs[q->tail], &ent);
	else
		err = oqueue__new_run(q, &ent);
	if (err) {
		qchunk__release(q, c);
		return err;
	}
	q->seq++;
	q->live_bytes += queued__size(e);
	if (time > q->max_time)
		q->max_time = time;
	return 0;
}

void pm_oqueue__set_compact_above(struct pm_oqueue *q, size_t bytes)
{
	q->compact_above = bytes;
}

uint64_t pm_oqueue__round(struct pm_oqueue *q)
{
	uint64_t limit = q->next_flush;

	q->next_flush = q->max_time;
	return limit;
}

int pm_oqueue__pop(struct pm_oqueue *q, uint64_t limit, struct pm_record *rec)
{
	struct pm_qrun *r;
	struct pm_queued *e;

	if (q->popped) {
		qchunk__release(q, q->popped->chunk);
		q->popped = NULL;
	}
	/*
	 * Popped records pin their chunks while any record of them is queued:
	 * in random time order, every chunk.  Compacting when they are half
	 * of the chunks costs at most one copy per popped byte.
	 */
	if (q->chunk_bytes > q->compact_above &&
	    q->chunk_bytes - q->live_bytes > q->live_bytes + PM_QCHUNK_SIZE / 16)
		oqueue__compact(q);
	if (!q->nr || q->heap[0].time > limit)
		return 0;
	r = &q->runs[q->heap[0].run];
	e = r->ent[r->head++].e;
	q->live_bytes -= queued__size(e);
	if (r->head < r->nr) {
		q->heap[0].time = r->ent[r->head].time;
		q->heap[0].seq = r->ent[r->head].seq;
	} else {
		/* Emptied: to the free list, its array kept if small or within the budget. */
		size_t bytes = r->cap * sizeof(*r->ent);

		r->head = r->nr = 0;
		if (r->cap > QRUN_KEEP && q->kept_bytes + bytes <= QRUN_KEEP_BYTES) {
			q->kept_bytes += bytes;
		} else if (r->cap > QRUN_KEEP) {
			q->array_bytes -= r->cap * sizeof(*r->ent) + QARRAY_OVERHEAD;
			free(r->ent);
			r->ent = NULL;
			r->cap = 0;
		}
		q->free_runs[q->nr_free++] = q->heap[0].run;
		if (q->heap[0].run == q->tail)
			q->tail = SIZE_MAX;
		q->heap[0] = q->heap[--q->nr];
	}
	if (!q->nr)
		oqueue__free_runs(q);
	else if (q->nr_free > 1024 && q->nr_free > 2 * q->nr)
		oqueue__shrink_runs(q);
	if (q->nr)
		oqueue__sift_down(q, 0);
	q->popped = e;
	*rec = (struct pm_record){
		.offset = e->offset,
		.header = (const void *)e->data,
		.data = e->data,
		.extra_size = e->extra_size,
	};
	return 1;
}
