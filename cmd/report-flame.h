/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_REPORT_FLAME_H
#define PMREC_REPORT_FLAME_H

/*
 * pmrec report --flamegraph: the options (an argp child of report's) and
 * the writing of the SVG (lib/export/flamegraph.c draws it).
 */
#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "reader/reader.h"
#include "profile/timeline.h"

struct report_flame_opts {
	const char *file;	/* NULL: no flame graph; "-": stdout */
	const char *diff;	/* the base recording of a differential graph */
	const char *title;
	double min_width;	/* pixels; < 0: the default */
	bool inverted;
	uint32_t timeline;	/* --timeline's columns; 0: no time strip */
	struct pm_timeline *tl;	/* watching the profile fill (report_flame__watch) */
};

/* Parses into the report_flame_opts that is the child's input. */
extern const struct argp report_flame_argp;

/* Checks the options against report's --width (pixels here); argp_error()s. */
void report_flame__check(const struct report_flame_opts *o, long width, struct argp_state *state);

/*
 * With --timeline, before the profile is read: a timeline watches the
 * samples go in.  0, or PM_EXIT_FAILURE (said why).  report_flame__exit
 * frees it.
 */
int report_flame__watch(struct report_flame_opts *o, struct pm_profile *p);
void report_flame__exit(struct report_flame_opts *o);

/* What report hands over: the profile it read and its options. */
struct report_flame_input {
	struct pm_profile *profile;
	const char *name;			/* the input, as messages name it */
	uint32_t event;
	const struct pm_profile_filter *filter;
	long width;				/* report's --width: pixels here; < 0: default */
	struct pm_reader *r;			/* the input: its clock reference */
	/*
	 * Reads another recording with report's options into a new profile
	 * (the caller's to delete); says why it failed.  0 or a negative errno.
	 */
	int (*load)(void *arg, const char *path, struct pm_profile **out);
	void *load_arg;
};

/* Writes the flame graph; returns the exit status. */
int report_flame__run(const struct report_flame_opts *o, const struct report_flame_input *in);

#endif
