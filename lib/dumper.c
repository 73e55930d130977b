// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dumper.h"
#include "reader_queue.h"
#include "rec_info.h"

/*
 * consume's thread: the reading thread copies each record it has checked
 * and put in time order into batches; the consuming thread decodes,
 * filters, counts, names and consumes them in the same order.  PIPE_BATCHES
 * bound the records between the two.  A record that changes what the reader
 * knows of the events waits until the consuming thread has caught up
 * (pm_reader__set_sync).  A malformed sample stops the consuming thread:
 * what it took before counts, and its fault becomes the reader's, whatever
 * the reading thread met meanwhile further on.
 */
#define PIPE_BATCHES 4
#define PIPE_BATCH_SIZE (512u << 10)

/* A record in a batch: this, then the record, 8-aligned. */
struct pipe_entry {
	uint64_t offset;
	uint32_t size;
};

/*
 * The fields each thread uses for every record are on cache lines of their
 * own: shared with the other thread's writes, they cost more than the
 * thread gained.
 */
struct dumper_pipe {
	/* The consuming thread's: set before it starts. */
	_Alignas(64) struct pm_reader *r;
	struct pm_namer *namer;
	pm_dumper_consume_fn *consume;
	void *consume_arg;
	const struct pm_dump_filter *filter;
	/*
	 * The dumper's, moved here while the thread runs: counted in place,
	 * next to the reading thread's dumper fields, they cost it a cache
	 * line transfer per sample.
	 */
	struct pm_stats stats;
	struct pm_reader_error fault;	/* of a malformed record, with err */
	/* The reading thread's: the batch it fills. */
	_Alignas(64) unsigned char *fill;
	size_t fill_len;
	unsigned int head;
	/* Both, once a batch, under the lock (the warnings take it too). */
	_Alignas(64) pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	unsigned char *batch[PIPE_BATCHES];
	size_t len[PIPE_BATCHES];
	unsigned int full;	/* batches handed over, not yet consumed */
	bool done;
	int err;		/* the consuming thread's first */
};

int pm_dump_filter__parse_types(struct pm_dump_filter *f, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL, *end;
	int err = 0, type;

	if (!copy)
		return -ENOMEM;
	f->by_type = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(tok, "unknown")) {
			f->type_unknown = true;
			continue;
		}
		type = pm_record_type__from_name(tok);
		if (type < 0) {
			long v = strtol(tok, &end, 10);

			if (*end || end == tok || v < 0 || v > 255) {
				err = -EINVAL;
				break;
			}
			type = (int)v;
		}
		f->types[type / 64] |= 1ULL << (type % 64);
	}
	free(copy);
	return err;
}

void pm_dump_filter__exit(struct pm_dump_filter *f)
{
	pm_id_list__exit(&f->cpus);
	pm_id_list__exit(&f->pids);
}

static bool filter__type(const struct pm_dump_filter *f, uint32_t type)
{
	if (!f->by_type)
		return true;
	if (!pm_record_type__name(type))
		return f->type_unknown ||
		       (type < 256 && (f->types[type / 64] & (1ULL << (type % 64))));
	return f->types[type / 64] & (1ULL << (type % 64));
}

static bool filter__ids(const struct pm_dump_filter *f, const struct pm_rec_info *in)
{
	if (f->cpus.nr && (!in->has_cpu || !pm_id_list__has(&f->cpus, in->cpu)))
		return false;
	if (f->pids.nr && (!in->has_pid || !pm_id_list__has(&f->pids, in->pid)))
		return false;
	return true;
}

/* Warnings come from both threads while consume runs on its own: one at a time. */
static void dumper__warn_cb(void *arg, const struct pm_warning *w)
{
	struct pm_dumper *d = arg;

	if (!d->warn)
		return;
	if (d->pipe)
		pthread_mutex_lock(&d->pipe->lock);
	d->warn(d->warn_arg, w);
	if (d->pipe)
		pthread_mutex_unlock(&d->pipe->lock);
}

