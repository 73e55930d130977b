// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report --pprof=FILE: the profile as a gzip-compressed
 * profile.proto (lib/export/pprof.c) in FILE or on stdout.  This file holds the
 * option parsing, the choice of the event, the output file and the messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/output.h"
#include "export/pprof.h"
#include "report-pprof.h"

#define CMD "pmrec report"

static const char valid_labels[] = "cpu (pid, tid and comm are always written)";

void report_pprof__parse_labels(struct argp_state *state, const char *arg, unsigned *labels)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	enum pm_pprof_label l;
	size_t nr = 0;

	if (!copy)
		argp_failure(state, 1, ENOMEM, "--pprof-labels");
	*labels = PM_PPROF_LABELS_DEFAULT;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (pm_pprof_label__parse(tok, &l))
			argp_error(state, "unknown --pprof-labels label '%s' (valid: %s)", tok,
				   valid_labels);
		*labels |= l;
		nr++;
	}
	free(copy);
	if (!nr)
		argp_error(state, "empty --pprof-labels (valid: %s)", valid_labels);
}

/* The event to write: the one named, else the first with samples (else the first). */
static int pprof__event(const struct report_pprof *rp, const struct pm_profile *p, uint32_t *ev)
{
	uint32_t i, n = pm_profile__nr_events(p), with_samples = 0;

	if (rp->event) {
		for (i = 0; i < n; i++)
			if (!strcmp(pm_profile__event_name(p, i), rp->event)) {
				*ev = i;
				return 0;
			}
		fprintf(stderr, CMD ": %s: no event '%s'; the file has:", rp->input, rp->event);
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s '%s'", i ? "," : "", pm_profile__event_name(p, i));
		fputs(n ? "\n" : " no events\n", stderr);
		return -ENOENT;
	}
	if (!n) {
		fprintf(stderr, CMD ": %s: the file has no events\n", rp->input);
		return -EINVAL;
	}
	*ev = 0;
	for (i = n; i-- > 0;)
		if (pm_profile__samples(p, i)) {
			with_samples++;
			*ev = i;
		}
	if (with_samples > 1)
		fprintf(stderr, CMD ": %s: warning: --pprof writes the event '%s' alone; "
			"choose another with --event\n", rp->input, pm_profile__event_name(p, *ev));
	return 0;
}

int report_pprof__write(const struct report_pprof *rp, struct pm_reader *r,
			const struct pm_profile *p)
{
	bool to_stdout = !strcmp(rp->path, "-");
	const char *name = to_stdout ? "stdout" : rp->path;
	struct pm_pprof_opts o;
	struct pm_outfile out;
	uint32_t ev;
	int err;

	err = pprof__event(rp, p, &ev);
	if (err)
		return err;
	if (to_stdout && isatty(STDOUT_FILENO)) {
		fprintf(stderr, CMD ": refusing to write a binary profile to a terminal; "
			"redirect stdout or give --pprof=FILE\n");
		return -EINVAL;
	}
	if (pm_pprof_opts__from_input(&o, r, p, ev))
		return -EINVAL;
	o.labels = rp->labels;
	o.filter = rp->filter;
	err = pm_outfile__open(&out, rp->path);
	if (err) {
		fprintf(stderr, CMD ": cannot create '%s': %s\n", rp->path, strerror(-err));
		return -EIO;
	}
	err = pm_outfile__close(&out, rp->path, pm_pprof__write(p, &o, pm_outfile__write, &out));
	/* report words -ENOMEM. */
	if (err && err != -ENOMEM && err != -EPIPE)
		fprintf(stderr, CMD ": write error on '%s': %s\n", name, strerror(-err));
	/* The reader went away: as report's table, not a failure. */
	if (err == -EPIPE)
		return 0;
	/* Said: only -ENOMEM is left to the caller to word. */
	if (err && err != -ENOMEM)
		err = -EIO;
	if (!err && rp->lost_samples)
		fprintf(stderr, CMD ": %s: warning: %llu samples were lost while recording; "
			"the profile misses them\n", rp->input,
			(unsigned long long)rp->lost_samples);
	return err;
}
