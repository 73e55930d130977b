// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dumper.h"
#include "reader_queue.h"
#include "rec_info.h"

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

static void dumper__warn(struct pm_dumper *d, struct pm_warning w)
{
	if (d->warn)
		d->warn(d->warn_arg, &w);
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
	d->namer = pm_namer__new(d->r, d->warn, d->warn_arg);
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

/* One record, in output order. */
static int dumper__record(struct pm_dumper *d, const struct pm_record *rec)
{
	struct pm_rec_info in;
	int err = pm_rec_info__compute(&in, d->r, rec);

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
 * perf's own records, go out as they come.
 */
static int dumper__ordered(struct pm_dumper *d, struct pm_oqueue *q, const struct pm_record *rec)
{
	struct pm_rec_info in;
	uint64_t time;
	int err;

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

int pm_dumper__records(struct pm_dumper *d)
{
	struct pm_oqueue q;
	struct pm_record rec;
	int err;

	pm_oqueue__init(&q);
	pm_oqueue__set_compact_above(&q, d->queue_size / 2);
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
