// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec record: open one perf event per CPU (and per task), map one ring per
 * CPU, drain every ring on each wake-up and write the records as perf.data.
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "buildid.h"
#include "builtin.h"
#include "cpumap.h"
#include "drain.h"
#include "elf.h"
#include "event.h"
#include "evset.h"
#include "hostinfo.h"
#include "output.h"
#include "pmdata.h"
#include "ring.h"
#include "snapshot.h"
#include "synth.h"
#include "tracing.h"
#include "units.h"

#define DEFAULT_MMAP_PAGES 128
#define POLL_TIMEOUT_MS 100

struct record_opts {
	const char *output;
	const char *cpu_list;
	const char *pid_list;
	const char *tid_list;
	bool system_wide;
	bool no_inherit;
	bool quiet;
	int verbose;
	uint64_t freq;
	uint64_t period;
	bool callchain;
	bool dwarf;
	uint32_t dwarf_stack;
	size_t mmap_pages;
	double duration;
	int realtime;
	bool overwrite;
	enum { SWITCH_NONE, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME } switch_kind;
	uint64_t switch_size;		/* bytes */
	double switch_time;		/* seconds */
	unsigned int switch_max_files;
	bool timestamp_filename;
	bool no_buildid;
	bool buildid_mmap;
	enum { SYNTH_ALL, SYNTH_TASK, SYNTH_NO } synth;
	bool sync;
	char **workload;
	int nr_workload;
	struct pm_evlist evlist;
};

struct record {
	struct record_opts *opts;
	struct pm_cpumap cpus;
	pid_t *tids;			/* -1 alone for system-wide */
	size_t nr_tids;
	struct pm_drain drain;		/* the rings, their fds and what they carried */
	struct pmdata out;
	struct pm_output file;
	int sigfd;
	sigset_t oldmask;
	pid_t child;
	int child_status;
	bool child_running;
	int go_fd;
	int err_fd;
	int stop_signal;
	int argc;			/* pmrec's own command line, for CMDLINE */
	char **argv;
	bool switch_requested;
	int64_t next_switch;		/* CLOCK_MONOTONIC ns of the next TIME switch */
	unsigned int nr_files;		/* timestamped files written */
	char **files;			/* the newest ones, for --switch-max-files */
	size_t nr_kept;
	struct pm_build_ids *build_ids;	/* NULL with --no-buildid */
	int stop_signals;		/* SIGINT/TERM/HUP received */
	int64_t last_sync;		/* CLOCK_MONOTONIC ns of the last fdatasync */
};

static const char *prog = "pmrec record";

__attribute__((format(printf, 1, 2)))
static void error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

