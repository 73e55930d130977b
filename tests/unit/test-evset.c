// SPDX-License-Identifier: GPL-2.0
/*
 * The event set against a fake perf_event_open: the fallbacks for older
 * kernels (attr.build_id, PERF_FORMAT_LOST), the halving of rings over the
 * locked-memory limit down to PM_EVSET_MIN_PAGES, SET_OUTPUT into each CPU's
 * ring owner, and failures returned as data.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/drain_int.h"
#include "record/evset.h"
#include "tap.h"

#define MAX_FDS 64

struct kernel {
	bool reject_build_id;		/* kernels before 5.12 */
	bool reject_lost;		/* kernels before 6.0 */
	size_t mlock_pages;		/* mmap fails with EPERM above this; 0: no limit */
	bool reject_filter;
	bool reject_clockid;		/* a clock the kernel does not take */
	int fail_cpu;			/* perf_event_open fails there with ENOENT; -1: none */
	pid_t gone[2];			/* threads that exited: ESRCH */
	pid_t last_pid;			/* of the last open, and its flags */
	unsigned long last_flags;
	int next_fd;
	int open_fds;
	int opens;			/* calls, refused ones included */
	int owner[MAX_FDS];		/* SET_OUTPUT target of each fd */
	int pinned;			/* the CPU the thread was moved to; -1: home */
	int remote_opens;		/* opens of a CPU's event from elsewhere */
	void *mem[MAX_FDS];
};

static struct kernel K;

static int f_open(void *arg, struct perf_event_attr *attr, pid_t pid, int cpu,
		  unsigned long flags)
{
	K.opens++;
	K.remote_opens += cpu != K.pinned;
	K.last_pid = pid;
	K.last_flags = flags;
	if (pid > 0 && (pid == K.gone[0] || pid == K.gone[1]))
		return -ESRCH;
	if ((K.reject_clockid && attr->use_clockid) || (K.reject_build_id && attr->build_id) ||
	    (K.reject_lost && (attr->read_format & PERF_FORMAT_LOST)))
		return -EINVAL;
	if (cpu == K.fail_cpu)
		return -ENOENT;
	K.open_fds++;
	K.owner[K.next_fd] = -1;
	return K.next_fd++;
}

static int f_ioctl(void *arg, int fd, unsigned long req, unsigned long val)
{
	if (req == PERF_EVENT_IOC_ID)
		*(uint64_t *)val = 1000 + (uint64_t)fd;
	else if (req == PERF_EVENT_IOC_SET_FILTER && K.reject_filter)
		return -EINVAL;
	else if (req == PERF_EVENT_IOC_SET_OUTPUT)
		K.owner[fd] = (int)val;
	return 0;
}

static int f_mmap(void *arg, struct pm_ring *r, int fd, size_t pages, bool overwrite)
{
	if (K.mlock_pages && pages > K.mlock_pages)
		return -EPERM;
	K.mem[fd] = calloc(1, 2 * 4096);
	pm_ring__attach_mem(r, K.mem[fd], 4096, 4096);
	r->fd = fd;
	return 0;
}

static int f_close(void *arg, int fd)
{
	K.open_fds--;
	return 0;
}

static void f_unmap(void *arg, struct pm_ring *r)
{
	free(K.mem[r->fd]);
	K.mem[r->fd] = NULL;
	f_close(arg, r->fd);
	r->fd = -1;
	pm_ring__unmap(r);
}

static ssize_t f_read(void *arg, int fd, void *buf, size_t len)
{
	memset(buf, 0, len);
	return (ssize_t)len;
}

static int f_get_affinity(void *arg, cpu_set_t *set, size_t size)
{
	CPU_ZERO_S(size, set);
	CPU_SET_S(0, size, set);
	CPU_SET_S(1, size, set);
	return 0;
}

static int f_set_affinity(void *arg, const cpu_set_t *set, size_t size)
{
	int cpu;

	K.pinned = -1;
	for (cpu = 0; CPU_COUNT_S(size, set) == 1 && cpu < 8; cpu++)
		if (CPU_ISSET_S((size_t)cpu, size, set))
			K.pinned = cpu;
	return 0;
}

/* The movers one after the other, each moving itself (f_set_affinity). */
static void f_run_threads(void *arg, size_t n, void (*fn)(void *ctx, size_t t), void *ctx,
			  bool *ran)
{
	size_t t;

	for (t = 0; t < n; t++) {
		ran[t] = true;
		fn(ctx, t);
	}
	K.pinned = -1;
}

