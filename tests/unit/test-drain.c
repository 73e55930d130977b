// SPDX-License-Identifier: GPL-2.0
/*
 * The drain engine over fake rings in plain memory and a fake kernel: every
 * call the engine makes (read, ioctl, close, unmap, poll) goes through a
 * pm_perf_ops that logs it, and the fake unmap checks at that moment that
 * the ring is safe to let go: the sink saw every byte of it (data_tail has
 * reached data_head), every fd of it had its PERF_FORMAT_LOST read, and
 * every redirected fd was closed first.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/drain_int.h"
#include "format/perf_data.h"
#include "record/target.h"
#include "tap.h"

#define CTL_SIZE 4096
#define RING_SIZE 4096
#define MAX_FDS 16
#define MAX_LOG 256

struct fake_fd {
	bool open;
	bool hup;			/* poll reports POLLHUP */
	bool lost_read;
	bool paused;
	uint64_t lost;			/* PERF_FORMAT_LOST */
	int owner;			/* ring owner fd it writes into */
};

struct kernel {
	struct fake_fd fds[MAX_FDS];
	unsigned char *mem[4];
	int nr_mem;
	char log[MAX_LOG][32];
	int nr_log;
	int violations;			/* unmaps that came too early */
	bool watch_ready;
	uint64_t lost_while_paused;	/* added to an fd's count per pause */
	void (*on_disable)(int fd);	/* what the other CPUs write meanwhile */
	int polls;
};

struct sink {
	struct pm_buf got;
	int fail;			/* error the next writes return */
	int writes;
	int last_iovcnt;
	int commits;
};

static struct kernel K;
/* The movers' threads (test_movers_threads) call the fakes at once. */
static pthread_mutex_t kmu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void klog(const char *fmt, int a, int b)
{
	pthread_mutex_lock(&kmu);
	if (K.nr_log < MAX_LOG)
		snprintf(K.log[K.nr_log++], sizeof(K.log[0]), fmt, a, b);
	pthread_mutex_unlock(&kmu);
}

/* Position of the first log entry equal to s, or -1. */
static int logged(const char *s)
{
	int i;

	for (i = 0; i < K.nr_log; i++)
		if (!strcmp(K.log[i], s))
			return i;
	return -1;
}

static int f_ioctl(void *arg, int fd, unsigned long req, unsigned long val)
{
	pthread_mutex_lock(&kmu);
	if (req == PERF_EVENT_IOC_SET_OUTPUT) {
		K.fds[fd].owner = (int)val;
		klog("redirect %d %d", fd, (int)val);
	} else if (req == PERF_EVENT_IOC_PAUSE_OUTPUT) {
		K.fds[fd].paused = val;
		if (val)
			K.fds[fd].lost += K.lost_while_paused;
		klog("pause %d %d", fd, (int)val);
	} else if (req == PERF_EVENT_IOC_DISABLE) {
		klog("disable %d%.0d", fd, 0);
		if (K.on_disable)
			K.on_disable(fd);
	}
	pthread_mutex_unlock(&kmu);
	return 0;
}

static int f_mmap(void *arg, struct pm_ring *r, int fd, size_t pages, bool overwrite)
{
	unsigned char *mem = calloc(1, CTL_SIZE + RING_SIZE);

	K.mem[K.nr_mem++] = mem;
	pm_ring__attach_mem(r, mem, CTL_SIZE, RING_SIZE);
	r->fd = fd;
	r->backward = overwrite;
	K.fds[fd].owner = fd;
	return 0;
}

static void f_unmap(void *arg, struct pm_ring *r)
{
	int fd;

	pthread_mutex_lock(&kmu);
	klog("unmap %d%.0d", r->fd, 0);
	if (r->ctl->data_tail != r->ctl->data_head && !r->backward)
		K.violations++;
	for (fd = 0; fd < MAX_FDS; fd++) {
		if (K.fds[fd].owner != r->fd || !K.fds[fd].open)
			continue;
		if (!K.fds[fd].lost_read)
			K.violations++;
		if (fd != r->fd)
			K.violations++;	/* a redirected fd still open */
	}
	K.fds[r->fd].open = false;
	r->fd = -1;
	pm_ring__unmap(r);
	pthread_mutex_unlock(&kmu);
}

static ssize_t f_read(void *arg, int fd, void *buf, size_t len)
{
	uint64_t v[3] = { 1, 100 + (uint64_t)fd, K.fds[fd].lost };

	pthread_mutex_lock(&kmu);
	K.fds[fd].lost_read = true;
	klog("read %d%.0d", fd, 0);
	pthread_mutex_unlock(&kmu);
	memcpy(buf, v, len < sizeof(v) ? len : sizeof(v));
	return len < sizeof(v) ? (ssize_t)len : (ssize_t)sizeof(v);
}

static int f_close(void *arg, int fd)
{
	pthread_mutex_lock(&kmu);
	klog("close %d%.0d", fd, 0);
	K.fds[fd].open = false;
	pthread_mutex_unlock(&kmu);
	return 0;
}

static int f_poll(void *arg, struct pollfd *fds, nfds_t nr, int timeout_ms)
{
	nfds_t i;
	int n = 0;

	K.polls++;
	for (i = 0; i < nr; i++) {
		fds[i].revents = 0;
		if (fds[i].fd == 15 && K.watch_ready)
			fds[i].revents = POLLIN;
		else if (fds[i].fd < 15 && K.fds[fds[i].fd].hup)
			fds[i].revents = POLLHUP;
		n += fds[i].revents != 0;
	}
	return n;
}