__attribute__((format(printf, 1, 2)))
static void hint(const char *fmt, ...)
{
	va_list ap;

	fputs("  ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- options ---------------------------------------------------------- */

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
};

static const struct argp_option record_options[] = {
	{ .doc = "Targets:", .group = 1 },
	{ .name = "all-cpus", .key = 'a', .doc = "record every online CPU (system-wide)" },
	{ .name = "cpu", .key = 'C', .arg = "LIST", .doc = "record only these CPUs, e.g. 0,2-3" },
	{ .name = "pid", .key = 'p', .arg = "PID[,PID...]",
	  .doc = "record running processes (all their threads)" },
	{ .name = "tid", .key = 't', .arg = "TID[,TID...]", .doc = "record running threads" },
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
	{ .name = "sync", .key = OPT_SYNC,
	  .doc = "fdatasync the file at most once a second, so a power loss keeps the data "
		 "up to the last second" },
	{ .name = "duration", .key = OPT_DURATION, .arg = "SECONDS", .doc = "stop after SECONDS" },
	{ .name = "realtime", .key = OPT_REALTIME, .arg = "PRIO", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "drain the rings at SCHED_FIFO priority PRIO (default 1), so a busy "
		 "workload cannot delay the recorder into losing samples" },
	{ .doc = "Flight recorder and rotation:", .group = 4 },
	{ .name = "overwrite", .key = OPT_OVERWRITE,
	  .doc = "keep only the newest data in overwritable rings; write a snapshot file on "
		 "SIGUSR2 (and at exit)" },
	{ .name = "switch-output", .key = OPT_SWITCH_OUTPUT, .arg = "signal|SIZE|TIME",
	  .flags = OPTION_ARG_OPTIONAL,
	  .doc = "start a new timestamped file on SIGUSR2 (default), after SIZE bytes "
		 "(e.g. 100M) or every TIME (e.g. 30s, 5m); with --overwrite, write a snapshot" },
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

static int read_sysctl_u64(const char *path, uint64_t *out)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return parse_u64(buf, out);
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

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record_opts *o = state->input;
	char *bad = NULL;
	uint64_t v;
	double d;
	char *end;
	int err;

	switch (key) {
	case 'a':
		o->system_wide = true;
		break;
	case 'C':
		o->cpu_list = arg;
		break;
	case 'p':
		o->pid_list = arg;
		break;
	case 't':
		o->tid_list = arg;
		break;
	case 'i':
		o->no_inherit = true;
		break;
	case 'e':
		err = pm_evlist__add(&o->evlist, arg, &bad);
		if (err == -ENOENT) {
			fprintf(stderr, "%s: unknown event '%s'\n", prog, bad ? bad : arg);
			hint("software events: cpu-clock task-clock page-faults minor-faults major-faults "
			     "context-switches cpu-migrations alignment-faults emulation-faults dummy;");
			hint("tracepoints: SUBSYS:NAME as listed under /sys/kernel/tracing/events");
			free(bad);
			exit(PM_EXIT_USAGE);
		} else if (err == -EINVAL) {
			argp_error(state, "bad event modifier in '%s' (use :u, :k or :uk)", bad ? bad : arg);
		} else if (err) {
			fprintf(stderr, "%s: cannot use event '%s': %s\n", prog, bad ? bad : arg,
				strerror(-err));
			if (err == -EACCES || err == -EPERM)
				hint("tracepoint ids are in tracefs: run as root or mount tracefs");
			free(bad);
			exit(PM_EXIT_FAILURE);
		}
		free(bad);
		break;
	case OPT_FILTER:
		if (pm_evlist__set_filter(&o->evlist, arg))
			argp_error(state, "--filter must follow a tracepoint event (-e SUBSYS:NAME)");
		break;
	case 'F':
		if (!strcmp(arg, "max")) {
			if (read_sysctl_u64("/proc/sys/kernel/perf_event_max_sample_rate", &o->freq))
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
	case 'o':
		o->output = arg;
		break;
	case 'B':
		o->no_buildid = true;
		break;
	case OPT_SYNC:
		o->sync = true;
		break;
	case OPT_BUILDID_MMAP:
		o->buildid_mmap = true;
		break;
	case OPT_SYNTH:
		if (!strcmp(arg, "all"))
			o->synth = SYNTH_ALL;
		else if (!strcmp(arg, "task"))
			o->synth = SYNTH_TASK;
		else if (!strcmp(arg, "no"))
			o->synth = SYNTH_NO;
		else
			argp_error(state, "bad --synth '%s': all, task or no", arg);
		break;
	case 'm':
		if (parse_mmap_pages(arg, &o->mmap_pages))
			argp_error(state, "bad buffer size '%s': a power of two number of pages, "
				   "or a size like 512K that is one", arg);
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
		if ((o->pid_list || o->tid_list) && o->workload)
			argp_error(state, "-p/-t and a workload command exclude each other");
		if (o->pid_list && o->tid_list)
			argp_error(state, "use either -p or -t");
		if ((o->pid_list || o->tid_list) && o->system_wide)
			argp_error(state, "-a and -p/-t exclude each other");
		if (o->period && o->freq)
			argp_error(state, "-c and -F exclude each other");
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
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp record_argp = {
	.options = record_options,
	.parser = record_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = "Record samples into a perf.data file that perf report, perf script and "
	       "pmrec dump read.\v"
	       "Without -a, -C, -p or -t, the COMMAND is recorded, with its children. "
	       "With -a and a COMMAND, the whole system is recorded until COMMAND exits. "
	       "Exit status: the workload's (128+N if it died of signal N); 1 on a runtime "
	       "failure; 64 on a usage error; 128+N when pmrec was stopped by signal N.",
};

/* ---- targets ---------------------------------------------------------- */

static int add_tid(struct record *rec, pid_t tid)
{
	pid_t *n = realloc(rec->tids, (rec->nr_tids + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	rec->tids = n;
	rec->tids[rec->nr_tids++] = tid;
	return 0;
}

/* Every thread of each process of a -p list, or each thread of a -t list. */
static int record__parse_tasks(struct record *rec, const char *list, bool threads)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		char path[64];
		struct stat st;

		if (parse_u64(tok, &v) || !v || v > INT_MAX) {
			error("bad %s '%s'", threads ? "thread id" : "process id", tok);
			err = -EINVAL;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%llu", (unsigned long long)v);
		if (stat(path, &st)) {
			error("no such %s %llu", threads ? "thread" : "process", (unsigned long long)v);
			err = -ESRCH;
			break;
		}
		if (threads) {
			err = add_tid(rec, (pid_t)v);
		} else {
			char tpath[80];
			struct dirent *de;
			DIR *d;

			snprintf(tpath, sizeof(tpath), "%s/task", path);
			d = opendir(tpath);
			if (!d) {
				error("cannot list the threads of process %llu: %s",
				      (unsigned long long)v, strerror(errno));
				err = -errno;
				break;
			}
			while (!err && (de = readdir(d)))
				if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
					err = add_tid(rec, (pid_t)atoi(de->d_name));
			closedir(d);
		}
	}
	free(copy);
	return err;
}

/* ---- workload --------------------------------------------------------- */

/*
 * The child is forked first so events can name its pid, and held on a pipe
 * until every event and ring exists: pmrec's own set-up is never sampled, and
 * enable_on_exec catches the first instructions of the command.
 */
static int record__fork_workload(struct record *rec)
{
	int go[2], err[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	rec->child = fork();
	if (rec->child < 0)
		return -errno;
	if (rec->child == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		sigprocmask(SIG_SETMASK, &rec->oldmask, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(rec->opts->workload[0], rec->opts->workload);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	rec->go_fd = go[1];
	rec->err_fd = err[0];
	rec->child_running = true;
	return 0;
}

/* Lets the child exec; returns 0 once exec succeeded, else the child's errno. */
static int record__start_workload(struct record *rec)
{
	int e = 0;
	ssize_t n;

	if (write(rec->go_fd, "g", 1) != 1)
		return -errno;
	close(rec->go_fd);
	rec->go_fd = -1;
	do
		n = read(rec->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(rec->err_fd);
	rec->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

/* ---- events ----------------------------------------------------------- */

static int read_paranoid(void)
{
	uint64_t v;
	char buf[32];
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return INT_MIN;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return INT_MIN;
	buf[n] = '\0';
	if (buf[0] == '-')
		return -(int)strtol(buf + 1, NULL, 10);
	return parse_u64(strtok(buf, "\n"), &v) ? INT_MIN : (int)v;
}

static bool have_hw_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

/* Descriptors this recording needs: one per event, CPU and task, and some. */
static rlim_t nofile_needed(const struct record *rec)
{
	return (rlim_t)rec->cpus.nr * rec->nr_tids * rec->opts->evlist.nr + 64;
}

static rlim_t nofile_limit(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) ? 0 : rl.rlim_cur;
}

/*
 * One fd per event, CPU and task, beyond what is open already: raise the
 * soft limit to what is needed, up to the hard limit (perf does the same).
 */
static void record__raise_nofile(struct record *rec)
{
	rlim_t need = nofile_needed(rec);
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0 && rec->opts->verbose)
		fprintf(stderr, "%s: raised RLIMIT_NOFILE to %llu\n", prog,
			(unsigned long long)rl.rlim_cur);
}

static void report_open_error(const struct record *rec, const struct pm_event *ev, int cpu, pid_t tid,
			      int err)
{
	char where[64];

	if (tid > 0)
		snprintf(where, sizeof(where), "task %d on CPU %d", tid, cpu);
	else
		snprintf(where, sizeof(where), "CPU %d", cpu);
	error("cannot open '%s' on %s: %s", ev->name, where, strerror(err));
	switch (err) {
	case EACCES:
	case EPERM:
		if (tid <= 0)
			hint("system-wide recording needs kernel.perf_event_paranoid <= 0 (it is %d), "
			     "CAP_PERFMON or root", read_paranoid());
		else
			hint("kernel.perf_event_paranoid is %d: kernel samples need <= 1; record user "
			     "mode only with :u (e.g. -e cpu-clock:u), or use CAP_PERFMON or root",
			     read_paranoid());
		if (tid > 0)
			hint("recording another user's task also needs ptrace access to it "
			     "(CAP_SYS_PTRACE or kernel.yama.ptrace_scope)");
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE) {
			if (!have_hw_pmu())
				hint("this machine has no hardware PMU; try -e cpu-clock");
			else
				hint("the CPU's PMU does not support this event");
		}
		break;
	case EMFILE:
		hint("this recording needs about %llu file descriptors; RLIMIT_NOFILE allows %llu: "
		     "raise the hard limit (ulimit -Hn, or LimitNOFILE= in a unit) or record fewer "
		     "CPUs, tasks or events", (unsigned long long)nofile_needed(rec),
		     (unsigned long long)nofile_limit());
		break;
	case ENFILE:
		hint("the system's file table is full (fs.file-max)");
		break;
	case ESRCH:
		hint("the task exited during set-up");
		break;
	case EINVAL:
		if (ev->attr.freq)
			hint("the rate may exceed kernel.perf_event_max_sample_rate; try a lower -F");
		break;
	}
}

static void hint_mlock(void)
{
	uint64_t kb = 0;

	read_sysctl_u64("/proc/sys/kernel/perf_event_mlock_kb", &kb);
	hint("locked memory for perf rings is limited by kernel.perf_event_mlock_kb "
	     "(%llu) and RLIMIT_MEMLOCK; use a smaller -m or raise them", (unsigned long long)kb);
}

/* Words what pm_evset__open could not do. */
static void report_evset_error(const struct record *rec, const struct pm_evset_error *e)
{
	const struct pm_event *ev = &rec->opts->evlist.events[e->event];
	size_t kib = rec->opts->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024;

	switch (e->stage) {
	case PM_EVSET_OPEN:
		report_open_error(rec, ev, e->cpu, e->tid, e->err);
		break;
	case PM_EVSET_ID:
		error("cannot read the sample id of '%s': %s", ev->name, strerror(e->err));
		break;
	case PM_EVSET_FILTER:
		error("the kernel rejected filter '%s' on '%s': %s", ev->filter, ev->name,
		      strerror(e->err));
		hint("filters use the kernel's syntax on the event's fields, e.g. 'id == 110'; "
		     "fields are listed in /sys/kernel/tracing/events/%s/format", ev->tracepoint);
		break;
	case PM_EVSET_MMAP:
		error("cannot map a %zu KiB ring buffer on CPU %d: %s", kib, e->cpu, strerror(e->err));
		if (e->err == EPERM || e->err == ENOMEM)
			hint_mlock();
		break;
	case PM_EVSET_REDIRECT:
		error("cannot redirect '%s' into the ring of CPU %d: %s", ev->name, e->cpu,
		      strerror(e->err));
		break;
	}
}

/* ---- output ----------------------------------------------------------- */

static int record__check_output(const char *path)
{
	int err = pm_output__check(path);

	if (err == -EISDIR)
		error("'%s' is a directory", path);
	else if (err == -EINVAL)
		error("'%s' is not a regular file; refusing to replace it", path);
	else if (err)
		error("cannot check '%s': %s", path, strerror(-err));
	return err;
}

/* A new temporary output beside path, or stdout for "-". */
static int record__create_output(struct record *rec, const char *path)
{
	int err;

	if (!strcmp(path, "-")) {
		if (isatty(STDOUT_FILENO)) {
			error("refusing to write a binary stream to a terminal; redirect stdout");
			return -EINVAL;
		}
		/* A deeper pipe absorbs a slow reader; best effort. */
		fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);
		rec->file.fd = STDOUT_FILENO;
		return 0;
	}
	err = pm_output__create(&rec->file, path);
	if (err)
		error("cannot create a file beside '%s': %s", path, strerror(-err));
	return err;
}

static int tracing_blob(struct record *rec, struct pm_buf *blob)
{
	const struct pm_evlist *l = &rec->opts->evlist;
	const char **names = calloc(l->nr, sizeof(*names));
	size_t i, nr = 0;
	int err;

	if (!names)
		return -ENOMEM;
	for (i = 0; i < l->nr; i++)
		if (l->events[i].tracepoint)
			names[nr++] = l->events[i].tracepoint;
	err = pm_tracing__data(blob, names, nr);
	free(names);
	return err;
}

static int cmdline_feature(struct pm_buf *b, int argc, char **argv)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int i;

	exe[n > 0 ? n : 0] = '\0';
	if (pm_buf__append_u32(b, (uint32_t)argc) ||
	    pm_buf__append_perf_string(b, n > 0 ? exe : argv[0]))
		return -ENOMEM;
	for (i = 1; i < argc; i++)
		if (pm_buf__append_perf_string(b, argv[i]))
			return -ENOMEM;
	return 0;
}

/* Header features; SAMPLE_TIME only at the end, when times are known. */
static int record__features(struct record *rec, struct pm_features *f, int argc, char **argv,
			    bool final)
{
	static const int host[] = { HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_ARCH, HEADER_NRCPUS,
				    HEADER_CPUDESC, HEADER_CPUID, HEADER_TOTAL_MEM };
	struct pm_buf *b;
	size_t i;
	int err;

	for (i = 0; i < sizeof(host) / sizeof(host[0]); i++) {
		struct pm_buf tmp = { 0 };

		/* A host fact that cannot be read is left out, not faked. */
		if (!pm_hostinfo__feature(&tmp, host[i])) {
			b = pm_features__add(f, host[i]);
			*b = tmp;
		} else {
			pm_buf__exit(&tmp);
		}
	}
	b = pm_features__add(f, HEADER_VERSION);
	if (pm_buf__append_perf_string(b, "pmrec " PMREC_VERSION))
		return -ENOMEM;
	err = cmdline_feature(pm_features__add(f, HEADER_CMDLINE), argc, argv);
	if (!err)
		err = pm_features__event_desc(pm_features__add(f, HEADER_EVENT_DESC), &rec->opts->evlist);
	if (!err && pm_evlist__has_tracepoints(&rec->opts->evlist))
		err = tracing_blob(rec, pm_features__add(f, HEADER_TRACING_DATA));
	if (!err && final && rec->build_ids) {
		struct pm_buf tmp = { 0 };

		err = pm_build_ids__write(rec->build_ids, &tmp, 0);
		if (!err && tmp.len)
			*pm_features__add(f, HEADER_BUILD_ID) = tmp;
		else
			pm_buf__exit(&tmp);
	}
	if (!err && final) {
		b = pm_features__add(f, HEADER_SAMPLE_TIME);
		if (pm_buf__append_u64(b, rec->drain.stats.first_time) ||
		    pm_buf__append_u64(b, rec->drain.stats.last_time))
			err = -ENOMEM;
	}
	return err;
}

/* Pipe mode: attrs, features, tracing data and names come before any sample. */
static int record__pipe_prologue(struct record *rec, int argc, char **argv)
{
	struct pm_features f = { 0 };
	int err = record__features(rec, &f, argc, argv, false);

	if (!err)
		err = pmdata__pipe_features(&rec->out, &f);
	if (!err && (f.mask & (1ULL << HEADER_TRACING_DATA)))
		err = pmdata__pipe_tracing(&rec->out, &f.payload[HEADER_TRACING_DATA]);
	if (!err)
		err = pmdata__pipe_event_names(&rec->out, &rec->opts->evlist);
	pm_features__exit(&f);
	return err;
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tid;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return tid;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:");
	return p ? (pid_t)atoi(p + 6) : tid;
}

/* The processes behind the -p/-t threads, each synthesized once. */
static int synth_targets(struct record *rec, struct pm_buf *b, size_t trailer)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < rec->nr_tids && !err; i++) {
		pid_t pid = tgid_of(rec->tids[i]);
		bool seen = false;

		for (j = 0; j < i && !seen; j++)
			seen = tgid_of(rec->tids[j]) == pid;
		if (!seen)
			err = pm_synth__task(b, pid, trailer, rec->opts->synth == SYNTH_ALL);
		if (err == -ENOENT || err == -ESRCH)
			err = 0;
	}
	return err;
}

/*
 * Writes whole records in chunks, committing each, so a disk that fills
 * during the prologue still leaves a file perf reads.
 */
static int write_committed(struct record *rec, const struct pm_buf *b)
{
	size_t start = 0, off = 0;
	int err = 0;

	while (!err && off < b->len) {
		const struct perf_event_header *h = (const void *)(b->data + off);

		off += h->size;
		if (off - start >= 65536 || off >= b->len) {
			err = pmdata__write(&rec->out, b->data + start, off - start);
			if (!err)
				err = pmdata__commit(&rec->out);
			start = off;
		}
	}
	return err;
}

struct synth_flush {
	struct record *rec;
	size_t written;
};

/* Build ids of the files named in b, then b to the file; b is emptied. */
static int record__flush_synth(struct pm_buf *b, void *arg)
{
	struct synth_flush *f = arg;
	int err = 0;

	if (f->rec->build_ids)
		err = pm_build_ids__add_events(f->rec->build_ids, b->data, b->len);
	if (!err)
		err = write_committed(f->rec, b);
	f->written += b->len;
	pm_buf__reset(b);
	return err;
}

/* Kernel map, then COMM/MMAP2 of the tasks that exist before recording. */
static int record__synthesize(struct record *rec)
{
	size_t trailer = pm_evlist__trailer_size(&rec->opts->evlist);
	struct synth_flush flushed = { .rec = rec };
	const struct pm_synth_sink sink = {
		.flush = record__flush_synth,
		.arg = &flushed,
		/* Small enough to stay in L2 while thousands of processes pass. */
		.flush_at = 256 * 1024,
	};
	struct pm_buf b = { 0 };
	int err;

	err = pm_synth__kernel_mmap(&b, trailer);
	if (err && rec->opts->verbose)
		fprintf(stderr, "%s: no kernel map (%s): kernel symbols will not resolve\n", prog,
			strerror(-err));
	err = 0;
	if (rec->opts->synth != SYNTH_NO && rec->nr_tids == 1 && rec->tids[0] == -1)
		err = pm_synth__all_tasks(&b, trailer, rec->opts->synth == SYNTH_ALL, &sink);
	else if (rec->opts->synth != SYNTH_NO && !rec->opts->workload)
		err = synth_targets(rec, &b, trailer);
	if (err == -ENOENT || err == -ESRCH)
		err = 0;
	if (!err && (b.len || flushed.written)) {
		struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_INIT, .size = 8 };

		err = pm_buf__append(&b, &fin, sizeof(fin));
		if (!err)
			err = record__flush_synth(&b, &flushed);
	}
	pm_buf__exit(&b);
	return err;
}

/* ---- drain loop ------------------------------------------------------- */

static int64_t now_ns(void);

/*
 * --sync: the committed data reaches the disk at most a second after it
 * was written, whatever happens to the machine.  Pipes have nothing to sync.
 */
static int record__sync(struct record *rec, bool now)
{
	int64_t t;

	if (!rec->opts->sync || rec->out.pipe)
		return 0;
	t = now_ns();
	if (!now && t - rec->last_sync < 1000000000)
		return 0;
	rec->last_sync = t;
	return fdatasync(rec->out.fd) ? -errno : 0;
}

/* The drain engine's sink: the output file, committed (and synced) per pass. */
static int record__sink_writev(void *arg, const struct iovec *iov, int iovcnt)
{
	struct record *rec = arg;

	return pmdata__writev(&rec->out, iov, iovcnt);
}

static int record__sink_commit(void *arg)
{
	struct record *rec = arg;
	int err = pmdata__commit(&rec->out);

	return err ? err : record__sync(rec, false);
}

static void record__reap_child(struct record *rec)
{
	int status;

	if (!rec->child_running)
		return;
	if (waitpid(rec->child, &status, WNOHANG) == rec->child) {
		rec->child_status = status;
		rec->child_running = false;
	}
}

/* Returns true when recording must stop. */
static bool record__handle_signals(struct record *rec)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(rec->sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			record__reap_child(rec);
			if (rec->child > 0 && !rec->child_running)
				stop = true;
			break;
		case SIGUSR2:
			/* Several while one is handled coalesce into one request. */
			rec->switch_requested = true;
			break;
		case SIGINT:
		case SIGTERM:
		case SIGHUP:
			if (!rec->stop_signal)
				rec->stop_signal = (int)si.ssi_signo;
			rec->stop_signals++;
			stop = true;
			break;
		}
	}
	return stop;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int record__switch(struct record *rec);

/* Switching is on with --switch-output or --overwrite; SIGUSR2 always triggers it. */
static bool record__switch_due(struct record *rec)
{
	const struct record_opts *o = rec->opts;

	if (!o->switch_kind && !o->overwrite)
		return false;
	if (rec->switch_requested)
		return true;
	if (o->switch_kind == SWITCH_SIZE)
		return rec->out.data_size >= o->switch_size;
	if (o->switch_kind == SWITCH_TIME)
		return now_ns() >= rec->next_switch;
	return false;
}

static int poll_timeout(const struct record *rec, int64_t deadline)
{
	int64_t t = rec->opts->overwrite ? 1000 : POLL_TIMEOUT_MS, now = now_ns();

	if (deadline && (deadline - now) / 1000000 < t)
		t = (deadline - now) / 1000000 + 1;
	if (rec->opts->switch_kind == SWITCH_TIME && (rec->next_switch - now) / 1000000 < t)
		t = (rec->next_switch - now) / 1000000 + 1;
	return t < 0 ? 0 : (int)t;
}

static int record__loop(struct record *rec)
{
	int64_t deadline = rec->opts->duration > 0 ?
		now_ns() + (int64_t)(rec->opts->duration * 1e9) : 0;
	bool busy = false, signalled;
	int err;

	for (;;) {
		if (deadline && now_ns() >= deadline)
			break;
		if (!busy) {
			err = pm_drain__poll(&rec->drain, poll_timeout(rec, deadline), &signalled);
			if (err)
				return err;
			if (signalled && record__handle_signals(rec))
				break;
		}
		if (!rec->opts->overwrite) {
			err = pm_drain__pass(&rec->drain, &busy);
			if (err)
				return err;
		}
		if (record__switch_due(rec)) {
			err = record__switch(rec);
			if (err)
				return err;
		}
		/* Overwrite rings are never emptied: the recording ends when all fds hung up. */
		if (rec->opts->overwrite ? pm_drain__all_hung_up(&rec->drain) :
		    pm_drain__all_retired(&rec->drain))
			break;
	}
	return 0;
}

struct stop_cut {
	struct record *rec;
	int signals;
};

/*
 * A stop signal during the final drain (a second Ctrl-C) means "at once":
 * what the rings still hold is left out, and the file is finished with
 * what was written.
 */
static bool record__stop_cut(void *arg)
{
	struct stop_cut *c = arg;

	record__handle_signals(c->rec);
	return c->rec->stop_signals > c->signals;
}

/* ---- set-up, teardown, summary --------------------------------------- */

static int record__setup_targets(struct record *rec)
{
	struct record_opts *o = rec->opts;
	struct pm_cpumap online;
	size_t i;
	int err;

	err = pm_cpumap__online(&online);
	if (err) {
		error("cannot read the online CPUs: %s", strerror(-err));
		return err;
	}
	if (o->cpu_list) {
		err = pm_cpumap__parse(&rec->cpus, o->cpu_list);
		if (err) {
			error("bad CPU list '%s' (use e.g. 0,2-3)", o->cpu_list);
			pm_cpumap__exit(&online);
			return PM_EXIT_USAGE;
		}
		for (i = 0; i < rec->cpus.nr; i++)
			if (!pm_cpumap__has(&online, rec->cpus.cpus[i])) {
				error("CPU %d is not online (online CPUs: 0-%d)", rec->cpus.cpus[i],
				      online.cpus[online.nr - 1]);
				pm_cpumap__exit(&online);
				return PM_EXIT_USAGE;
			}
		pm_cpumap__exit(&online);
	} else {
		rec->cpus = online;
	}
	if (o->pid_list || o->tid_list) {
		err = record__parse_tasks(rec, o->pid_list ? o->pid_list : o->tid_list, !o->pid_list);
		return err == -EINVAL ? PM_EXIT_USAGE : err ? PM_EXIT_FAILURE : 0;
	}
	if (o->workload && !o->system_wide && !o->cpu_list)
		return 0;	/* the child's pid is added once it is forked */
	if (!o->workload && !o->system_wide && !o->cpu_list) {
		error("nothing to record: give -a, -C, -p, -t or a command");
		return PM_EXIT_USAGE;
	}
	return add_tid(rec, -1) ? PM_EXIT_FAILURE : 0;
}

static void record__summary(struct record *rec, uint64_t lost_samples)
{
	const struct pm_drain_stats *st = &rec->drain.stats;
	uint64_t lost = lost_samples > st->lost ? lost_samples : st->lost;
	const char *out = strcmp(rec->opts->output, "-") ? rec->opts->output : "stdout";
	size_t i;

	if (rec->opts->quiet)
		return;
	if (rec->nr_files)
		fprintf(stderr, "%s: wrote %llu samples in %u %s", prog,
			(unsigned long long)st->samples, rec->nr_files,
			rec->opts->overwrite ? "snapshots" : "files");
	else
		fprintf(stderr, "%s: wrote %llu samples, %.2f MB, to '%s'", prog,
			(unsigned long long)st->samples,
			(double)(rec->out.data_size + rec->out.data_offset) / 1e6, out);
	if (!lost) {
		fputs(", lost 0\n", stderr);
	} else {
		fprintf(stderr, ", lost %llu (%.2f%%)\n", (unsigned long long)lost,
			100.0 * (double)lost / (double)(lost + st->samples));
		for (i = 0; i < rec->drain.nr_rings; i++)
			if (rec->drain.rings[i].lost)
				hint("CPU %d: %llu lost", rec->drain.rings[i].cpu,
				     (unsigned long long)rec->drain.rings[i].lost);
		hint("to lose less: a larger buffer (-m, now %zu pages), a lower rate (-F/-c), "
		     "or fewer events", rec->opts->mmap_pages);
	}
	if (st->corrupt)
		hint("%llu corrupt ring headers were skipped", (unsigned long long)st->corrupt);
	if (st->skipped_bytes)
		hint("stopped at once on a second signal: %llu bytes left in the rings were not "
		     "written", (unsigned long long)st->skipped_bytes);
}

static int record__block_signals(struct record *rec)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, &rec->oldmask))
		return -errno;
	/* EPIPE is handled where it happens; dying of SIGPIPE loses the file. */
	signal(SIGPIPE, SIG_IGN);
	rec->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return rec->sigfd < 0 ? -errno : 0;
}

