/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CMD_TOP_H
#define PMREC_CMD_TOP_H

/*
 * pmrec top, in two files: top.c parses the options and runs the phases
 * (events, intervals, batch output); top-view.c draws the interactive view
 * with ncurses and takes its keys.  The engine is lib/profile/live.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/live.h"
#include "print/live_print.h"
#include "profile/profile.h"
#include "record.h"

struct top_opts {
	struct record_opts rec;		/* targets and events, parsed as record's */
	double delay;			/* seconds per interval */
	uint64_t iterations;		/* 0: until stopped */
	bool batch, json, decay;
	enum pm_profile_key keys[PM_PROFILE_KEY__NR];	/* --sort; none: comm,dso,sym */
	size_t nr_keys;
};

struct top_view;

struct top {
	struct top_opts *o;
	struct record rec;		/* the CPUs and tasks, and record's wording of errors */
	struct pm_live *live;
	struct pm_profile *profile;	/* the last interval's, NULL before the first */
	struct pm_live_interval iv;	/* its numbers */
	int sigfd;
	int epfd;			/* the signals and the terminal, interactive only */
	int stop_signal;
	bool quit;			/* q */
	bool frozen;			/* f: the intervals wait */
	int64_t start_ns, interval_ns;	/* CLOCK_MONOTONIC of the start and of the interval's */
	struct top_view *view;		/* NULL in batch mode */
};

/* CLOCK_MONOTONIC in ns. */
int64_t top__now(void);

/* The last interval's rows of the first event by keys (none: comm,dso,sym), call graphs too. */
int top__query(struct top *t, const enum pm_profile_key *keys, size_t nr_keys, bool graph,
	       struct pm_profile_result **res);

/* Takes the terminal: NULL and a message when it cannot. */
struct top_view *top_view__new(struct top *t);
/* Gives the terminal back as it was; safe on NULL and twice. */
void top_view__delete(struct top_view *v);
/* Draws the last interval (or a waiting screen). */
void top_view__draw(struct top_view *v);
/* The terminal changed size. */
void top_view__resize(struct top_view *v);
/* Takes the keys typed; sets t->quit, t->frozen, zeroes.  Redraws. */
int top_view__keys(struct top_view *v);

#endif