/* The command's state as the fake kernel reports it; setup_task() starts it running. */
static int task_state;

static int f_task_state(void *arg, pid_t pid)
{
	return pid == 42 ? task_state : -ESRCH;
}

static const struct pm_perf_ops fake_ops = {
	.ioctl = f_ioctl,
	.mmap = f_mmap,
	.unmap = f_unmap,
	.read = f_read,
	.close = f_close,
	.poll = f_poll,
	.task_state = f_task_state,
};

/* The thread's affinity: CPUs 0-3 at home; each move is logged. */
static bool affinity_fails;

static int f_get_affinity(void *arg, cpu_set_t *set, size_t size)
{
	int cpu;

	if (affinity_fails)
		return -EPERM;
	CPU_ZERO_S(size, set);
	for (cpu = 0; cpu < 4; cpu++)
		CPU_SET_S((size_t)cpu, size, set);
	return 0;
}

static int f_set_affinity(void *arg, const cpu_set_t *set, size_t size)
{
	int cpu, only = -1;

	if (CPU_COUNT_S(size, set) > 1) {
		klog("home%.0d%.0d", 0, 0);
		return 0;
	}
	for (cpu = 0; cpu < 4; cpu++)
		if (CPU_ISSET_S((size_t)cpu, size, set))
			only = cpu;
	klog("pin %d%.0d", only, 0);
	return 0;
}

/* The movers one after the other, each logged; mover no_thread is not made. */
static int no_thread = -1;

static void f_run_threads(void *arg, size_t n, void (*fn)(void *ctx, size_t t), void *ctx,
			  bool *ran)
{
	size_t t;

	for (t = 0; t < n; t++) {
		ran[t] = (int)t != no_thread;
		if (!ran[t])
			continue;
		klog("mover %d%.0d", (int)t, 0);
		fn(ctx, t);
	}
}

/* pin_ops with movers, made in test_pin. */
static struct pm_perf_ops mover_ops;

/* The same, with real threads: the kernel's run_threads. */
static struct pm_perf_ops thread_ops;

static const struct pm_perf_ops pin_ops = {
	.ioctl = f_ioctl,
	.mmap = f_mmap,
	.unmap = f_unmap,
	.read = f_read,
	.close = f_close,
	.poll = f_poll,
	.get_affinity = f_get_affinity,
	.set_affinity = f_set_affinity,
};

/* The kernel the next setup() gives the engine, and from how many rings it moves. */
static size_t pin_rings = 1;
static size_t rings_per_mover;
static const struct pm_perf_ops *use_ops = &fake_ops;

static int s_writev(void *arg, const struct iovec *iov, int iovcnt)
{
	struct sink *s = arg;
	int i;

	if (s->fail)
		return s->fail;
	s->writes++;
	s->last_iovcnt = iovcnt;
	for (i = 0; i < iovcnt; i++)
		pm_buf__append(&s->got, iov[i].iov_base, iov[i].iov_len);
	return 0;
}

static int s_commit(void *arg)
{
	((struct sink *)arg)->commits++;
	return 0;
}

/*
 * nr_rings rings on CPUs 0.., each with fds_per_ring fds: fd 1 + 4 * ring
 * owns ring, the next ones are redirected into it.  Fd 15 is the watched fd.
 */
/* What the opening of the events settled, as pm_evset__open says it. */
static const struct pm_drain_events events = { .lost_format = true, .time_off = 32 };

static struct pm_drain *setup_with(struct sink *s, size_t nr_rings, int fds_per_ring,
				   bool overwrite, const struct pm_drain_events *ev)
{
	static const int cpus[4] = { 0, 1, 2, 3 };
	struct pm_drain *d;
	size_t r;
	int i;

	memset(&K, 0, sizeof(K));
	memset(s, 0, sizeof(*s));
	d = pm_drain__new(&(struct pm_drain_config){
		.ops = use_ops,
		.cpus = cpus,
		.nr_cpus = nr_rings,
		.overwrite = overwrite,
		.sink = { .writev = s_writev, .commit = s_commit, .arg = s },
		.watch_fd = 15,
		.pin_rings = pin_rings,
		.rings_per_mover = rings_per_mover,
	});
	for (r = 0; r < nr_rings; r++)
		for (i = 0; i < fds_per_ring; i++) {
			int fd = 1 + 4 * (int)r + i;

			K.fds[fd].open = true;
			pm_drain__add_fd(d, r, fd, 0);
			if (i == 0)
				pm_drain__map(d, r, fd, 1);
			else
				pm_drain__redirect(d, r, fd);
		}
	pm_drain__start(d, ev);
	K.nr_log = 0;
	return d;
}

static struct pm_drain *setup(struct sink *s, size_t nr_rings, int fds_per_ring, bool overwrite)
{
	return setup_with(s, nr_rings, fds_per_ring, overwrite, &events);
}

static void teardown(struct pm_drain *d, struct sink *s)
{
	int i;

	pm_drain__delete(d);
	pm_buf__exit(&s->got);
	for (i = 0; i < K.nr_mem; i++)
		free(K.mem[i]);
}

/* A SAMPLE of size bytes with time t at offset 32, published at head. */
static void produce(struct pm_drain *d, size_t ring, uint16_t type, uint16_t size, uint64_t t)
{
	struct pm_ring *r = &d->rings[ring].ring;
	unsigned char rec[256] = { 0 };
	struct perf_event_header h = { .type = type, .size = size };
	uint64_t head;
	uint16_t i;

	if (!r->ctl)
		return;			/* retired too early: the checks say so */
	head = r->ctl->data_head;
	memcpy(rec, &h, sizeof(h));
	if (size >= 40)
		memcpy(rec + 32, &t, sizeof(t));
	for (i = 0; i < size; i++)
		r->data[(head + i) & r->mask] = rec[i];
	__atomic_store_n(&r->ctl->data_head, head + size, __ATOMIC_RELEASE);
}