static void record__teardown(struct record *rec)
{
	pm_drain__exit(&rec->drain);
	if (rec->child_running) {
		kill(rec->child, SIGTERM);
		if (waitpid(rec->child, &rec->child_status, 0) == rec->child)
			rec->child_running = false;
	}
	if (rec->sigfd >= 0)
		close(rec->sigfd);
	pm_output__discard(&rec->file);
	while (rec->nr_kept)
		free(rec->files[--rec->nr_kept]);
	free(rec->files);
	free(rec->tids);
	pm_cpumap__exit(&rec->cpus);
	pm_build_ids__delete(rec->build_ids);
}

static int exit_status(const struct record *rec, int fallback)
{
	if (rec->stop_signal)
		return 128 + rec->stop_signal;
	if (rec->child > 0 && !rec->child_running) {
		if (WIFEXITED(rec->child_status))
			return WEXITSTATUS(rec->child_status);
		if (WIFSIGNALED(rec->child_status))
			return 128 + WTERMSIG(rec->child_status);
	}
	return fallback;
}

/*
 * The output failed (full disk, I/O error, closed pipe): keep what was
 * committed, which perf reads, and say what was kept and what was dropped.
 */
static int record__write_failed(struct record *rec, int err)
{
	const char *path = rec->opts->output;

	pmdata__rollback(&rec->out);
	if (err == -EPIPE) {
		error("the reader of the output pipe went away; stopped after %llu samples "
		      "(%.2f MB)", (unsigned long long)rec->drain.stats.samples,
		      (double)rec->out.data_size / 1e6);
		return PM_EXIT_EPIPE;
	}
	error("cannot write '%s': %s; kept %llu samples (%.2f MB), dropped %llu samples "
	      "(%.2f MB) and everything after", path, strerror(-err),
	      (unsigned long long)rec->drain.stats.samples,
	      (double)(rec->out.data_offset + rec->out.data_size) / 1e6,
	      (unsigned long long)rec->drain.stats.dropped_samples,
	      (double)rec->drain.stats.dropped_bytes / 1e6);
	return PM_EXIT_FAILURE;
}

