// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-pipeline: fuzz harness for the reading pipeline as `pmrec report`
 * runs it (lib/pipeline.c): the reader and the time-order queue on the
 * calling thread, the stats and the report sink (naming, the profile) on
 * the consumers' thread, batches handed between them, the first fault
 * kept whichever thread finds it; then the profile printed.  One input is
 * a perf.data file, read from a memfd.  Counts that do not add up abort.
 *
 * Drivers, as for fuzz-reader (see tests/fuzz/run): libFuzzer by default,
 * -DFUZZ_REPLAY for a main() over files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fuzz-memfd.h"
#include "pipeline.h"
#include "profile.h"
#include "profile_print.h"
#include "reader.h"
#include "report_sink.h"
#include "stats.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_memfd = -1;
static volatile size_t fuzz_sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_memfd < 0)
		fuzz_memfd = fuzz_memfd__new("fuzz-pipeline");
	return 0;
}

static void fuzz__warn(void *arg, const struct pm_warning *w)
{
	(void)arg;
	fuzz_sink += w->kind;
}

/* The profile as report prints it: table with call graphs, and JSON. */
static void fuzz__print(struct pm_profile *p)
{
	struct pm_profile_print_opts po = { .width = 200 };
	struct pm_profile_query q = { 0 };
	struct pm_profile_result *res;
	struct pm_buf b = { 0 };

	if (pm_profile__query(p, &q, &res))
		return;
	if (pm_profile__print_text(&b, &res, 1, &po) || pm_profile__print_json(&b, &res, 1, &po))
		fuzz_sink += 1;
	fuzz_sink += b.len;
	pm_profile_result__delete(res);
	pm_buf__exit(&b);
}

static void fuzz__run(struct pm_reader *r)
{
	struct pm_profile *profile = pm_profile__new();
	struct pm_report_sink sink;
	struct pm_stats stats = { 0 };
	struct pm_consumer c[2];
	struct pm_pipeline p;
	int err;

	if (!profile || pm_report_sink__init(&sink, r, profile))
		abort();
	c[0] = (struct pm_consumer){ .record = pm_stats__consume, .ctx = &stats };
	c[1] = (struct pm_consumer){ .record = pm_report_sink__record, .ctx = &sink };
	p = (struct pm_pipeline){
		.r = r, .ordered = true, .names = true, .queue_size = 128 << 10,
		.threaded = true, .consumers = c, .nr_consumers = 2,
		.warn = fuzz__warn,
	};
	err = pm_pipeline__setup(&p);
	if (!err) {
		sink.namer = p.namer;
		err = pm_pipeline__records(&p);
		if (!pm_report_sink__finish(&sink))
			fuzz__print(profile);
		pm_pipeline__end(&p);
	}
	fuzz_sink += (size_t)-err;
	pm_pipeline__exit(&p);
	pm_report_sink__exit(&sink);
	pm_stats__exit(&stats);
	pm_profile__delete(profile);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_reader *r;

	if (fuzz_memfd < 0)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_memfd__fill(fuzz_memfd, data, size);
	r = pm_reader__new();
	if (!r)
		abort();
	if (!pm_reader__open_fd(r, fuzz_memfd))
		fuzz__run(r);
	pm_reader__delete(r);
	return 0;
}

#ifdef FUZZ_REPLAY
int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	return fuzz_replay__files("fuzz-pipeline", argc, argv, NULL);
}
#endif