static uint64_t pending(const struct pm_drain *d, size_t ring)
{
	const struct pm_ring *r = &d->rings[ring].ring;

	/* A ring unmapped already has nothing pending that anyone can read. */
	return r->ctl ? r->ctl->data_head - r->ctl->data_tail : UINT64_MAX;
}

static void poll_once(struct pm_drain *d)
{
	bool watched;

	pm_drain__poll(d, 0, &watched);
}

/* Owner fd 1 and redirected fd 2 of ring 0 hang up in the given order. */
static void test_hangup_order(const char *name, bool owner_first, bool together)
{
	struct pm_drain *d;
	struct sink s;
	bool busy;
	int first = owner_first ? 1 : 2, second = owner_first ? 2 : 1;

	d = setup(&s, 1, 2, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 10);
	K.fds[first].hup = true;
	K.fds[second].hup = together;
	poll_once(d);
	if (!together) {
		tap_ok(d->rings[0].state == PM_DRAIN_ACTIVE && d->rings[0].ring.refcnt == 1,
		       "%s: one writer left, the ring stays active", name);
		pm_drain__pass(d, &busy);
		pm_drain__pass(d, &busy);
		tap_ok(logged("unmap 1") < 0 && s.got.len == 48 + 8,
		       "%s: an emptied ring with a live writer is drained, not retired", name);
		produce(d, 0, PERF_RECORD_SAMPLE, 48, 11);
		K.fds[second].hup = true;
		poll_once(d);
	}
	tap_ok(d->rings[0].state == PM_DRAIN_DRAINING && d->rings[0].ring.refcnt == 0 &&
	       d->nr_pfds == 1, "%s: both hung up: draining, out of the poll set", name);
	pm_drain__pass(d, &busy);
	tap_ok(logged("unmap 1") < 0 && pending(d, 0) == 0,
	       "%s: the pass with data writes it and keeps the ring mapped", name);
	pm_drain__pass(d, &busy);
	tap_ok(d->rings[0].state == PM_DRAIN_RETIRED && logged("unmap 1") >= 0,
	       "%s: the next pass finds it empty and retires it", name);
	tap_ok(logged("read 1") >= 0 && logged("read 2") >= 0 &&
	       logged("read 2") < logged("close 2") && logged("close 2") < logged("unmap 1") &&
	       logged("close 1") < 0, "%s: lost counts read, redirected fd closed, then owner unmapped",
	       name);
	tap_ok(K.violations == 0, "%s: unmapped only after the sink saw every byte", name);
	tap_ok(s.got.len == (together ? 48u + 8 : 2 * (48u + 8)) && d->stats.samples == (together ? 1u : 2u),
	       "%s: every sample written once", name);
	teardown(d, &s);
}

/* A draining ring retires on the pass that finds it empty, not the one that empties it. */
static void test_retire_when_empty(void)
{
	struct pm_drain *d;
	struct sink s;
	bool busy;

	d = setup(&s, 2, 1, false);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 1);
	K.fds[1].hup = K.fds[5].hup = true;
	poll_once(d);
	pm_drain__pass(d, &busy);
	tap_ok(d->rings[0].state == PM_DRAIN_RETIRED && d->rings[1].state == PM_DRAIN_DRAINING,
	       "the empty ring retires, the one with data drains first");
	pm_drain__pass(d, &busy);
	tap_ok(pm_drain__all_retired(d) && s.got.len == 48 + 8 && K.violations == 0,
	       "then it retires too, every byte written");
	teardown(d, &s);
}

/* One writev per pass for every ring, ending in FINISHED_ROUND; busy when over half full. */
static void test_pass_shape(void)
{
	struct pm_drain *d;
	struct sink s;
	struct perf_event_header last;
	bool busy;
	int i;

	d = setup(&s, 3, 1, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 30);
	produce(d, 2, PERF_RECORD_SAMPLE, 48, 20);
	produce(d, 2, PERF_RECORD_SAMPLE, 48, 40);
	pm_drain__pass(d, &busy);
	memcpy(&last, s.got.data + s.got.len - 8, 8);
	tap_ok(s.writes == 1 && s.last_iovcnt == 3 && last.type == PERF_RECORD_FINISHED_ROUND &&
	       s.got.len == 3 * 48 + 8, "one writev for all rings plus FINISHED_ROUND");
	tap_ok(s.commits == 1 && pending(d, 0) == 0 && pending(d, 2) == 0,
	       "tails released and committed after the write");
	tap_ok(d->stats.first_time == 20 && d->stats.last_time == 40 && d->stats.samples == 3,
	       "sample times and counts at the configured offset");
	tap_ok(!busy, "a ring under half full is not busy");
	pm_drain__pass(d, &busy);
	tap_ok(s.writes == 1, "an empty pass writes nothing");
	for (i = 0; i < RING_SIZE / 2 / 48 + 1; i++)
		produce(d, 1, PERF_RECORD_SAMPLE, 48, 50);
	pm_drain__pass(d, &busy);
	tap_ok(busy, "a ring over half full makes the pass busy");
	teardown(d, &s);
}