/* ---- files, rotation and snapshots ------------------------------------ */

/*
 * The tracepoint formats are in the feature section, which comes only at
 * the end: a copy at the start of the data keeps a killed recording
 * decodable by pmrec dump.  perf 6.1 cannot use it (it wants the formats
 * when it opens the file, and parsing them twice fails), so the final
 * header's data section starts after it.
 */
static int record__tracing_record(struct record *rec)
{
	struct pm_buf blob = { 0 }, recd = { 0 };
	int err = tracing_blob(rec, &blob);

	if (!err)
		err = pm_tracing_record(&recd, &blob);
	if (!err)
		err = pmdata__write(&rec->out, recd.data, recd.len);
	if (!err)
		err = pmdata__commit(&rec->out);
	pmdata__hide_written(&rec->out);
	pm_buf__exit(&blob);
	pm_buf__exit(&recd);
	return err;
}


/*
 * A new output file: header (and the pipe prologue), then the synthesized
 * records, committed.  *created tells whether the failure was the creation
 * itself, which was already reported.
 */
static int record__start_file(struct record *rec, bool *created)
{
	const struct record_opts *o = rec->opts;
	int err;

	*created = false;
	err = record__create_output(rec, o->output);
	if (err)
		return err;
	*created = true;
	err = pmdata__start(&rec->out, rec->file.fd, !strcmp(o->output, "-"), &o->evlist);
	if (!err && rec->out.pipe)
		err = record__pipe_prologue(rec, rec->argc, rec->argv);
	else if (!err && pm_evlist__has_tracepoints(&o->evlist))
		err = record__tracing_record(rec);
	if (!err)
		err = record__synthesize(rec);
	if (!err)
		err = pmdata__commit(&rec->out);
	return err;
}