static const struct pm_perf_ops fake_ops = {
	.open = f_open,
	.ioctl = f_ioctl,
	.mmap = f_mmap,
	.unmap = f_unmap,
	.read = f_read,
	.close = f_close,
	.get_affinity = f_get_affinity,
	.set_affinity = f_set_affinity,
};

/* fake_ops with movers (run_wide). */
static struct pm_perf_ops mover_ops;

struct fixture {
	struct pm_evlist evlist;
	struct pm_drain *drain;
	struct pm_evset set;
	struct pm_event_config cfg;
	struct pm_evset_error err;
	pid_t tids[2];
};

/* How the next run() opens: -u's listing of threads, or -G's cgroup. */
static struct {
	bool skip_gone;
	bool cgroup;
	bool use_clockid;
} S;

/* 2 CPUs x 2 tasks x 2 events, 128-page rings wanted. */
static int run(struct fixture *f)
{
	static const int cpus[] = { 0, 1 };
	char *bad = NULL;

	memset(f, 0, sizeof(*f));
	f->tids[0] = 100;
	f->tids[1] = 101;
	if (pm_evlist__add(&f->evlist, "cpu-clock,page-faults", &bad))
		return -1;
	f->drain = pm_drain__new(&(struct pm_drain_config){ .ops = &fake_ops, .cpus = cpus,
							   .nr_cpus = 2, .watch_fd = -1, .pin_rings = 1 });
	f->set = (struct pm_evset){ .evlist = &f->evlist, .drain = f->drain, .tids = f->tids,
				    .nr_tids = 2, .mmap_pages = 128, .skip_gone = S.skip_gone,
				    .cgroup = S.cgroup, .cgroup_fd = 42 };
	f->cfg = (struct pm_event_config){ .lost_format = true, .build_id = true,
					   .use_clockid = S.use_clockid, .clockid = 4 };
	if (K.reject_filter)
		f->evlist.events[1].filter = strdup("id == 110");
	return pm_evset__open(&f->set, &f->cfg, &f->err);
}

static void done(struct fixture *f)
{
	pm_drain__delete(f->drain);
	pm_evlist__exit(&f->evlist);
}

static void kernel(void)
{
	memset(&K, 0, sizeof(K));
	memset(&S, 0, sizeof(S));
	K.next_fd = 3;
	K.fail_cpu = -1;
	K.pinned = -1;
}

static void test_plain(void)
{
	struct fixture f;
	int err;
	size_t i;
	bool redirected = true;

	kernel();
	err = run(&f);
	tap_ok(err == 0 && f.drain->nr_fds == 8 && K.open_fds == 8, "8 fds for 2 CPUs, 2 tasks, 2 events");
	tap_ok(f.drain->rings[0].ring.fd == 3 && f.drain->rings[1].ring.fd == 7,
	       "the first fd of each CPU owns its ring");
	for (i = 0; i < 8; i++) {
		int fd = f.drain->fds[i].fd, owner = f.drain->rings[f.drain->fds[i].ring].ring.fd;

		if (fd != owner && K.owner[fd] != owner)
			redirected = false;
	}
	tap_ok(redirected, "every other fd is redirected into its CPU's owner");
	tap_ok(f.evlist.events[0].nr_ids == 4 && f.evlist.events[0].ids[0] == 1003 &&
	       f.evlist.events[1].nr_ids == 4, "one sample id per fd, per event");
	tap_ok(f.set.opened.lost_format && f.set.opened.build_id_mmap && f.set.opened.time_off == 32,
	       "PERF_FORMAT_LOST and build ids kept; samples' time at 32");
	tap_ok(f.drain->rings[0].ring.refcnt == 4, "each ring counts its 4 writers");
	tap_ok(K.remote_opens == 0 && K.pinned == -1,
	       "each CPU's events opened from that CPU, the thread home after");
	done(&f);
	tap_ok(K.open_fds == 0, "every fd closed at exit");
}

static void test_build_id_fallback(void)
{
	struct fixture f;
	int err;

	kernel();
	K.reject_build_id = true;
	err = run(&f);
	tap_ok(err == 0 && !f.evlist.events[0].attr.build_id && !f.set.opened.build_id_mmap,
	       "attr.build_id refused: opened without it");
	tap_ok(f.set.lost_format && (f.evlist.events[1].attr.read_format & PERF_FORMAT_LOST),
	       "PERF_FORMAT_LOST is kept when build ids were the problem");
	done(&f);
}

