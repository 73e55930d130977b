// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reader_queue.h"

/*
 * Records live in chunks, carved in arrival order and freed when the last
 * record of a chunk has been popped: one malloc per chunk instead of one per
 * record, and neighbours in the file stay neighbours in memory.  A chunk
 * holds any record (at most 64 KiB).
 */
#define QCHUNK_SIZE (1024 * 1024)

/* What one queued record costs beyond its bytes: its entry and header. */
#define QUEUED_OVERHEAD (sizeof(struct pm_qent) + sizeof(struct pm_queued))

static size_t queued__bytes(const struct pm_queued *e)
{
	struct perf_event_header h;

	memcpy(&h, e->data, sizeof(h));
	return QUEUED_OVERHEAD + ((h.size + 7) & ~(size_t)7);
}

struct pm_qchunk {
	size_t used;
	size_t live;		/* records carved from it and not yet released */
	unsigned char mem[] __attribute__((aligned(8)));
};

void pm_oqueue__init(struct pm_oqueue *q)
{
	*q = (struct pm_oqueue){ .tail = SIZE_MAX };
}

static void qchunk__release(struct pm_oqueue *q, struct pm_qchunk *c)
{
	if (--c->live || c == q->cur)
		return;
	if (!q->spare) {
		q->spare = c;
		return;
	}
	free(c);
}

void pm_oqueue__exit(struct pm_oqueue *q)
{
	size_t i, j;

	for (i = 0; i < q->nr; i++) {
		struct pm_qrun *r = &q->runs[q->heap[i].run];

		for (j = r->head; j < r->nr; j++)
			qchunk__release(q, r->ent[j].e->chunk);
	}
	for (i = 0; i < q->nr_runs; i++)
		free(q->runs[i].ent);
	if (q->popped)
		qchunk__release(q, q->popped->chunk);
	free(q->runs);
	free(q->free_runs);
	free(q->heap);
	free(q->cur);
	free(q->spare);
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

/* Appends ent to run r; its head (and so the run heap) does not change. */
static int qrun__append(struct pm_qrun *r, const struct pm_qent *ent)
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
	} else {
		if (oqueue__grow_runs(q))
			return -ENOMEM;
		idx = q->nr_runs;
		q->runs[idx] = (struct pm_qrun){ 0 };
	}
	if (qrun__append(&q->runs[idx], ent))
		return -ENOMEM;
	if (q->nr_free)
		q->nr_free--;
	else
		q->nr_runs++;
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

	if (!c || QCHUNK_SIZE - c->used < size) {
		if (c && !c->live)
			c->used = 0;	/* every record of it is gone: reuse */
		else if (q->spare) {
			c = q->spare;
			q->spare = NULL;
		} else {
			c = malloc(sizeof(*c) + QCHUNK_SIZE);
			if (!c)
				return NULL;
		}
		if (c != q->cur) {
			/* The old chunk, still in use, goes with its last release. */
			c->used = 0;
			c->live = 0;
			q->cur = c;
		}
	}
	p = c->mem + c->used;
	c->used += size;
	c->live++;
	*chunk = c;
	return p;
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
		err = qrun__append(&q->runs[q->tail], &ent);
	else
		err = oqueue__new_run(q, &ent);
	if (err) {
		qchunk__release(q, c);
		return err;
	}
	q->seq++;
	q->bytes += queued__bytes(e);
	if (time > q->max_time)
		q->max_time = time;
	return 0;
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
	if (!q->nr || q->heap[0].time > limit)
		return 0;
	r = &q->runs[q->heap[0].run];
	e = r->ent[r->head++].e;
	q->bytes -= queued__bytes(e);
	if (r->head < r->nr) {
		q->heap[0].time = r->ent[r->head].time;
		q->heap[0].seq = r->ent[r->head].seq;
	} else {
		/* Emptied: to the free list, array kept. */
		r->head = r->nr = 0;
		q->free_runs[q->nr_free++] = q->heap[0].run;
		if (q->heap[0].run == q->tail)
			q->tail = SIZE_MAX;
		q->heap[0] = q->heap[--q->nr];
	}
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