/* Trailing records, features and the final header of the current file. */
static int record__finalize_file(struct record *rec, const struct pm_buf *tail)
{
	struct pm_features f = { 0 };
	int err = 0;

	if (tail && tail->len)
		err = pmdata__write(&rec->out, tail->data, tail->len);
	if (!err)
		err = pmdata__commit(&rec->out);
	if (!err && rec->out.pipe && rec->build_ids) {
		/* A stream has no feature section: the ids go out as records. */
		struct pm_buf ids = { 0 };

		err = pm_build_ids__write(rec->build_ids, &ids, PERF_RECORD_HEADER_BUILD_ID);
		if (!err && ids.len)
			err = pmdata__write(&rec->out, ids.data, ids.len);
		pm_buf__exit(&ids);
	}
	if (!err && !rec->out.pipe) {
		err = record__features(rec, &f, rec->argc, rec->argv, true);
		if (!err)
			err = pmdata__finish(&rec->out, &f);
		if (!err)
			err = record__sync(rec, true);
	}
	pm_features__exit(&f);
	return err;
}

/* Remembers a timestamped file and deletes the oldest beyond --switch-max-files. */
static void record__keep_file(struct record *rec, const char *name)
{
	unsigned int max = rec->opts->switch_max_files;
	char **n;

	rec->nr_files++;
	if (!rec->opts->quiet)
		fprintf(stderr, "%s: wrote '%s'\n", prog, name);
	if (!max)
		return;
	n = realloc(rec->files, (rec->nr_kept + 1) * sizeof(*n));
	if (!n)
		return;
	rec->files = n;
	rec->files[rec->nr_kept] = strdup(name);
	if (!rec->files[rec->nr_kept])
		return;
	rec->nr_kept++;
	while (rec->nr_kept > max) {
		if (unlink(rec->files[0]) && errno != ENOENT)
			error("cannot remove old file '%s': %s", rec->files[0], strerror(errno));
		free(rec->files[0]);
		memmove(rec->files, rec->files + 1, --rec->nr_kept * sizeof(*rec->files));
	}
}