static void dumper__warn(struct pm_dumper *d, struct pm_warning w)
{
	dumper__warn_cb(d, &w);
}

/* Does any event record user stack copies (--call-graph dwarf)? */
static bool dumper__has_stacks(const struct pm_dumper *d)
{
	size_t i;

	for (i = 0; i < pm_reader__nr_evsels(d->r); i++)
		if (pm_reader__evsel(d->r, i)->attr.sample_type & PERF_SAMPLE_STACK_USER)
			return true;
	return false;
}

int pm_dumper__setup(struct pm_dumper *d)
{
	int err;

	d->pr = (struct pm_printer){ .em = &d->em, .r = d->r, .raw = d->raw };
	/* --stats counts the stacks that could not be unwound all the way. */
	if (!d->symbols && !(d->stats_only && !d->naming.no_unwind && dumper__has_stacks(d)))
		return 0;
	/*
	 * A sample is named through the mappings that precede it in time, and
	 * the rings of different CPUs interleave in the file: symbols need
	 * time order.
	 */
	d->ordered = true;
	d->namer = pm_namer__new(d->r, dumper__warn_cb, d);
	if (!d->namer)
		return -ENOMEM;
	pm_namer__set_opts(d->namer, &d->naming);
	d->pr.namer = d->namer;
	if (d->fold) {
		d->folded = pm_folded__new();
		if (!d->folded)
			return -ENOMEM;
	}
	err = pm_namer__read_build_ids(d->namer);
	if (!err && d->symbols)
		pm_namer__prefetch_kallsyms(d->namer);
	return err;
}

void pm_dumper__exit(struct pm_dumper *d)
{
	pm_namer__delete(d->namer);
	d->namer = NULL;
	pm_folded__delete(d->folded);
	d->folded = NULL;
	pm_printer__exit(&d->pr);
	pm_stats__exit(&d->stats);
	pm_dump_filter__exit(&d->filter);
}

static int dumper__fold(struct pm_dumper *d, const struct pm_record *rec,
			const struct pm_sample *s)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const char *stack;
	size_t len;
	int err = pm_namer__fold(d->namer, cpumode, s, &stack, &len);

	if (err)
		return err;
	return pm_folded__add(d->folded, stack, len, d->fold == PM_FOLD_PERIOD ? s->period : 1);
}

static int pipe__put(struct dumper_pipe *p, const struct pm_record *rec);

/*
 * What consume's thread does with a record, as dumper__record: the address
 * spaces follow every record, the stats and consume get those that pass
 * the filter.
 */
static int pipe__consume(struct dumper_pipe *p, const struct pm_record *rec)
{
	struct pm_rec_info in;
	int err = pm_rec_info__decode(&in, p->r, rec, &p->fault);
	bool pass;

	if (err)
		return err;
	err = pm_namer__track(p->namer, rec, in.body_len);
	pass = filter__type(p->filter, rec->header->type) && filter__ids(p->filter, &in);
	if (!err && pass)
		err = pm_stats__count(&p->stats, rec, &in);
	if (!err && pass)
		err = p->consume(p->consume_arg, rec, &in);
	return err;
}

/* One record, in output order. */
static int dumper__record(struct pm_dumper *d, const struct pm_record *rec)
{
	struct pm_rec_info in;
	int err;

	if (d->pipe)
		return pipe__put(d->pipe, rec);
	err = pm_rec_info__compute(&in, d->r, rec);
	if (err)
		return err;
	/* Every record that shapes the address spaces counts, filtered out or not. */
	if (d->namer) {
		err = pm_namer__track(d->namer, rec, in.body_len);
		if (err)
			return err;
	}
	if (!filter__type(&d->filter, rec->header->type) || !filter__ids(&d->filter, &in))
		return 0;
	err = pm_stats__count(&d->stats, rec, &in);
	if (!err && d->stats_only && d->namer && rec->header->type == PERF_RECORD_SAMPLE)
		err = pm_namer__count_unwind(d->namer, rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK,
					     &in.s);
	if (err || d->stats_only)
		return err;
	if (d->folded)
		return rec->header->type == PERF_RECORD_SAMPLE ? dumper__fold(d, rec, &in.s) : 0;
	if (d->consume)
		return d->consume(d->consume_arg, rec, &in);
	pm_printer__record(&d->pr, rec, &in);
	return 0;
}

