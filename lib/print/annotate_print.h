/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_ANNOTATE_PRINT_H
#define PMREC_ANNOTATE_PRINT_H

/*
 * Annotations as text, laid out as `perf annotate --stdio` lays them out
 * (so that a perf user reads them the same way, and tests compare them
 * instruction by instruction), with a summary of the hottest source lines
 * on top; or as one JSON document.
 */
#include <stdbool.h>
#include <stdint.h>

#include "profile/annotate.h"
#include "base/emit.h"

struct pm_annotate_print {
	struct pm_out *out;
	struct pm_sources *sources;	/* source text; NULL: file:line only */
	const char *event;
	uint64_t total_period;		/* of the event in the whole recording */
	bool json;
	size_t printed;			/* annotations so far */
};

/* The text or JSON of one annotation.  0, or the output's error as a negative errno. */
int pm_annotate_print__one(struct pm_annotate_print *p, const struct pm_annotation *a);
/* JSON: the array's opening and closing (the text needs neither). */
void pm_annotate_print__begin(struct pm_annotate_print *p);
int pm_annotate_print__end(struct pm_annotate_print *p);

#endif
