// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report --pprof=FILE: the profile as a gzip-compressed
 * profile.proto (lib/export/pprof.c) in FILE or on stdout.  This file holds the
 * option parsing, the choice of the event, the output file and the messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "export/pprof.h"
#include "report-export.h"
#include "report-pprof.h"

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

static const char *pprof__event_name(const void *p, size_t i)
{
	return pm_profile__event_name(p, (uint32_t)i);
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
		pm_cmd__no_event(rp->input, rp->event, n, pprof__event_name, p);
		return -ENOENT;
	}
	if (!n) {
		error("%s: the file has no events", rp->input);
		return -EINVAL;
	}
	*ev = 0;
	for (i = n; i-- > 0;)
		if (pm_profile__samples(p, i)) {
			with_samples++;
			*ev = i;
		}
	if (with_samples > 1)
		warning_at(rp->input, "--pprof writes the event '%s' alone; choose another with "
			   "--event", pm_profile__event_name(p, *ev));
	return 0;
}

struct pprof_write {
	const struct pm_profile *p;
	const struct pm_pprof_opts *o;
};

static int pprof__write(void *arg, pm_write_fn *write, void *out)
{
	const struct pprof_write *w = arg;

	return pm_pprof__write(w->p, w->o, write, out);
}

int report_pprof__write(const struct report_pprof *rp, struct pm_reader *r,
			const struct pm_profile *p)
{
	struct pm_pprof_opts o;
	uint32_t ev;
	int err;

	err = pprof__event(rp, p, &ev);
	if (err)
		return err;
	if (!strcmp(rp->path, "-") && isatty(STDOUT_FILENO)) {
		error("refusing to write a binary profile to a terminal; redirect stdout or give "
		      "--pprof=FILE");
		return -EINVAL;
	}
	if (pm_pprof_opts__from_input(&o, r, p, ev))
		return -EINVAL;
	o.labels = rp->labels;
	o.filter = rp->filter;
	err = report_export__write(rp->path, pprof__write, &(struct pprof_write){ p, &o });
	if (err)
		return err < 0 ? -EIO : 0;
	if (rp->lost_samples)
		pm_cmd__lost_samples(rp->input, rp->lost_samples);
	return 0;
}
