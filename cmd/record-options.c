// SPDX-License-Identifier: GPL-2.0
/* pmrec record's command line. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "format/clock.h"
#include "record.h"
#include "base/smallfile.h"
#include "base/units.h"

enum {
	OPT_DURATION = 0x100,
	OPT_FILTER,
	OPT_CALL_GRAPH,
	OPT_REALTIME,
	OPT_OVERWRITE,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES,
	OPT_TIMESTAMP_FILENAME,
	OPT_SYNC,
	OPT_BUILDID_MMAP,
	OPT_SYNTH,
	OPT_CONTROL,
	OPT_BUFFER_SIZE,
	OPT_ALL_USER,
	OPT_ALL_KERNEL,
	OPT_SAMPLE_CPU,
	OPT_SWITCH_EVENTS,
	OPT_MAX_SIZE,
	OPT_OFF_CPU,
};

static const struct argp_option record_options[] = {
	{ .doc = "Targets:", .group = 1 },
	{ .name = "all-cpus", .key = 'a', .doc = "record every online CPU (system-wide)" },
	{ .name = "cpu", .key = 'C', .arg = "LIST", .doc = "record only these CPUs, e.g. 0,2-3" },
	{ .name = "pid", .key = 'p', .arg = "PID[,PID...]",
	  .doc = "record running processes (all their threads)" },
	{ .name = "tid", .key = 't', .arg = "TID[,TID...]", .doc = "record running threads" },
	{ .name = "uid", .key = 'u', .arg = "USER",
	  .doc = "record the processes of USER (a name or a number) running at the start, and "
		 "their children" },
	{ .name = "cgroup", .key = 'G', .arg = "NAME",
	  .doc = "with -a or -C: record only the tasks of cgroup NAME, a path under the "
		 "perf_event cgroup hierarchy (v1, else cgroup2)" },
	{ .name = "no-inherit", .key = 'i', .doc = "do not follow children of recorded tasks" },
	{ .doc = "Events:", .group = 2 },
	{ .name = "event", .key = 'e', .arg = "EVENT",
	  .doc = "event to sample (repeatable, comma-separated): cpu-clock, page-faults, "
		 "SUBSYS:NAME tracepoints, ...; modifiers :u :k" },
	{ .name = "filter", .key = OPT_FILTER, .arg = "EXPR",
	  .doc = "kernel filter for the preceding tracepoint event" },
	{ .name = "freq", .key = 'F', .arg = "HZ|max", .doc = "sample at this rate (default 4000)" },
	{ .name = "count", .key = 'c', .arg = "PERIOD", .doc = "sample every PERIOD events" },
	{ .name = NULL, .key = 'g', .doc = "record frame-pointer call chains" },
	{ .name = "call-graph", .key = OPT_CALL_GRAPH, .arg = "fp|dwarf[,SIZE]",
	  .doc = "call chains from frame pointers, or user stack copies of SIZE bytes "
		 "(default 8192) for DWARF unwinding" },
	{ .name = "all-user", .key = OPT_ALL_USER,
	  .doc = "every event counts in user space only (over :k)" },
	{ .name = "all-kernel", .key = OPT_ALL_KERNEL,
	  .doc = "every event counts in the kernel only (over :u)" },
	{ .name = "data", .key = 'd', .doc = "record the sample addresses (PERF_SAMPLE_ADDR)" },
	{ .name = "sample-cpu", .key = OPT_SAMPLE_CPU,
	  .doc = "record the sample CPU: accepted for perf; pmrec always does" },
	{ .name = "timestamp", .key = 'T',
	  .doc = "record the sample times: accepted for perf; pmrec always does" },
	{ .name = "clockid", .key = 'k', .arg = "CLOCK",
	  .doc = "time samples by CLOCK instead of the perf clock, and record its wall-clock "
		 "reference: monotonic (mono), monotonic_raw (raw), realtime (real), boottime "
		 "(boot), tai, or a clock number; jitdump files need mono" },
	{ .name = "switch-events", .key = OPT_SWITCH_EVENTS,
	  .doc = "record context switches (SWITCH records, SWITCH_CPU_WIDE with -a or -C)" },
	{ .name = "off-cpu", .key = OPT_OFF_CPU,
	  .doc = "also record where threads wait: sched:sched_switch on every switch, with "
		 "call chains as -g says, and the switch-ins it needs (SWITCH records "
		 "without -a or -C); report shows it as offcpu-time" },
	{ .doc = "Output:", .group = 3 },
	{ .name = "output", .key = 'o', .arg = "FILE",
	  .doc = "output file (default pmrec.data); - writes a pipe stream to stdout" },
	{ .name = "no-buildid", .key = 'B',
	  .doc = "do not list the build ids of the mapped files (BUILD_ID feature)" },
	{ .name = "buildid-mmap", .key = OPT_BUILDID_MMAP,
	  .doc = "have the kernel put build ids in MMAP2 records (attr.build_id); see the man "
		 "page for what it does to other sessions" },
	{ .name = "synth", .key = OPT_SYNTH, .arg = "all|task|no",
	  .doc = "what to write about the processes running at the start: COMMs and "
		 "executable mappings (all, the default), COMMs only (task), or nothing (no)" },
	{ .name = "mmap-pages", .key = 'm', .arg = "PAGES",
	  .doc = "ring buffer size per CPU: pages (a power of two) or a size like 512K, 4M" },
	{ .name = "compression-level", .key = 'z', .arg = "N", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "compress the data with zstd at level N (1-22, default 1) into "
		 "COMPRESSED records, as perf record -z does" },
	{ .name = "buffer-size", .key = OPT_BUFFER_SIZE, .arg = "SIZE",
	  .doc = "memory that holds the data while the output is slow (default 64M): a "
		 "writer thread empties it, so a stalled disk or pipe costs memory, not "
		 "samples; 0 writes from the drain itself" },
	{ .name = "sync", .key = OPT_SYNC,
	  .doc = "fdatasync the file at most once a second, so a power loss keeps the data "
		 "up to the last second" },
	{ .name = "delay", .key = 'D', .arg = "MSECS",
	  .doc = "start with the events disabled, enable them after MSECS; -1: only on "
		 "the control channel's enable" },
	{ .name = "control", .key = OPT_CONTROL, .arg = "fifo:CTL[,ACK]|fd:CTL[,ACK]",
	  .doc = "take enable, disable, snapshot, stop and ping from a fifo or an open fd, "
		 "one per line, each answered with ack on ACK" },
	{ .name = "duration", .key = OPT_DURATION, .arg = "SECONDS", .doc = "stop after SECONDS" },
	{ .name = "max-size", .key = OPT_MAX_SIZE, .arg = "SIZE",
	  .doc = "stop when the output file reaches SIZE (e.g. 500K, 100M, 2G; B/K/M/G as "
		 "in perf)" },
	{ .name = "realtime", .key = OPT_REALTIME, .arg = "PRIO", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "drain the rings at SCHED_FIFO priority PRIO (default 1), so a busy "
		 "workload cannot delay the recorder into losing samples" },
	{ .doc = "Flight recorder and rotation:", .group = 4 },
	{ .name = "overwrite", .key = OPT_OVERWRITE,
	  .doc = "keep only the newest data in overwritable rings; write a snapshot file on "
		 "SIGUSR2 (and at exit)" },
	{ .name = "switch-output", .key = OPT_SWITCH_OUTPUT, .arg = "WHEN",
	  .flags = OPTION_ARG_OPTIONAL,
	  .doc = "start a new timestamped file: WHEN is signal (SIGUSR2, the default), a "
		 "SIZE (e.g. 100M) or a TIME (e.g. 30s, 5m); with --overwrite, write a "
		 "snapshot" },
	{ .name = "switch-max-files", .key = OPT_SWITCH_MAX_FILES, .arg = "N",
	  .doc = "keep only the newest N timestamped files" },
	{ .name = "timestamp-filename", .key = OPT_TIMESTAMP_FILENAME,
	  .doc = "give the final file a timestamped name too" },
	{ .doc = "Messages:", .group = 5 },
	{ .name = "quiet", .key = 'q', .doc = "no summary" },
	{ .name = "verbose", .key = 'v', .doc = "show progress" },
	{ 0 }
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

/* PAGES, or a byte size with K/M/G, converted to a power-of-two page count. */
static int parse_mmap_pages(const char *s, size_t *pages)
{
	long page = sysconf(_SC_PAGESIZE);
	bool suffixed;
	uint64_t v;

	if (pm_units__parse_size(s, &v, &suffixed))
		return -EINVAL;
	if (suffixed) {
		if (v % page)
			return -EINVAL;
		v /= page;
	}
	if (!v || (v & (v - 1)) || v > (1ULL << 24))
		return -EINVAL;
	*pages = v;
	return 0;
}