/* Moves from to OUTPUT.<timestamp> (never replacing an earlier one). */
static int record__stamp(struct record *rec, const char *from)
{
	char stamped[PATH_MAX], used[PATH_MAX];
	struct timespec now;
	int err;

	clock_gettime(CLOCK_REALTIME, &now);
	err = pm_output__timestamp_name(stamped, sizeof(stamped), rec->opts->output, &now);
	if (!err)
		err = pm_output__rename_unique(from, stamped, used, sizeof(used));
	if (err) {
		error("cannot rename '%s' to a timestamped name: %s", from, strerror(-err));
		return err;
	}
	record__keep_file(rec, used);
	return 0;
}

/*
 * Normal mode: the current file is finished and renamed to its timestamped
 * name between two drain passes, so no record is lost or written twice
 * across the boundary; the next file starts with its own prologue.
 */
static int record__rotate(struct record *rec)
{
	int err = record__finalize_file(rec, NULL);
	bool created;

	if (!err)
		err = record__stamp(rec, rec->opts->output);
	close(rec->file.fd);
	rec->file.fd = -1;
	if (err)
		return err;
	rec->drain.stats.first_time = rec->drain.stats.last_time = 0;
	err = record__start_file(rec, &created);
	if (!err)
		err = pm_output__publish(&rec->file, rec->opts->output);
	return err;
}

