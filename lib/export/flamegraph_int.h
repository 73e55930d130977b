/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_FLAMEGRAPH_INT_H
#define PMREC_FLAMEGRAPH_INT_H

/*
 * The parts of the flame graph's document besides the frames: its style
 * sheet and script (lib/export/flamegraph_script.c), and the time strip above
 * the frames (lib/export/flamestrip.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/clock.h"
#include "base/emit.h"
#include "profile/timeline.h"

extern const char pm_flamegraph_style[];
/* Text or an attribute value: escaped, and what XML cannot hold replaced. */
void pm_flamegraph__xml(struct pm_out *o, const char *s, size_t n);
extern const char pm_flamegraph_script[];
/* The time strip's style sheet and script, after the strip's data. */
extern const char pm_flamestrip_script[];

/* A profile node whose samples are in no frame: another event, or dropped by --cpu. */
#define PM_FLAMESTRIP_NONE UINT32_MAX
/* One whose samples the filter hides: in the total percentages are of, in no frame. */
#define PM_FLAMESTRIP_HIDDEN (UINT32_MAX - 1)

/* The strip's height in pixels, its axis labels and the gap below it included. */
#define PM_FLAMESTRIP_HEIGHT 84

struct pm_flamestrip {
	const struct pm_timeline *tl;
	const struct pm_clock_ref *clock;	/* NULL: times from the strip's start */
	size_t nr_frames;			/* drawn, in document order; 0 is the root */
	const uint32_t *frame_parent;		/* each frame's parent's index (the root's: 0) */
	const char *const *frame_name;		/* each frame's name, as its tooltip has it */
	size_t nr_nodes;			/* of the profile */
	/* Profile node -> the frame its samples widen (a drawn one), HIDDEN or NONE. */
	const uint32_t *node_frame;
	bool by_samples;			/* samples weigh, not periods */
	bool relative;				/* percentages of the samples shown */
	uint32_t width, xpad, y;		/* the image's width, its margin, the strip's top */
};

/*
 * Writes the strip: its columns' weights drawn as bars (a picture without
 * script), the samples of each column per frame as data, and the script
 * that redraws the frames for a selected range of columns.  0 or -ENOMEM.
 */
int pm_flamestrip__write(struct pm_out *o, const struct pm_flamestrip *s);

#endif
