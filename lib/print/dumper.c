// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "print/dumper.h"

/* Does any event record user stack copies (--call-graph dwarf)? */
static bool dumper__has_stacks(const struct pm_dumper *d)
{
	size_t i;

	for (i = 0; i < pm_reader__nr_evsels(d->r); i++)
		if (pm_reader__evsel(d->r, i)->attr.sample_type & PERF_SAMPLE_STACK_USER)
			return true;
	return false;
}

static int dumper__fold(struct pm_dumper *d, const struct pm_record *rec,
			const struct pm_sample *s)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const char *stack;
	size_t len;
	int err = pm_namer__fold(d->pipe.namer, cpumode, s, &stack, &len);

	if (err)
		return err;
	return pm_folded__add(d->folded, stack, len, d->fold == PM_FOLD_PERIOD ? s->period : 1);
}

/* The printer, a pm_consume_fn: after the stats, what dump shows of a record. */
static int dumper__print(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in)
{
	struct pm_dumper *d = ctx;

	if (d->stats_only) {
		if (d->pipe.namer && rec->header->type == PERF_RECORD_SAMPLE)
			return pm_namer__count_unwind(d->pipe.namer,
						      rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK,
						      &in->s);
		return 0;
	}
	if (d->folded)
		return rec->header->type == PERF_RECORD_SAMPLE ? dumper__fold(d, rec, &in->s) : 0;
	pm_printer__record(&d->pr, rec, in);
	return d->em.out.err ? PM_CONSUME_STOP : 0;
}

int pm_dumper__setup(struct pm_dumper *d)
{
	int err;

	d->consumers[0] = (struct pm_consumer){ .record = pm_stats__consume, .ctx = &d->stats };
	d->consumers[1] = (struct pm_consumer){ .record = dumper__print, .ctx = d };
	d->pipe = (struct pm_pipeline){
		.r = d->r,
		.filter = &d->filter,
		.ordered = d->ordered,
		/* --stats counts the stacks that could not be unwound all the way. */
		.names = d->symbols ||
			 (d->stats_only && !d->naming.no_unwind && dumper__has_stacks(d)),
		.kallsyms = d->symbols,
		.naming = d->naming,
		.queue_size = d->queue_size,
		.consumers = d->consumers,
		.nr_consumers = 2,
		.warn = d->warn,
		.warn_arg = d->warn_arg,
	};
	d->pr = (struct pm_printer){ .em = &d->em, .r = d->r, .raw = d->raw };
	err = pm_pipeline__setup(&d->pipe);
	if (err || !d->pipe.namer)
		return err;
	d->pr.namer = d->pipe.namer;
	if (d->fold) {
		d->folded = pm_folded__new();
		if (!d->folded)
			return -ENOMEM;
	}
	return 0;
}

void pm_dumper__exit(struct pm_dumper *d)
{
	pm_pipeline__exit(&d->pipe);
	pm_folded__delete(d->folded);
	d->folded = NULL;
	pm_printer__exit(&d->pr);
	pm_stats__exit(&d->stats);
	pm_dump_filter__exit(&d->filter);
}

int pm_dumper__records(struct pm_dumper *d)
{
	return pm_pipeline__records(&d->pipe);
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

	pm_namer__unwind_stats(d->pipe.namer, &us);
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
	} else if (!d->em.out.err) {
		pm_stats__print(&d->stats, &d->em, d->r);
		if (d->stats_only && d->pipe.namer)
			dumper__print_unwind(d);
	}
	pm_pipeline__end(&d->pipe);
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