/*
 * Prints queued records up to time limit, until the queue holds at most
 * keep bytes.  Samples are decoded here, so a malformed one is found here:
 * its error is returned (the reader keeps the first), and the valid records
 * queued with it still go out.
 */
static int dumper__flush_queue(struct pm_dumper *d, struct pm_oqueue *q, uint64_t limit,
			       size_t keep)
{
	struct pm_record rec;
	int err = 0, rerr;

	while (!d->em.out.err && pm_oqueue__bytes(q) > keep && pm_oqueue__pop(q, limit, &rec) > 0) {
		rerr = dumper__record(d, &rec);
		if (!err)
			err = rerr;
	}
	return err;
}

/*
 * Queues rec.  A window between two rounds that outgrows the queue size (a
 * file without FINISHED_ROUND, or a hostile one) has its oldest half
 * printed early, as perf does: memory stays bounded, order may not.
 */
static int dumper__queue(struct pm_dumper *d, struct pm_oqueue *q, const struct pm_record *rec,
			 uint64_t time)
{
	int err = pm_oqueue__push(q, rec, time);

	if (err || pm_oqueue__bytes(q) <= d->queue_size)
		return err;
	if (!d->warned_queue) {
		dumper__warn(d, (struct pm_warning){ .kind = PM_WARN_QUEUE_FULL,
						     .size = d->queue_size,
						     .offset = rec->offset });
		d->warned_queue = true;
	}
	return dumper__flush_queue(d, q, UINT64_MAX, d->queue_size / 2);
}

/*
 * Time order: kernel records with a time wait in the queue; the rest, like
 * perf's own records, go out as they come.  Without sample_id_all only
 * samples have a time: queued, they would go out after the COMMs and
 * MMAPs that followed them, so the file's order is kept, as perf does.
 */
static int dumper__ordered(struct pm_dumper *d, struct pm_oqueue *q, const struct pm_record *rec)
{
	struct pm_rec_info in;
	uint64_t time;
	int err;

	if (!pm_reader__sample_id_all(d->r))
		return dumper__record(d, rec);
	if (rec->header->type == PERF_RECORD_FINISHED_ROUND) {
		err = dumper__flush_queue(d, q, pm_oqueue__round(q), 0);
		return err ? err : dumper__record(d, rec);
	}
	if (rec->header->type >= PERF_RECORD_USER_TYPE_START)
		return dumper__record(d, rec);
	if (rec->header->type == PERF_RECORD_SAMPLE) {
		/* Decoded once, when it leaves the queue. */
		err = pm_reader__sample_time(d->r, rec, &time);
		if (err < 0)
			return err;
		return err ? dumper__queue(d, q, rec, time) : dumper__record(d, rec);
	}
	err = pm_rec_info__compute(&in, d->r, rec);
	if (err)
		return err;
	if (!in.has_time)
		return dumper__record(d, rec);
	return dumper__queue(d, q, rec, in.time);
}

static void *pipe__run(void *arg)
{
	struct dumper_pipe *p = arg;
	unsigned int tail = 0;
	int err = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t off = 0, len;
		unsigned char *b;

		while (!p->full && !p->done)
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->full)
			break;
		b = p->batch[tail];
		len = p->len[tail];
		pthread_mutex_unlock(&p->lock);
		/* After an error the batches are only given back. */
		while (!err && off < len) {
			struct pipe_entry e;
			struct pm_record rec;

			memcpy(&e, b + off, sizeof(e));
			off += sizeof(e);
			rec = (struct pm_record){ .offset = e.offset, .header = (const void *)(b + off),
						  .data = b + off };
			err = pipe__consume(p, &rec);
			off += (e.size + 7) & ~7u;
		}
		pthread_mutex_lock(&p->lock);
		if (err && !p->err)
			p->err = err;
		tail = (tail + 1) % PIPE_BATCHES;
		p->full--;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Hands the batch being filled over, if it holds anything; the consuming thread's error. */
