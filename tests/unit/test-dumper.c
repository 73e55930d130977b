// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the dump engine (lib/print/dumper.c) over a stream built here:
 * file order and time order, the type, CPU and pid filters, stats, the
 * queue-size warning, output to the caller's fd, and the pipeline's
 * consumers on their own thread.  Prints TAP.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "print/dumper.h"
#include "format/perf_data.h"
#include "pipe-stream.h"
#include "tap.h"

/*
 * attr; COMM at 50; samples 300, 100, 200; round; sample 400; round.
 * Samples: (time, cpu, pid) = (300,0,10) (100,1,20) (200,0,10) (400,1,20).
 * Compressed: all but the attr.
 */
static void build_stream(bool compressed)
{
	size_t from;

	stream.len = 0;
	put_prologue();
	from = stream.len;
	put_header(PERF_RECORD_COMM, 8 + 16 + 24);
	pm_buf__append_u32(&stream, 10);
	pm_buf__append_u32(&stream, 10);
	pm_buf__append(&stream, "w\0\0\0\0\0\0\0", 8);
	pm_buf__append_u32(&stream, 10);
	pm_buf__append_u32(&stream, 10);
	pm_buf__append_u64(&stream, 50);
	pm_buf__append_u64(&stream, 0);
	put_sample(300, 0, 10);
	put_sample(100, 1, 20);
	put_sample(200, 0, 10);
	put_header(PERF_RECORD_FINISHED_ROUND, 8);
	put_sample(400, 1, 20);
	put_header(PERF_RECORD_FINISHED_ROUND, 8);
	if (compressed)
		compress_from(from);
}

static int memfd_with(const void *p, size_t n)
{
	int fd = memfd_create("test-dumper", MFD_CLOEXEC);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET))
		return -1;
	return fd;
}

static int warnings;
static struct pm_warning last_warning;

static void on_warn(void *arg, const struct pm_warning *w)
{
	warnings++;
	last_warning = *w;
}

/*
 * Dumps the stream with options: text, stats included, into out (a
 * string of the record types and times: "COMM@50 SAMPLE@100 ...").
 */
static int run(struct pm_dumper *d, char *out, size_t size)
{
	int in = memfd_with(stream.data, stream.len), fd = memfd_create("out", MFD_CLOEXEC);
	char *text = malloc(1 << 16), *line, *save = NULL;
	ssize_t n;
	size_t len = 0;
	int err;

	d->r = pm_reader__new();
	d->warn = on_warn;
	warnings = 0;
	if (!text || in < 0 || fd < 0 || !d->r || pm_reader__open_fd(d->r, in) ||
	    pm_out__init_fd(&d->em.out, fd, 64)) {
		free(text);
		return -1;
	}
	err = pm_dumper__setup(d);
	if (!err)
		err = pm_dumper__records(d);
	pm_dumper__summary(d);
	pm_out__flush(&d->em.out);
	n = pread(fd, text, (1 << 16) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	out[0] = '\0';
	/* "OFFSET TIME CPU PID/TID TYPE ...": keep TYPE@TIME of each record line. */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type[32], time[32];

		if (!strncmp(line, "0x", 2) &&
		    sscanf(line, "%*s %31s %*s %*s %31s", time, type) == 2)
			len += (size_t)snprintf(out + len, size - len, "%s%s@%s", len ? " " : "",
						type, time);
		else if (!strncmp(line, "total  samples", 14))
			len += (size_t)snprintf(out + len, size - len, " | samples %s",
						line + strspn(line + 14, " ") + 14);
	}
	free(text);
	pm_out__exit(&d->em.out);
	pm_dumper__exit(d);
	pm_reader__delete(d->r);
	close(in);
	close(fd);
	return err;
}

