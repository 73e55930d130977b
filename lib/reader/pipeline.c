// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/bigmem.h"
#include "reader/pipeline.h"
#include "reader/queue.h"
#include "symbols/debuginfod.h"
#include "symbols/locate.h"

/*
 * The consumers' thread, once the records come out of compressed data:
 * the reading thread then inflates, checks and orders while the consumers
 * work.  Before that, reading and ordering are a quarter of the work, and
 * handing each record to the other CPU cost more than running beside it
 * saved: report on a 48 MB file took 150 ms of wall and 208 ms of CPU with
 * the thread, 148 ms and 159 ms without (lower quartiles of 15 runs); on
 * 12 MB compressed -a -g (2.1 million samples), 412 ms and 620 ms with it,
 * 486 ms and 490 ms without.
 *
 * The reading thread copies each record it has
 * checked and put in time order into batches; the consumers' thread
 * decodes, filters, names and consumes them in the same order.  A batch
 * goes over full, or at the end of a round if the consumers' thread waits
 * (at the start it waited for two rounds and a full batch, a twentieth of
 * a report).  PIPE_BATCHES bound the records between the two.  A record
 * that changes what the reader knows of the events waits until the
 * consumers' thread has caught up (pm_reader__set_sync).  A malformed
 * sample stops the consumers' thread: what it took before counts, and its
 * fault becomes the reader's, whatever the reading thread met meanwhile
 * further on.
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
struct pipeline_thread {
	/* The consumers' thread's: set before it starts. */
	_Alignas(64) struct pm_reader *r;
	struct pm_namer *namer;
	const struct pm_consumer *consumers;
	size_t nr_consumers;
	const struct pm_dump_filter *filter;
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
	int err;		/* the consumers' first error, or PM_CONSUME_STOP */
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

static bool filter__pass(const struct pm_dump_filter *f, const struct pm_record *rec,
			 const struct pm_rec_info *in)
{
	return !f || (filter__type(f, rec->header->type) && filter__ids(f, in));
}

/* Every consumer in turn, up to the first that does not answer 0. */
static int consumers__record(const struct pm_consumer *c, size_t nr, const struct pm_record *rec,
			     const struct pm_rec_info *in)
{
	size_t i;
	int err = 0;

	for (i = 0; i < nr && !err; i++)
		err = c[i].record(c[i].ctx, rec, in);
	return err;
}

/* Warnings come from both threads while the consumers run on their own: one at a time. */
static void pipeline__warn_cb(void *arg, const struct pm_warning *w)
{
	struct pm_pipeline *p = arg;

	if (!p->warn)
		return;
	if (p->thread)
		pthread_mutex_lock(&p->thread->lock);
	p->warn(p->warn_arg, w);
	if (p->thread)
		pthread_mutex_unlock(&p->thread->lock);
}

static void pipeline__warn(struct pm_pipeline *p, struct pm_warning w)
{
	pipeline__warn_cb(p, &w);
}

int pm_pipeline__setup(struct pm_pipeline *p)
{
	int err;

	if (!p->names)
		return 0;
	/*
	 * A sample is named through the mappings that precede it in time, and
	 * the rings of different CPUs interleave in the file: names need time
	 * order.
	 */
	p->ordered = true;
	p->namer = pm_namer__new(p->r, pipeline__warn_cb, p);
	if (!p->namer)
		return -ENOMEM;
	err = pm_namer__set_opts(p->namer, &p->naming);
	if (!err)
		err = pm_namer__read_build_ids(p->namer);
	if (!err && p->kallsyms)
		pm_namer__prefetch_kallsyms(p->namer);
	return err;
}

void pm_pipeline__exit(struct pm_pipeline *p)
{
	pm_namer__delete(p->namer);
	p->namer = NULL;
}

static int thread__put(struct pipeline_thread *t, const struct pm_record *rec);
static int thread__hand_over(struct pipeline_thread *t, bool when_idle);

/*
 * What the consumers' thread does with a record, as pipeline__record: the
 * address spaces follow every record, the consumers get those that pass
 * the filter.
 */
