// SPDX-License-Identifier: GPL-2.0
/*
 * The staging buffer's accounting: alone in front of a fake sink (whole
 * passes per commit, wrap-around, a full buffer, a write error in the
 * middle), then behind the drain engine over fake rings in plain memory
 * (a pass that does not fit leaves the rings untouched and is counted
 * once), then with its writer thread.  Every sample carries a sequence
 * number, so what reaches the sink is checked for gaps, duplicates and
 * order, and written + dropped always adds up to what was produced.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/drain_int.h"
#include "format/perf_data.h"
#include "record/stage.h"
#include "tap.h"

#define CTL_SIZE 4096
#define RING_SIZE 4096
#define REC 16				/* header + u64 sequence number */

struct sink {
	struct pm_buf got;
	int fail_at;			/* the write with this number fails (1-based) */
	int err;
	int writes;
	int commits;
	int bad_commits;		/* commits not right after a FINISHED_ROUND */
	size_t most;			/* largest write */
};

static int s_writev(void *arg, const struct iovec *iov, int iovcnt)
{
	struct sink *s = arg;
	size_t len = 0;
	int i;

	if (++s->writes == s->fail_at)
		return s->err;
	for (i = 0; i < iovcnt; i++) {
		pm_buf__append(&s->got, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	if (len > s->most)
		s->most = len;
	return 0;
}

static int s_commit(void *arg)
{
	struct sink *s = arg;
	struct perf_event_header h;

	s->commits++;
	if (s->got.len < 8)
		s->bad_commits++;
	else {
		memcpy(&h, s->got.data + s->got.len - 8, 8);
		s->bad_commits += h.type != PERF_RECORD_FINISHED_ROUND;
	}
	return 0;
}

/*
 * Walks what the sink got: SAMPLE sequence numbers must come in order
 * (each pass's rings are written in ring order, so one ring keeps it), no
 * duplicate.  Returns the samples; *rounds the FINISHED_ROUNDs.
 */
static uint64_t check_got(const struct sink *s, uint64_t *rounds, bool *ordered)
{
	uint64_t n = 0, last = 0, seq;
	size_t off = 0;

	*rounds = 0;
	*ordered = true;
	while (off + 8 <= s->got.len) {
		struct perf_event_header h;

		memcpy(&h, s->got.data + off, 8);
		if (h.size < 8) {
			*ordered = false;
			break;
		}
		if (h.type == PERF_RECORD_SAMPLE) {
			memcpy(&seq, s->got.data + off + 8, 8);
			*ordered &= seq == last + 1;
			last = seq;
			n++;
		} else if (h.type == PERF_RECORD_FINISHED_ROUND) {
			(*rounds)++;
		}
		off += h.size;
	}
	return n;
}

/* A pass of n samples numbered from *seq, as the drain hands it over. */
static int append_pass(struct pm_stage *st, uint64_t *seq, int n)
{
	unsigned char recs[64 * REC];
	struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	struct iovec iov[2] = { { recs, (size_t)n * REC }, { &round, 8 } };
	int i;

	for (i = 0; i < n; i++) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = REC };
		uint64_t v = (*seq)++;

		memcpy(recs + i * REC, &h, 8);
		memcpy(recs + i * REC + 8, &v, 8);
	}
	return pm_stage__append(st, iov, 2, (uint64_t)n);
}

