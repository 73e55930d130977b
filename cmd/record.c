// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec record: open one perf event per CPU (and per task), map one ring per
 * CPU, drain every ring on each wake-up and write the records as perf.data.
 * The engine is in lib/ (evset, drain, recfile, workload, target); this file
 * runs its phases: prepare, record, finish, end.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "base/buf.h"
#include "record/buildid.h"
#include "builtin.h"
#include "symbols/elf.h"
#include "record/filecap.h"
#include "record/jitcap.h"
#include "base/output.h"
#include "record.h"
#include "record/snapshot.h"
#include "record/stage.h"

/* ---- events ----------------------------------------------------------- */

/*
 * The fds a recording opens after the events: the output (two while
 * --switch-output rotates), the staging buffer's eventfd, and synthesis's
 * walk of /proc, three deep (/proc, a task directory, a comm or maps file).
 * What is open already (stdio, the signalfd, the control fifos, the
 * workload's pipes, whatever was inherited) is counted as it stands.
 */
#define RECORD_OWN_FDS 6

/*
 * One fd per event, CPU and task, beyond what is open already and what the
 * recording opens itself: raise the soft limit to that, up to the hard limit
 * (perf does the same).
 */
static void record__raise_nofile(struct record *rec)
{
	rlim_t now;

	rec->nofile_needed = (rlim_t)pm_count_open_fds() + RECORD_OWN_FDS +
			     (rlim_t)rec->cpus.nr * rec->targets.nr * rec->opts->evlist.nr;
	/*
	 * Room, where the hard limit allows, for the containers' /tmp that the
	 * JIT capture holds and the files kept hold; they do without them
	 * when they get no fd.
	 */
	now = pm_raise_nofile(rec->nofile_needed + PM_JITCAP_MAX_HELD + PM_FILECAP_MAX_HELD);

	if (now && rec->opts->verbose)
		note("raised RLIMIT_NOFILE to %llu", (unsigned long long)now);
}

/* ---- output ----------------------------------------------------------- */

static void record__init_file(struct record *rec, int argc, char **argv)
{
	const struct record_opts *o = rec->opts;

	rec->rf = (struct pm_recfile){
		.path = o->output,
		.pipe_fd = STDOUT_FILENO,
		.evlist = &o->evlist,
		.targets = &rec->targets,
		/* -u's targets run already: they are described, the workload is not. */
		.workload = o->workload && !o->uid_str,
		.synth = o->synth,
		.argc = argc,
		.argv = argv,
		.sync = o->sync,
		.max_files = o->switch_max_files,
		.note = record__file_note,
		.note_arg = rec,
	};
}

/* ---- set-up, teardown, summary --------------------------------------- */

static void record__teardown(struct record *rec)
{
	pm_drain__delete(rec->drain);
	if (rec->work.running) {
		kill(rec->work.pid, SIGTERM);
		pm_workload__wait(&rec->work);
	}
	if (rec->sigfd >= 0)
		close(rec->sigfd);
	if (rec->epfd >= 0)
		close(rec->epfd);
	pm_control__exit(&rec->ctl);
	pm_recfile__exit(&rec->rf);
	pm_zsink__exit(&rec->zsink);
	pm_target__exit(&rec->targets);
	pm_cpumap__exit(&rec->cpus);
	pm_build_ids__delete(rec->build_ids);
	pm_filecap__delete(rec->filecap);
	pm_jitcap__delete(rec->jitcap);
	if (rec->cgroup_fd >= 0)
		close(rec->cgroup_fd);
}

static int exit_status(const struct record *rec, int fallback)
{
	int status = pm_workload__exit_status(&rec->work);

	if (rec->stop_signal)
		return 128 + rec->stop_signal;
	return status >= 0 ? status : fallback;
}

/*
 * Opens every event into the drain engine, with rings halved to fit the
 * locked-memory limit if need be (with a warning).
 */
/* The event set of rec's options and targets: record's, and the live commands'. */
struct pm_evset record__evset(const struct record *rec)
{
	struct record_opts *o = rec->opts;

	return (struct pm_evset){
		.evlist = &o->evlist,
		.tids = rec->targets.tids,
		.nr_tids = rec->targets.nr,
		.mmap_pages = o->mmap_pages,
		.cgroup = rec->cgroup_fd >= 0,
		.cgroup_fd = rec->cgroup_fd,
		.skip_gone = o->uid_str != NULL,
	};
}