static void test_sink_failure(void)
{
	struct pm_drain *d;
	struct sink s;
	bool busy;
	int err;

	d = setup(&s, 2, 1, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 1);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 2);
	s.fail = -ENOSPC;
	err = pm_drain__pass(d, &busy);
	tap_ok(err == -ENOSPC, "a failed write fails the pass");
	tap_ok(pending(d, 0) == 48 && pending(d, 1) == 48 && d->rings[0].ring.tail == 0,
	       "a failed write leaves every tail unreleased");
	tap_ok(d->stats.dropped_samples == 2 && d->stats.dropped_bytes == 96 && d->stats.samples == 0 &&
	       s.commits == 0, "the pass counts as dropped, nothing committed");
	s.fail = 0;
	pm_drain__pass(d, &busy);
	tap_ok(s.got.len == 2 * 48 + 8 && pending(d, 0) == 0,
	       "the data is still there for the next pass");
	teardown(d, &s);
}

static bool cut_now(void *arg)
{
	int *calls = arg;

	return ++*calls >= 1;
}

static bool cut_second(void *arg)
{
	int *calls = arg;

	return ++*calls >= 2;
}

static bool no_cut(void *arg)
{
	return false;
}

static void test_stop(void)
{
	struct pm_drain *d;
	struct sink s;
	int calls = 0;

	d = setup(&s, 2, 2, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 1);
	produce(d, 1, PERF_RECORD_SAMPLE, 64, 2);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(pm_drain__all_retired(d) && s.got.len == 48 + 64 + 8 && K.violations == 0,
	       "stop drains every ring to empty, then retires them");
	tap_ok(logged("disable 1") >= 0 && logged("disable 1") < logged("unmap 1"),
	       "stop disables the events first");
	teardown(d, &s);

	d = setup(&s, 2, 1, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 1);
	produce(d, 1, PERF_RECORD_SAMPLE, 64, 2);
	pm_drain__stop(d, cut_now, &calls);
	tap_ok(d->stats.skipped_bytes == 48 + 64 && s.got.len == 0,
	       "a second stop signal counts the bytes left in the rings as skipped");
	teardown(d, &s);

	calls = 0;
	d = setup(&s, 1, 1, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 1);
	pm_drain__stop(d, cut_second, &calls);
	tap_ok(d->stats.skipped_bytes == 0 && s.got.len == 48 + 8,
	       "a signal after the rings were emptied skips nothing");
	teardown(d, &s);
}

static void test_corrupt(void)
{
	struct pm_drain *d;
	struct sink s;
	struct pm_ring *r;
	bool busy;

	d = setup(&s, 1, 1, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 1);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 2);
	r = &d->rings[0].ring;
	/* A header claiming 12 bytes: not 8-aligned, so nothing after it parses. */
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 3);
	((struct perf_event_header *)(r->data + 96))->size = 12;
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 4);
	pm_drain__pass(d, &busy);
	tap_ok(s.got.len == 96 + 8 && d->stats.corrupt == 1 && d->stats.samples == 2,
	       "a corrupt header passes only the valid prefix");
	teardown(d, &s);
}

/*
 * Another session's attr.build_id leaks PERF_RECORD_MISC_MMAP_BUILD_ID into
 * our MMAP2 records: the flag is cleared in what is written, never in the
 * ring (whose pages the kernel maps read-only).
 */
static void test_mmap2_repair(void)
{
	struct pm_drain *d;
	struct sink s;
	struct perf_event_header *h;
	bool busy;

	d = setup(&s, 1, 1, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 1);
	produce(d, 0, PERF_RECORD_MMAP2, 64, 0);
	h = (struct perf_event_header *)(d->rings[0].ring.data + 48);
	h->misc = PERF_RECORD_MISC_MMAP_BUILD_ID | PERF_RECORD_MISC_USER;
	pm_drain__pass(d, &busy);
	h = (struct perf_event_header *)(s.got.data + 48);
	tap_ok(s.got.len == 48 + 64 + 8 && h->type == PERF_RECORD_MMAP2 &&
	       h->misc == PERF_RECORD_MISC_USER, "a leaked MMAP2 build-id flag is cleared in the file");
	h = (struct perf_event_header *)(d->rings[0].ring.data + 48);
	tap_ok(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID, "and left alone in the ring");
	teardown(d, &s);

	d = setup_with(&s, 1, 1, false, &(struct pm_drain_events){ .lost_format = true,
								  .build_id_mmap = true,
								  .time_off = 32 });
	produce(d, 0, PERF_RECORD_MMAP2, 64, 0);
	h = (struct perf_event_header *)d->rings[0].ring.data;
	h->misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
	pm_drain__pass(d, &busy);
	h = (struct perf_event_header *)s.got.data;
	tap_ok(h->misc == PERF_RECORD_MISC_MMAP_BUILD_ID, "with attr.build_id granted the flag is ours");
	teardown(d, &s);
}

/*
 * The window: what a CPU sampled while the others were still being enabled,
 * or were being disabled at the stop, is left out and counted; the side-band
 * records of those moments are kept.
 */
static struct pm_drain *window_drain;

static void sample_while_disabling(int fd)
{
	/* Ring 1 still samples while ring 0's event is disabled. */
	if (fd == 1)
		produce(window_drain, 1, PERF_RECORD_SAMPLE, 48, 90);
}

