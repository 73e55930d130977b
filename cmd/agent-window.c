// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec agent's windows: the live profile of the seconds past as gzipped
 * pprof (lib/export/pprof.c), in memory, then queued for the server and
 * written as NAME-FROM-UNTIL.pb.gz into --output-dir.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "builtin.h"
#include "base/buf.h"
#include "base/output.h"
#include "export/pprof.h"

static int agent__buf_write(void *arg, const void *p, size_t n)
{
	return pm_buf__append(arg, p, n);
}

static int agent__encode(struct agent *a, const struct pm_profile *p, int64_t until,
			 struct pm_buf *b)
{
	struct pm_pprof_opts o;

	/* A window without samples has no event yet: an empty profile of the first. */
	if (pm_pprof_opts__from_input(&o, pm_live__reader(a->live), p, 0))
		o = (struct pm_pprof_opts){ .cpu_time = true };
	o.labels = PM_PPROF_LABELS_DEFAULT;
	o.time_nanos = a->from * 1000000000;
	o.duration_nanos = (until - a->from) * 1000000000;
	return pm_pprof__write(p, &o, agent__buf_write, b);
}

/* NAME-FROM-UNTIL.pb.gz: written whole under another name, then renamed. */
static int agent__write_file(struct agent *a, const struct pm_buf *b, int64_t until)
{
	struct pm_outfile f;
	char *path;
	int err;

	if (asprintf(&path, "%s/%s-%" PRId64 "-%" PRId64 ".pb.gz", a->o->output_dir,
		     a->o->app_name, a->from, until) < 0)
		return -ENOMEM;
	err = pm_outfile__open(&f, path);
	if (!err)
		err = pm_outfile__close(&f, path, pm_outfile__write(&f, b->data, b->len));
	if (err)
		error("cannot write '%s': %s", path, strerror(-err));
	else
		a->files++;
	free(path);
	return err;
}

int agent__window(struct agent *a, int64_t until)
{
	struct pm_buf b = { 0 };
	struct pm_profile *p;
	struct pm_live_counts c;
	int err = pm_live__interval(a->live, &p, &c);

	if (!err)
		err = agent__encode(a, p, until, &b);
	if (err) {
		error("cannot make the window's profile: %s", strerror(-err));
		pm_buf__exit(&b);
		return err;
	}
	a->samples += c.samples;
	a->lost += c.lost;
	a->windows++;
	/* A disk that fails is said, and the window still goes to the server. */
	if (a->o->output_dir)
		agent__write_file(a, &b, until);
	if (a->up)
		pm_uploader__push(a->up, &(struct pm_pyroscope_window){
			.from = a->from, .until = until, .data = b.data, .len = b.len });
	else
		pm_buf__exit(&b);
	a->from = until;
	return 0;
}

void agent__print_counts(struct agent *a, const struct pm_uploader_counts *c)
{
	double secs = (double)(agent__clock(CLOCK_MONOTONIC) - a->mono0_ns) / 1e9;

	char spool[64] = "";

	if (a->o->spool_dir)
		snprintf(spool, sizeof(spool), ", spooled %" PRIu64 ", in the spool %" PRIu64,
			 c->spooled, c->in_spool);
	note("%" PRIu64 " windows over %.1f s, %" PRIu64 " samples, %" PRIu64 " lost; %" PRIu64
	     " files written; sent %" PRIu64 ", retried %" PRIu64 ", rejected %" PRIu64
	     ", dropped %" PRIu64 ", queued %" PRIu64 "%s%s%s",
	     a->windows, secs, a->samples, a->lost, a->files, c->sent, c->retries, c->rejected,
	     c->dropped, c->queued, spool, *c->last_error ? "; last error: " : "",
	     c->last_error);
}