static int record__open_events(struct record *rec, struct pm_event_config *cfg)
{
	struct record_opts *o = rec->opts;
	struct pm_evset set = record__evset(rec);
	size_t wanted = o->mmap_pages;
	struct pm_evset_error e;
	int err;

	rec->drain = pm_drain__new(&(struct pm_drain_config){
		.cpus = rec->cpus.cpus,
		.nr_cpus = rec->cpus.nr,
		.overwrite = o->overwrite,
		.sink = { .writev = pm_recfile__writev, .commit = pm_recfile__commit,
			  .arg = &rec->rf },
		.watch_fd = rec->epfd >= 0 ? rec->epfd : rec->sigfd,
		.build_ids = rec->build_ids,
		.jitcap = rec->jitcap,
		/*
		 * Rotations and snapshots write between passes, and --max-size
		 * reads the file's size after each: no writer thread for them.
		 */
		.stage_size = !o->overwrite && !o->switch_kind && !o->max_size ? o->buffer_size : 0,
		.stage_writer = true,
	});
	if (!rec->drain)
		return -errno;
	rec->rf.stats = pm_drain__stats(rec->drain);
	set.drain = rec->drain;
	err = pm_evset__open(&set, cfg, &e);
	o->mmap_pages = set.mmap_pages;
	if (err) {
		record__report_evset_error(rec, &e);
		return err;
	}
	if (o->mmap_pages != wanted)
		record__warn_halved(rec, wanted);
	err = pm_drain__start(rec->drain, &set.opened);
	if (err)
		error(o->buffer_size && !o->overwrite && !o->switch_kind && !o->max_size ?
		      "cannot set up the staging buffer: %s" : "cannot start the drain: %s",
		      strerror(-err));
	return err;
}

static void record__warn(void *arg, const struct pm_warning *w)
{
	(void)arg;
	pm_cmd__warn(NULL, w);
}

/*
 * The perf maps of the recorded processes are copied into a file (a
 * stream's readers name samples as they come, before a copy at its end
 * could reach them); a flight recorder's snapshots do without.
 */
static int record__init_jitcap(struct record *rec)
{
	if (!strcmp(rec->opts->output, "-") || rec->opts->overwrite)
		return 0;
	rec->jitcap = pm_jitcap__new(record__warn, rec);
	if (!rec->jitcap) {
		error("cannot set up the copy of perf maps: %s", strerror(errno));
		return -1;
	}
	rec->rf.jitcap = rec->jitcap;
	return 0;
}

/* After the last EXIT record: the maps of the processes still running. */
static void record__copy_jit_maps(struct record *rec)
{
	struct pm_jitcap_stats st;

	if (!rec->jitcap)
		return;
	pm_jitcap__finish(rec->jitcap);
	pm_jitcap__stats(rec->jitcap, &st);
	if (rec->opts->verbose && st.processes)
		note("JIT code in %llu processes: copied %llu names from %llu perf maps, %llu code "
		     "loads from %llu jitdump files", (unsigned long long)st.processes, (unsigned long long)st.entries,
			(unsigned long long)st.maps, (unsigned long long)st.loads,
			(unsigned long long)st.jitdumps);
}

/*
 * The files that their paths here will not find again (a container's, a
 * deleted or replaced one), kept while their processes live, as the JIT
 * maps are: into a file, not a stream or a flight recorder.
 */
static int record__init_filecap(struct record *rec)
{
	if (!rec->build_ids || !strcmp(rec->opts->output, "-") || rec->opts->overwrite)
		return 0;
	rec->filecap = pm_filecap__new();
	if (!rec->filecap) {
		error("out of memory");
		return -ENOMEM;
	}
	pm_build_ids__keep_files(rec->build_ids, rec->filecap);
	return 0;
}

