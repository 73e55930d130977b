// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec top: the hottest functions of the machine now, one table per
 * interval.  The events and rings are record's (lib/record/evset.c, lib/record/drain.c);
 * the drain's sink is the live profile (lib/profile/live.c) instead of a file.
 * This file parses the options and runs the phases: events, intervals,
 * then a table per interval to stdout (--batch) or the view (top-view.c).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "base/emit.h"
#include "live-events.h"
#include "print/profile_print.h"
#include "top.h"

/* 512 KiB per CPU: a wake-up every 128 KiB, several a second at 4000 Hz with -g. */
#define TOP_MMAP_PAGES 128

enum {
	OPT_JSON = 0x200,
	OPT_DECAY,
};

static const struct argp_option top_options[] = {
	{ .doc = "Display:", .group = 10 },
	{ .name = "delay", .key = 'd', .arg = "SECONDS",
	  .doc = "refresh every SECONDS (default 2; fractions such as 0.5 are fine, at least "
		 "0.05)" },
	{ .name = "batch", .key = 'b',
	  .doc = "print one table per interval to stdout instead of the interactive view "
		 "(the default when stdin or stdout is not a terminal)" },
	{ .name = "iterations", .key = 'n', .arg = "N",
	  .doc = "stop after N intervals (default: until stopped)" },
	{ .name = "json", .key = OPT_JSON,
	  .doc = "with --batch (implied): one JSON object per interval and line" },
	{ .name = "sort", .key = 's', .arg = "KEYS",
	  .doc = "rows by these keys, as pmrec report: comm, pid, tid, cpu, dso, sym "
		 "(default comm,dso,sym)" },
	{ .name = "decay", .key = OPT_DECAY,
	  .doc = "each interval starts from the last one scaled by 7/8, as perf top's counts "
		 "decay (default: each interval counts alone)" },
	{ 0 }
};

static const char valid_keys[] = "comm, pid, tid, cpu, dso, sym";
#define TOP_KEYS (1u << PM_PROFILE_KEY_COMM | 1u << PM_PROFILE_KEY_PID | 1u << PM_PROFILE_KEY_TID | \
		  1u << PM_PROFILE_KEY_CPU | 1u << PM_PROFILE_KEY_DSO | 1u << PM_PROFILE_KEY_SYM)

int64_t top__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	struct top_opts *o = state->input;
	char *end;
	double d;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->rec;
		break;
	case 'd':
		errno = 0;
		d = strtod(arg, &end);
		if (errno || end == arg || *end || !(d >= 0.05) || d > 86400)
			argp_error(state, "bad delay '%s' (seconds, from 0.05, e.g. 2 or 0.5)", arg);
		o->delay = d;
		break;
	case 'b':
		o->batch = true;
		break;
	case 'n':
		errno = 0;
		o->iterations = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || *arg == '-' || !o->iterations)
			argp_error(state, "bad iterations '%s' (a positive number)", arg);
		break;
	case OPT_JSON:
		o->json = true;
		o->batch = true;
		break;
	case 's':
		pm_cmd__parse_sort(state, arg, TOP_KEYS, valid_keys, o->keys, &o->nr_keys);
		break;
	case OPT_DECAY:
		o->decay = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "pmrec top takes no command; to watch one, start it and give -p");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child top_children[] = {
	{ .argp = &record_sampling_argp, .group = 0 },
	{ 0 }
};

static const struct argp top_argp = {
	.options = top_options,
	.parser = top_parse,
	.children = top_children,
	.doc = "Show the hottest functions of the machine now, refreshed every few seconds: "
	       "an interactive view, or one table per interval with --batch.\v"
	       "Keys of the view: q quit, s next sort, k kernel rows only, u user rows only, "
	       "/ filter by command or symbol, f freeze, z zero, Up/Down and Enter a row's "
	       "call graph (with -g).  Exit status: 0; 1 on a runtime failure; 64 on a usage "
	       "error; 128+N when stopped by signal N.",
};

/* ---- events ----------------------------------------------------------- */

/* What naming has to say goes nowhere in the view: it would tear the screen. */
static void top__warn(void *arg, const struct pm_warning *w)
{
	struct top *t = arg;

	if (!t->view && w->kind == PM_WARN_NO_KALLSYMS)
		error("cannot read /proc/kallsyms: %s; kernel functions are unnamed",
		      strerror(w->err));
}

