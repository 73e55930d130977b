// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec report: the profile of a perf.data file or stream, as perf report
 * --stdio shows it (top rows by overhead, call graphs), or one JSON
 * document.
 *
 * This file holds the messages and the order of the phases (the options
 * are report-options.c's):
 * the records are read in time order and named by the pipeline
 * (lib/reader/pipeline.c), counted (lib/print/stats.c) and turned into profile samples (lib/profile/report_sink.c), queried
 * and printed by lib/profile*.c.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "builtin.h"
#include "base/list.h"
#include "reader/pipeline.h"
#include "profile/profile.h"
#include "print/profile_print.h"
#include "report-flame.h"
#include "report-offcpu.h"
#include "report-pprof.h"
#include "report-speedscope.h"
#include "report.h"
#include "profile/report_sink.h"
#include "print/stats.h"

#define QUEUE_SIZE (128u << 20)
/* A pid or CPU list is expanded; more ids than this is not a filter anyone means. */
#define MAX_FILTER_IDS (1u << 22)

struct report {
	struct report_opts opts;
	struct pm_reader *r;
	struct pm_profile *profile;
	struct pm_pipeline pipe;
	struct pm_consumer consumers[3];	/* the stats, off-CPU if on, the sink */
	struct pm_report_sink sink;
	struct report_offcpu offcpu;
	struct pm_speedscope *speedscope;	/* with --speedscope: the sink's stand-in */
	struct pm_consumer speedscope_consumer;
	const char *name;
	/* The input, open while the report lasts: features are read on demand. */
	int fd;
	int32_t *pids, *tids, *cpus;
	size_t nr_pids, nr_tids, nr_cpus;
	/* Last, on lines of its own: the consumers' thread counts in it. */
	_Alignas(64) struct pm_stats stats;
};

/* --- filters ------------------------------------------------------------- */

/* The ids of a list, one by one, as the profile's filter takes them. */
static int expand_ids(const struct pm_id_list *l, int32_t **ids, size_t *nr)
{
	size_t n = 0, i;
	int64_t v;

	for (i = 0; i < l->nr; i++) {
		n += (size_t)(l->r[i].hi - l->r[i].lo + 1);
		if (n > MAX_FILTER_IDS)
			return -E2BIG;
	}
	*ids = n ? malloc(n * sizeof(**ids)) : NULL;
	if (n && !*ids)
		return -ENOMEM;
	*nr = 0;
	for (i = 0; i < l->nr; i++)
		for (v = l->r[i].lo; v <= l->r[i].hi; v++)
			(*ids)[(*nr)++] = (int32_t)v;
	return 0;
}

static int report__filters(struct report *rep)
{
	struct report_opts *o = &rep->opts;
	int err;

	err = expand_ids(&o->pids, &rep->pids, &rep->nr_pids);
	if (!err)
		err = expand_ids(&o->tids, &rep->tids, &rep->nr_tids);
	if (!err)
		err = expand_ids(&o->cpus, &rep->cpus, &rep->nr_cpus);
	if (err == -E2BIG)
		error("an id list of more than %u ids is not a filter", MAX_FILTER_IDS);
	if (!err && o->time_set)
		err = pm_profile__set_time_filter(rep->profile,
						  (const uint64_t (*)[2])o->time, 1);
	return err;
}

/* --- output -------------------------------------------------------------- */

static bool report__has_callchain(const struct report *rep)
{
	size_t i, n = pm_reader__nr_evsels(rep->r);

	for (i = 0; i < n; i++)
		if (pm_reader__evsel(rep->r, i)->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

static size_t report__width(const struct report_opts *o)
{
	struct winsize ws;

	if (o->width >= 0)
		return (size_t)o->width;
	if (o->json || !isatty(STDOUT_FILENO))
		return 0;
	return !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col ? ws.ws_col : 0;
}

/* The printer's percentages, coloured as perf colours them on a terminal. */
static void write_colored(FILE *f, const struct pm_out *text, const struct pm_buf *spans)
{
	static const char *const codes[] = {
		[PM_COLOR_GREEN] = "\033[32m",
		[PM_COLOR_RED] = "\033[31m",
	};
	const struct pm_color_span *sp = (const void *)spans->data;
	size_t i, n = spans->len / sizeof(*sp), at = 0;

	for (i = 0; i < n; i++) {
		fwrite(text->buf + at, 1, sp[i].off - at, f);
		fputs(codes[sp[i].color], f);
		fwrite(text->buf + sp[i].off, 1, sp[i].len, f);
		fputs("\033[m", f);
		at = sp[i].off + sp[i].len;
	}
	fwrite(text->buf + at, 1, text->len - at, f);
}

static bool report__color(const struct report_opts *o)
{
	if (o->json || o->color == COLOR_NEVER)
		return false;
	return o->color == COLOR_ALWAYS || isatty(STDOUT_FILENO);
}

static const char *report__event_name(const void *profile, size_t i)
{
	return pm_profile__event_name(profile, (uint32_t)i);
}

static int report__event_index(struct report *rep, uint32_t *ev)
{
	uint32_t i, n = pm_profile__nr_events(rep->profile);

	for (i = 0; i < n; i++)
		if (!strcmp(pm_profile__event_name(rep->profile, i), rep->opts.event)) {
			*ev = i;
			return 0;
		}
	pm_cmd__no_event(rep->name, rep->opts.event, n, report__event_name, rep->profile);
	return -ENOENT;
}

static void report__query_base(struct report *rep, struct pm_profile_query *q,
			       struct pm_profile_filter *f)
{
	struct report_opts *o = &rep->opts;
	bool chains = report__has_callchain(rep) && o->graph != GRAPH_NONE;
	bool children = o->children < 0 ? chains : o->children;
	enum report_graph g = o->graph;

	*f = (struct pm_profile_filter){
		.comms = o->comms, .nr_comms = o->nr_comms,
		.pids = rep->pids, .nr_pids = rep->nr_pids,
		.tids = rep->tids, .nr_tids = rep->nr_tids,
		.cpus = rep->cpus, .nr_cpus = rep->nr_cpus,
		.relative = o->relative,
	};
	if (g == GRAPH_DEFAULT)
		g = children ? GRAPH_CALLER : GRAPH_CALLEE;
	*q = (struct pm_profile_query){
		.keys = o->nr_keys ? o->keys : NULL,
		.nr_keys = o->nr_keys,
		.children = children,
		.callchain = chains,
		.order = g == GRAPH_CALLER ? PM_PROFILE_ORDER_CALLER : PM_PROFILE_ORDER_CALLEE,
		.percent_limit = o->percent_limit,
		.max_rows = o->max_rows,
		.graph = chains,
		.graph_limit = o->percent_limit_set ? o->percent_limit : 0.5,
		.filter = f,
	};
}

/* The results to print: one event, or each event with samples (the first if none has). */
static int report__query(struct report *rep, struct pm_profile_result ***res, size_t *nr)
{
	uint32_t n = pm_profile__nr_events(rep->profile), ev, only = 0;
	struct pm_profile_filter f;
	struct pm_profile_query q;
	bool any = false;
	int err = 0;

	*nr = 0;
	*res = calloc(n ? n : 1, sizeof(**res));
	if (!*res)
		return -ENOMEM;
	if (rep->opts.event && (err = report__event_index(rep, &only)))
		return err;
	for (ev = 0; ev < n; ev++)
		any |= pm_profile__samples(rep->profile, ev) > 0;
	report__query_base(rep, &q, &f);
	for (ev = 0; ev < n && !err; ev++) {
		if (rep->opts.event ? ev != only :
		    (any ? !pm_profile__samples(rep->profile, ev) : ev > 0))
			continue;
		q.event = ev;
		err = pm_profile__query(rep->profile, &q, &(*res)[*nr]);
		if (!err)
			(*nr)++;
	}
	return err;
}

/* An empty table says why: no samples, none the filters keep, none over the limit. */
static void report__say_empty(struct pm_out *o, struct pm_profile_result *const *res, size_t nr)
{
	static const char none[] = "#\n# No samples in the file.\n";
	static const char hidden[] = "#\n# No samples match the filters.\n";
	static const char limited[] = "#\n# No row reaches --percent-limit.\n";
	uint64_t total = 0, kept = 0, rows = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		total += res[i]->total_samples;
		kept += res[i]->shown_samples;
		rows += res[i]->nr_shown;
	}
	if (!total)
		pm_out__str(o, none);
	else if (!kept)
		pm_out__str(o, hidden);
	else if (!rows)
		pm_out__str(o, limited);
}

static int report__print(struct report *rep)
{
	struct pm_profile_print_opts po = {
		.show_samples = rep->opts.show_samples,
		.lost_samples = pm_stats__lost(&rep->stats),
		.width = report__width(&rep->opts),
	};
	struct pm_profile_result **res = NULL;
	struct pm_buf spans = { 0 };
	struct pm_out b = { 0 };
	size_t nr = 0, i;
	int err = report__query(rep, &res, &nr);

	if (report__color(&rep->opts))
		po.spans = &spans;
	if (!err && rep->opts.json) {
		pm_profile__print_json(&b, res, nr, &po);
	} else if (!err) {
		pm_profile__print_text(&b, res, nr, &po);
		report__say_empty(&b, res, nr);
	}
	if (!err)
		err = b.err;
	if (!err) {
		errno = 0;
		if (po.spans)
			write_colored(stdout, &b, &spans);
		else
			fwrite(b.buf, 1, b.len, stdout);
		/* A short fwrite leaves the error in the stream, not in fflush's result. */
		if (fflush(stdout) || ferror(stdout)) {
			err = errno ? -errno : -EIO;
			if (err != -EPIPE)
				error("write error: %s", strerror(-err));
			err = err == -EPIPE ? err : -EIO;
		}
	}
	if (!err && po.lost_samples)
		pm_cmd__lost_samples(rep->name, po.lost_samples);
	for (i = 0; i < nr; i++)
		pm_profile_result__delete(res[i]);
	free(res);
	pm_out__exit(&b);
	pm_buf__exit(&spans);
	return err;
}

static int report__pprof(struct report *rep)
{
	struct report_pprof *rp = &rep->opts.pprof;
	struct pm_profile_filter f;
	struct pm_profile_query q;

	report__query_base(rep, &q, &f);
	rp->event = rep->opts.event;
	rp->input = rep->name;
	rp->filter = &f;
	rp->lost_samples = pm_stats__lost(&rep->stats);
	return report_pprof__write(rp, rep->r, rep->profile);
}

/* --- entry point --------------------------------------------------------- */

static void report__warn(void *arg, const struct pm_warning *w)
{
	const struct report *rep = arg;

	pm_cmd__warn(rep->name, w);
}

/* Whether the table is sorted by key k. */
static bool report__sorts_by(const struct report *rep, enum pm_profile_key k)
{
	size_t i;

	for (i = 0; i < rep->opts.nr_keys; i++)
		if (rep->opts.keys[i] == k)
			return true;
	return false;
}

/* Source lines: for the srcline key, and for pprof's Line entries. */
static bool report__wants_lines(const struct report *rep)
{
	return report__sorts_by(rep, PM_PROFILE_KEY_SRCLINE) || rep->opts.pprof.path != NULL;
}

/*
 * Whether an output tells the samples' CPUs apart: the cpu key, --cpu,
 * pprof's cpu label, speedscope (an idle thread per CPU).
 */
static bool report__tells_cpus(const struct report *rep)
{
	return report__sorts_by(rep, PM_PROFILE_KEY_CPU) || rep->opts.cpus.nr || rep->speedscope ||
	       (rep->opts.pprof.path && (rep->opts.pprof.labels & PM_PPROF_LABEL_CPU));
}

/*
 * Whether an output tells a command's threads apart: the pid and tid keys,
 * --pid and --tid, pprof's pid and tid labels, speedscope (a profile per
 * thread).
 */
static bool report__tells_threads(const struct report *rep)
{
	return report__sorts_by(rep, PM_PROFILE_KEY_PID) ||
	       report__sorts_by(rep, PM_PROFILE_KEY_TID) || rep->opts.pids.nr ||
	       rep->opts.tids.nr || rep->speedscope ||
	       (rep->opts.pprof.path &&
		(rep->opts.pprof.labels & (PM_PPROF_LABEL_PID | PM_PPROF_LABEL_TID)));
}

static int report__read(struct report *rep)
{
	struct pm_pipeline *p = &rep->pipe;
	size_t n = 1;
	int err, ferr;

	rep->consumers[0] = (struct pm_consumer){ .record = pm_stats__consume,
						  .ctx = &rep->stats };
	err = pm_report_sink__init(&rep->sink, rep->r, rep->profile);
	/* The speedscope exporter pairs the switches itself, on its timelines. */
	if (!err && !rep->speedscope)
		err = report_offcpu__init(&rep->offcpu, rep->opts.wall, &rep->sink, rep->r,
					  &rep->consumers[1]);
	if (err)
		return err;
	n += rep->consumers[1].record != NULL;
	rep->consumers[n++] = rep->speedscope ? rep->speedscope_consumer :
			      (struct pm_consumer){ .record = pm_report_sink__record,
						    .ctx = &rep->sink };
	*p = (struct pm_pipeline){
		.r = rep->r,
		.names = true,
		.kallsyms = true,
		.naming = rep->opts.naming,
		.queue_size = QUEUE_SIZE,
		.threaded = true,
		.consumers = rep->consumers,
		.nr_consumers = n,
		.warn = report__warn,
		.warn_arg = rep,
	};
	err = pm_pipeline__setup(p);
	if (err)
		return err;
	rep->sink.namer = p->namer;
	if (report__wants_lines(rep) && !(rep->sink.srclines = pm_srclines__new()))
		return -ENOMEM;
	if (rep->speedscope)
		pm_speedscope__set_namer(rep->speedscope, p->namer);
	rep->sink.any_cpu = !report__tells_cpus(rep);
	if (!report__tells_threads(rep))
		pm_profile__merge_threads(rep->profile);
	rep->sink.addrs = rep->opts.pprof.path != NULL;
	rep->sink.ip_only = rep->opts.graph == GRAPH_NONE && rep->opts.children != 1 &&
			    !rep->sink.addrs;
	err = pm_pipeline__records(p);
	/* On a fault too: every sample read before it counts. */
	ferr = report_offcpu__finish(&rep->offcpu);
	ferr = pm_report_sink__finish(&rep->sink) ?: ferr;
	pm_pipeline__end(p);
	report_offcpu__notes(&rep->offcpu, rep->name);
	return err ? err : ferr;
}

/* Opens path and reads it into rep's profile; says why it failed.  0 or a negative errno. */
static int report__load(struct report *rep, const char *path)
{
	int err;

	err = pm_cmd__open_input(rep->r, path, &rep->name, &rep->fd);
	if (rep->fd >= 0 || !err)
		err = err ? err : report__read(rep);
	if (err)
		pm_cmd__input_error(rep->name ? rep->name : path, rep->r, err);
	return err;
}

static void report__exit(struct report *rep)
{
	if (rep->fd >= 0)
		close(rep->fd);
	pm_pipeline__exit(&rep->pipe);
	pm_stats__exit(&rep->stats);
	report_offcpu__exit(&rep->offcpu);
	pm_report_sink__exit(&rep->sink);
	pm_speedscope__delete(rep->speedscope);
	pm_profile__delete(rep->profile);
	pm_reader__delete(rep->r);
	free(rep->pids);
	free(rep->tids);
	free(rep->cpus);
}

/* --diff's base: another recording read with the same options. */
static int report__load_other(void *arg, const char *path, struct pm_profile **out)
{
	const struct report *rep = arg;
	struct report other = { .opts = rep->opts, .fd = -1 };
	int err = -ENOMEM;

	other.r = pm_reader__new();
	other.profile = pm_profile__new();
	if (!other.r || !other.profile)
		error("out of memory");
	else if (!(err = report__filters(&other)))
		err = report__load(&other, path);
	if (!err) {
		*out = other.profile;
		other.profile = NULL;
	}
	report__exit(&other);
	return err;
}

/* The flame graph's event: --event's, else the first with samples. */
static int report__flame(struct report *rep)
{
	uint32_t n = pm_profile__nr_events(rep->profile), ev = 0;
	struct pm_profile_filter f;
	struct pm_profile_query q;

	if (rep->opts.event) {
		if (report__event_index(rep, &ev))
			return PM_EXIT_USAGE;
	} else {
		while (ev < n && !pm_profile__samples(rep->profile, ev))
			ev++;
		ev = ev < n ? ev : 0;
	}
	if (!n) {
		error("%s: no events to draw", rep->name);
		return PM_EXIT_FAILURE;
	}
	report__query_base(rep, &q, &f);
	return report_flame__run(&rep->opts.flame, &(struct report_flame_input){
		.profile = rep->profile, .name = rep->name, .event = ev, .filter = &f,
		.width = rep->opts.width, .load = report__load_other, .load_arg = rep, .r = rep->r,
	});
}

static int report__run(struct report *rep)
{
	const char *path = rep->opts.input ? rep->opts.input : pm_cmd__default_input();
	struct report_opts *o = &rep->opts;
	struct pm_profile_filter f;
	struct pm_profile_query q;
	int err;

	if (o->speedscope.file) {
		report__query_base(rep, &q, &f);
		rep->speedscope = report_speedscope__new(&(struct report_speedscope_input){
			.r = rep->r, .event = o->event, .filter = &f, .wall = o->wall,
			.time = o->time_set ? o->time : NULL }, &rep->speedscope_consumer);
		if (!rep->speedscope)
			return PM_EXIT_FAILURE;
	}
	if (o->flame.timeline && report_flame__watch(&o->flame, rep->profile))
		return PM_EXIT_FAILURE;
	err = report__load(rep, path);
	if (!err && rep->speedscope)
		return report_speedscope__run(&o->speedscope, rep->speedscope, rep->r, rep->name,
					      o->event);
	if (!err && rep->opts.flame.file)
		return report__flame(rep);
	if (!err) {
		err = rep->opts.pprof.path ? report__pprof(rep) : report__print(rep);
		if (err == -ENOENT)
			return PM_EXIT_USAGE;
		if (err == -ENOMEM)
			error("out of memory");
		/* The reader of stdout went away (| head): not a failure, as for dump. */
		if (err == -EPIPE)
			return PM_EXIT_OK;
	}
	return err ? PM_EXIT_FAILURE : PM_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report rep = {
		.opts = { .children = -1, .width = -1, .pprof.labels = PM_PPROF_LABELS_DEFAULT },
		.fd = -1,
	};
	int ret;

	if (argp_parse(&report_argp, argc, argv, 0, NULL, &rep.opts))
		return PM_EXIT_USAGE;
	signal(SIGPIPE, SIG_IGN);
	rep.r = pm_reader__new();
	rep.profile = pm_profile__new();
	if (!rep.r || !rep.profile) {
		error("out of memory");
		ret = PM_EXIT_FAILURE;
	} else if (report__filters(&rep)) {
		ret = PM_EXIT_USAGE;
	} else {
		ret = report__run(&rep);
	}
	report__exit(&rep);
	report_flame__exit(&rep.opts.flame);
	pm_id_list__exit(&rep.opts.pids);
	pm_id_list__exit(&rep.opts.tids);
	pm_id_list__exit(&rep.opts.cpus);
	free(rep.opts.comms);
	return ret;
}