static void test_lost_fallback(void)
{
	struct fixture f;
	int err;

	kernel();
	K.reject_lost = true;
	err = run(&f);
	tap_ok(err == 0 && !f.set.lost_format && !f.set.opened.lost_format && f.drain->nr_fds == 8,
	       "PERF_FORMAT_LOST refused: every fd opened without it");
	tap_ok(!(f.evlist.events[0].attr.read_format & PERF_FORMAT_LOST) &&
	       !(f.evlist.events[1].attr.read_format & PERF_FORMAT_LOST),
	       "dropped from every event's read_format");
	tap_ok(K.opens == 8 + 1, "one try with FORMAT_LOST, then none");
	tap_ok(f.evlist.events[0].attr.build_id && f.set.opened.build_id_mmap,
	       "build ids kept (kernels 5.12-5.19 take them, not FORMAT_LOST)");
	done(&f);

	kernel();
	K.reject_lost = K.reject_build_id = true;
	err = run(&f);
	tap_ok(err == 0 && !f.set.lost_format && !f.evlist.events[0].attr.build_id &&
	       f.drain->nr_fds == 8, "neither taken (before 5.12): opened without both");
	done(&f);
}

static void test_mlock_halving(void)
{
	struct fixture f;
	int err;

	kernel();
	K.mlock_pages = 16;
	err = run(&f);
	tap_ok(err == 0 && f.set.mmap_pages == 16, "rings over the limit halved until they fit (16 pages)");
	tap_ok(K.open_fds == 8 && f.drain->nr_fds == 8, "the fds of the failed attempts are closed");
	tap_ok(f.evlist.events[0].nr_ids == 4, "ids of the failed attempts forgotten");
	tap_ok(f.cfg.watermark == 16 * 4096 / 4, "the wake-up watermark follows the ring size");
	done(&f);
	tap_ok(K.open_fds == 0, "every fd closed at exit");

	kernel();
	K.mlock_pages = 2;
	err = run(&f);
	tap_ok(err == -EPERM && f.err.stage == PM_EVSET_MMAP && f.err.err == EPERM &&
	       f.err.cpu == 0 && f.set.mmap_pages == PM_EVSET_MIN_PAGES,
	       "below %d pages the mmap failure is returned", PM_EVSET_MIN_PAGES);
	done(&f);
	tap_ok(K.open_fds == 0, "and every fd is closed");
}

static void test_errors_as_data(void)
{
	struct fixture f;
	int err;

	kernel();
	K.fail_cpu = 1;
	err = run(&f);
	tap_ok(err == -ENOENT && f.err.stage == PM_EVSET_OPEN && f.err.cpu == 1 &&
	       f.err.tid == 100 && f.err.event == 0 && f.err.err == ENOENT,
	       "an open failure names its stage, event, CPU and task");
	done(&f);
	tap_ok(K.open_fds == 0, "what was opened before it is closed");

	kernel();
	K.reject_filter = true;
	err = run(&f);
	tap_ok(err == -EINVAL && f.err.stage == PM_EVSET_FILTER && f.err.event == 1 &&
	       f.err.cpu == 0, "a rejected filter names its event");
	done(&f);
	tap_ok(K.open_fds == 0, "and every fd is closed");
}

static void test_gone_threads(void)
{
	struct fixture f;
	int err;

	kernel();
	K.gone[0] = 100;
	err = run(&f);
	tap_ok(err == -ESRCH && f.err.stage == PM_EVSET_OPEN && f.err.tid == 100,
	       "a thread that exited fails the open of a -p/-t list");
	done(&f);

	kernel();
	K.gone[0] = 100;
	S.skip_gone = true;
	err = run(&f);
	tap_ok(err == 0 && f.drain->nr_fds == 4 && K.open_fds == 4,
	       "with skip_gone it is left out: 2 CPUs x 1 task x 2 events");
	tap_ok(f.drain->rings[0].ring.ctl && f.drain->rings[1].ring.ctl &&
	       f.drain->rings[0].ring.refcnt == 2, "the next thread owns each ring");
	done(&f);

	kernel();
	K.gone[0] = 100;
	K.gone[1] = 101;
	S.skip_gone = true;
	err = run(&f);
	tap_ok(err == -ESRCH && f.err.stage == PM_EVSET_OPEN && f.err.cpu == 0,
	       "every thread gone: an error, not a ring without writers");
	done(&f);
	tap_ok(K.open_fds == 0, "and every fd is closed");
}