static void check(const char *what, struct pm_dumper *d, const char *want)
{
	char got[1024];
	int err = run(d, got, sizeof(got));

	if (!tap_ok(!err && !strcmp(got, want), "%s", what))
		printf("#   err %d\n#   got  '%s'\n#   want '%s'\n", err, got, want);
}

/* What consume saw: "TYPE@TIME" of each record, and on which thread. */
static char consumed[1024];
static size_t consumed_len;
static int consumed_nr, consume_fail_at;
static uint64_t consumed_stats;
static char consumed_evsels[64];	/* the reader's number of events at each */
static bool consume_off_main;
static pthread_t main_thread;
static struct pm_reader_error consumed_fault;	/* the reader's error after the run */

static int on_consume(void *arg, const struct pm_record *rec, const struct pm_rec_info *in)
{
	if (consumed_nr < (int)sizeof(consumed_evsels) - 1)
		consumed_evsels[consumed_nr] = (char)('0' + pm_reader__nr_evsels(arg));
	if (!pthread_equal(pthread_self(), main_thread))
		consume_off_main = true;
	if (++consumed_nr == consume_fail_at)
		return -ENOMEM;
	consumed_len += (size_t)snprintf(consumed + consumed_len, sizeof(consumed) - consumed_len,
					 "%s%s@%llu", consumed_len ? " " : "",
					 pm_record_type__name(rec->header->type),
					 in->has_time ? (unsigned long long)in->time : 0ULL);
	return 0;
}

/*
 * Consumes the stream (compressed: see test_consume) with names, on the
 * consumers' own thread, the stats first (as report does), filtered by f:
 * the error.
 */
static int run_consume(struct pm_dump_filter *f, int fail_at)
{
	int in = memfd_with(stream.data, stream.len), err;
	struct pm_stats stats = { 0 };
	struct pm_consumer c[2] = { { pm_stats__consume, &stats }, { on_consume, NULL } };
	struct pm_pipeline p = { .filter = f, .names = true, .kallsyms = true,
				 .queue_size = 1 << 20, .threaded = true, .consumers = c,
				 .nr_consumers = 2 };

	consumed[0] = '\0';
	memset(consumed_evsels, 0, sizeof(consumed_evsels));
	consumed_len = 0;
	consumed_nr = 0;
	consume_fail_at = fail_at;
	consume_off_main = false;
	p.r = pm_reader__new();
	c[1].ctx = p.r;
	err = in < 0 || !p.r ? -EIO : pm_reader__open_fd(p.r, in);
	if (!err)
		err = pm_pipeline__setup(&p);
	if (!err)
		err = pm_pipeline__records(&p);
	consumed_stats = stats.by_type[PERF_RECORD_SAMPLE];
	consumed_fault = pm_reader__error(p.r) ? *pm_reader__error(p.r) :
						 (struct pm_reader_error){ 0 };
	pm_pipeline__exit(&p);
	pm_stats__exit(&stats);
	pm_dump_filter__exit(f);
	pm_reader__delete(p.r);
	close(in);
	return err;
}