static void test_window(void)
{
	struct pm_drain *d;
	struct sink s;
	struct perf_event_header h;
	bool busy;

	d = window_drain = setup(&s, 2, 1, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 5);
	produce(d, 0, PERF_RECORD_MMAP2, 64, 0);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 6);
	pm_drain__open_window(d);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 20);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 30);
	pm_drain__pass(d, &busy);
	memcpy(&h, s.got.data, sizeof(h));
	tap_ok(s.got.len == 64 + 48 + 48 + 8 && h.type == PERF_RECORD_MMAP2,
	       "window: samples taken before it opened are left out, the MMAP2 between them kept");
	tap_ok(d->stats.samples == 2 && d->stats.outside == 2 && d->stats.first_time == 20 &&
	       d->stats.last_time == 30, "window: the left-out samples counted apart, not in the times");
	tap_ok(pending(d, 0) == 0 && pending(d, 1) == 0, "window: their bytes are released");

	/* A pass of left-out samples only writes nothing, and counts them once. */
	teardown(d, &s);
	d = window_drain = setup(&s, 2, 1, false);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 5);
	pm_drain__open_window(d);
	pm_drain__pass(d, &busy);
	pm_drain__pass(d, &busy);
	tap_ok(s.writes == 0 && d->stats.outside == 1 && pending(d, 1) == 0,
	       "window: a pass with only left-out samples writes nothing and moves the tail");

	/* At the stop: ring 1 samples on while ring 0 is disabled first. */
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 50);
	K.on_disable = sample_while_disabling;
	pm_drain__stop(d, no_cut, NULL);
	K.on_disable = NULL;
	tap_ok(pm_drain__all_retired(d) && d->stats.samples == 1 && d->stats.outside == 2 &&
	       d->stats.last_time == 50 && s.got.len == 48 + 8 && K.violations == 0,
	       "window: samples after the stop began are left out, the rings still drained");
	teardown(d, &s);

	/* Without a window nothing is left out, the stop's samples included. */
	d = window_drain = setup(&s, 2, 1, false);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 5);
	K.on_disable = sample_while_disabling;
	pm_drain__stop(d, no_cut, NULL);
	K.on_disable = NULL;
	tap_ok(d->stats.samples == 2 && d->stats.outside == 0, "no window: every sample kept");
	teardown(d, &s);
}

/* A COMM (exec) or EXIT record of thread tid of process pid at time t, published at head. */
static void produce_thread(struct pm_drain *d, size_t ring, bool exit, uint32_t pid,
			   uint32_t tid, uint64_t t)
{
	struct pm_ring *r = &d->rings[ring].ring;
	unsigned char rec[64] = { 0 };
	struct perf_event_header h = {
		.type = exit ? PERF_RECORD_EXIT : PERF_RECORD_COMM,
		.misc = exit ? 0 : PERF_RECORD_MISC_COMM_EXEC,
		.size = exit ? 64 : 56,
	};
	uint64_t head = r->ctl->data_head;
	uint16_t i;

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + (exit ? 16 : 12), &tid, 4);
	if (!exit)
		memcpy(rec + 16, "sleep", 6);
	/*
	 * The trailer: {pid, tid}, time, {cpu}, id.  An EXIT's own time, read
	 * later by the kernel, is later here too: the drain goes by the trailer's.
	 */
	memcpy(rec + h.size - 24, &t, sizeof(t));
	if (exit) {
		uint64_t own = t + 3;

		memcpy(rec + 24, &own, sizeof(own));
	}
	for (i = 0; i < h.size; i++)
		r->data[(head + i) & r->mask] = rec[i];
	__atomic_store_n(&r->ctl->data_head, head + h.size, __ATOMIC_RELEASE);
}

static void produce_task(struct pm_drain *d, size_t ring, bool exit, uint32_t pid, uint64_t t)
{
	produce_thread(d, ring, exit, pid, pid, t);
}

/*
 * The window bounded by the command's life: samples before its exec (an
 * earlier one on another ring included) and after its exit are left out.
 */
static struct pm_drain *setup_task(struct sink *s, size_t nr_rings)
{
	static const struct pm_drain_events task_events = {
		.lost_format = true, .time_off = 32, .id_time_end = 24
	};
	struct pm_drain *d = setup_with(s, nr_rings, 1, false, &task_events);

	task_state = PM_TASK_RUNS;
	pm_drain__open_window(d);
	pm_drain__window_task(d, 42);
	return d;
}