static int top__open_events(struct top *t)
{
	t->live = pm_live__new(&(struct pm_live_config){
		.evlist = &t->o->rec.evlist,
		.callchain = t->o->rec.callchain,
		.decay = t->o->decay,
		.warn = top__warn,
		.warn_arg = t,
	});
	if (!t->live) {
		error("out of memory");
		return PM_EXIT_FAILURE;
	}
	return live_events__open(&t->rec, t->live, t->epfd >= 0 ? t->epfd : t->sigfd);
}

/* ---- signals and the loop --------------------------------------------- */

/* The signals; the view waits on them and the keys at once.  0 or a negative errno. */
static int top__watch(struct top *t)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGWINCH);
	t->sigfd = sigwatch__open(&set, NULL);
	if (t->sigfd < 0)
		return t->sigfd;
	if (t->o->batch)
		return 0;
	t->epfd = sigwatch__epoll((const int[]){ t->sigfd, STDIN_FILENO }, 2);
	return t->epfd < 0 ? t->epfd : 0;
}

static void top__handle_signals(struct top *t)
{
	int sig;

	while ((sig = sigwatch__next(t->sigfd))) {
		if (sig == SIGWINCH) {
			if (t->view)
				top_view__resize(t->view);
		} else {
			t->stop_signal = sig;
		}
	}
}

/*
 * The view's first table comes within half a second, as top(1)'s first
 * screen does, whatever --delay says; batch intervals are all --delay
 * long, so that scripts compare like with like.
 */
#define FIRST_VIEW_NS 500000000LL

static int64_t top__interval_len(const struct top *t)
{
	int64_t ns = (int64_t)(t->o->delay * 1e9);

	return t->view && !t->iv.number && ns > FIRST_VIEW_NS ? FIRST_VIEW_NS : ns;
}

static bool top__expired(void *arg, int *timeout_ms)
{
	struct top *t = arg;
	int64_t left = t->interval_ns + top__interval_len(t) - top__now();

	if (t->quit || t->stop_signal)
		return true;
	/* Frozen, the interval goes on until the view thaws. */
	if (t->frozen) {
		*timeout_ms = 1000;
		return false;
	}
	if (left <= 0)
		return true;
	*timeout_ms = (int)((left + 999999) / 1000000);
	return false;
}

static bool top__watched(void *arg)
{
	struct top *t = arg;

	top__handle_signals(t);
	if (t->view && !t->stop_signal && top_view__keys(t->view))
		t->quit = true;
	return t->quit || t->stop_signal;
}

static int top__tick(void *arg)
{
	return 0;
}

/* ---- output ----------------------------------------------------------- */

/* The first event's rows, by the sort keys. */
int top__query(struct top *t, const enum pm_profile_key *keys, size_t nr_keys,
	       bool graph, struct pm_profile_result **res)
{
	struct pm_profile_query q = {
		.keys = nr_keys ? keys : NULL,
		.nr_keys = nr_keys,
		.callchain = graph,
		.graph = graph,
		.graph_limit = 0.5,
	};

	return pm_profile__query(t->profile, &q, res);
}

static int top__print(struct top *t, struct pm_out *out)
{
	struct pm_profile_print_opts po = { .lost_samples = t->iv.counts.lost };
	struct pm_profile_result *res = NULL;
	int err = top__query(t, t->o->keys, t->o->nr_keys, t->o->rec.callchain && !t->o->json,
			     &res);

	if (!err && t->o->json) {
		pm_live__print_json(out, &t->iv, res);
	} else if (!err) {
		pm_live__print_header(out, &t->iv);
		pm_profile__print_text(out, &res, 1, &po);
		pm_out__ch(out, '\n');
	}
	pm_out__flush(out);
	pm_profile_result__delete(res);
	if (!err && out->err && out->err != -EPIPE)
		error("write error: %s", strerror(-out->err));
	if (err)
		error("cannot build the table: %s", strerror(-err));
	return err ? err : out->err;
}

