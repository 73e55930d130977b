// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reader_queue.h"

void pm_oqueue__init(struct pm_oqueue *q)
{
	*q = (struct pm_oqueue){ 0 };
}

void pm_oqueue__exit(struct pm_oqueue *q)
{
	size_t i;

	for (i = 0; i < q->nr; i++)
		free(q->heap[i]);
	free(q->heap);
	free(q->popped);
	*q = (struct pm_oqueue){ 0 };
}

static bool queued__before(const struct pm_queued *a, const struct pm_queued *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void oqueue__sift_up(struct pm_oqueue *q, size_t i)
{
	struct pm_queued *e = q->heap[i];

	while (i) {
		size_t parent = (i - 1) / 2;

		if (!queued__before(e, q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = e;
}

static void oqueue__sift_down(struct pm_oqueue *q, size_t i)
{
	struct pm_queued *e = q->heap[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= q->nr)
			break;
		if (child + 1 < q->nr && queued__before(q->heap[child + 1], q->heap[child]))
			child++;
		if (!queued__before(q->heap[child], e))
			break;
		q->heap[i] = q->heap[child];
		i = child;
	}
	q->heap[i] = e;
}

int pm_oqueue__push(struct pm_oqueue *q, const struct pm_record *rec, uint64_t time)
{
	size_t size = rec->header->size;
	struct pm_queued *e;

	if (q->nr == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 1024;
		struct pm_queued **heap = realloc(q->heap, cap * sizeof(*heap));

		if (!heap)
			return -ENOMEM;
		q->heap = heap;
		q->cap = cap;
	}
	e = malloc(sizeof(*e) + size);
	if (!e)
		return -ENOMEM;
	*e = (struct pm_queued){
		.time = time,
		.seq = q->seq++,
		.offset = rec->offset,
		.extra_size = rec->extra_size,
	};
	memcpy(e->data, rec->data, size);
	if (time > q->max_time)
		q->max_time = time;
	q->heap[q->nr++] = e;
	oqueue__sift_up(q, q->nr - 1);
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
	struct pm_queued *e;

	free(q->popped);
	q->popped = NULL;
	if (!q->nr || q->heap[0]->time > limit)
		return 0;
	e = q->heap[0];
	q->heap[0] = q->heap[--q->nr];
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