static int parse_call_graph(struct record_opts *o, const char *arg)
{
	uint64_t size;

	if (!strcmp(arg, "fp")) {
		o->callchain = true;
		o->dwarf = false;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return -EINVAL;
	o->callchain = true;
	o->dwarf = true;
	o->dwarf_stack = 8192;
	if (arg[5] == ',') {
		/* The kernel caps the copy below 64 KiB and wants a multiple of 8. */
		if (parse_u64(arg + 6, &size) || !size || size > 65528)
			return -EINVAL;
		o->dwarf_stack = (uint32_t)((size + 7) & ~7ULL);
	}
	return 0;
}

/* signal, SIZE (bytes, K/M/G) or TIME (s/m/h/d). */
static int parse_switch_output(struct record_opts *o, const char *arg)
{
	char *end;
	double v;

	if (!arg || !strcmp(arg, "signal")) {
		o->switch_kind = SWITCH_SIGNAL;
		return 0;
	}
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !(v > 0) || v > 1e15 || (end[0] && end[1]))
		return -EINVAL;
	switch (*end) {
	case 's': o->switch_time = v; break;
	case 'm': o->switch_time = v * 60; break;
	case 'h': o->switch_time = v * 3600; break;
	case 'd': o->switch_time = v * 86400; break;
	case 'B': o->switch_size = (uint64_t)v; break;
	case 'K': case 'k': o->switch_size = (uint64_t)(v * 1024); break;
	case 'M': o->switch_size = (uint64_t)(v * 1024 * 1024); break;
	case 'G': case 'g': o->switch_size = (uint64_t)(v * 1024 * 1024 * 1024); break;
	default: return -EINVAL;
	}
	o->switch_kind = o->switch_time > 0 ? SWITCH_TIME : SWITCH_SIZE;
	return 0;
}

