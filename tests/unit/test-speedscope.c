// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the speedscope export (lib/export/speedscope.c) over a pipe
 * stream built here, through the reading pipeline: where each cpu-clock
 * sample goes on its thread's timeline (the period that ended at its time),
 * runs of one stack merged, a gap as an empty sample, jitter under half a
 * period absorbed, an overlap moved later, every thread spanning its
 * event's time; and report's filters.  Prints TAP.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "format/perf_data.h"
#include "pipe-stream.h"
#include "reader/pipeline.h"
#include "export/speedscope.h"
#include "tap.h"

/* A sample of thread tid (its own process) at time, of period; no map: "[unknown]". */
static void put(uint64_t time, uint32_t tid, uint64_t period)
{
	put_header(PERF_RECORD_SAMPLE, 48);
	pm_buf__append_u64(&stream, 0x1000);
	pm_buf__append_u32(&stream, tid);
	pm_buf__append_u32(&stream, tid);
	pm_buf__append_u64(&stream, time);
	pm_buf__append_u32(&stream, 0);
	pm_buf__append_u32(&stream, 0);
	pm_buf__append_u64(&stream, period);
}

/*
 * Thread 10: 1000, 2000, 3000 (one run from 0), 6000 (after a gap of
 * 2000), 7400 (a gap of 400 < 500: jitter, so it follows on at 6000);
 * thread 20: 4000 and 4500 (an overlap: moved to 4000).  All of period 1000.
 */
static void build_stream(void)
{
	put_prologue();
	put(1000, 10, 1000);
	put(2000, 10, 1000);
	put(3000, 10, 1000);
	put(4000, 20, 1000);
	put(4500, 20, 1000);
	put(6000, 10, 1000);
	put(7400, 10, 1000);
	put_header(PERF_RECORD_FINISHED_ROUND, 8);
}

static int to_buf(void *arg, const void *p, size_t n)
{
	return pm_buf__append(arg, p, n);
}

/* The stream exported with filter f (may be NULL) into out: the error. */
static int run(const struct pm_profile_filter *f, struct pm_buf *out)
{
	int in = memfd_create("test-speedscope", MFD_CLOEXEC), err;
	struct pm_speedscope_opts so = { .name = "s", .filter = f };
	struct pm_speedscope *ss = NULL;
	struct pm_consumer c;
	struct pm_pipeline p = { .names = true, .queue_size = 1 << 20, .consumers = &c,
				 .nr_consumers = 1 };

	p.r = pm_reader__new();
	if (in < 0 || !p.r || write(in, stream.data, stream.len) != (ssize_t)stream.len ||
	    lseek(in, 0, SEEK_SET))
		err = -EIO;
	else
		err = pm_reader__open_fd(p.r, in);
	if (!err && !(ss = pm_speedscope__new(p.r, &so)))
		err = -ENOMEM;
	c = (struct pm_consumer){ .record = pm_speedscope__record, .ctx = ss };
	if (!err)
		err = pm_pipeline__setup(&p);
	if (!err) {
		pm_speedscope__set_namer(ss, p.namer);
		err = pm_pipeline__records(&p);
	}
	if (!err)
		err = pm_speedscope__write(ss, to_buf, out, NULL);
	pm_buf__append(out, "", 1);
	pm_pipeline__end(&p);
	pm_pipeline__exit(&p);
	pm_speedscope__delete(ss);
	pm_reader__delete(p.r);
	if (in >= 0)
		close(in);
	return err;
}

static const char thread10[] =
	"{\"type\":\"sampled\",\"name\":\"10\",\"unit\":\"nanoseconds\",\"startValue\":0,"
	"\"endValue\":7000,\n\"samples\":[[0],[],[0]],\n\"weights\":[3000,2000,2000]}";
static const char thread20[] =
	"{\"type\":\"sampled\",\"name\":\"20\",\"unit\":\"nanoseconds\",\"startValue\":0,"
	"\"endValue\":7000,\n\"samples\":[[],[0],[]],\n\"weights\":[3000,2000,2000]}";

static void test_placement(void)
{
	struct pm_buf out = { 0 };
	int err = run(NULL, &out);
	const char *doc = (const char *)out.data;

	if (!tap_ok(!err && strstr(doc, thread10) && strstr(doc, thread20) &&
		    strstr(doc, "\"frames\":[{\"name\":\"[unknown]\"}]") &&
		    strstr(doc, "\"activeProfileIndex\":0,"),
		    "runs merged, gaps empty, jitter absorbed, overlap moved, threads line up"))
		printf("#   err %d\n#   %s\n", err, doc ? doc : "");
	pm_buf__exit(&out);
}

static void test_filter(void)
{
	const int32_t tids[] = { 20 };
	struct pm_profile_filter f = { .tids = tids, .nr_tids = 1 };
	struct pm_buf out = { 0 };
	int err = run(&f, &out);
	const char *doc = (const char *)out.data;

	if (!tap_ok(!err && !strstr(doc, "\"name\":\"10\"") &&
		    strstr(doc, "\"name\":\"20\",\"unit\":\"nanoseconds\",\"startValue\":0,"
				"\"endValue\":2000,\n\"samples\":[[0]],\n\"weights\":[2000]}"),
		    "--tid: the other thread is left out, the span is the kept samples'"))
		printf("#   err %d\n#   %s\n", err, doc ? doc : "");
	pm_buf__exit(&out);
}

int main(void)
{
	build_stream();
	test_placement();
	test_filter();
	pm_buf__exit(&stream);
	return tap_done();
}