static void test_consume(void)
{
	struct pm_dump_filter f;
	int err;

	/* The consumers get a thread once the records come out of compressed data. */
	build_stream(true);
	main_thread = pthread_self();
	f = (struct pm_dump_filter){ 0 };
	err = run_consume(&f, 0);
	if (!tap_ok(!err && !strcmp(consumed, "HEADER_ATTR@0 FINISHED_ROUND@0 COMM@50 SAMPLE@100 "
				    "SAMPLE@200 SAMPLE@300 FINISHED_ROUND@0 SAMPLE@400"),
		    "consume: every record, in time order"))
		printf("#   err %d, got '%s'\n", err, consumed);
	tap_ok(consume_off_main, "consume runs on a thread of its own");
	tap_ok(consumed_stats == 4, "the stats count what consume got");

	f = (struct pm_dump_filter){ 0 };
	pm_id_list__parse(&f.pids, "20", 100);
	err = run_consume(&f, 0);
	if (!tap_ok(!err && !strcmp(consumed, "SAMPLE@100 SAMPLE@400") && consumed_stats == 2,
		    "consume --pid 20: only what passes the filter, and the stats so"))
		printf("#   err %d, got '%s'\n", err, consumed);

	/*
	 * A second event's attr after the samples: the reader learns of it
	 * only once consume's thread has taken every record before it, as
	 * when consume runs on the reading thread.  Otherwise this tiny
	 * stream, in one batch, is consumed after the reader has both.
	 */
	{
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE, .size = PM_FILE_ATTR_SIZE,
			.config = PERF_COUNT_SW_TASK_CLOCK, .sample_period = 1,
			.sample_type = SAMPLE_TYPE, .sample_id_all = 1, .exclude_guest = 1,
		};
		size_t len = stream.len;

		put_header(PERF_RECORD_HEADER_ATTR, 8 + PM_FILE_ATTR_SIZE + 8);
		pm_buf__append(&stream, &attr, PM_FILE_ATTR_SIZE);
		pm_buf__append_u64(&stream, 2);
		put_sample(500, 0, 10);
		put_header(PERF_RECORD_FINISHED_ROUND, 8);
		f = (struct pm_dump_filter){ 0 };
		err = run_consume(&f, 0);
		if (!tap_ok(!err && !strcmp(consumed, "HEADER_ATTR@0 FINISHED_ROUND@0 COMM@50 "
					    "SAMPLE@100 SAMPLE@200 SAMPLE@300 FINISHED_ROUND@0 "
					    "HEADER_ATTR@0 SAMPLE@400 FINISHED_ROUND@0 SAMPLE@500"),
			    "an attr after the samples: consumed in its place"))
			printf("#   err %d, got '%s'\n", err, consumed);
		if (!tap_ok(!strcmp(consumed_evsels, "11111112222"),
			    "the records before it are consumed before the reader learns of it"))
			printf("#   got '%s'\n", consumed_evsels);
		stream.len = len;
	}

	/*
	 * A sample cut before its period (found when decoded, on consume's
	 * thread), then a record cut by the end of the stream (found when
	 * read): the sample's fault is the one reported, however far the
	 * reading went meanwhile, and what came before it counts.
	 */
	{
		size_t len = stream.len, bad = stream.len;
		struct perf_event_header h;

		put_sample(450, 0, 10);
		/* Copied: after the COMPRESSED record the stream is not 8-aligned. */
		memcpy(&h, stream.data + bad, sizeof(h));
		h.size = 40;
		memcpy(stream.data + bad, &h, sizeof(h));
		stream.len -= 8;
		put_sample(460, 0, 10);
		put_header(PERF_RECORD_FINISHED_ROUND, 8);
		put_header(PERF_RECORD_SAMPLE, 48);
		f = (struct pm_dump_filter){ 0 };
		err = run_consume(&f, 0);
		if (!tap_ok(err == -EBADMSG && consumed_fault.err == -EBADMSG &&
			    consumed_fault.offset == bad + 8 + 32 &&
			    strstr(consumed_fault.reason, "SAMPLE (size 40)") &&
			    !strcmp(consumed, "HEADER_ATTR@0 FINISHED_ROUND@0 COMM@50 SAMPLE@100 "
					      "SAMPLE@200 SAMPLE@300 FINISHED_ROUND@0 SAMPLE@400 "
					      "FINISHED_ROUND@0") && consumed_stats == 4,
			    "a malformed sample: its fault, not a later one, and what came before"))
			printf("#   err %d, fault at %llu (%s), stats %llu, got '%s'\n", err,
			       (unsigned long long)consumed_fault.offset, consumed_fault.reason,
			       (unsigned long long)consumed_stats, consumed);
		stream.len = len;
	}

	f = (struct pm_dump_filter){ 0 };
	err = run_consume(&f, 3);
	/* consume's thread stops at its error: nothing after it is consumed. */
	if (!tap_ok(err == -ENOMEM && !strncmp(consumed, "HEADER_ATTR@0 FINISHED_ROUND@0", 30) &&
		    !strstr(consumed, "COMM"), "consume's error is returned, its record not consumed"))
		printf("#   err %d, got '%s'\n", err, consumed);
}