static void test_cgroup(void)
{
	struct fixture f;
	int err;

	kernel();
	S.cgroup = true;
	err = run(&f);
	tap_ok(err == 0 && K.last_pid == 42 && K.last_flags == PERF_FLAG_PID_CGROUP,
	       "a cgroup event is opened with the cgroup's fd and PERF_FLAG_PID_CGROUP");
	done(&f);

	kernel();
	err = run(&f);
	tap_ok(err == 0 && K.last_pid == 101 && K.last_flags == 0, "other events have no flag");
	done(&f);
}

static void test_clockid(void)
{
	struct fixture f;
	int err;

	kernel();
	S.use_clockid = true;
	err = run(&f);
	tap_ok(err == 0 && f.evlist.events[0].attr.use_clockid && f.evlist.events[0].attr.clockid == 4 &&
	       f.evlist.events[1].attr.use_clockid && f.evlist.events[1].attr.clockid == 4,
	       "-k: use_clockid and the clock on every event");
	done(&f);

	kernel();
	S.use_clockid = true;
	K.reject_clockid = true;
	err = run(&f);
	tap_ok(err == -EINVAL && f.err.stage == PM_EVSET_CLOCKID && f.err.event == 0 &&
	       f.err.cpu == 0 && f.err.err == EINVAL,
	       "a refused clock is told from other faults: the event opens without it");
	done(&f);
	tap_ok(K.open_fds == 0, "the probe's fd is closed too");

	kernel();
	S.use_clockid = true;
	K.reject_clockid = true;
	K.fail_cpu = 0;
	err = run(&f);
	tap_ok(err == -EINVAL && f.err.stage == PM_EVSET_OPEN,
	       "when the event fails without the clock too, the open failed");
	done(&f);
}

/* System-wide on 4 CPUs, a mover a ring: the opens of rings 1-3 are made by the movers first. */
static int run_wide(struct fixture *f)
{
	static const int cpus[] = { 0, 1, 2, 3 };
	char *bad = NULL;

	memset(f, 0, sizeof(*f));
	mover_ops = fake_ops;
	mover_ops.run_threads = f_run_threads;
	f->tids[0] = -1;
	if (pm_evlist__add(&f->evlist, "cpu-clock,page-faults", &bad))
		return -1;
	f->drain = pm_drain__new(&(struct pm_drain_config){ .ops = &mover_ops, .cpus = cpus,
							   .nr_cpus = 4, .watch_fd = -1, .pin_rings = 1,
							   .rings_per_mover = 1 });
	f->set = (struct pm_evset){ .evlist = &f->evlist, .drain = f->drain, .tids = f->tids,
				    .nr_tids = 1, .mmap_pages = 128 };
	f->cfg = (struct pm_event_config){ .lost_format = true, .build_id = true };
	return pm_evset__open(&f->set, &f->cfg, &f->err);
}

static void test_prefetch(void)
{
	struct fixture f;
	int err;

	kernel();
	K.reject_lost = true;
	err = run_wide(&f);
	tap_ok(err == 0 && K.opens == 8 + 1 && K.remote_opens == 0 && f.drain->nr_fds == 8 &&
	       K.open_fds == 8, "movers: each CPU's opens made there, once (the first ring's twice: a refusal)");
	/* Ring 0 alone first (fds 3, 4); then the movers, one ring each: rings 1-3 get 5-10. */
	tap_ok(f.drain->rings[0].ring.fd == 3 && f.drain->rings[1].ring.fd == 5 &&
	       f.drain->rings[3].ring.fd == 9 && K.owner[10] == 9 && !f.set.opened.lost_format,
	       "movers: the prefetched fds set up, with the first ring's settled attrs");
	done(&f);
	tap_ok(K.open_fds == 0, "movers: every fd closed at exit");

	kernel();
	K.fail_cpu = 2;
	err = run_wide(&f);
	tap_ok(err == -ENOENT && f.err.stage == PM_EVSET_OPEN && f.err.cpu == 2 && K.opens == 8 + 1,
	       "movers: a CPU whose open fails is tried once more, and the error says which");
	done(&f);
	tap_ok(K.open_fds == 0, "movers: the prefetched fds not set up are closed");
}

int main(void)
{
	test_plain();
	test_build_id_fallback();
	test_lost_fallback();
	test_mlock_halving();
	test_errors_as_data();
	test_gone_threads();
	test_cgroup();
	test_clockid();
	test_prefetch();
	return tap_done();
}
