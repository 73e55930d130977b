// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-pipeline: fuzz harness for the reading pipeline as `pmrec report`
 * runs it (lib/reader/pipeline.c): the reader and the time-order queue on the
 * calling thread, the stats and the report sink (naming, the profile) on
 * the consumers' thread, batches handed between them, the first fault
 * kept whichever thread finds it; then the profile printed.  Inputs of an
 * odd size are read as report --flamegraph --timeline reads them: a
 * timeline watches the profile fill (each waiting sample then waits on its
 * own), and the flame graph with its time strip is drawn.  One input is
 * a perf.data file, read from a memfd.  Counts that do not add up abort.
 *
 * Drivers, as for fuzz-reader (see tests/fuzz/run): libFuzzer by default,
 * -DFUZZ_REPLAY for a main() over files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/emit.h"
#include "export/flamegraph.h"
#include "fuzz-memfd.h"
#include "reader/pipeline.h"
#include "profile/profile.h"
#include "print/profile_print.h"
#include "reader/reader.h"
#include "profile/report_sink.h"
#include "print/stats.h"
#include "profile/timeline.h"

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
	struct pm_out out = { 0 };

	if (pm_profile__query(p, &q, &res))
		return;
	/* A memory output: the width cut needs the line still in the buffer. */
	pm_profile__print_text(&out, &res, 1, &po);
	pm_profile__print_json(&out, &res, 1, &po);
	fuzz_sink += out.len + (out.err != 0);
	pm_profile_result__delete(res);
	pm_out__exit(&out);
}

static int fuzz__count(void *arg, const void *p, size_t n)
{
	fuzz_sink += n;
	return 0;
}

/* The timeline saw every sample the profile counted; the graph draws with its strip. */
static void fuzz__timeline(struct pm_profile *p, struct pm_timeline *t)
{
	struct pm_timeline_entry e;
	unsigned __int128 period = 0, want = 0;
	bool saturated = false;
	size_t i;
	uint32_t ev;

	for (i = 0; i < pm_timeline__nr_entries(t); i++) {
		pm_timeline__entry(t, i, &e);
		period += e.period;
	}
	/* A saturated total (hostile periods) is no sum to compare with. */
	for (ev = 0; ev < pm_profile__nr_events(p); ev++) {
		want += pm_profile__period(p, ev);
		saturated |= pm_profile__period(p, ev) == UINT64_MAX;
	}
	if (!pm_timeline__error(t) && !saturated && period != want)
		abort();
	if (pm_profile__nr_events(p) && !pm_timeline__error(t))
		fuzz_sink += (size_t)-pm_flamegraph__write(p, &(struct pm_flamegraph_opts){
			.min_width = 0.1, .timeline = t }, fuzz__count, NULL, NULL);
}

static void fuzz__run(struct pm_reader *r, bool timed)
{
	struct pm_timeline *t = timed ? pm_timeline__new(PM_TIMELINE_COLUMNS) : NULL;
	struct pm_profile *profile = pm_profile__new();
	struct pm_report_sink sink;
	struct pm_stats stats = { 0 };
	struct pm_consumer c[2];
	struct pm_pipeline p;
	int err;

	if (!profile || (timed && !t) || pm_report_sink__init(&sink, r, profile))
		abort();
	if (t)
		pm_profile__observe(profile, pm_timeline__observe, t);
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
		if (!pm_report_sink__finish(&sink)) {
			fuzz__print(profile);
			if (t)
				fuzz__timeline(profile, t);
		}
		pm_pipeline__end(&p);
	}
	fuzz_sink += (size_t)-err;
	pm_pipeline__exit(&p);
	pm_report_sink__exit(&sink);
	pm_stats__exit(&stats);
	pm_profile__delete(profile);
	pm_timeline__delete(t);
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
		fuzz__run(r, size & 1);
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