static void test_window_task(void)
{
	struct pm_drain *d;
	struct sink s;
	size_t len, i;
	bool busy;

	d = setup_task(&s, 2);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 10);
	produce_task(d, 0, false, 41, 14);	/* another task's exec */
	produce_task(d, 0, false, 42, 15);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 20);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 12);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 15);
	pm_drain__pass(d, &busy);
	tap_ok(d->stats.samples == 2 && d->stats.outside == 2 && d->stats.first_time == 15 &&
	       s.got.len == 56 + 56 + 48 + 48 + 8,
	       "window and command: samples before its exec left out on every ring, its COMM kept");
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 30);
	produce_task(d, 1, true, 42, 35);
	task_state = PM_TASK_ENDED;
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 40);
	/* A ring's window closes at its first sample past the exit: what follows is out too. */
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 36);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 34);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(d->stats.samples == 3 && d->stats.outside == 5 && d->stats.last_time == 30 &&
	       pm_drain__all_retired(d) && K.violations == 0,
	       "window and command: the stop leaves out what each ring sampled after its exit");
	teardown(d, &s);

	/* The exit drained by a pass before the stop: that pass and the later ones bounded. */
	d = setup_task(&s, 2);
	produce_task(d, 0, false, 42, 5);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 10);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 40);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 60);	/* after the exit, written before its record */
	produce_task(d, 1, true, 42, 50);
	task_state = PM_TASK_ENDED;
	pm_drain__pass(d, &busy);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 70);
	pm_drain__pass(d, &busy);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(d->stats.samples == 2 && d->stats.outside == 2 && d->stats.last_time == 40 &&
	       pm_drain__all_retired(d) && K.violations == 0,
	       "window and command: an exit drained before the stop bounds that pass and the rest");
	teardown(d, &s);

	/*
	 * The command exiting, its EXIT not yet published on ring 1 while ring
	 * 0 holds a sample timed after it: the pass waits, the next one bounds.
	 */
	d = setup_task(&s, 2);
	produce_task(d, 0, false, 42, 5);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 10);
	pm_drain__pass(d, &busy);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 60);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 40);
	task_state = PM_TASK_EXITING;
	len = s.got.len;
	pm_drain__pass(d, &busy);
	tap_ok(d->stats.samples == 1 && s.got.len == len &&
	       pending(d, 0) == 48 && pending(d, 1) == 48,
	       "window and command: while it exits, a pass writes nothing");
	produce_task(d, 1, true, 42, 50);
	task_state = PM_TASK_ENDED;
	pm_drain__pass(d, &busy);
	tap_ok(d->stats.samples == 2 && d->stats.outside == 1 && d->stats.last_time == 40,
	       "window and command: ended, the pass bounds at its EXIT and leaves out what follows");
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(d->stats.samples == 2 && pm_drain__all_retired(d) && K.violations == 0,
	       "window and command: the stop after a held pass drains every ring");
	teardown(d, &s);

	/*
	 * Its main thread ended before another: the end is the last thread's
	 * EXIT, and a stop while that one runs bounds nothing.
	 */
	d = setup_task(&s, 2);
	produce_task(d, 0, false, 42, 5);
	produce_task(d, 0, true, 42, 10);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 20);
	pm_drain__pass(d, &busy);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 30);
	produce_thread(d, 1, true, 42, 43, 35);
	produce_thread(d, 0, true, 42, 44, 33);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 34);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 37);
	produce_thread(d, 0, true, 42, 45, 38);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 40);
	task_state = PM_TASK_ENDED;
	pm_drain__pass(d, &busy);
	tap_ok(d->stats.samples == 4 && d->stats.outside == 1 && d->stats.last_time == 37,
	       "window and command: its main thread's EXIT is not its end, its last thread's is");
	pm_drain__stop(d, no_cut, NULL);
	teardown(d, &s);
	d = setup_task(&s, 1);
	produce_task(d, 0, false, 42, 5);
	produce_task(d, 0, true, 42, 10);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 20);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(d->stats.samples == 1 && d->stats.outside == 0,
	       "window and command: stopped while a thread runs, nothing past its main thread's EXIT is left out");
	teardown(d, &s);

	/* A sample timed before the exec, published after the pass that found it. */
	d = setup_task(&s, 2);
	produce_task(d, 0, false, 42, 15);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 20);
	pm_drain__pass(d, &busy);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 12);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 25);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 30);
	pm_drain__pass(d, &busy);
	tap_ok(d->stats.samples == 3 && d->stats.outside == 1 && d->stats.first_time == 20,
	       "window and command: a sample before the exec published late is left out");
	pm_drain__stop(d, no_cut, NULL);
	teardown(d, &s);

	/* A command whose whole life falls before the first pass: the stop bounds both ends. */
	d = setup_task(&s, 2);
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 3);
	produce_task(d, 0, false, 42, 5);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 10);
	produce_task(d, 0, true, 42, 20);
	task_state = PM_TASK_ENDED;
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 25);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(d->stats.samples == 1 && d->stats.outside == 2 && d->stats.first_time == 10 &&
	       d->stats.last_time == 10 && pm_drain__all_retired(d),
	       "window and command: exec and exit both drained by the stop bound the file");
	teardown(d, &s);

	/* Exiting, and its EXIT never seen: the stop still drains everything. */
	d = setup_task(&s, 1);
	task_state = PM_TASK_EXITING;
	produce_task(d, 0, false, 42, 5);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 10);
	pm_drain__pass(d, &busy);
	tap_ok(d->stats.samples == 0, "window and command: exiting, the first pass holds too");
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(d->stats.samples == 1 && pm_drain__all_retired(d) && K.violations == 0,
	       "window and command: an EXIT never published holds nothing past the stop");
	teardown(d, &s);

	/* Exiting, no EXIT yet, a ring over half full: the pass writes rather than lose. */
	d = setup_task(&s, 2);
	task_state = PM_TASK_EXITING;
	produce_task(d, 0, false, 42, 5);
	for (i = 0; i < RING_SIZE / 2 / 48 + 1; i++)
		produce(d, 0, PERF_RECORD_SAMPLE, 48, 10 + i);
	pm_drain__pass(d, &busy);
	tap_ok(d->stats.samples == RING_SIZE / 2 / 48 + 1 && pending(d, 0) == 0,
	       "window and command: exiting, a ring half full is drained without its EXIT");
	pm_drain__stop(d, no_cut, NULL);
	teardown(d, &s);

	/* No exec in the first passes: nothing is bounded, at the start or the stop. */
	d = setup_task(&s, 1);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 10);
	pm_drain__pass(d, &busy);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 11);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(d->stats.samples == 2 && d->stats.outside == 0,
	       "window and command: without its records in the rings every sample stays");
	teardown(d, &s);
}