static int thread__consume(struct pipeline_thread *t, const struct pm_record *rec)
{
	struct pm_rec_info in;
	int err = pm_rec_info__decode(&in, t->r, rec, &t->fault);

	if (err)
		return err;
	err = pm_namer__track(t->namer, rec, in.body_len);
	if (in.has_time)
		pm_namer__time(t->namer, in.time);
	if (!err && filter__pass(t->filter, rec, &in))
		err = consumers__record(t->consumers, t->nr_consumers, rec, &in);
	return err;
}

/* A consumer's PM_CONSUME_STOP ends the reading quietly: 0 or a negative errno. */
static int pipeline__stop_on(struct pm_pipeline *p, int err)
{
	if (err != PM_CONSUME_STOP)
		return err;
	p->stopped = true;
	return 0;
}

/* One record, in output order. */
static int pipeline__record(struct pm_pipeline *p, const struct pm_record *rec)
{
	struct pm_rec_info in;
	int err;

	if (p->thread)
		return pipeline__stop_on(p, thread__put(p->thread, rec));
	err = pm_rec_info__compute(&in, p->r, rec);
	if (err)
		return err;
	/* Every record that shapes the address spaces counts, filtered out or not. */
	if (p->namer) {
		err = pm_namer__track(p->namer, rec, in.body_len);
		if (err)
			return err;
		if (in.has_time)
			pm_namer__time(p->namer, in.time);
	}
	if (!filter__pass(p->filter, rec, &in))
		return 0;
	return pipeline__stop_on(p, consumers__record(p->consumers, p->nr_consumers, rec, &in));
}

/*
 * Sends queued records out up to time limit, until the queue holds at
 * most keep bytes.  Samples are decoded here, so a malformed one is found
 * here: its error is returned (the reader keeps the first), and the valid
 * records queued with it still go out.
 */
static int pipeline__flush_queue(struct pm_pipeline *p, struct pm_oqueue *q, uint64_t limit,
				 size_t keep)
{
	struct pm_record rec;
	int err = 0, rerr;

	while (!p->stopped && pm_oqueue__bytes(q) > keep && pm_oqueue__pop(q, limit, &rec) > 0) {
		rerr = pipeline__record(p, &rec);
		if (!err)
			err = rerr;
	}
	return err;
}

/*
 * Queues rec.  A window between two rounds that outgrows the queue size (a
 * file without FINISHED_ROUND, or a hostile one) has its oldest half
 * sent out early, as perf does: memory stays bounded, order may not.
 */
static int pipeline__queue(struct pm_pipeline *p, struct pm_oqueue *q,
			   const struct pm_record *rec, uint64_t time)
{
	int err = pm_oqueue__push(q, rec, time);

	if (err || pm_oqueue__bytes(q) <= p->queue_size)
		return err;
	if (!p->warned_queue) {
		pipeline__warn(p, (struct pm_warning){ .kind = PM_WARN_QUEUE_FULL,
						       .size = p->queue_size,
						       .offset = rec->offset });
		p->warned_queue = true;
	}
	return pipeline__flush_queue(p, q, UINT64_MAX, p->queue_size / 2);
}

/*
 * Time order: kernel records with a time wait in the queue; the rest, like
 * perf's own records, go out as they come.  Without sample_id_all only
 * samples have a time: queued, they would go out after the COMMs and
 * MMAPs that followed them, so the file's order is kept, as perf does.
 */