/* After the file is finished: what was kept of files not here, and what was not. */
static void record__note_filecap(const struct record *rec)
{
	struct pm_filecap_stats st;

	if (!rec->filecap)
		return;
	pm_filecap__stats(rec->filecap, &st);
	if (st.over)
		warning("%llu mapped files not found at their paths here were not kept: more "
			"than %d; report names their frames only where it finds them",
			(unsigned long long)st.over, PM_FILECAP_MAX_HELD);
	/* With --buildid-mmap the records carry each mapping's id: no path is needed. */
	if (pm_build_ids__ambiguous(rec->build_ids) && !rec->opts->buildid_mmap)
		warning("%llu mapped files kept from other mount namespaces share their path with "
			"a file of another build id: their frames are not named by path (with "
			"--buildid-mmap each mapping carries its own)",
			(unsigned long long)pm_build_ids__ambiguous(rec->build_ids));
	if (!rec->opts->verbose || !(st.through_root + st.through_map + st.gone + st.watched))
		return;
	note("files not found at their paths here (containers, deleted or replaced): %llu "
	     "kept through the process's root, %llu through its mapping (%llu of the %llu "
	     "watched at their paths, once replaced), %llu gone before they were asked for; "
	     "symbols of %llu (%llu had a build id kept already, %llu not read), %.1f KB, "
	     "%.1f ms at the end",
	     (unsigned long long)st.through_root, (unsigned long long)st.through_map,
	     (unsigned long long)st.replaced, (unsigned long long)st.watched,
	     (unsigned long long)st.gone, (unsigned long long)st.tables,
	     (unsigned long long)st.same_id, (unsigned long long)st.unread,
	     (double)st.bytes / 1e3, (double)st.finish_ns / 1e6);
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
		kill(rec->work.pid, sig);
	for (;;) {
		if (!pm_workload__reap(&rec->work))
			return;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		record__handle_signals(rec);
		if (rec->work.running && rec->stop_signals > seen) {
			seen = rec->stop_signals;
			kill(rec->work.pid, signalled ? SIGKILL : rec->stop_signal);
			signalled = true;
		}
	}
	pm_workload__wait(&rec->work);
}

/* After the fork: the workload keeps its normal policy. */
static int record__set_realtime(const struct record_opts *o)
{
	struct sched_param sp = { .sched_priority = o->realtime };

	if (!o->realtime || !sched_setscheduler(0, SCHED_FIFO, &sp))
		return 0;
	error("cannot switch to SCHED_FIFO priority %d: %s", o->realtime, strerror(errno));
	hint("--realtime needs root or CAP_SYS_NICE (or RLIMIT_RTPRIO >= %d)", o->realtime);
	return PM_EXIT_FAILURE;
}

/* -k: the wall-clock reference of the clock the kernel took for the events. */
static int record__init_clock(struct record *rec)
{
	int err;

	if (!rec->opts->use_clockid)
		return 0;
	err = pm_clock__reference(rec->opts->clockid, &rec->clock);
	if (err) {
		error("cannot read clock %d: %s", rec->opts->clockid, strerror(-err));
		return err;
	}
	rec->rf.clock = &rec->clock;
	return 0;
}

/*
 * System-wide, every CPU samples from its event's enable on, and the
 * file's prologue (the /proc walk) takes seconds on a large machine: 5-9 s
 * at 64 emulated CPUs (issue 43), all sampled and in the samples' span.
 * There the events are enabled after the prologue, and a dummy event,
 * enabled at its open, tracks the tasks meanwhile: no MMAP, COMM or FORK
 * between the walk and the enable is missed (perf does the same).  A
 * flight recorder writes no prologue before it runs.
 */
static bool record__enable_late(const struct record *rec)
{
	return rec->targets.tids[0] == -1 && !rec->opts->overwrite;
}

void record__enable(struct record *rec)
{
	pm_drain__ioctl_all(rec->drain, PERF_EVENT_IOC_ENABLE);
	if (record__enable_late(rec))
		pm_drain__open_window(rec->drain);
	record__phase(rec, "events enabled");
}

/* The events and rings, enabled unless the workload's exec or the prologue's end does. */
static int record__prepare_events(struct record *rec)
{
	const struct record_opts *o = rec->opts;
	bool system_wide = rec->targets.tids[0] == -1;
	/* With -u the workload only says when to stop, as with -a. */
	bool workload_target = o->workload && !system_wide && !o->uid_str;
	struct pm_event_config cfg = {
		.freq = o->freq,
		.period = o->period,
		.callchain = o->callchain,
		.dwarf = o->dwarf,
		.dwarf_stack = o->dwarf_stack,
		.inherit = !o->no_inherit && !system_wide,
		.enable_on_exec = workload_target && !o->delay_ms,
		.overwrite = o->overwrite,
		.lost_format = true,
		.build_id = o->buildid_mmap,
		.sample_addr = o->sample_addr,
		/*
		 * --off-cpu pairs a thread's switch-out with its switch-in.
		 * System-wide, the tracepoint's next_pid is that switch-in, at
		 * the same instant; a task's own event fires only as it leaves
		 * (the tracepoint runs in the context of prev), so its
		 * switch-ins come from SWITCH records.
		 */
		.context_switch = o->switch_events || (o->off_cpu && !system_wide),
		.mode = o->mode,
		.use_clockid = o->use_clockid,
		.clockid = o->clockid,
	};

	if (record__enable_late(rec) && pm_evlist__add_tracking(&rec->opts->evlist)) {
		error("out of memory");
		return PM_EXIT_FAILURE;
	}
	if (!o->no_buildid && record__init_build_ids(rec))
		return PM_EXIT_FAILURE;
	rec->rf.build_ids = rec->build_ids;
	if (record__init_filecap(rec) || record__init_jitcap(rec))
		return PM_EXIT_FAILURE;
	record__raise_nofile(rec);
	record__phase(rec, "set-up");
	if (record__open_events(rec, &cfg) || record__init_clock(rec))
		return PM_EXIT_FAILURE;
	record__phase(rec, "events opened and mapped");
	if (!cfg.enable_on_exec && !o->delay_ms && !record__enable_late(rec))
		record__enable(rec);
	return 0;
}