/* Overwrite: every ring paused before any copy, resumed after, drops counted. */
static void test_snapshot(void)
{
	struct pm_drain *d;
	struct sink s;
	struct pm_buf out = { 0 };
	uint64_t samples, dropped;
	int i;

	d = setup(&s, 2, 2, true);
	for (i = 0; i < 2; i++) {
		struct pm_ring *r = &d->rings[i].ring;
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 48 };
		uint64_t t = 7 + (uint64_t)i;

		/* Backward: the head moves down; one record below the start. */
		r->ctl->data_head = (uint64_t)-48;
		memcpy(r->data + RING_SIZE - 48, &h, sizeof(h));
		memcpy(r->data + RING_SIZE - 48 + 32, &t, sizeof(t));
	}
	pm_drain__set_running(d);
	K.lost_while_paused = 5;
	pm_drain__snapshot(d, &out, &samples, &dropped);
	tap_ok(logged("pause 1 1") >= 0 && logged("pause 5 1") >= 0 &&
	       logged("pause 1 0") > logged("pause 5 1") && logged("pause 5 0") > logged("pause 5 1"),
	       "every ring paused before any resumes");
	tap_ok(logged("read 1") < logged("pause 1 1") && K.nr_log > 0 &&
	       !strncmp(K.log[K.nr_log - 1], "read", 4), "lost counts read before the pause and after");
	tap_ok(samples == 2 && out.len == 96 && d->stats.first_time == 7 && d->stats.last_time == 8,
	       "both rings' records copied and counted");
	tap_ok(dropped == 10, "drops while paused counted from PERF_FORMAT_LOST");
	tap_ok(d->snap == PM_SNAPSHOT_RUNNING, "the flight recorder runs again");
	K.fds[1].hup = K.fds[2].hup = K.fds[5].hup = true;
	poll_once(d);
	tap_ok(!pm_drain__all_hung_up(d), "overwrite: not over while a fd lives");
	K.fds[6].hup = true;
	poll_once(d);
	tap_ok(pm_drain__all_hung_up(d), "overwrite: over when every fd hung up");
	pm_buf__exit(&out);
	teardown(d, &s);
}

static void test_poll_and_close(void)
{
	struct pm_drain *d;
	struct sink s;
	struct pm_buf lost = { 0 };
	uint64_t total;
	bool watched;

	d = setup(&s, 2, 2, false);
	tap_ok(d->nr_pfds == 5, "the poll set: the watched fd and every event fd");
	K.watch_ready = true;
	pm_drain__poll(d, 0, &watched);
	tap_ok(watched, "the watched fd is reported");
	K.fds[2].lost = 3;
	K.fds[5].lost = 4;
	pm_drain__lost_samples(d, &lost, &total);
	tap_ok(total == 7 && lost.len == 2 * 48 && ((uint32_t *)lost.data)[8] == 0 &&
	       ((uint32_t *)(lost.data + 48))[8] == 1,
	       "LOST_SAMPLES records carry each fd's count and CPU");
	pm_drain__close(d);
	tap_ok(logged("close 2") < logged("unmap 1") && logged("close 6") < logged("unmap 5") &&
	       K.violations == 0, "close: redirected fds before the owner, ring by ring");
	tap_ok(!K.fds[1].open && !K.fds[2].open && !K.fds[5].open && !K.fds[6].open,
	       "close: every fd closed");
	pm_buf__exit(&lost);
	teardown(d, &s);
}

struct driver {
	int expire_after;		/* expired() calls before it says so */
	int expired_calls;
	int ticks;
	bool stop_on_watch;
};

static bool d_expired(void *arg, int *timeout_ms)
{
	struct driver *drv = arg;

	*timeout_ms = 0;
	return ++drv->expired_calls > drv->expire_after;
}

static bool d_watched(void *arg)
{
	return ((struct driver *)arg)->stop_on_watch;
}

static int d_tick(void *arg)
{
	((struct driver *)arg)->ticks++;
	return 0;
}

static void test_loop(void)
{
	struct driver drv = { .expire_after = 100 };
	const struct pm_drain_driver ops = { d_expired, d_watched, d_tick, &drv };
	struct pm_drain *d;
	struct sink s;
	int i, err;

	d = setup(&s, 1, 2, false);
	for (i = 0; i < RING_SIZE / 2 / 48 + 1; i++)
		produce(d, 0, PERF_RECORD_SAMPLE, 48, 1);
	K.fds[1].hup = K.fds[2].hup = true;
	err = pm_drain__loop(d, &ops);
	tap_ok(!err && pm_drain__all_retired(d) && s.got.len == (RING_SIZE / 2 / 48 + 1) * 48 + 8 &&
	       K.violations == 0, "the loop ends when every ring is drained and retired");
	tap_ok(K.polls == 1 && drv.ticks == 2, "a busy pass is followed by another without polling");
	teardown(d, &s);

	drv = (struct driver){ .expire_after = 100, .stop_on_watch = true };
	d = setup(&s, 1, 1, false);
	produce(d, 0, PERF_RECORD_SAMPLE, 48, 1);
	K.watch_ready = true;
	err = pm_drain__loop(d, &ops);
	tap_ok(!err && s.got.len == 0 && drv.ticks == 0, "the watched fd stops the loop when the caller says so");
	teardown(d, &s);

	drv = (struct driver){ .expire_after = 3 };
	d = setup(&s, 1, 1, false);
	err = pm_drain__loop(d, &ops);
	tap_ok(!err && K.polls == 3 && drv.ticks == 3, "the caller's deadline stops the loop");
	teardown(d, &s);
}

/* Position of the last log entry equal to s, or -1. */
static int last_logged(const char *s)
{
	int i;

	for (i = K.nr_log - 1; i >= 0; i--)
		if (!strcmp(K.log[i], s))
			return i;
	return -1;
}