static int pipeline__ordered(struct pm_pipeline *p, struct pm_oqueue *q,
			     const struct pm_record *rec)
{
	struct pm_rec_info in;
	uint64_t time;
	int err;

	if (!pm_reader__sample_id_all(p->r))
		return pipeline__record(p, rec);
	if (rec->header->type == PERF_RECORD_FINISHED_ROUND) {
		err = pipeline__flush_queue(p, q, pm_oqueue__round(q), 0);
		if (!err)
			err = pipeline__record(p, rec);
		/* A round is out: the consumers' thread, if idle, starts on it now. */
		if (!err && p->thread)
			err = pipeline__stop_on(p, thread__hand_over(p->thread, true));
		return err;
	}
	if (rec->header->type >= PERF_RECORD_USER_TYPE_START)
		return pipeline__record(p, rec);
	if (rec->header->type == PERF_RECORD_SAMPLE) {
		/* Decoded once, when it leaves the queue. */
		err = pm_reader__sample_time(p->r, rec, &time);
		if (err < 0)
			return err;
		return err ? pipeline__queue(p, q, rec, time) : pipeline__record(p, rec);
	}
	err = pm_rec_info__compute(&in, p->r, rec);
	if (err)
		return err;
	if (!in.has_time)
		return pipeline__record(p, rec);
	return pipeline__queue(p, q, rec, in.time);
}