/* -u: a user name, else a number (which needs no passwd entry: containers). */
static int parse_uid(const char *s, uid_t *uid)
{
	struct passwd *pw = getpwnam(s);
	uint64_t v;

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	if (parse_u64(s, &v) || v >= (uid_t)-1)
		return -EINVAL;
	*uid = (uid_t)v;
	return 0;
}

/* --max-size: perf's B/K/M/G, and what other size options take (500K, 1MiB). */
static int parse_max_size(const char *s, uint64_t *bytes)
{
	size_t n = strlen(s);
	char digits[32];

	if (n > 1 && n < sizeof(digits) && (s[n - 1] == 'B' || s[n - 1] == 'b') &&
	    s[n - 2] >= '0' && s[n - 2] <= '9') {
		memcpy(digits, s, n - 1);
		digits[n - 1] = '\0';
		s = digits;
	}
	if (pm_units__parse_size(s, bytes, &(bool){ false }) || !*bytes)
		return -EINVAL;
	return 0;
}

/* -e: an unknown event or an unreadable tracepoint id ends pmrec here. */
static void parse_event(struct record_opts *o, char *arg, struct argp_state *state)
{
	char *bad = NULL;
	int err = pm_evlist__add(&o->evlist, arg, &bad);

	if (err == -ENOENT) {
		error("unknown event '%s'", bad ? bad : arg);
		hint("software events: cpu-clock task-clock page-faults minor-faults major-faults "
		     "context-switches cpu-migrations alignment-faults emulation-faults dummy;");
		hint("tracepoints: SUBSYS:NAME as listed under /sys/kernel/tracing/events");
		free(bad);
		exit(PM_EXIT_USAGE);
	} else if (err == -EINVAL) {
		argp_error(state, "bad event modifier in '%s' (use :u, :k or :uk)", bad ? bad : arg);
	} else if (err) {
		error("cannot use event '%s': %s", bad ? bad : arg, strerror(-err));
		if (err == -EACCES || err == -EPERM)
			hint("tracepoint ids are in tracefs: run as root or mount tracefs");
		free(bad);
		exit(PM_EXIT_FAILURE);
	}
	free(bad);
}

/*
 * --off-cpu: sched:sched_switch sampled on every switch (the one already
 * named with -e, or a new one).  0, or the exit status after the message.
 */