/*
 * Overwrite mode: one complete, standalone perf.data file holding the rings'
 * newest records, with the processes alive now synthesized first.
 */
static int record__snapshot(struct record *rec)
{
	struct pm_buf recs = { 0 }, tail = { 0 };
	uint64_t dropped, samples;
	bool created;
	int err;

	err = pm_drain__snapshot(&rec->drain, &recs, &samples, &dropped);
	if (!err)
		err = record__start_file(rec, &created);
	if (!err && rec->build_ids)
		err = pm_build_ids__add_events(rec->build_ids, recs.data, recs.len);
	if (!err)
		err = pmdata__write(&rec->out, recs.data, recs.len);
	if (!err && dropped) {
		struct {
			struct perf_event_header h;
			uint64_t lost;
			uint64_t trailer[4];
		} ls = { .h = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(ls) }, .lost = dropped };

		err = pm_buf__append(&tail, &ls, sizeof(ls));
	}
	if (!err)
		err = record__finalize_file(rec, &tail);
	if (rec->file.fd >= 0)
		close(rec->file.fd);
	rec->file.fd = -1;
	if (!err)
		err = record__stamp(rec, rec->file.tmp);
	if (!err) {
		free(rec->file.tmp);
		rec->file.tmp = NULL;
		rec->drain.stats.samples += samples;
		rec->drain.stats.lost += dropped;
		if (rec->opts->verbose)
			fprintf(stderr, "%s: snapshot of %llu samples, %llu dropped while paused\n",
				prog, (unsigned long long)samples, (unsigned long long)dropped);
	}
	pm_output__discard(&rec->file);
	pm_buf__exit(&recs);
	pm_buf__exit(&tail);
	return err;
}

static int record__switch(struct record *rec)
{
	int err;

	rec->switch_requested = false;
	err = rec->opts->overwrite ? record__snapshot(rec) : record__rotate(rec);
	if (rec->opts->switch_kind == SWITCH_TIME)
		rec->next_switch = now_ns() + (int64_t)(rec->opts->switch_time * 1e9);
	return err;
}

/*
 * Opens every event into the drain engine, with rings halved to fit the
 * locked-memory limit if need be (with a warning).
 */
static int record__open_events(struct record *rec, struct pm_event_config *cfg)
{
	struct record_opts *o = rec->opts;
	struct pm_evset set = {
		.evlist = &o->evlist,
		.drain = &rec->drain,
		.tids = rec->tids,
		.nr_tids = rec->nr_tids,
		.mmap_pages = o->mmap_pages,
	};
	size_t wanted = o->mmap_pages, page = (size_t)sysconf(_SC_PAGESIZE);
	struct pm_evset_error e;
	int err;

	err = pm_drain__init(&rec->drain, NULL, rec->cpus.cpus, rec->cpus.nr);
	if (err)
		return err;
	rec->drain.build_ids = rec->build_ids;
	err = pm_evset__open(&set, cfg, &e);
	o->mmap_pages = set.mmap_pages;
	if (err) {
		report_evset_error(rec, &e);
		return err;
	}
	if (o->mmap_pages != wanted) {
		uint64_t kb = 0;
		struct rlimit rl = { 0 };

		read_sysctl_u64("/proc/sys/kernel/perf_event_mlock_kb", &kb);
		getrlimit(RLIMIT_MEMLOCK, &rl);
		fprintf(stderr, "%s: warning: %zu KiB rings exceed the locked-memory limit "
			"(kernel.perf_event_mlock_kb=%llu, RLIMIT_MEMLOCK=%llu KiB); using %zu KiB "
			"per CPU\n", prog, wanted * page / 1024, (unsigned long long)kb,
			(unsigned long long)(rl.rlim_cur == RLIM_INFINITY ? 0 : rl.rlim_cur / 1024),
			o->mmap_pages * page / 1024);
	}
	rec->drain.sink = (struct pm_drain_sink){
		.writev = record__sink_writev,
		.commit = record__sink_commit,
		.arg = rec,
	};
	rec->drain.watch_fd = rec->sigfd;
	return pm_drain__start(&rec->drain);
}

static int record__init_build_ids(struct record *rec)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	size_t len;

	rec->build_ids = pm_build_ids__new();
	if (!rec->build_ids) {
		error("out of memory");
		return -ENOMEM;
	}
	if (!pm_elf__kernel_build_id(id, &len) &&
	    pm_build_ids__add(rec->build_ids, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", id, len)) {
		error("out of memory");
		return -ENOMEM;
	}
	return 0;
}

/*
 * Waits for the workload, after sending it sig (0: none).  A stop signal
 * that comes meanwhile is passed on; the next one kills it, so pmrec never
 * hangs on a workload that ignores its signals.
 */
static void record__wait_child(struct record *rec, int sig)
{
	struct pollfd pfd = { .fd = rec->sigfd, .events = POLLIN };
	int seen = rec->stop_signals;
	bool signalled = sig != 0;

	if (sig)
		kill(rec->child, sig);
	for (;;) {
		record__reap_child(rec);
		if (!rec->child_running)
			return;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		record__handle_signals(rec);
		if (rec->child_running && rec->stop_signals > seen) {
			seen = rec->stop_signals;
			kill(rec->child, signalled ? SIGKILL : rec->stop_signal);
			signalled = true;
		}
	}
	if (waitpid(rec->child, &rec->child_status, 0) == rec->child)
		rec->child_running = false;
}

