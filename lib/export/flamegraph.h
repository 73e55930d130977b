/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_FLAMEGRAPH_H
#define PMREC_FLAMEGRAPH_H

/*
 * A flame graph of a profile, as one self-contained SVG document: nothing
 * is loaded from outside it, every frame is laid out in the markup (a
 * picture without script), and its script, where one runs, zooms on a
 * click, searches by regular expression and reads `?s=REGEX` and
 * `?x=X&y=Y` from the URL, as FlameGraph's flamegraph.pl does.
 *
 * The stacks are those of `pmrec dump --folded`: a root "all", one frame
 * per command name, then the frames outermost caller first, named as the
 * folded stacks name them (';' as ':', what a terminal must not see as '?'), frames of
 * one name under one parent merged, siblings in byte order of their names.
 * Widths are shares of the summed period, so they are report's
 * percentages (children, inclusive).
 *
 * With a timeline, a time strip above the frames (lib/export/flamestrip.c): the
 * samples' weight per time column, and the data and script that redraw
 * the frames for a range of columns selected on it or by `?t=START,END`.
 * Without one, not a byte of the document changes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/clock.h"
#include "base/file.h"
#include "profile/profile.h"
#include "profile/timeline.h"

/* The image's width in pixels: default and bounds. */
#define PM_FLAMEGRAPH_WIDTH 1200
#define PM_FLAMEGRAPH_WIDTH_MIN 200
#define PM_FLAMEGRAPH_WIDTH_MAX 100000
/* Frames narrower than this many pixels are left out by default (flamegraph.pl's). */
#define PM_FLAMEGRAPH_MIN_WIDTH 0.1

struct pm_flamegraph_opts {
	uint32_t event;
	/*
	 * comms, pids and tids hide samples (they still count in the total
	 * the percentages are of, unless relative); cpus drop them.  NULL: none.
	 */
	const struct pm_profile_filter *filter;
	const char *title;		/* NULL: "Flame Graph", "Icicle Graph" inverted */
	const char *subtitle;		/* NULL: none */
	uint32_t width;			/* pixels, PM_FLAMEGRAPH_WIDTH_MIN..MAX; 0: the default */
	/*
	 * A frame narrower than this many pixels is left out with its
	 * callees: its time stays in its caller's width.
	 */
	double min_width;
	bool inverted;			/* an icicle graph: the root at the top */
	/*
	 * Off-CPU time: colours of its own (blues for user code, ambers for
	 * the kernel: the on-CPU scheme's channels swapped, so the two never
	 * pass for each other) and "Off-CPU" in the default title.
	 */
	bool offcpu;
	/*
	 * A differential graph: each frame coloured by how its share of the
	 * total changed from the same stack in base (its event base_event,
	 * the same filter): red grew, blue shrank, the more the deeper, grey
	 * unchanged.  Widths are the profile's.  NULL: colours by name.
	 */
	const struct pm_profile *base;
	uint32_t base_event;
	/*
	 * A time strip above the frames: the weight of the samples over time
	 * (the timeline watched the profile fill), and a range selected on it
	 * redraws the frames for that range.  Times are wall-clock with clock
	 * (the recording's reference, CLOCK_DATA), else from the strip's
	 * start.  NULL: no strip, the document as without it.
	 */
	const struct pm_timeline *timeline;
	const struct pm_clock_ref *clock;
};

struct pm_flamegraph_stats {
	size_t frames;			/* drawn, the root included */
	size_t omitted;			/* narrower than min_width, or called from one */
	uint64_t samples, period;	/* of the root: the samples shown */
	size_t bytes;			/* of the document */
};

/*
 * Writes the document through write(arg, ...).  st (may be NULL) gets
 * what was drawn.  0, -EINVAL (unknown event, bad width or min_width),
 * -ENOMEM, or write's error.
 */
int pm_flamegraph__write(const struct pm_profile *p, const struct pm_flamegraph_opts *o,
			 pm_write_fn *write, void *arg, struct pm_flamegraph_stats *st);

#endif
