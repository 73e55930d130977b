/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_REPORT_PPROF_H
#define PMREC_REPORT_PPROF_H

/* pmrec report --pprof: the options and the writing of the file (cmd/report-pprof.c). */
#include <argp.h>
#include <stdint.h>

#include "export/pprof.h"
#include "profile/profile.h"
#include "reader/reader.h"

/* --pprof-labels LIST: the labels added to pid, tid and comm; argp_error on a bad one. */
void report_pprof__parse_labels(struct argp_state *state, const char *arg, unsigned *labels);

struct report_pprof {
	const char *path;		/* "-": stdout */
	unsigned labels;		/* PM_PPROF_LABEL_* */
	const char *event;		/* NULL: the first event with samples */
	const char *input;		/* the input's name, for messages */
	const struct pm_profile_filter *filter;
	uint64_t lost_samples;
};

/*
 * Writes the file; says what went wrong.  0 (also when the reader of a
 * pipe went away), -ENOENT (no such event: a usage error), or -EIO /
 * -EINVAL.
 */
int report_pprof__write(const struct report_pprof *rp, struct pm_reader *r,
			const struct pm_profile *p);

#endif