static int count_logged(const char *prefix)
{
	int i, n = 0;

	for (i = 0; i < K.nr_log; i++)
		n += !strncmp(K.log[i], prefix, strlen(prefix));
	return n;
}

/*
 * The kernel makes a cross-CPU call for every enable, disable and close
 * of a CPU's event done elsewhere: the engine does them from the CPU.
 */
static void test_pin(void)
{
	struct pm_drain *d;
	struct sink s;

	use_ops = &pin_ops;
	d = setup(&s, 2, 2, false);
	pm_drain__ioctl_all(d, PERF_EVENT_IOC_DISABLE);
	tap_ok(logged("pin 0") < logged("disable 1") && logged("disable 2") < logged("pin 1") &&
	       logged("pin 1") < logged("disable 5") && logged("disable 6") < logged("home") &&
	       count_logged("pin") == 2 && count_logged("home") == 1,
	       "ioctl_all moves once to each ring's CPU, then back home");
	K.nr_log = 0;
	produce(d, 1, PERF_RECORD_SAMPLE, 48, 1);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(last_logged("pin 1") > last_logged("disable 6") &&
	       last_logged("pin 1") < logged("close 6") && logged("close 6") < logged("unmap 5") &&
	       logged("unmap 5") < last_logged("home") && last_logged("home") == K.nr_log - 1 &&
	       K.violations == 0 && s.got.len == 48 + 8,
	       "a ring is retired from its CPU, and the thread goes home after");
	teardown(d, &s);

	affinity_fails = true;
	d = setup(&s, 2, 1, false);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(count_logged("pin") == 0 && logged("disable 5") >= 0 && logged("unmap 5") >= 0,
	       "an affinity that cannot be read: the calls are made from where the thread is");
	teardown(d, &s);
	affinity_fails = false;

	pin_rings = 2;
	d = setup(&s, 2, 2, false);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(count_logged("pin") == 0 && count_logged("disable") == 4 &&
	       count_logged("unmap") == 2,
	       "no more rings than pin_rings: every call from where the thread is");
	teardown(d, &s);
	pin_rings = 1;

	/* Four rings, two a mover: rings 0 and 2 go to mover 0, 1 and 3 to mover 1. */
	mover_ops = pin_ops;
	mover_ops.run_threads = f_run_threads;
	use_ops = &mover_ops;
	rings_per_mover = 2;
	d = setup(&s, 4, 1, false);
	pm_drain__ioctl_all(d, PERF_EVENT_IOC_DISABLE);
	tap_ok(logged("mover 0") == 0 && logged("pin 0") == 1 && logged("disable 1") == 2 &&
	       logged("pin 2") == 3 && logged("disable 9") == 4 && logged("mover 1") == 5 &&
	       logged("pin 1") == 6 && logged("disable 5") == 7 && logged("pin 3") == 8 &&
	       logged("disable 13") == 9 && K.nr_log == 10,
	       "movers: each takes every other ring, each from its CPU; the engine stays home");
	K.nr_log = 0;
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(pm_drain__all_retired(d) && count_logged("mover") == 4 && count_logged("unmap") == 4 &&
	       count_logged("home") == 0 && K.violations == 0,
	       "movers: the stop's disables and retirements too");
	K.nr_log = 0;
	pm_drain__close(d);
	tap_ok(K.nr_log == 0, "movers: retired rings need no move when the engine closes");
	teardown(d, &s);

	no_thread = 1;
	d = setup(&s, 4, 1, false);
	pm_drain__ioctl_all(d, PERF_EVENT_IOC_ENABLE);
	pm_drain__stop(d, no_cut, NULL);
	tap_ok(logged("mover 0") == 0 && logged("pin 1") > logged("pin 2") &&
	       logged("pin 3") > logged("pin 1") && count_logged("home") == 3 &&
	       pm_drain__all_retired(d) && count_logged("unmap") == 4 && K.violations == 0,
	       "a mover that cannot be made: the engine does its rings itself, and goes home");
	teardown(d, &s);
	no_thread = -1;

	thread_ops = mover_ops;
	thread_ops.run_threads = pm_perf_ops__kernel.run_threads;
	use_ops = &thread_ops;
	d = setup(&s, 4, 2, false);
	produce(d, 3, PERF_RECORD_SAMPLE, 48, 1);
	pm_drain__ioctl_all(d, PERF_EVENT_IOC_ENABLE);
	pm_drain__stop(d, no_cut, NULL);
	/* Rings 0-2 retire in the first pass, by two movers; ring 3, drained then, alone after. */
	tap_ok(count_logged("disable") == 8 && logged("pin 2") < logged("disable 9") &&
	       logged("pin 3") < logged("disable 14") && last_logged("pin 3") < logged("unmap 13") &&
	       last_logged("home") == K.nr_log - 1 && count_logged("home") == 1 &&
	       pm_drain__all_retired(d) && count_logged("unmap") == 4 &&
	       count_logged("close") == 4 && K.violations == 0 && s.got.len == 48 + 8,
	       "movers on threads of their own: every fd disabled and every ring retired once");
	teardown(d, &s);
	rings_per_mover = 0;
	use_ops = &fake_ops;
}

int main(void)
{
	test_hangup_order("owner first", true, false);
	test_hangup_order("redirected first", false, false);
	test_hangup_order("together", true, true);
	test_retire_when_empty();
	test_pass_shape();
	test_sink_failure();
	test_stop();
	test_corrupt();
	test_mmap2_repair();
	test_window();
	test_window_task();
	test_snapshot();
	test_poll_and_close();
	test_loop();
	test_pin();
	return tap_done();
}
