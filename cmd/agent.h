/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CMD_AGENT_H
#define PMREC_CMD_AGENT_H

/*
 * pmrec agent, in two files: agent.c parses the options and runs the
 * phases (events, windows, the end); agent-window.c turns a window's
 * profile into its gzipped pprof and hands it to the uploader
 * (lib/export/uploader.c) and --output-dir.  The engine is top's
 * (lib/profile/live.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "export/uploader.h"
#include "profile/live.h"
#include "record.h"

struct agent_opts {
	struct record_opts rec;		/* targets and events, parsed as record's */
	const char *server;
	const char *app_name;
	const char *tags;		/* k=v,... */
	const char *output_dir;
	unsigned interval;		/* seconds per window */
	long timeout_ms;		/* of one try */
	size_t queue;			/* windows held in memory */
	const char *spool_dir;		/* then on disk */
	uint64_t spool_size;		/* bytes; 0: the default */
	const char **headers;
	size_t nr_headers;
};

struct agent {
	struct agent_opts *o;
	struct record rec;		/* the CPUs and tasks, and record's wording of errors */
	struct pm_live *live;
	struct pm_uploader *up;		/* NULL without --server */
	char *series;			/* APP{hostname=...,...} */
	int sigfd;
	int stop_signal;
	int64_t from;			/* the window under way: Unix seconds */
	int64_t wall0_ns, mono0_ns;	/* the clocks at the start, to place windows */
	uint64_t samples, lost, windows, files;
};

/* The clock id's time in ns. */
int64_t agent__clock(clockid_t id);

/* CLOCK_MONOTONIC of the Unix second t, as the clocks stood at the start. */
int64_t agent__mono_at(const struct agent *a, int64_t t);

/*
 * The window [a->from, until) ended: its profile, encoded, queued for the
 * server and written to --output-dir.  0 or a negative errno (said).
 */
int agent__window(struct agent *a, int64_t until);

/* The counts, one line (note()). */
void agent__print_counts(struct agent *a, const struct pm_uploader_counts *c);

#endif