/* -z: perf's mmap_len is a ring with its control page. */
static int record__init_zsink(struct record *rec)
{
	const struct record_opts *o = rec->opts;
	int err;

	if (!o->comp_level)
		return 0;
	err = pm_zsink__init(&rec->zsink, o->comp_level,
			     (uint64_t)(o->mmap_pages + 1) * (uint64_t)sysconf(_SC_PAGESIZE));
	if (err) {
		error("cannot set up zstd compression: %s", strerror(-err));
		return PM_EXIT_FAILURE;
	}
	rec->rf.zsink = &rec->zsink;
	return 0;
}

/* Lets the held workload exec; 127 (as a shell) when it cannot. */
static int record__start_workload(struct record *rec)
{
	int err = pm_workload__start(&rec->work);

	if (!err)
		return 0;
	error("cannot run '%s': %s", rec->opts->workload[0], strerror(-err));
	pm_workload__wait(&rec->work);
	rec->work.pid = 0;
	return 127;
}

/*
 * Targets, output, signals, the held workload, the events and rings, the
 * file's prologue, then the workload runs and the file is published.
 * Returns an exit status to leave with, or 0; *err is a write error of the
 * prologue (the disk is full already): what fits is kept and the workload
 * still runs to its end.
 */
static int record__prepare(struct record *rec, int *err)
{
	const struct record_opts *o = rec->opts;
	bool created;
	int status;

	record__phase(rec, "start");
	status = record__setup_targets(rec);
	if (status)
		return status;
	if (strcmp(o->output, "-") && record__check_output(o->output))
		return PM_EXIT_FAILURE;
	status = record__watch(rec);
	if (status)
		return status;
	if (o->workload) {
		status = pm_workload__fork(&rec->work, o->workload, &rec->oldmask);
		if (status) {
			error("cannot start '%s': %s", o->workload[0], strerror(-status));
			return PM_EXIT_FAILURE;
		}
		if (!rec->targets.nr && pm_target__add(&rec->targets, rec->work.pid))
			return PM_EXIT_FAILURE;
	}
	status = record__set_realtime(o);
	if (!status)
		status = record__prepare_events(rec);
	if (!status)
		status = record__init_zsink(rec);
	if (status)
		return status;
	if (!o->overwrite) {
		*err = pm_recfile__start(&rec->rf, &created);
		if (*err && !created)
			return PM_EXIT_FAILURE;
		record__phase(rec, "file's prologue");
	}
	if (record__enable_late(rec) && !o->delay_ms)
		record__enable(rec);
	if (o->workload && (status = record__start_workload(rec)))
		return status;
	/* The window holds the command's life: none of its start or its reaping. */
	if (o->workload && record__enable_late(rec))
		pm_drain__window_task(rec->drain, rec->work.pid);
	/* From here on a killed recording leaves a readable file. */
	status = pm_recfile__publish(&rec->rf);
	if (status) {
		error("cannot rename '%s' to '%s': %s", rec->rf.file.tmp, o->output,
		      strerror(-status));
		return PM_EXIT_FAILURE;
	}
	return 0;
}

/* The rings drained, the losses written, the file finished (or a last snapshot). */
static int record__finish(struct record *rec, uint64_t *lost_samples)
{
	const struct record_opts *o = rec->opts;
	struct pm_buf lost = { 0 };
	struct pm_stage_stats staged;
	size_t cap;
	int err;

	/* The flight recorder's last words: a final snapshot. */
	if (o->overwrite)
		return record__snapshot(rec);
	record__phase(rec, "recording");
	err = record__drain_stop(rec);
	record__phase(rec, "events disabled, rings drained and unmapped");
	if (o->verbose && pm_drain__stage_stats(rec->drain, &staged, &cap))
		note("staging buffer: %.1f of %.1f MB used at most, %llu passes waited for room",
		     (double)staged.peak / 1e6, (double)cap / 1e6,
		     (unsigned long long)staged.deferred);
	if (!err)
		err = pm_drain__lost_samples(rec->drain, &lost, lost_samples);
	if (!err)
		record__copy_jit_maps(rec);
	if (!err)
		err = pm_recfile__finalize(&rec->rf, &lost);
	if (!err)
		record__note_filecap(rec);
	record__phase(rec, "lost counts, JIT maps, file finished");
	if (!err && (o->switch_kind || o->timestamp_filename))
		err = pm_recfile__stamp(&rec->rf, o->output);
	pm_buf__exit(&lost);
	return err;
}