static int record__run(struct record *rec)
{
	struct record_opts *o = rec->opts;
	struct pm_buf lost = { 0 };
	struct pm_event_config cfg;
	uint64_t lost_samples = 0;
	int err, status, setup_err = 0;

	status = record__setup_targets(rec);
	if (status)
		return status;
	if (strcmp(o->output, "-") && record__check_output(o->output))
		return PM_EXIT_FAILURE;
	if (record__block_signals(rec)) {
		error("cannot set up signal handling: %s", strerror(errno));
		return PM_EXIT_FAILURE;
	}
	if (o->workload) {
		err = record__fork_workload(rec);
		if (err) {
			error("cannot start '%s': %s", o->workload[0], strerror(-err));
			return PM_EXIT_FAILURE;
		}
		if (!rec->nr_tids && add_tid(rec, rec->child))
			return PM_EXIT_FAILURE;
	}
	if (o->realtime) {
		/* After the fork: the workload keeps its normal policy. */
		struct sched_param sp = { .sched_priority = o->realtime };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			error("cannot switch to SCHED_FIFO priority %d: %s", o->realtime, strerror(errno));
			hint("--realtime needs root or CAP_SYS_NICE (or RLIMIT_RTPRIO >= %d)", o->realtime);
			return PM_EXIT_FAILURE;
		}
	}
	cfg = (struct pm_event_config){
		.freq = o->freq,
		.period = o->period,
		.callchain = o->callchain,
		.dwarf = o->dwarf,
		.dwarf_stack = o->dwarf_stack,
		.inherit = !o->no_inherit && rec->tids[0] != -1,
		.enable_on_exec = o->workload && rec->tids[0] != -1,
		.overwrite = o->overwrite,
		.lost_format = true,
		.build_id = o->buildid_mmap,
	};
	if (!o->no_buildid && record__init_build_ids(rec))
		return PM_EXIT_FAILURE;
	record__raise_nofile(rec);
	if (record__open_events(rec, &cfg))
		return PM_EXIT_FAILURE;
	if (!cfg.enable_on_exec)
		pm_drain__ioctl_all(&rec->drain, PERF_EVENT_IOC_ENABLE);
	if (!o->overwrite) {
		bool created;

		err = record__start_file(rec, &created);
		if (err && !created)
			return PM_EXIT_FAILURE;
		if (err)
			setup_err = err;
	}
	if (o->workload) {
		err = record__start_workload(rec);
		if (err) {
			error("cannot run '%s': %s", o->workload[0], strerror(-err));
			waitpid(rec->child, NULL, 0);
			rec->child_running = false;
			rec->child = 0;
			return 127;
		}
	}
	/* From here on a killed recording leaves a readable file. */
	err = pm_output__publish(&rec->file, o->output);
	if (!err && setup_err) {
		/* What fits is kept; the workload still runs to its end. */
		err = setup_err;
		goto done;
	}
	if (err) {
		error("cannot rename '%s' to '%s': %s", rec->file.tmp, o->output, strerror(-err));
		return PM_EXIT_FAILURE;
	}
	pm_snapshot__to(&rec->drain.snap, PM_SNAPSHOT_RUNNING);
	if (o->switch_kind == SWITCH_TIME)
		rec->next_switch = now_ns() + (int64_t)(o->switch_time * 1e9);
	if (o->verbose)
		fprintf(stderr, "%s: recording %zu events on %zu CPUs through %zu fds\n", prog,
			o->evlist.nr, rec->drain.nr_rings, rec->drain.nr_fds);

	err = record__loop(rec);
	if (o->overwrite) {
		/* The flight recorder's last words: a final snapshot. */
		if (!err)
			err = record__snapshot(rec);
	} else {
		struct stop_cut cut = { .rec = rec, .signals = rec->stop_signals };

		if (!err)
			err = pm_drain__stop(&rec->drain, record__stop_cut, &cut);
		if (!err)
			err = pm_drain__lost_samples(&rec->drain, &lost, &lost_samples);
		if (!err)
			err = record__finalize_file(rec, &lost);
		if (!err && (o->switch_kind || o->timestamp_filename))
			err = record__stamp(rec, o->output);
	}
done:
	if (err) {
		status = record__write_failed(rec, err);
	} else {
		record__summary(rec, lost_samples);
		status = PM_EXIT_OK;
	}
	pm_buf__exit(&lost);
	record__reap_child(rec);
	if (rec->child_running && err == -EPIPE) {
		/* Nobody reads any more: leave at once, the workload runs on (as with perf). */
		pm_drain__close(&rec->drain);
		rec->child_running = false;
	} else if (rec->child_running && err) {
		/* A full disk is no reason to kill the workload. */
		pm_drain__close(&rec->drain);
		if (!o->quiet)
			fprintf(stderr, "%s: recording stopped early; waiting for '%s' to finish\n",
				prog, o->workload[0]);
		record__wait_child(rec, 0);
	} else if (rec->child_running) {
		/* Recording stopped first (signal, --duration): end the workload too. */
		record__wait_child(rec, SIGTERM);
		if (!rec->stop_signal)
			return status;
	}
	/* A flight recorder stopped by a signal did its job: its last snapshot. */
	if (!status && o->overwrite && rec->stop_signal && rec->child <= 0)
		return PM_EXIT_OK;
	return status ? status : exit_status(rec, status);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts opts = {
		.output = "pmrec.data",
		.mmap_pages = DEFAULT_MMAP_PAGES,
	};
	struct record rec = { .opts = &opts, .sigfd = -1, .file = { .fd = -1 }, .go_fd = -1,
			      .err_fd = -1, .argc = argc, .argv = argv };
	char *bad = NULL;
	int status;

	prog = argv[0];
	if (argp_parse(&record_argp, argc, argv, ARGP_IN_ORDER, NULL, &opts))
		return PM_EXIT_USAGE;
	if (!opts.evlist.nr && pm_evlist__add(&opts.evlist, "cpu-clock", &bad)) {
		error("cannot set up the default event cpu-clock");
		free(bad);
		return PM_EXIT_FAILURE;
	}
	status = record__run(&rec);
	record__teardown(&rec);
	if (rec.file.fd > STDERR_FILENO)
		close(rec.file.fd);
	pm_evlist__exit(&opts.evlist);
	return status;
}