static bool room_ready(const struct pm_stage *st)
{
	struct pollfd p = { .fd = st->room_fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static void test_whole_passes(void)
{
	struct sink s = { 0 };
	struct pm_drain_sink ds = { s_writev, s_commit, &s };
	struct pm_stage st;
	uint64_t seq = 1, rounds;
	bool ordered;
	int i;

	pm_stage__init(&st, 1000, &ds);
	st.batch = 300;
	/* 10 passes of 5 samples (88 bytes each): the buffer wraps. */
	for (i = 0; i < 10; i++) {
		tap_ok(!append_pass(&st, &seq, 5), "pass %d staged", i);
		if (i % 3 == 2)
			pm_stage__write(&st);
	}
	pm_stage__flush(&st);
	tap_ok(check_got(&s, &rounds, &ordered) == 50 && rounds == 10 && ordered,
	       "every sample once, in order, across the wrap: %zu bytes", s.got.len);
	tap_ok(s.bad_commits == 0 && s.commits == s.writes,
	       "every write (a part of the buffer) committed, each ending on a FINISHED_ROUND");
	tap_ok(s.most <= 300 && s.writes > 3, "writes of at most batch bytes in whole passes (%d)",
	       s.writes);
	tap_ok(st.stats.samples == 50 && st.stats.bytes == s.got.len && st.stats.peak <= 1000,
	       "stats: samples and bytes written, peak within the buffer");
	pm_stage__exit(&st);
	pm_buf__exit(&s.got);
}

static void test_full(void)
{
	struct sink s = { 0 };
	struct pm_drain_sink ds = { s_writev, s_commit, &s };
	struct pm_stage st;
	uint64_t seq = 1, rounds;
	bool ordered;
	int n = 0;

	pm_stage__init(&st, 1000, &ds);
	/* 88-byte passes: 11 fit in 1000 bytes, the 12th does not. */
	while (!pm_stage__reserve(&st, 88))
		n += !append_pass(&st, &seq, 5);
	tap_ok(n == 11 && st.head - st.tail == 968, "the buffer takes 11 passes, no more");
	tap_ok(append_pass(&st, &seq, 5) == -ENOSPC, "appending to a full buffer fails");
	seq -= 5;
	tap_ok(st.stats.deferred == 1 && st.waiting && !room_ready(&st),
	       "a pass found no room; the drain waits for the writer");
	st.batch = 88;
	pm_stage__write(&st);
	tap_ok(room_ready(&st) && !pm_stage__reserve(&st, 88), "a write makes room and says so");
	pm_stage__clear_room(&st);
	tap_ok(!room_ready(&st), "the wake-up is consumed");
	append_pass(&st, &seq, 5);
	pm_stage__flush(&st);
	tap_ok(check_got(&s, &rounds, &ordered) == 60 && ordered && st.stats.dropped_samples == 0,
	       "every pass that fitted written; the refused one is not dropped (the ring keeps it)");
	tap_ok(st.stats.peak == 968, "memory bounded by the buffer");
	pm_stage__exit(&st);
	pm_buf__exit(&s.got);
}

static void test_rebase(void)
{
	struct sink s = { 0 };
	struct pm_drain_sink ds = { s_writev, s_commit, &s };
	struct pm_stage st;
	uint64_t seq = 1, v;
	int i;

	pm_stage__init(&st, 1000, &ds);
	for (i = 0; i < 30; i++) {
		append_pass(&st, &seq, 5);
		pm_stage__write(&st);
	}
	memcpy(&v, st.buf + 8, 8);
	tap_ok(v == seq - 5 && st.stats.peak == 88,
	       "an emptied buffer starts over at its first byte: only the pages of the peak are used");
	pm_stage__exit(&st);
	pm_buf__exit(&s.got);
}

static void test_write_error(void)
{
	struct sink s = { .fail_at = 2, .err = -EIO };
	struct pm_drain_sink ds = { s_writev, s_commit, &s };
	struct pm_stage st;
	struct pm_stage_stats t;
	uint64_t seq = 1, rounds;
	bool ordered;
	int i;

	pm_stage__init(&st, 4096, &ds);
	st.batch = 200;
	for (i = 0; i < 6; i++)
		append_pass(&st, &seq, 5);
	tap_ok(pm_stage__write(&st) == 0, "first write of the buffer");
	pm_stage__reserve(&st, 100000);
	tap_ok(pm_stage__write(&st) == -EIO, "second write fails in the middle of the buffer");
	tap_ok(room_ready(&st), "a drain waiting for room learns of the failure");
	tap_ok(pm_stage__reserve(&st, 100000) == 0 && append_pass(&st, &seq, 5) == -EIO,
	       "later passes get the error");
	tap_ok(pm_stage__flush(&st) == -EIO && pm_stage__write(&st) == -EIO,
	       "flush reports it; nothing is written after it");
	pm_stage__stats(&st, &t);
	tap_ok(check_got(&s, &rounds, &ordered) == 10 && t.samples == 10 && s.commits == 1,
	       "the first write's two passes were written and committed");
	tap_ok(t.samples + t.dropped_samples == seq - 1 && t.dropped_samples == 25,
	       "written + dropped == staged (%llu + %llu)", (unsigned long long)t.samples,
	       (unsigned long long)t.dropped_samples);
	tap_ok(t.bytes + t.dropped_bytes == 7 * 88, "bytes add up too");
	pm_stage__exit(&st);
	pm_buf__exit(&s.got);
}

/* ---- behind the drain engine, over fake rings ---- */

static unsigned char *mems[4];
static int nr_mems;
static uint64_t seqs[4];

static int f_ioctl(void *arg, int fd, unsigned long req, unsigned long val)
{
	return 0;
}

static int f_mmap(void *arg, struct pm_ring *r, int fd, size_t pages, bool overwrite)
{
	unsigned char *mem = calloc(1, CTL_SIZE + RING_SIZE);

	mems[nr_mems++] = mem;
	pm_ring__attach_mem(r, mem, CTL_SIZE, RING_SIZE);
	r->fd = fd;
	return 0;
}

static void f_unmap(void *arg, struct pm_ring *r)
{
	r->fd = -1;
	pm_ring__unmap(r);
}

static ssize_t f_read(void *arg, int fd, void *buf, size_t len)
{
	memset(buf, 0, len);
	return (ssize_t)len;
}

static int f_close(void *arg, int fd)
{
	return 0;
}

/* Only the stage's eventfd is real. */
static int f_poll(void *arg, struct pollfd *fds, nfds_t nr, int timeout_ms)
{
	const struct pm_drain *d = arg;
	nfds_t i;
	int n = 0;

	for (i = 0; i < nr; i++) {
		fds[i].revents = 0;
		if (d->stage && fds[i].fd == d->stage->room_fd)
			n += poll(&fds[i], 1, 0);
	}
	return n;
}

static struct pm_perf_ops fake_ops = {
	.ioctl = f_ioctl,
	.mmap = f_mmap,
	.unmap = f_unmap,
	.read = f_read,
	.close = f_close,
	.poll = f_poll,
};

static void produce(struct pm_drain *d, size_t ring, uint16_t type, uint64_t v, uint16_t size)
{
	struct pm_ring *r = &d->rings[ring].ring;
	unsigned char rec[32] = { 0 };
	struct perf_event_header h = { .type = type, .size = size };
	uint64_t head = r->ctl->data_head;
	uint16_t i;

	memcpy(rec, &h, 8);
	memcpy(rec + (type == PERF_RECORD_LOST ? 16 : 8), &v, 8);
	for (i = 0; i < size; i++)
		r->data[(head + i) & r->mask] = rec[i];
	__atomic_store_n(&r->ctl->data_head, head + size, __ATOMIC_RELEASE);
}

/* n samples into ring, numbered per ring; false when the ring is full. */
static bool produce_samples(struct pm_drain *d, size_t ring, int n)
{
	struct pm_ring *r = &d->rings[ring].ring;
	int i;

	if (r->ctl->data_head + (uint64_t)n * REC - r->ctl->data_tail > r->size)
		return false;
	for (i = 0; i < n; i++)
		produce(d, ring, PERF_RECORD_SAMPLE, ++seqs[ring], REC);
	return true;
}

static struct pm_drain *setup(struct sink *s, size_t cap, bool thread)
{
	static const int cpus[2] = { 0, 1 };
	struct pm_drain *d;
	size_t r;

	memset(s, 0, sizeof(*s));
	memset(seqs, 0, sizeof(seqs));
	nr_mems = 0;
	d = pm_drain__new(&(struct pm_drain_config){
		.ops = &fake_ops,
		.cpus = cpus,
		.nr_cpus = 1,
		.sink = { .writev = s_writev, .commit = s_commit, .arg = s },
		.watch_fd = -1,
		.stage_size = cap,
		/* Without its thread, the writer is the test. */
		.stage_writer = thread,
	});
	fake_ops.arg = d;
	for (r = 0; r < d->nr_rings; r++) {
		pm_drain__add_fd(d, r, 1 + (int)r, 0);
		pm_drain__map(d, r, 1 + (int)r, 1);
	}
	pm_drain__start(d, &(struct pm_drain_events){ .lost_format = true });
	return d;
}

static void teardown(struct pm_drain *d, struct sink *s)
{
	int i;

	pm_drain__delete(d);
	pm_buf__exit(&s->got);
	for (i = 0; i < nr_mems; i++)
		free(mems[i]);
}

static uint64_t pending(const struct pm_drain *d)
{
	return d->rings[0].ring.ctl->data_head - d->rings[0].ring.ctl->data_tail;
}

static void test_drain_full(void)
{
	struct pm_drain *d;
	struct sink s;
	uint64_t rounds;
	bool busy, ordered, watched;

	/* Raised to one ring and a round: the least that takes any pass. */
	d = setup(&s, 1000, false);
	tap_ok(d->stage->cap == RING_SIZE + 8, "the stage holds at least a full pass");
	produce_samples(d, 0, 100);
	pm_drain__pass(d, &busy);
	tap_ok(!d->blocked && pending(d) == 0 && d->stage->head == 100 * REC + 8,
	       "a pass goes to the stage and frees the ring at once");
	produce_samples(d, 0, 200);
	produce(d, 0, PERF_RECORD_LOST, 7, 24);
	pm_drain__pass(d, &busy);
	tap_ok(d->blocked && pending(d) == 200 * REC + 24 && d->stats.lost == 0,
	       "no room for the next pass: the ring keeps it, its LOST record not yet counted");
	tap_ok(d->stats.samples == 0 && s.writes == 0, "nothing written while the writer is stuck");
	pm_drain__poll(d, 0, &watched);
	tap_ok(d->blocked, "no room made: still blocked");
	pm_stage__write(d->stage);
	pm_drain__poll(d, 0, &watched);
	pm_drain__pass(d, &busy);
	tap_ok(!d->blocked && pending(d) == 0 && d->stats.lost == 7 && d->rings[0].lost == 7,
	       "room made: the pass goes, its LOST record counted once");
	tap_ok(d->stats.samples == 100, "samples counted as the writer writes them");
	tap_ok(!pm_drain__stop(d, NULL, NULL), "stop drains and flushes");
	tap_ok(check_got(&s, &rounds, &ordered) == 300 && ordered && rounds == 2 &&
	       d->stats.samples == 300 && d->stats.dropped_samples == 0,
	       "every sample once, in order, one round per pass");
	tap_ok(s.bad_commits == 0, "every commit ends on a FINISHED_ROUND");
	teardown(d, &s);
}

static void test_drain_error(void)
{
	struct pm_drain *d;
	struct sink s;
	bool busy;
	int err;

	d = setup(&s, 1 << 16, false);
	s.fail_at = 2;
	s.err = -EPIPE;
	d->stage->batch = 1;
	produce_samples(d, 0, 10);
	pm_drain__pass(d, &busy);
	produce_samples(d, 0, 20);
	pm_drain__pass(d, &busy);
	produce_samples(d, 0, 30);
	pm_drain__pass(d, &busy);
	pm_stage__write(d->stage);
	tap_ok(pm_stage__write(d->stage) == -EPIPE, "the writer fails on the second pass");
	produce_samples(d, 0, 40);
	err = pm_drain__pass(d, &busy);
	tap_ok(err == -EPIPE && pending(d) == 40 * REC + 0 * 8,
	       "the next pass gets the error; its data stays in the ring");
	tap_ok(d->stats.samples == 10 && d->stats.dropped_samples == 20 + 30 + 40,
	       "written + dropped == produced (%llu + %llu)", (unsigned long long)d->stats.samples,
	       (unsigned long long)d->stats.dropped_samples);
	teardown(d, &s);
}

static void test_thread(void)
{
	struct pm_drain *d;
	struct sink s;
	uint64_t rounds, total = 0;
	bool busy, ordered;
	int i;

	d = setup(&s, 3 * RING_SIZE, true);
	for (i = 0; i < 20000; i++) {
		int n = 1 + i % 37;

		/* A full ring waits for the writer, as the kernel would drop. */
		while (!produce_samples(d, 0, n)) {
			pm_drain__pass(d, &busy);
			if (d->blocked)
				poll(&(struct pollfd){ .fd = d->stage->room_fd, .events = POLLIN }, 1, 10);
		}
		total += n;
		if (i % 3 == 0)
			pm_drain__pass(d, &busy);
	}
	tap_ok(!pm_drain__stop(d, NULL, NULL), "stop flushes the writer");
	tap_ok(check_got(&s, &rounds, &ordered) == total && ordered && d->stats.samples == total,
	       "writer thread: %llu samples, every one once and in order",
	       (unsigned long long)total);
	tap_ok(s.bad_commits == 0 && d->stage->stats.peak <= 3 * RING_SIZE,
	       "commits on rounds only; memory bounded by the buffer");
	teardown(d, &s);
}

int main(void)
{
	test_whole_passes();
	test_full();
	test_rebase();
	test_write_error();
	test_drain_full();
	test_drain_error();
	test_thread();
	return tap_done();
}