int record__add_off_cpu(struct record_opts *o)
{
	char *bad = NULL;
	size_t i;
	int err;

	for (i = 0; i < o->evlist.nr; i++)
		if (o->evlist.events[i].tracepoint &&
		    !strcmp(o->evlist.events[i].tracepoint, "sched:sched_switch"))
			break;
	if (i == o->evlist.nr) {
		err = pm_evlist__add(&o->evlist, "sched:sched_switch", &bad);
		free(bad);
		if (err) {
			error("--off-cpu: cannot use the tracepoint sched:sched_switch: %s",
			      strerror(-err));
			if (err == -ENOENT)
				hint("it is read from tracefs: mount it (mount -t tracefs nodev "
				     "/sys/kernel/tracing) on a kernel with CONFIG_TRACEPOINTS");
			else if (err == -EACCES || err == -EPERM)
				hint("tracefs (/sys/kernel/tracing) is readable by root only and "
				     "mounting it needs CAP_SYS_ADMIN: run as root");
			return PM_EXIT_FAILURE;
		}
	}
	o->evlist.events[i].every = true;
	return 0;
}

/* Options that exclude each other. */
static void check_opts(const struct record_opts *o, struct argp_state *state)
{
	if ((o->pid_list || o->tid_list) && o->workload)
		argp_error(state, "-p/-t and a workload command exclude each other");
	if ((o->pid_list || o->tid_list) && o->system_wide)
		argp_error(state, "-a and -p/-t exclude each other");
	if (o->no_buildid && o->buildid_mmap)
		argp_error(state, "--no-buildid and --buildid-mmap exclude each other");
	if ((o->overwrite || o->switch_kind || o->timestamp_filename) &&
	    o->output && !strcmp(o->output, "-"))
		argp_error(state, "-o - cannot be combined with --overwrite, --switch-output "
			   "or --timestamp-filename: they write files");
	if (o->overwrite && o->switch_kind == SWITCH_SIZE)
		argp_error(state, "--switch-output=SIZE needs the normal mode; with --overwrite "
			   "use signal or a TIME");
	if (o->switch_max_files && !o->switch_kind && !o->overwrite)
		argp_error(state, "--switch-max-files needs --switch-output or --overwrite");
	if (o->uid_str && (o->pid_list || o->tid_list || o->system_wide || o->cpu_list))
		argp_error(state, "-u and -a/-C/-p/-t exclude each other");
	if (o->cgroup && !o->system_wide && !o->cpu_list)
		argp_error(state, "-G records a cgroup system-wide: add -a (or -C)");
	if (o->cgroup && (o->pid_list || o->tid_list || o->uid_str))
		argp_error(state, "-G and -p/-t/-u exclude each other");
	if (o->max_size && (o->overwrite || o->switch_kind))
		argp_error(state, "--max-size cannot be combined with --overwrite or --switch-output");
}