static int pipe__hand_over(struct dumper_pipe *p)
{
	int err;

	pthread_mutex_lock(&p->lock);
	if (p->fill_len) {
		while (p->full == PIPE_BATCHES - 1)
			pthread_cond_wait(&p->cond, &p->lock);
		p->len[p->head] = p->fill_len;
		p->full++;
		pthread_cond_broadcast(&p->cond);
		p->head = (p->head + 1) % PIPE_BATCHES;
		p->fill = p->batch[p->head];
		p->fill_len = 0;
	}
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	return err;
}

static int pipe__put(struct dumper_pipe *p, const struct pm_record *rec)
{
	struct pipe_entry e = { .offset = rec->offset, .size = rec->header->size };
	size_t need = sizeof(e) + ((e.size + 7) & ~7u);
	unsigned char *b;
	int err;

	if (p->fill_len + need > PIPE_BATCH_SIZE) {
		err = pipe__hand_over(p);
		if (err)
			return err;
	}
	b = p->fill + p->fill_len;
	memcpy(b, &e, sizeof(e));
	memcpy(b + sizeof(e), rec->header, e.size);
	p->fill_len += need;
	return 0;
}

/* Before the reader changes what it knows of the events: the consuming thread catches up. */
static void pipe__sync(void *arg)
{
	struct dumper_pipe *p = arg;

	pipe__hand_over(p);
	pthread_mutex_lock(&p->lock);
	while (p->full)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

static void pipe__delete(struct dumper_pipe *p)
{
	size_t i;

	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	for (i = 0; i < PIPE_BATCHES; i++)
		free(p->batch[i]);
	free(p);
}

/* Feature feat is read (or absent): asking for it again changes nothing. */
static bool dumper__feature_read(struct pm_dumper *d, int feat)
{
	struct pm_cursor c;
	int err = pm_reader__feature(d->r, feat, &c);

	return !err || err == -ENOENT;
}

/*
 * consume's thread, if one can be had (else consume runs here).  The
 * features the naming reads are read here first: reading one on demand
 * changes the reader.
 */
static void dumper__pipe_start(struct pm_dumper *d)
{
	struct dumper_pipe *p;
	size_t i;

	p = aligned_alloc(64, sizeof(*p));
	if (!p)
		return;
	*p = (struct dumper_pipe){ .r = d->r, .namer = d->namer, .consume = d->consume,
				   .consume_arg = d->consume_arg, .filter = &d->filter };
	if (pthread_mutex_init(&p->lock, NULL)) {
		free(p);
		return;
	}
	if (pthread_cond_init(&p->cond, NULL)) {
		pthread_mutex_destroy(&p->lock);
		free(p);
		return;
	}
	for (i = 0; i < PIPE_BATCHES; i++)
		if (!(p->batch[i] = malloc(PIPE_BATCH_SIZE)))
			goto fail;
	p->fill = p->batch[0];
	/* One that cannot be read would be tried again there: no thread then. */
	if (!dumper__feature_read(d, HEADER_BUILD_ID) || !dumper__feature_read(d, HEADER_OSRELEASE))
		goto fail;
	/* Set first: the thread's warnings take the lock. */
	d->pipe = p;
	p->stats = d->stats;
	if (pthread_create(&p->thread, NULL, pipe__run, p)) {
		d->pipe = NULL;
		goto fail;
	}
	pm_reader__set_sync(d->r, pipe__sync, p);
	return;
fail:
	pipe__delete(p);
}

/* Consumes what is left and ends the thread: its error, if any. */
static int dumper__pipe_stop(struct pm_dumper *d)
{
	struct dumper_pipe *p = d->pipe;
	int err;

	pipe__hand_over(p);
	pthread_mutex_lock(&p->lock);
	p->done = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	d->stats = p->stats;
	err = p->err;
	if (p->fault.err)
		pm_reader__set_error(d->r, &p->fault);
	pm_reader__set_sync(d->r, NULL, NULL);
	d->pipe = NULL;
	pipe__delete(p);
	return err;
}

int pm_dumper__records(struct pm_dumper *d)
{
	struct pm_oqueue q;
	struct pm_record rec;
	int err;

	pm_oqueue__init(&q);
	pm_oqueue__set_compact_above(&q, d->queue_size / 2);
	if (d->consume && d->namer)
		dumper__pipe_start(d);
	while (!d->em.out.err && (err = pm_reader__next(d->r, &rec)) > 0) {
		err = d->ordered ? dumper__ordered(d, &q, &rec) : dumper__record(d, &rec);
		if (err)
			break;
	}
	/* On a fault, every record read before it still goes out. */
	if (d->ordered && !d->em.out.err) {
		int ferr = dumper__flush_queue(d, &q, UINT64_MAX, 0);

		if (!err)
			err = ferr;
	}
	pm_oqueue__exit(&q);
	/* consume's error came first: the records it had were read before. */
	if (d->pipe) {
		int perr = dumper__pipe_stop(d);

		if (perr)
			err = perr;
	}
	if (!err) {
		uint64_t off;
		size_t left = pm_reader__unflushed(d->r, &off);

		if (left)
			dumper__warn(d, (struct pm_warning){ .kind = PM_WARN_UNFLUSHED,
							     .size = left, .offset = off });
	}
	return err;
}

static void dumper__print_folded(struct pm_dumper *d)
{
	const struct pm_folded_entry *e;
	size_t i, n = pm_folded__sorted(d->folded, &e);
	struct pm_out *o = &d->em.out;

	for (i = 0; i < n && !o->err; i++) {
		pm_out__mem(o, e[i].stack, e[i].len);
		pm_out__ch(o, ' ');
		pm_out__u64(o, e[i].weight);
		pm_out__ch(o, '\n');
	}
}

/* How many user stacks were unwound, and how many of those only in part. */
static void dumper__print_unwind(struct pm_dumper *d)
{
	struct pm_unwind_stats us;
	struct pm_out *o = &d->em.out;

	pm_namer__unwind_stats(d->namer, &us);
	if (!us.unwound)
		return;
	if (d->em.json)
		pm_out__printf(o, "{\"type\":\"UNWIND\",\"samples\":%llu,\"partial\":%llu}\n",
			       (unsigned long long)us.unwound, (unsigned long long)us.partial);
	else
		pm_out__printf(o, "%-6s %-25s %12llu\n%-6s %-25s %12llu\n", "unwind", "samples",
			       (unsigned long long)us.unwound, "unwind", "partial",
			       (unsigned long long)us.partial);
}

void pm_dumper__summary(struct pm_dumper *d)
{
	if (d->folded) {
		dumper__print_folded(d);
	} else if (!d->consume && !d->em.out.err) {
		pm_stats__print(&d->stats, &d->em, d->r);
		if (d->stats_only && d->namer)
			dumper__print_unwind(d);
	}
	if (d->namer && pm_namer__overloaded(d->namer))
		dumper__warn(d, (struct pm_warning){ .kind = PM_WARN_OVERLOADED });
}

int pm_dumper__scan_pipe_header(struct pm_reader *r)
{
	struct pm_record rec;
	int err;

	while ((err = pm_reader__next(r, &rec)) > 0)
		if (rec.header->type < PERF_RECORD_USER_TYPE_START ||
		    rec.header->type == PERF_RECORD_FINISHED_ROUND)
			return 0;
	return err;
}
