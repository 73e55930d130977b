/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_READER_QUEUE_H
#define PMREC_READER_QUEUE_H

/*
 * Time ordering of records with perf's FINISHED_ROUND rule (format doc,
 * section 6): at each round, deliver the queued records whose time is at
 * most the largest time seen at the previous round.  Memory holds about
 * two rounds of records.
 */
#include <stddef.h>
#include <stdint.h>

#include "reader.h"

struct pm_queued {
	uint64_t time;
	uint64_t seq;		/* arrival order breaks ties */
	uint64_t offset;
	uint64_t extra_size;
	uint64_t data[];	/* the record, header.size bytes */
};

struct pm_oqueue {
	struct pm_queued **heap;
	size_t nr;
	size_t cap;
	uint64_t seq;
	uint64_t max_time;	/* largest time queued so far */
	uint64_t next_flush;	/* limit of the next round */
	struct pm_queued *popped;	/* owned until the next pop */
};

void pm_oqueue__init(struct pm_oqueue *q);
void pm_oqueue__exit(struct pm_oqueue *q);
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

#endif