int main(void)
{
	struct pm_dumper d;

	build_stream(false);
	d = (struct pm_dumper){ .queue_size = 1 << 20 };
	check("file order", &d,
	      "HEADER_ATTR@- COMM@0.000000050 SAMPLE@0.000000300 SAMPLE@0.000000100 "
	      "SAMPLE@0.000000200 FINISHED_ROUND@- SAMPLE@0.000000400 FINISHED_ROUND@- "
	      "| samples 4");
	d = (struct pm_dumper){ .queue_size = 1 << 20, .ordered = true };
	check("time order: each round's records sorted before the round goes out", &d,
	      "HEADER_ATTR@- FINISHED_ROUND@- COMM@0.000000050 SAMPLE@0.000000100 "
	      "SAMPLE@0.000000200 SAMPLE@0.000000300 FINISHED_ROUND@- SAMPLE@0.000000400 "
	      "| samples 4");
	tap_ok(warnings == 0, "no warning");

	d = (struct pm_dumper){ .queue_size = 1 << 20, .ordered = true };
	pm_id_list__parse(&d.filter.pids, "20", 100);
	check("--pid 20: its records only, stats count what was shown", &d,
	      "SAMPLE@0.000000100 SAMPLE@0.000000400 | samples 2");
	d = (struct pm_dumper){ .queue_size = 1 << 20 };
	pm_id_list__parse(&d.filter.cpus, "0", 100);
	check("--cpu 0", &d, "COMM@0.000000050 SAMPLE@0.000000300 SAMPLE@0.000000200 | samples 2");
	d = (struct pm_dumper){ .queue_size = 1 << 20 };
	pm_dump_filter__parse_types(&d.filter, "comm,finished_round");
	check("--type comm,finished_round", &d,
	      "COMM@0.000000050 FINISHED_ROUND@- FINISHED_ROUND@- | samples 0");
	d = (struct pm_dumper){ .queue_size = 1 << 20, .stats_only = true };
	check("--stats: no record lines", &d, " | samples 4");

	/*
	 * A queue of 100 bytes holds one record at most (its bookkeeping
	 * counts too): the second one queued sends both out (300 before 100:
	 * order breaks), and 400 goes out as soon as it is queued.
	 */
	d = (struct pm_dumper){ .queue_size = 100, .ordered = true };
	check("a full queue prints its oldest early: order may break", &d,
	      "HEADER_ATTR@- COMM@0.000000050 SAMPLE@0.000000300 SAMPLE@0.000000100 "
	      "SAMPLE@0.000000200 FINISHED_ROUND@- SAMPLE@0.000000400 FINISHED_ROUND@- "
	      "| samples 4");
	tap_ok(warnings == 1 && last_warning.kind == PM_WARN_QUEUE_FULL &&
	       last_warning.size == 100 && last_warning.offset > 0,
	       "the queue warning, once, with the size and the offset");

	tap_ok(pm_dump_filter__parse_types(&d.filter, "sample,nosuchtype") < 0,
	       "an unknown type name is refused");
	tap_ok(!pm_dump_filter__parse_types(&d.filter, "SAMPLE,unknown,200") &&
	       d.filter.type_unknown && (d.filter.types[200 / 64] & (1ULL << (200 % 64))) &&
	       (d.filter.types[0] & (1ULL << PERF_RECORD_SAMPLE)),
	       "names are case-insensitive; numbers and 'unknown' are types too");
	pm_dump_filter__exit(&d.filter);
	test_consume();
	pm_buf__exit(&stream);
	return tap_done();
}
