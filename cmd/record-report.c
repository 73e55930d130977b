// SPDX-License-Identifier: GPL-2.0
/* Every message of pmrec record: errors with their hints, warnings, the summary. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "base/output.h"
#include "record.h"
#include "base/smallfile.h"

/* kernel.perf_event_paranoid, INT_MIN when unreadable. */
static int read_paranoid(void)
{
	int v;

	return pm_read_int("/proc/sys/kernel/perf_event_paranoid", &v) ? INT_MIN : v;
}

static bool have_hw_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

static rlim_t nofile_limit(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) ? 0 : rl.rlim_cur;
}

static void report_open_error(const struct record *rec, const struct pm_event *ev, int cpu, pid_t tid,
			      int err)
{
	char where[64];

	if (tid > 0)
		snprintf(where, sizeof(where), "task %d on CPU %d", tid, cpu);
	else if (rec->opts->cgroup)
		snprintf(where, sizeof(where), "cgroup '%.32s' on CPU %d", rec->opts->cgroup, cpu);
	else
		snprintf(where, sizeof(where), "CPU %d", cpu);
	error("cannot open '%s' on %s: %s", ev->name, where, strerror(err));
	switch (err) {
	case EACCES:
	case EPERM:
		if (tid <= 0)
			hint("system-wide recording needs kernel.perf_event_paranoid <= 0 (it is %d), "
			     "CAP_PERFMON or root", read_paranoid());
		else if (!ev->attr.exclude_kernel)
			hint("kernel.perf_event_paranoid is %d: kernel samples need <= 1; record user "
			     "mode only with :u (e.g. -e %s:u), or use CAP_PERFMON or root",
			     read_paranoid(), ev->name);
		if (tid > 0)
			hint("recording another user's task needs ptrace access to it "
			     "(CAP_SYS_PTRACE, or kernel.yama.ptrace_scope) or CAP_PERFMON");
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
		     "CPUs, tasks or events", (unsigned long long)rec->nofile_needed,
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

	pm_read_u64("/proc/sys/kernel/perf_event_mlock_kb", &kb);
	hint("locked memory for perf rings is limited by kernel.perf_event_mlock_kb "
	     "(%llu) and RLIMIT_MEMLOCK; use a smaller -m or raise them", (unsigned long long)kb);
}

static void report_clockid_error(const struct record *rec, const struct pm_event *ev)
{
	const char *name = pm_clock__name(rec->opts->clockid);

	if (name)
		error("the kernel refuses clock '%s' (-k) for '%s'", name, ev->name);
	else
		error("the kernel refuses clock %d (-k) for '%s'", rec->opts->clockid, ev->name);
	hint("perf events take monotonic and monotonic_raw, and realtime, boottime and tai "
	     "for software events and tracepoints only (Linux 4.1 and later)");
}

/* Words what pm_evset__open could not do. */
void record__report_evset_error(const struct record *rec, const struct pm_evset_error *e)
{
	const struct pm_event *ev = &rec->opts->evlist.events[e->event];
	size_t kib = rec->opts->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024;

	switch (e->stage) {
	case PM_EVSET_OPEN:
		report_open_error(rec, ev, e->cpu, e->tid, e->err);
		break;
	case PM_EVSET_CLOCKID:
		report_clockid_error(rec, ev);
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
		error("cannot map a %zu KiB ring buffer on CPU %d: %s", kib, e->cpu,
		      strerror(e->err));
		if (e->err == EPERM)
			hint_mlock();
		else if (e->err == ENOMEM)
			hint("the kernel could not allocate a ring of this size (locked-memory "
			     "limits were not the cause); use a smaller -m");
		break;
	case PM_EVSET_REDIRECT:
		error("cannot redirect '%s' into the ring of CPU %d: %s", ev->name, e->cpu,
		      strerror(e->err));
		break;
	}
}

int record__check_output(const char *path)
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

/*
 * -o -: stdout, as it was when pmrec started (flags from F_GETFL, or -1),
 * must be open for writing and not a terminal.
 */
int record__check_stdout(int flags)
{
	if (flags < 0) {
		error("cannot write the stream to standard output: it is closed");
		return -EBADF;
	}
	if ((flags & O_ACCMODE) == O_RDONLY) {
		error("cannot write the stream to standard output: it is open read-only");
		return -EBADF;
	}
	if (isatty(STDOUT_FILENO)) {
		error("refusing to write a binary stream to a terminal; redirect stdout");
		return -ENOTTY;
	}
	return 0;
}

/* What the output file has to say, worded. */
void record__file_note(void *arg, enum pm_recfile_note what, const char *path, int err)
{
	const struct record *rec = arg;

	switch (what) {
	case PM_RECFILE_CREATE_FAILED:
		if (err == -ENOTTY)
			error("refusing to write a binary stream to a terminal; redirect stdout");
		else
			error("cannot create a file beside '%s': %s", path, strerror(-err));
		break;
	case PM_RECFILE_STAMP_FAILED:
		error("cannot rename '%s' to a timestamped name: %s", path, strerror(-err));
		break;
	case PM_RECFILE_KEPT:
		if (!rec->opts->quiet)
			note("wrote '%s'", path);
		break;
	case PM_RECFILE_UNLINK_FAILED:
		error("cannot remove old file '%s': %s", path, strerror(-err));
		break;
	case PM_RECFILE_MAPS_DENIED:
		if (!rec->opts->quiet)
			warning("cannot read '%s': %s; its user-space addresses will not be named",
				path, strerror(-err));
		break;
	case PM_RECFILE_NO_KERNEL_MAP:
		if (rec->opts->verbose)
			note("no kernel map (%s): kernel symbols will not resolve", strerror(-err));
		break;
	}
}

void record__summary(struct record *rec, uint64_t lost_samples)
{
	const struct pm_drain_stats *st = pm_drain__stats(rec->drain);
	uint64_t lost = lost_samples > st->lost ? lost_samples : st->lost;
	const char *out = strcmp(rec->opts->output, "-") ? rec->opts->output : "stdout";
	char losses[64] = "0";
	size_t i;

	if (rec->opts->quiet)
		return;
	if (rec->size_stopped)
		note("the output reached --max-size=%s: recording stopped",
		     rec->opts->max_size_arg);
	if (lost)
		snprintf(losses, sizeof(losses), "%llu (%.2f%%)", (unsigned long long)lost,
			 100.0 * (double)lost / (double)(lost + st->samples));
	if (rec->rf.nr_files)
		note("wrote %llu samples in %u %s, lost %s", (unsigned long long)st->samples,
		     rec->rf.nr_files, rec->opts->overwrite ? "snapshots" : "files", losses);
	else
		note("wrote %llu samples, %.2f MB, to '%s', lost %s", (unsigned long long)st->samples,
		     (double)(rec->rf.out.data_size + rec->rf.out.data_offset) / 1e6, out, losses);
	if (lost) {
		for (i = 0; i < pm_drain__nr_rings(rec->drain); i++) {
			int cpu;
			uint64_t n = pm_drain__ring_lost(rec->drain, i, &cpu);

			if (n)
				hint("CPU %d: %llu lost", cpu, (unsigned long long)n);
		}
		hint("to lose less: a larger buffer (-m, now %zu pages), a lower rate (-F/-c), "
		     "or fewer events", rec->opts->mmap_pages);
	}
	if (st->corrupt)
		hint("%llu corrupt ring headers were skipped", (unsigned long long)st->corrupt);
	if (st->skipped_bytes)
		hint("stopped at once on a second signal: %llu bytes left in the rings were not "
		     "written", (unsigned long long)st->skipped_bytes);
	/* A few in the microseconds of the rounds are no news; a large machine's are. */
	if (st->outside && (rec->opts->verbose || st->outside * 100 > st->samples))
		note("left out %llu samples taken while the CPUs' events were being enabled, or "
		     "disabled, one CPU after another, or before the command's exec or after its "
		     "exit: the file covers the time every CPU sampled the command's life",
		     (unsigned long long)st->outside);
}

/*
 * The output failed (full disk, I/O error, closed pipe): keep what was
 * committed, which perf reads, and say what was kept and what was dropped.
 */
int record__write_failed(struct record *rec, int err)
{
	const char *path = rec->opts->output;
	const struct pm_drain_stats *st = pm_drain__stats(rec->drain);

	pm_recfile__rollback(&rec->rf);
	if (err == -EPIPE) {
		error("the reader of the output pipe went away; stopped after %llu samples "
		      "(%.2f MB)", (unsigned long long)st->samples, (double)rec->rf.out.data_size / 1e6);
		return PM_EXIT_EPIPE;
	}
	error("cannot write '%s': %s; kept %llu samples (%.2f MB), dropped %llu samples "
	      "(%.2f MB) and everything after", path, strerror(-err),
	      (unsigned long long)st->samples,
	      (double)(rec->rf.out.data_offset + rec->rf.out.data_size) / 1e6,
	      (unsigned long long)st->dropped_samples, (double)st->dropped_bytes / 1e6);
	return PM_EXIT_FAILURE;
}

void record__warn_halved(const struct record *rec, size_t wanted_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t kb = 0;
	struct rlimit rl = { 0 };

	pm_read_u64("/proc/sys/kernel/perf_event_mlock_kb", &kb);
	getrlimit(RLIMIT_MEMLOCK, &rl);
	warning("%zu KiB rings exceed the locked-memory limit (kernel.perf_event_mlock_kb=%llu, "
		"RLIMIT_MEMLOCK=%llu KiB); using %zu KiB per CPU", wanted_pages * page / 1024,
		(unsigned long long)kb,
		(unsigned long long)(rl.rlim_cur == RLIM_INFINITY ? 0 : rl.rlim_cur / 1024),
		rec->opts->mmap_pages * page / 1024);
}