/* perf record's -u, -G, event bits and --max-size. */
static error_t parse_perf_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;

	switch (key) {
	case OPT_ALL_USER:
	case OPT_ALL_KERNEL:
		if (o->mode && o->mode != (key == OPT_ALL_USER ? PM_EVENT_MODE_USER :
							       PM_EVENT_MODE_KERNEL))
			argp_error(state, "--all-user and --all-kernel exclude each other");
		o->mode = key == OPT_ALL_USER ? PM_EVENT_MODE_USER : PM_EVENT_MODE_KERNEL;
		break;
	case 'd':
		o->sample_addr = true;
		break;
	case OPT_SAMPLE_CPU:
	case 'T':
		/* Every sample carries its CPU and time already (PM_SAMPLE_BASE). */
		break;
	case OPT_SWITCH_EVENTS:
		o->switch_events = true;
		break;
	case 'k':
		if (pm_clock__parse(arg, &o->clockid))
			argp_error(state, "unknown clock '%s' (monotonic, monotonic_raw, realtime, "
				   "boottime, tai, or a clock number)", arg);
		o->use_clockid = true;
		break;
	case OPT_OFF_CPU:
		o->off_cpu = true;
		break;
	case OPT_MAX_SIZE:
		if (parse_max_size(arg, &o->max_size))
			argp_error(state, "bad --max-size '%s' (a size like 500K, 100M or 2G)", arg);
		o->max_size_arg = arg;
		break;
	case 'u':
		if (parse_uid(arg, &o->uid))
			argp_error(state, "unknown user '%s' (a user name or number)", arg);
		o->uid_str = arg;
		break;
	case 'G':
		o->cgroup = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

error_t record__parse_owner(int key, char *arg, struct argp_state *state)
{
	if (key != 'u' && key != 'G')
		return ARGP_ERR_UNKNOWN;
	return parse_perf_opt(key, arg, state);
}

/* When to start, stop and switch files, and how fast to drain. */
static error_t parse_timing_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	uint64_t v;
	double d;
	char *end;

	switch (key) {
	case 'D':
		errno = 0;
		o->delay_ms = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->delay_ms < -1 || o->delay_ms > 1000000000)
			argp_error(state, "bad delay '%s' (milliseconds, or -1 to wait for enable)", arg);
		break;
	case OPT_CONTROL:
		if (pm_control__check_spec(arg))
			argp_error(state, "bad --control '%s' (fifo:CTL[,ACK] or fd:CTL[,ACK])", arg);
		o->control = arg;
		break;
	case OPT_DURATION:
		errno = 0;
		d = strtod(arg, &end);
		if (errno || end == arg || *end || !(d > 0) || d > 1e9)
			argp_error(state, "bad duration '%s' (seconds, e.g. 2.5)", arg);
		o->duration = d;
		break;
	case OPT_OVERWRITE:
		o->overwrite = true;
		break;
	case OPT_SWITCH_OUTPUT:
		if (parse_switch_output(o, arg))
			argp_error(state, "bad --switch-output '%s' (signal, a size like 100M, "
				   "or a time like 30s or 5m)", arg);
		break;
	case OPT_SWITCH_MAX_FILES:
		if (parse_u64(arg, &v) || !v || v > 1000000)
			argp_error(state, "bad --switch-max-files '%s' (a positive number)", arg);
		o->switch_max_files = (unsigned int)v;
		break;
	case OPT_TIMESTAMP_FILENAME:
		o->timestamp_filename = true;
		break;
	case OPT_REALTIME:
		o->realtime = 1;
		if (arg && (parse_u64(arg, &v) || v < 1 || v > 99))
			argp_error(state, "bad realtime priority '%s' (1-99)", arg);
		if (arg)
			o->realtime = (int)v;
		break;
	default:
		return parse_perf_opt(key, arg, state);
	}
	return 0;
}

/* The output: the file, what goes in it, how it is buffered. */
static error_t parse_output_opt(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	uint64_t v;

	switch (key) {
	case 'o':
		o->output = arg;
		break;
	case 'B':
		o->no_buildid = true;
		break;
	case OPT_SYNC:
		o->sync = true;
		break;
	case 'z':
		o->comp_level = 1;
		if (arg && (parse_u64(arg, &v) || v < PM_ZSINK_LEVEL_MIN || v > PM_ZSINK_LEVEL_MAX))
			argp_error(state, "bad compression level '%s' (1-22)", arg);
		if (arg)
			o->comp_level = (int)v;
		break;
	case OPT_BUILDID_MMAP:
		o->buildid_mmap = true;
		break;
	case OPT_SYNTH:
		if (!strcmp(arg, "all"))
			o->synth = PM_RECFILE_SYNTH_ALL;
		else if (!strcmp(arg, "task"))
			o->synth = PM_RECFILE_SYNTH_TASK;
		else if (!strcmp(arg, "no"))
			o->synth = PM_RECFILE_SYNTH_NO;
		else
			argp_error(state, "bad --synth '%s': all, task or no", arg);
		break;
	case 'm':
		if (parse_mmap_pages(arg, &o->mmap_pages))
			argp_error(state, "bad buffer size '%s': a power of two number of pages, "
				   "or a size like 512K that is one", arg);
		break;
	case OPT_BUFFER_SIZE:
		if (pm_units__parse_size(arg, &o->buffer_size, &(bool){ false }) ||
		    o->buffer_size > (16ULL << 30))
			argp_error(state, "bad --buffer-size '%s' (a size like 64M, at most 16G; "
				   "0 for none)", arg);
		break;
	default:
		return parse_timing_opt(key, arg, state);
	}
	return 0;
}

/*
 * What record and top share: the targets, the events and how they are
 * sampled.  Either command's input is a struct record_opts.
 */