/* The interval ends: its profile, its numbers, shown. */
static int top__interval(struct top *t, struct pm_out *out)
{
	int64_t now = top__now();
	struct pm_live_counts c;
	int err = pm_live__interval(t->live, &t->profile, &c);

	if (err) {
		error("cannot end the interval: %s", strerror(-err));
		return err;
	}
	t->iv = (struct pm_live_interval){
		.number = t->iv.number + 1,
		.time = (double)(now - t->start_ns) / 1e9,
		.seconds = (double)(now - t->interval_ns) / 1e9,
		.counts = c,
	};
	t->interval_ns = now;
	if (t->view) {
		top_view__draw(t->view);
		return 0;
	}
	return top__print(t, out);
}

static int top__loop(struct top *t)
{
	const struct pm_drain_driver drv = {
		.expired = top__expired, .watched = top__watched, .tick = top__tick, .arg = t,
	};
	struct pm_out out;
	int err;

	if (pm_out__init_fd(&out, STDOUT_FILENO, 64 * 1024)) {
		error("out of memory");
		return PM_EXIT_FAILURE;
	}
	t->start_ns = t->interval_ns = top__now();
	if (t->view)
		top_view__draw(t->view);
	for (;;) {
		err = pm_drain__loop(t->rec.drain, &drv);
		if (err) {
			error("cannot read the rings: %s", strerror(-err));
			break;
		}
		if (t->quit || t->stop_signal)
			break;
		/* Back from the loop only because every task is gone: nothing to show. */
		if (t->frozen)
			continue;
		err = top__interval(t, &out);
		if (err || (t->o->iterations && t->iv.number >= t->o->iterations))
			break;
		/*
		 * -p/-t: every task is gone, nothing more will come.  The view
		 * keeps the last table, frozen, until q.
		 */
		if (pm_drain__all_retired(t->rec.drain) && !t->view) {
			error("every task watched has exited");
			break;
		}
		if (pm_drain__all_retired(t->rec.drain) && !t->frozen) {
			t->frozen = true;
			top_view__draw(t->view);
		}
	}
	pm_out__exit(&out);
	if (t->stop_signal)
		return 128 + t->stop_signal;
	if (err == -EPIPE)
		return PM_EXIT_EPIPE;
	return err ? PM_EXIT_FAILURE : PM_EXIT_OK;
}

/* ---- phases ----------------------------------------------------------- */

static int top__run(struct top *t)
{
	int status;

	status = record__setup_targets(&t->rec);
	if (status)
		return status;
	status = top__watch(t);
	if (status) {
		error("cannot set up signal handling: %s", strerror(-status));
		return PM_EXIT_FAILURE;
	}
	status = top__open_events(t);
	if (status)
		return status;
	if (!t->o->batch) {
		t->view = top_view__new(t);
		if (!t->view)
			return PM_EXIT_FAILURE;
	}
	return top__loop(t);
}

static void top__teardown(struct top *t)
{
	/* The terminal first: whatever fails after, the user sees it. */
	top_view__delete(t->view);
	pm_drain__delete(t->rec.drain);
	pm_live__delete(t->live);
	if (t->sigfd >= 0)
		close(t->sigfd);
	if (t->epfd >= 0)
		close(t->epfd);
	pm_target__exit(&t->rec.targets);
	pm_cpumap__exit(&t->rec.cpus);
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { .delay = 2, .rec = { .mmap_pages = TOP_MMAP_PAGES } };
	struct top t = { .o = &o, .sigfd = -1, .epfd = -1 };
	char *bad = NULL;
	int status;

	t.rec = (struct record){ .opts = &o.rec, .sigfd = -1, .epfd = -1, .cgroup_fd = -1 };
	if (argp_parse(&top_argp, argc, argv, 0, NULL, &o))
		return PM_EXIT_USAGE;
	if (!o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		error("not a terminal: printing one table per interval (--batch)");
		o.batch = true;
	}
	/* System-wide unless told which tasks or CPUs. */
	o.rec.system_wide = !o.rec.pid_list && !o.rec.tid_list && !o.rec.cpu_list;
	if (!o.rec.evlist.nr && pm_evlist__add(&o.rec.evlist, "cpu-clock", &bad)) {
		error("cannot set up the default event cpu-clock");
		free(bad);
		return PM_EXIT_FAILURE;
	}
	status = top__run(&t);
	top__teardown(&t);
	pm_evlist__exit(&o.rec.evlist);
	return status;
}
