/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_REPORT_SPEEDSCOPE_H
#define PMREC_REPORT_SPEEDSCOPE_H

/*
 * pmrec report --speedscope=FILE: the option (an argp child of report's),
 * the exporter fed by report's pipeline instead of the profile, and the
 * output file (lib/export/speedscope.c writes the document).
 */
#include <argp.h>
#include <stdint.h>

#include "reader/pipeline.h"
#include "profile/profile.h"
#include "reader/reader.h"
#include "export/speedscope.h"

struct report_speedscope_opts {
	const char *file;	/* NULL: no export; "-": stdout */
};

/* Parses into the report_speedscope_opts that is the child's input. */
extern const struct argp report_speedscope_argp;

/* What report hands over: its input, --event and its filters. */
struct report_speedscope_input {
	struct pm_reader *r;
	const char *event;			/* NULL: every event */
	const struct pm_profile_filter *filter;
	const uint64_t *time;			/* [start, end]; NULL: any time */
	bool wall;				/* --wall */
};

/*
 * The exporter, and in *c the pipeline's consumer that feeds it; NULL
 * when out of memory (said).
 */
struct pm_speedscope *report_speedscope__new(const struct report_speedscope_input *in,
					     struct pm_consumer *c);
/* Writes FILE once every record is read; returns the exit status. */
int report_speedscope__run(const struct report_speedscope_opts *o, struct pm_speedscope *ss,
			   struct pm_reader *r, const char *input, const char *event);

#endif
