// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec agent: profiles the machine without end, at a low rate, and
 * sends each window to a Grafana Pyroscope server (its /ingest API) or
 * writes it as a pprof file.  The events and rings are record's, the drain's
 * sink top's live profile (lib/profile/live.c); a thread of the uploader
 * (lib/export/uploader.c) does the network, so that the drain never waits.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "builtin.h"
#include "live-events.h"
#include "base/units.h"

#define AGENT_MMAP_PAGES 16	/* 64 KiB per CPU: 97 Hz with -g fills it in seconds */
#define AGENT_FREQ 97		/* not 100: off the beat of timers that tick in round numbers */

enum {
	OPT_SERVER = 0x200,
	OPT_APP_NAME,
	OPT_TAGS,
	OPT_INTERVAL,
	OPT_OUTPUT_DIR,
	OPT_HEADER,
	OPT_TIMEOUT,
	OPT_QUEUE,
	OPT_SPOOL_DIR,
	OPT_SPOOL_SIZE,
	OPT_NO_CALL_GRAPH,
};

#define AGENT_SPOOL_SIZE (64ULL << 20)

static const struct argp_option agent_options[] = {
	{ .doc = "Where the windows go:", .group = 10 },
	{ .name = "server", .key = OPT_SERVER, .arg = "URL",
	  .doc = "send each window to this Pyroscope server (http:// or https://; "
		 "POST URL/ingest)" },
	{ .name = "output-dir", .key = OPT_OUTPUT_DIR, .arg = "DIR",
	  .doc = "write each window as DIR/NAME-FROM-UNTIL.pb.gz (as well as sending it, "
		 "with --server)" },
	{ .name = "app-name", .key = OPT_APP_NAME, .arg = "NAME",
	  .doc = "the application's name, and the service_name label (default pmrec)" },
	{ .name = "tags", .key = OPT_TAGS, .arg = "K=V,...",
	  .doc = "more labels of the series, besides hostname and service_name" },
	{ .name = "interval", .key = OPT_INTERVAL, .arg = "SECONDS",
	  .doc = "seconds per window (default 10, whole seconds)" },
	{ .name = "header", .key = OPT_HEADER, .arg = "'NAME: VALUE'",
	  .doc = "send this header with every request (repeatable): X-Scope-OrgID, "
		 "Authorization" },
	{ .name = "timeout", .key = OPT_TIMEOUT, .arg = "SECONDS",
	  .doc = "give up a try after SECONDS, connecting included (default 10)" },
	{ .name = "queue", .key = OPT_QUEUE, .arg = "N",
	  .doc = "windows held in memory while the server does not take them (default 8); "
		 "then the oldest goes to the spool, or is dropped" },
	{ .name = "spool-dir", .key = OPT_SPOOL_DIR, .arg = "DIR",
	  .doc = "keep the windows the queue has no room for, and those left at exit, as files "
		 "in DIR (made 0700; root's alone), sent oldest first when the server answers, "
		 "by this run or the next" },
	{ .name = "spool-size", .key = OPT_SPOOL_SIZE, .arg = "SIZE",
	  .doc = "the spool's bound on disk (default 64M, at least 4K); past it the oldest "
		 "windows are dropped" },
	{ 0 }
};

/* -u and -G, as pmrec record parses them (record__parse_owner). */
static const struct argp_option agent_owner_options[] = {
	{ .name = "uid", .key = 'u', .arg = "USER", .group = 1,
	  .doc = "only the processes of USER (a name or a number) running at the start, and "
		 "their children; the agent exits once they all have" },
	{ .name = "cgroup", .key = 'G', .arg = "NAME",
	  .doc = "only the tasks of cgroup NAME, a path under the perf_event cgroup hierarchy "
		 "(v1, else cgroup2), on every CPU or those of -C" },
	{ .name = "no-call-graph", .key = OPT_NO_CALL_GRAPH, .group = 2,
	  .doc = "no call chains: the sampled function alone (cheaper samples, flat profiles)" },
	{ 0 }
};

static error_t agent_parse_owner(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;

	switch (key) {
	case OPT_NO_CALL_GRAPH:
		o->callchain = false;
		o->dwarf = false;
		return 0;
	case ARGP_KEY_END:
		if (o->uid_str && (o->pid_list || o->tid_list || o->cpu_list))
			argp_error(state, "-u and -C/-p/-t exclude each other");
		if (o->cgroup && (o->pid_list || o->tid_list || o->uid_str))
			argp_error(state, "-G and -p/-t/-u exclude each other");
		return 0;
	default:
		return record__parse_owner(key, arg, state);
	}
}