static error_t record_parse_sampling(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;

	switch (key) {
	case 'C':
		o->cpu_list = arg;
		break;
	case 'p':
		o->pid_list = arg;
		break;
	case 't':
		o->tid_list = arg;
		break;
	case 'e':
		parse_event(o, arg, state);
		break;
	case 'F':
		if (!strcmp(arg, "max")) {
			if (pm_read_u64("/proc/sys/kernel/perf_event_max_sample_rate", &o->freq))
				argp_error(state, "cannot read kernel.perf_event_max_sample_rate");
		} else if (parse_u64(arg, &o->freq) || !o->freq) {
			argp_error(state, "bad frequency '%s' (a number of Hz, or max)", arg);
		}
		break;
	case 'c':
		if (parse_u64(arg, &o->period) || !o->period)
			argp_error(state, "bad period '%s' (a positive number of events)", arg);
		break;
	case 'g':
		o->callchain = true;
		break;
	case OPT_CALL_GRAPH:
		if (parse_call_graph(o, arg))
			argp_error(state, "bad call graph '%s' (fp, dwarf or dwarf,SIZE with SIZE <= 65528)",
				   arg);
		break;
	case ARGP_KEY_END:
		if (o->pid_list && o->tid_list)
			argp_error(state, "use either -p or -t");
		if (o->period && o->freq)
			argp_error(state, "-c and -F exclude each other");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;

	switch (key) {
	case 'a':
		o->system_wide = true;
		break;
	case 'i':
		o->no_inherit = true;
		break;
	case OPT_FILTER:
		if (pm_evlist__set_filter(&o->evlist, arg))
			argp_error(state, "--filter must follow a tracepoint event (-e SUBSYS:NAME)");
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'v':
		o->verbose++;
		break;
	case ARGP_KEY_ARG:
		/* The first word that is not an option starts the workload. */
		o->workload = &state->argv[state->next - 1];
		o->nr_workload = state->argc - state->next + 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		record_parse_sampling(key, arg, state);
		check_opts(o, state);
		break;
	default:
		if (record_parse_sampling(key, arg, state) != ARGP_ERR_UNKNOWN)
			return 0;
		return parse_output_opt(key, arg, state);
	}
	return 0;
}

/* The same options in top's words (pmrec top shows, it does not record). */
static const struct argp_option sampling_options[] = {
	{ .doc = "Targets (default: every CPU, system-wide):", .group = 1 },
	{ .name = "cpu", .key = 'C', .arg = "LIST", .doc = "only these CPUs, e.g. 0,2-3" },
	{ .name = "pid", .key = 'p', .arg = "PID[,PID...]",
	  .doc = "only these running processes (all their threads)" },
	{ .name = "tid", .key = 't', .arg = "TID[,TID...]", .doc = "only these running threads" },
	{ .doc = "Events:", .group = 2 },
	{ .name = "event", .key = 'e', .arg = "EVENT",
	  .doc = "event to sample (repeatable, comma-separated), as pmrec record -e "
		 "(default cpu-clock)" },
	{ .name = "freq", .key = 'F', .arg = "HZ|max",
	  .doc = "sample at this rate (default: top 4000, agent 97)" },
	{ .name = "count", .key = 'c', .arg = "PERIOD", .doc = "sample every PERIOD events" },
	{ .name = NULL, .key = 'g', .doc = "frame-pointer call chains (call graphs, Enter on a row)" },
	{ .name = "call-graph", .key = OPT_CALL_GRAPH, .arg = "fp|dwarf[,SIZE]",
	  .doc = "call chains from frame pointers, or user stack copies of SIZE bytes "
		 "(default 8192) for DWARF unwinding" },
	{ 0 }
};

const struct argp record_sampling_argp = {
	.options = sampling_options,
	.parser = record_parse_sampling,
};

const struct argp record_argp = {
	.options = record_options,
	.parser = record_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = "Record samples into a perf.data file that perf report, perf script and "
	       "pmrec dump read.\v"
	       "Without -a, -C, -p, -t or -u, the COMMAND is recorded, with its children. "
	       "With -a, -C or -u and a COMMAND, those are recorded until COMMAND exits. "
	       "Exit status: the workload's (128+N if it died of signal N); 1 on a runtime "
	       "failure; 64 on a usage error; 128+N when pmrec was stopped by signal N.",
};