static void *thread__run(void *arg)
{
	struct pipeline_thread *t = arg;
	unsigned int tail = 0;
	int err = 0;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		size_t off = 0, len;
		unsigned char *b;

		while (!t->full && !t->done)
			pthread_cond_wait(&t->cond, &t->lock);
		if (!t->full)
			break;
		b = t->batch[tail];
		len = t->len[tail];
		pthread_mutex_unlock(&t->lock);
		/* After an error the batches are only given back. */
		while (!err && off < len) {
			struct pipe_entry e;
			struct pm_record rec;

			memcpy(&e, b + off, sizeof(e));
			off += sizeof(e);
			rec = (struct pm_record){ .offset = e.offset, .header = (const void *)(b + off),
						  .data = b + off };
			err = thread__consume(t, &rec);
			off += (e.size + 7) & ~7u;
		}
		pthread_mutex_lock(&t->lock);
		if (err && !t->err)
			t->err = err;
		tail = (tail + 1) % PIPE_BATCHES;
		t->full--;
		pthread_cond_broadcast(&t->cond);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/*
 * Hands the batch being filled over, if it holds anything (and, if
 * when_idle, only if the consumers' thread has nothing else); the
 * consumers' error.
 */
static int thread__hand_over(struct pipeline_thread *t, bool when_idle)
{
	int err;

	pthread_mutex_lock(&t->lock);
	if (t->fill_len && !(when_idle && t->full)) {
		while (t->full == PIPE_BATCHES - 1)
			pthread_cond_wait(&t->cond, &t->lock);
		t->len[t->head] = t->fill_len;
		t->full++;
		pthread_cond_broadcast(&t->cond);
		t->head = (t->head + 1) % PIPE_BATCHES;
		t->fill = t->batch[t->head];
		t->fill_len = 0;
	}
	err = t->err;
	pthread_mutex_unlock(&t->lock);
	return err;
}

static int thread__put(struct pipeline_thread *t, const struct pm_record *rec)
{
	struct pipe_entry e = { .offset = rec->offset, .size = rec->header->size };
	size_t need = sizeof(e) + ((e.size + 7) & ~7u);
	unsigned char *b;
	int err;

	if (t->fill_len + need > PIPE_BATCH_SIZE) {
		err = thread__hand_over(t, false);
		if (err)
			return err;
	}
	b = t->fill + t->fill_len;
	memcpy(b, &e, sizeof(e));
	memcpy(b + sizeof(e), rec->header, e.size);
	t->fill_len += need;
	return 0;
}

/* Before the reader changes what it knows of the events: the consumers' thread catches up. */
static void thread__sync(void *arg)
{
	struct pipeline_thread *t = arg;

	thread__hand_over(t, false);
	pthread_mutex_lock(&t->lock);
	while (t->full)
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

static void thread__delete(struct pipeline_thread *t)
{
	size_t i;

	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->cond);
	for (i = 0; i < PIPE_BATCHES; i++)
		free(t->batch[i]);
	free(t);
}

/* Feature feat is read (or absent): asking for it again changes nothing. */
static bool pipeline__feature_read(struct pm_pipeline *p, int feat)
{
	struct pm_cursor c;
	int err = pm_reader__feature(p->r, feat, &c);

	return !err || err == -ENOENT;
}

/*
 * The consumers' thread, if one can be had (else they run here).  The
 * features the naming reads are read here first: reading one on demand
 * changes the reader.
 */
static void pipeline__thread_start(struct pm_pipeline *p)
{
	struct pipeline_thread *t;
	size_t i;

	t = aligned_alloc(64, sizeof(*t));
	if (!t)
		return;
	*t = (struct pipeline_thread){ .r = p->r, .namer = p->namer, .consumers = p->consumers,
				       .nr_consumers = p->nr_consumers, .filter = p->filter };
	if (pthread_mutex_init(&t->lock, NULL)) {
		free(t);
		return;
	}
	if (pthread_cond_init(&t->cond, NULL)) {
		pthread_mutex_destroy(&t->lock);
		free(t);
		return;
	}
	for (i = 0; i < PIPE_BATCHES; i++) {
		if (!(t->batch[i] = malloc(PIPE_BATCH_SIZE)))
			goto fail;
		pm_bigmem__populate(t->batch[i], PIPE_BATCH_SIZE);
	}
	t->fill = t->batch[0];
	/* One that cannot be read would be tried again there: no thread then. */
	if (!pipeline__feature_read(p, HEADER_BUILD_ID) ||
	    !pipeline__feature_read(p, HEADER_OSRELEASE))
		goto fail;
	/* Set first: the thread's warnings take the lock. */
	p->thread = t;
	if (pthread_create(&t->thread, NULL, thread__run, t)) {
		p->thread = NULL;
		goto fail;
	}
	pm_reader__set_sync(p->r, thread__sync, t);
	return;
fail:
	thread__delete(t);
}

/* Consumes what is left and ends the thread: its error, if any. */
static int pipeline__thread_stop(struct pm_pipeline *p)
{
	struct pipeline_thread *t = p->thread;
	int err;

	thread__hand_over(t, false);
	pthread_mutex_lock(&t->lock);
	t->done = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	err = t->err;
	if (t->fault.err)
		pm_reader__set_error(p->r, &t->fault);
	pm_reader__set_sync(p->r, NULL, NULL);
	p->thread = NULL;
	thread__delete(t);
	return pipeline__stop_on(p, err);
}

int pm_pipeline__records(struct pm_pipeline *p)
{
	struct pm_oqueue q;
	struct pm_record rec;
	bool may_thread = p->threaded && p->namer;
	int err;

	pm_oqueue__init(&q);
	pm_oqueue__set_compact_above(&q, p->queue_size / 2);
	while (!p->stopped && (err = pm_reader__next(p->r, &rec)) > 0) {
		err = p->ordered ? pipeline__ordered(p, &q, &rec) : pipeline__record(p, &rec);
		if (err)
			break;
		/* After the record: starting reads features, which may move the input. */
		if (may_thread && pm_reader__inflating(p->r)) {
			may_thread = false;
			pipeline__thread_start(p);
		}
	}
	/* On a fault, every record read before it still goes out. */
	if (p->ordered && !p->stopped) {
		int ferr = pipeline__flush_queue(p, &q, UINT64_MAX, 0);

		if (!err)
			err = ferr;
	}
	pm_oqueue__exit(&q);
	/* The consumers' error came first: the records they had were read before. */
	if (p->thread) {
		int perr = pipeline__thread_stop(p);

		if (perr)
			err = perr;
	}
	if (!err) {
		uint64_t off;
		size_t left = pm_reader__unflushed(p->r, &off);

		if (left)
			pipeline__warn(p, (struct pm_warning){ .kind = PM_WARN_UNFLUSHED,
							       .size = left, .offset = off });
	}
	return err;
}

void pm_pipeline__end(struct pm_pipeline *p)
{
	struct pm_locator *l = p->namer ? pm_namer__locator(p->namer) : NULL;
	struct pm_debuginfod_stats st;

	if (p->namer && pm_namer__overloaded(p->namer))
		pipeline__warn(p, (struct pm_warning){ .kind = PM_WARN_OVERLOADED });
	if (l && pm_locator__debuginfod_stats(l, &st))
		pipeline__warn(p, (struct pm_warning){ .kind = PM_WARN_DEBUGINFOD, .data = &st });
}