/* The summary or the write error, then what becomes of the workload: the exit status. */
static int record__end(struct record *rec, int err, uint64_t lost_samples)
{
	const struct record_opts *o = rec->opts;
	int status = PM_EXIT_OK;

	if (err)
		status = record__write_failed(rec, err);
	else
		record__summary(rec, lost_samples);
	pm_workload__reap(&rec->work);
	if (rec->work.running && err == -EPIPE) {
		/* Nobody reads any more: leave at once, the workload runs on (as with perf). */
		pm_drain__close(rec->drain);
		rec->work.running = false;
	} else if (rec->work.running && err) {
		/* A full disk is no reason to kill the workload. */
		pm_drain__close(rec->drain);
		if (!o->quiet)
			note("recording stopped early; waiting for '%s' to finish", o->workload[0]);
		record__wait_child(rec, 0);
	} else if (rec->work.running) {
		/* Recording stopped first (signal, --duration): end the workload too. */
		record__wait_child(rec, SIGTERM);
		if (!rec->stop_signal)
			return status;
	}
	/* A flight recorder stopped by a signal did its job: its last snapshot. */
	if (!status && o->overwrite && rec->stop_signal && rec->work.pid <= 0)
		return PM_EXIT_OK;
	return status ? status : exit_status(rec, status);
}

/* The phases: prepare, record, finish, end. */
static int record__run(struct record *rec)
{
	uint64_t lost_samples = 0;
	int err = 0, status;

	status = record__prepare(rec, &err);
	if (status)
		return status;
	if (!err)
		err = record__record(rec);
	if (!err)
		err = record__finish(rec, &lost_samples);
	return record__end(rec, err, lost_samples);
}

/*
 * 512 KiB rings hold about 4 ms of an unpaced tracepoint storm: a drain
 * delayed longer by a busy machine loses samples, and 4 MiB rings lost
 * none where 512 KiB lost some in every run.  Who may lock memory at will
 * (CAP_IPC_LOCK: root) gets up to 4 MiB per CPU within 32 MiB in all; the
 * others keep 512 KiB, what kernel.perf_event_mlock_kb allows by default.
 */
static size_t record__default_pages(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[2] = { { 0 } };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
	size_t pages = DEFAULT_MMAP_PAGES;

	if (syscall(SYS_capget, &h, caps) || !(caps[0].effective & (1u << CAP_IPC_LOCK)) ||
	    cpus <= 0 || page <= 0)
		return pages;
	while (pages < 1024 && 2 * pages * page * cpus <= (32L << 20))
		pages *= 2;
	return pages;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts opts = {
		.output = "pmrec.data",
		.buffer_size = DEFAULT_BUFFER_SIZE,
	};
	struct record rec = { .opts = &opts, .sigfd = -1, .epfd = -1, .cgroup_fd = -1,
			      .ctl = { .ctl_fd = -1, .ack_fd = -1 }, .work = { .go_fd = -1, .err_fd = -1 } };
	/* -o - on a stdout closed at the start (now /dev/null) is refused. */
	int stdout_flags = pm_cmd__std_fd_was_closed(STDOUT_FILENO) ? -1 :
			   fcntl(STDOUT_FILENO, F_GETFL);
	char *bad = NULL;
	int status;

	if (argp_parse(&record_argp, argc, argv, ARGP_IN_ORDER, NULL, &opts))
		return PM_EXIT_USAGE;
	if (!strcmp(opts.output, "-") && record__check_stdout(stdout_flags))
		return PM_EXIT_FAILURE;
	if (!opts.mmap_pages)
		opts.mmap_pages = record__default_pages();
	if (!opts.evlist.nr && pm_evlist__add(&opts.evlist, "cpu-clock", &bad)) {
		error("cannot set up the default event cpu-clock");
		free(bad);
		return PM_EXIT_FAILURE;
	}
	if (opts.off_cpu && (status = record__add_off_cpu(&opts))) {
		pm_evlist__exit(&opts.evlist);
		return status;
	}
	record__init_file(&rec, argc, argv);
	status = record__run(&rec);
	record__teardown(&rec);
	record__phase(&rec, "teardown");
	pm_evlist__exit(&opts.evlist);
	return status;
}
