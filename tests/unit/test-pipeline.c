// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the reading pipeline (lib/reader/pipeline.c) with two consumers
 * over a stream built here: both get every record that passes the filter,
 * in time order, on the reading thread or, once the records come out of
 * compressed data, on their own; the first one's error keeps the record
 * from the second and is returned; PM_CONSUME_STOP stops the reading
 * without an error.  Prints TAP.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "format/perf_data.h"
#include "pipe-stream.h"
#include "reader/pipeline.h"
#include "tap.h"

/*
 * A pipe stream: attr; samples 300 (pid 10), 100 (pid 20), 200 (pid 10);
 * round; 400 (pid 20); round.  Compressed: all but the attr.
 */
static void build_stream(bool compressed)
{
	size_t from;

	stream.len = 0;
	put_prologue();
	from = stream.len;
	put_sample(300, 0, 10);
	put_sample(100, 1, 20);
	put_sample(200, 0, 10);
	put_header(PERF_RECORD_FINISHED_ROUND, 8);
	put_sample(400, 1, 20);
	put_header(PERF_RECORD_FINISHED_ROUND, 8);
	if (compressed)
		compress_from(from);
}

static pthread_t main_thread;

/* A consumer that writes "TYPE@TIME" of each record it gets, and answers fail_at's. */
struct log {
	char text[512];
	size_t len;
	int nr;
	int fail_at;		/* the nth record (from 1) is answered with answer */
	int answer;
	bool off_main;		/* a record came on another thread */
};

static int log__record(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in)
{
	struct log *l = ctx;

	if (!pthread_equal(pthread_self(), main_thread))
		l->off_main = true;
	if (++l->nr == l->fail_at)
		return l->answer;
	l->len += (size_t)snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s%s@%llu",
				   l->len ? " " : "", pm_record_type__name(rec->header->type),
				   in->has_time ? (unsigned long long)in->time : 0ULL);
	return 0;
}

/* Runs the stream through the pipeline into consumers a and b: the error. */
static int run(struct log *a, struct log *b, bool threaded, bool compressed,
	       struct pm_dump_filter *f)
{
	int in = memfd_create("test-pipeline", MFD_CLOEXEC), err;
	struct pm_consumer c[2] = { { log__record, a }, { log__record, b } };
	struct pm_pipeline p = { .filter = f, .ordered = true, .names = threaded,
				 .queue_size = 1 << 20, .threaded = threaded, .consumers = c,
				 .nr_consumers = 2 };

	build_stream(compressed);
	p.r = pm_reader__new();
	if (in < 0 || !p.r || write(in, stream.data, stream.len) != (ssize_t)stream.len ||
	    lseek(in, 0, SEEK_SET))
		err = -EIO;
	else
		err = pm_reader__open_fd(p.r, in);
	if (!err)
		err = pm_pipeline__setup(&p);
	if (!err)
		err = pm_pipeline__records(&p);
	pm_pipeline__end(&p);
	pm_pipeline__exit(&p);
	pm_reader__delete(p.r);
	if (in >= 0)
		close(in);
	return err;
}

static const char all[] = "HEADER_ATTR@0 FINISHED_ROUND@0 SAMPLE@100 SAMPLE@200 SAMPLE@300 "
			  "FINISHED_ROUND@0 SAMPLE@400";

static void test_both(bool threaded)
{
	const char *how = threaded ? "on their own thread" : "on the reading thread";
	struct log a = { 0 }, b = { 0 };
	int err = run(&a, &b, threaded, threaded, NULL);

	if (!tap_ok(!err && !strcmp(a.text, all) && !strcmp(b.text, all) &&
			    a.off_main == threaded && b.off_main == threaded,
		    "two consumers %s: each gets every record, in time order", how))
		printf("#   err %d, off the reading thread %d %d\n#   a '%s'\n#   b '%s'\n", err,
		       a.off_main, b.off_main, a.text, b.text);
}

/*
 * Records read as they are stay on the reading thread, threaded or not:
 * handing them over cost more CPU than it saved wall time.
 */
static void test_plain_stays(void)
{
	struct log a = { 0 }, b = { 0 };
	int err = run(&a, &b, true, false, NULL);

	if (!tap_ok(!err && !strcmp(a.text, all) && !a.off_main && !b.off_main,
		    "threaded, records not compressed: the consumers stay on the reading thread"))
		printf("#   err %d, off %d %d, a '%s'\n", err, a.off_main, b.off_main, a.text);
}

static void test_filter(void)
{
	struct pm_dump_filter f = { 0 };
	struct log a = { 0 }, b = { 0 };
	int err;

	pm_id_list__parse(&f.pids, "20", 100);
	err = run(&a, &b, true, true, &f);
	if (!tap_ok(!err && !strcmp(a.text, "SAMPLE@100 SAMPLE@400") && !strcmp(a.text, b.text),
		    "the filter applies to both consumers"))
		printf("#   err %d\n#   a '%s'\n#   b '%s'\n", err, a.text, b.text);
	pm_dump_filter__exit(&f);
}

/*
 * The first consumer fails on SAMPLE@200.  On the consumers' thread the
 * reading stops there; on the reading thread, as for a malformed sample,
 * every record read before the fault still goes out (300 queued with it,
 * 400 read before the round that sent them out).
 */
static void test_errors(bool threaded)
{
	const char *how = threaded ? "threaded" : "unthreaded";
	const char *want = threaded ? "HEADER_ATTR@0 FINISHED_ROUND@0 SAMPLE@100" :
				      "HEADER_ATTR@0 FINISHED_ROUND@0 SAMPLE@100 SAMPLE@300 SAMPLE@400";
	struct log a = { .fail_at = 4, .answer = -ENOMEM }, b = { 0 };
	int err = run(&a, &b, threaded, threaded, NULL);

	if (!tap_ok(err == -ENOMEM && !strcmp(a.text, want) && !strcmp(b.text, want),
		    "%s: the first consumer's error is returned, the second never gets its record",
		    how))
		printf("#   err %d\n#   a '%s'\n#   b '%s'\n", err, a.text, b.text);

	a = (struct log){ 0 };
	b = (struct log){ .fail_at = 3, .answer = PM_CONSUME_STOP };
	err = run(&a, &b, threaded, threaded, NULL);
	if (!tap_ok(!err && !strncmp(a.text, "HEADER_ATTR@0 FINISHED_ROUND@0 SAMPLE@100", 41) &&
		    !strstr(a.text, "SAMPLE@200") && !strstr(b.text, "SAMPLE"),
		    "%s: PM_CONSUME_STOP ends the reading without an error", how))
		printf("#   err %d\n#   a '%s'\n#   b '%s'\n", err, a.text, b.text);
}

int main(void)
{
	main_thread = pthread_self();
	test_both(false);
	test_both(true);
	test_plain_stays();
	test_filter();
	test_errors(false);
	test_errors(true);
	pm_buf__exit(&stream);
	return tap_done();
}