static const struct argp agent_owner_argp = {
	.options = agent_owner_options,
	.parser = agent_parse_owner,
};

/* A positive whole number up to max, else a usage error naming what. */
static unsigned long agent__parse_count(struct argp_state *state, const char *arg,
					const char *what, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || !v || v > max)
		argp_error(state, "bad %s '%s' (a whole number from 1 to %lu)", what, arg, max);
	return v;
}

static void agent__add_header(struct argp_state *state, struct agent_opts *o, char *arg)
{
	const char **h;

	if (!strchr(arg, ':') || *arg == ':')
		argp_error(state, "bad --header '%s' (NAME: VALUE)", arg);
	h = realloc(o->headers, (o->nr_headers + 1) * sizeof(*h));
	if (!h)
		argp_failure(state, PM_EXIT_FAILURE, ENOMEM, "--header");
	h[o->nr_headers++] = arg;
	o->headers = h;
}

static error_t agent_parse(int key, char *arg, struct argp_state *state)
{
	struct agent_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->rec;
		state->child_inputs[1] = &o->rec;
		break;
	case OPT_SERVER:
		if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8))
			argp_error(state, "bad --server '%s' (http://HOST:PORT or https://...)", arg);
		o->server = arg;
		break;
	case OPT_OUTPUT_DIR:
		o->output_dir = arg;
		break;
	case OPT_APP_NAME:
		if (!*arg || strpbrk(arg, "{}=,"))
			argp_error(state, "bad --app-name '%s' (a name without { } = ,)", arg);
		o->app_name = arg;
		break;
	case OPT_TAGS:
		if (!strchr(arg, '=') || strpbrk(arg, "{}"))
			argp_error(state, "bad --tags '%s' (KEY=VALUE,...)", arg);
		o->tags = arg;
		break;
	case OPT_INTERVAL:
		o->interval = (unsigned)agent__parse_count(state, arg, "interval", 3600);
		break;
	case OPT_HEADER:
		agent__add_header(state, o, arg);
		break;
	case OPT_TIMEOUT:
		o->timeout_ms = (long)agent__parse_count(state, arg, "timeout", 600) * 1000;
		break;
	case OPT_QUEUE:
		o->queue = agent__parse_count(state, arg, "queue", 1024);
		break;
	case OPT_SPOOL_DIR:
		o->spool_dir = arg;
		break;
	case OPT_SPOOL_SIZE:
		if (pm_units__parse_size(arg, &o->spool_size, &(bool){ false }) ||
		    o->spool_size < 4096 || o->spool_size > (1ULL << 40))
			argp_error(state, "bad --spool-size '%s' (a size like 64M, from 4K to 1024G)",
				   arg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "pmrec agent takes no command; to watch one, start it and give -p");
		break;
	case ARGP_KEY_END:
		if (!o->server && !o->output_dir)
			argp_error(state, "where do the windows go? give --server=URL or "
				   "--output-dir=DIR");
		if (o->spool_dir && !o->server)
			argp_error(state, "--spool-dir keeps what --server did not take: give "
				   "--server=URL");
		if (o->spool_size && !o->spool_dir)
			argp_error(state, "--spool-size bounds the spool: give --spool-dir=DIR");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child agent_children[] = {
	{ .argp = &record_sampling_argp, .group = 0 },
	{ .argp = &agent_owner_argp, .group = 0 },
	{ 0 }
};

static const struct argp agent_argp = {
	.options = agent_options,
	.parser = agent_parse,
	.children = agent_children,
	.doc = "Profile the machine continuously and send each window to a Grafana "
	       "Pyroscope server, or write it as a pprof file: system-wide at 97 Hz with "
	       "frame-pointer call chains unless told otherwise.\v"
	       "SIGUSR1 prints what was sent, retried, rejected, spooled and dropped; SIGTERM and "
	       "SIGINT send the window under way, then exit.  Exit status: 0 when stopped "
	       "by SIGTERM or SIGINT; 1 on a runtime failure; 64 on a usage error.",
};

/* ---- events ----------------------------------------------------------- */

static void agent__warn(void *arg, const struct pm_warning *w)
{
	(void)arg;
	if (w->kind == PM_WARN_NO_KALLSYMS)
		error("cannot read /proc/kallsyms: %s; kernel functions are unnamed",
		      strerror(w->err));
}

static int agent__open_events(struct agent *a)
{
	a->live = pm_live__new(&(struct pm_live_config){
		.evlist = &a->o->rec.evlist,
		.callchain = a->o->rec.callchain,
		.addrs = true,
		/* Mapped from the cache, the kernel's 100k+ symbols cost pages read, not 5 MB. */
		.naming = { .kallsyms_cache = pm_cmd__kallsyms_cache_dir() },
		.warn = agent__warn,
		.warn_arg = a,
	});
	if (!a->live) {
		error("out of memory");
		return PM_EXIT_FAILURE;
	}
	return live_events__open(&a->rec, a->live, a->sigfd);
}

/* ---- the loop --------------------------------------------------------- */

int64_t agent__clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t agent__mono_at(const struct agent *a, int64_t t)
{
	return a->mono0_ns + (t * 1000000000 - a->wall0_ns);
}

static void agent__counts_now(struct agent *a)
{
	struct pm_uploader_counts c = { 0 };

	if (a->up)
		pm_uploader__counts(a->up, &c);
	agent__print_counts(a, &c);
}

static bool agent__expired(void *arg, int *timeout_ms)
{
	struct agent *a = arg;
	int64_t left = agent__mono_at(a, a->from + a->o->interval) - agent__clock(CLOCK_MONOTONIC);

	if (a->stop_signal || left <= 0)
		return true;
	*timeout_ms = (int)((left + 999999) / 1000000);
	return false;
}

static bool agent__watched(void *arg)
{
	struct agent *a = arg;
	int sig;

	while ((sig = sigwatch__next(a->sigfd))) {
		if (sig == SIGUSR1)
			agent__counts_now(a);
		else if (sig != SIGHUP)
			a->stop_signal = sig;
	}
	return a->stop_signal;
}

static int agent__tick(void *arg)
{
	(void)arg;
	return 0;
}

/* The windows, until a signal or (with -p/-t) every task is gone. */
static int agent__loop(struct agent *a)
{
	const struct pm_drain_driver drv = {
		.expired = agent__expired, .watched = agent__watched, .tick = agent__tick, .arg = a,
	};
	int err;

	a->wall0_ns = agent__clock(CLOCK_REALTIME);
	a->mono0_ns = agent__clock(CLOCK_MONOTONIC);
	a->from = a->wall0_ns / 1000000000;
	for (;;) {
		int64_t now;
		bool busy;

		err = pm_drain__loop(a->rec.drain, &drv);
		if (err) {
			error("cannot read the rings: %s", strerror(-err));
			return PM_EXIT_FAILURE;
		}
		/*
		 * A stop cuts the window short: it ends at the second under way,
		 * with the rings read to their last byte (a ring is read when it
		 * is a quarter full: a second or more of samples at 97 Hz with -g).
		 */
		now = agent__clock(CLOCK_REALTIME);
		if (a->stop_signal || pm_drain__all_retired(a->rec.drain)) {
			err = pm_drain__stop(a->rec.drain, NULL, NULL);
			if (err)
				error("cannot read the rings: %s", strerror(-err));
			return agent__window(a, now / 1000000000 + 1) ? PM_EXIT_FAILURE : 0;
		}
		/* The window holds what the rings have of it. */
		err = pm_drain__pass(a->rec.drain, &busy);
		if (err) {
			error("cannot read the rings: %s", strerror(-err));
			return PM_EXIT_FAILURE;
		}
		if (agent__window(a, a->from + a->o->interval))
			return PM_EXIT_FAILURE;
	}
}

/* ---- phases ----------------------------------------------------------- */

/* --spool-dir: the directory checked, and what a previous run left said. */
static int agent__open_spool(struct agent *a, struct pm_spool **spool)
{
	const struct agent_opts *o = a->o;
	struct pm_spool_found f;
	int err;

	*spool = NULL;
	if (!o->spool_dir)
		return 0;
	err = pm_spool__open(spool, o->spool_dir, o->spool_size ? o->spool_size :
			     AGENT_SPOOL_SIZE, &f);
	if (err == -EPERM) {
		error("spool directory '%s' is not safe: it must be owned by uid %u and "
		      "writable by no one else (chmod 700)", o->spool_dir,
		      (unsigned)geteuid());
		return PM_EXIT_FAILURE;
	}
	if (err == -EBUSY) {
		error("spool directory '%s' is in use by another pmrec agent", o->spool_dir);
		return PM_EXIT_FAILURE;
	}
	if (err) {
		error("cannot use spool directory '%s': %s", o->spool_dir,
		      strerror(-err));
		return PM_EXIT_FAILURE;
	}
	if (f.windows || f.dropped)
		note("%" PRIu64 " windows (%" PRIu64 " KiB) left in the spool by a previous run, "
		     "sent first; %" PRIu64 " older ones dropped for room", f.windows,
		     f.bytes / 1024, f.dropped);
	return 0;
}

static int agent__start_uploader(struct agent *a)
{
	struct agent_opts *o = a->o;
	struct pm_spool *spool;

	if (!o->server)
		return 0;
	if (agent__open_spool(a, &spool))
		return PM_EXIT_FAILURE;
	a->up = pm_uploader__new(&(struct pm_uploader_config){
		.server = {
			.server = o->server, .name = a->series,
			.sample_rate = (unsigned)(o->rec.freq ? o->rec.freq : 0),
			.headers = o->headers, .nr_headers = o->nr_headers,
			.timeout_ms = o->timeout_ms,
		},
		.max_windows = o->queue,
		.backoff_max_ms = (long)o->interval * 1000,
		.spool = spool,
	});
	if (!a->up) {
		error("cannot start sending: %s", strerror(errno));
		return PM_EXIT_FAILURE;
	}
	return 0;
}

static int agent__run(struct agent *a)
{
	char host[256] = "localhost";
	sigset_t set;
	int status;

	gethostname(host, sizeof(host) - 1);
	a->series = pm_pyroscope__series(a->o->app_name, host, a->o->tags);
	if (!a->series) {
		error("out of memory");
		return PM_EXIT_FAILURE;
	}
	status = record__setup_targets(&a->rec);
	if (status)
		return status;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGUSR1);
	a->sigfd = sigwatch__open(&set, NULL);
	if (a->sigfd < 0) {
		error("cannot set up signal handling: %s", strerror(-a->sigfd));
		return PM_EXIT_FAILURE;
	}
	status = agent__start_uploader(a);
	if (!status)
		status = agent__open_events(a);
	return status ? status : agent__loop(a);
}

/* The drain first (no more samples), then what is queued gets its last tries. */
static void agent__teardown(struct agent *a)
{
	struct pm_uploader_counts c = { 0 };

	pm_drain__delete(a->rec.drain);
	pm_uploader__close(a->up, a->o->timeout_ms, &c);
	if (a->windows)
		agent__print_counts(a, &c);
	pm_live__delete(a->live);
	if (a->sigfd >= 0)
		close(a->sigfd);
	if (a->rec.cgroup_fd >= 0)
		close(a->rec.cgroup_fd);
	pm_target__exit(&a->rec.targets);
	pm_cpumap__exit(&a->rec.cpus);
	free(a->series);
}

int cmd_agent(int argc, char **argv)
{
	struct agent_opts o = {
		.rec = { .mmap_pages = AGENT_MMAP_PAGES, .callchain = true },
		.app_name = "pmrec", .interval = 10, .timeout_ms = 10000, .queue = 8,
	};
	struct agent a = { .o = &o, .sigfd = -1 };
	char *bad = NULL;
	int status;

	a.rec = (struct record){ .opts = &o.rec, .sigfd = -1, .epfd = -1, .cgroup_fd = -1 };
	if (argp_parse(&agent_argp, argc, argv, 0, NULL, &o))
		return PM_EXIT_USAGE;
	o.rec.system_wide = !o.rec.pid_list && !o.rec.tid_list && !o.rec.cpu_list &&
			    !o.rec.uid_str;
	if (!o.rec.freq && !o.rec.period)
		o.rec.freq = AGENT_FREQ;
	if (!o.rec.evlist.nr && pm_evlist__add(&o.rec.evlist, "cpu-clock", &bad)) {
		error("cannot set up the default event cpu-clock");
		free(bad);
		return PM_EXIT_FAILURE;
	}
	status = agent__run(&a);
	agent__teardown(&a);
	pm_evlist__exit(&o.rec.evlist);
	free(o.headers);
	return status;
}
