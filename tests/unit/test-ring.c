// SPDX-License-Identifier: GPL-2.0
/*
 * The mmap core against fake rings built in memory: a test producer plays
 * the kernel's part (publishes records at head, honours data_tail, emits
 * LOST records, writes backward), so every case runs without perf_event_open.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/ring.h"
#include "tap.h"

#define CTL_SIZE 4096

struct fake {
	unsigned char *mem;
	struct perf_event_mmap_page *ctl;
	unsigned char *data;
	uint64_t size;
	uint64_t lost;
	struct pm_ring ring;
};

static void fake__init(struct fake *f, uint64_t size, uint64_t start)
{
	/* Exactly sized, so AddressSanitizer catches any read past the data. */
	f->mem = calloc(1, CTL_SIZE + size);
	f->ctl = (void *)f->mem;
	f->data = f->mem + CTL_SIZE;
	f->size = size;
	f->lost = 0;
	f->ctl->data_head = start;
	f->ctl->data_tail = start;
	pm_ring__attach_mem(&f->ring, f->mem, CTL_SIZE, size);
}

static void fake__exit(struct fake *f)
{
	pm_ring__unmap(&f->ring);
	free(f->mem);
}

static void fake__put(struct fake *f, uint64_t pos, const void *src, size_t n)
{
	uint64_t off = pos & (f->size - 1);
	size_t first = f->size - off < n ? f->size - off : n;

	memcpy(f->data + off, src, first);
	memcpy(f->data, (const unsigned char *)src + first, n - first);
}

/* A record: header, u64 seq, then bytes derived from seq. */
static void make_record(unsigned char *rec, uint32_t type, uint64_t seq, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };
	size_t i;

	memcpy(rec, &h, sizeof(h));
	if (size >= 16)
		memcpy(rec + 8, &seq, 8);
	for (i = 16; i < size; i++)
		rec[i] = (unsigned char)(seq * 31 + i);
}

/* Forward producer: drops what does not fit, then announces it in LOST. */
static int fake__produce(struct fake *f, uint64_t seq, uint16_t size)
{
	unsigned char rec[PM_RING_MAX_RECORD];
	uint64_t head = f->ctl->data_head;
	uint64_t tail = __atomic_load_n(&f->ctl->data_tail, __ATOMIC_ACQUIRE);
	uint64_t need = size + (f->lost ? 24 : 0);

	if (head - tail + need > f->size) {
		f->lost++;
		return 0;
	}
	if (f->lost) {
		make_record(rec, PERF_RECORD_LOST, 0, 24);
		memcpy(rec + 16, &f->lost, 8);
		fake__put(f, head, rec, 24);
		head += 24;
		f->lost = 0;
	}
	make_record(rec, PERF_RECORD_SAMPLE, seq, size);
	fake__put(f, head, rec, size);
	__atomic_store_n(&f->ctl->data_head, head + size, __ATOMIC_RELEASE);
	return 1;
}

static void fake__produce_backward(struct fake *f, uint64_t seq, uint16_t size)
{
	unsigned char rec[PM_RING_MAX_RECORD];
	uint64_t head = f->ctl->data_head - size;

	make_record(rec, PERF_RECORD_SAMPLE, seq, size);
	fake__put(f, head, rec, size);
	__atomic_store_n(&f->ctl->data_head, head, __ATOMIC_RELEASE);
}

/* Drains with the iterator; counts records and checks seqs run from *next. */
static int drain_check(struct fake *f, uint64_t *next, uint64_t *lost)
{
	struct pm_span s;
	const struct perf_event_header *ev;
	uint64_t pos;
	int n = 0, ret;

	pm_ring__peek(&f->ring, &s);
	pos = s.start;
	while ((ret = pm_ring__next(&f->ring, &s, &pos, &ev)) == 1) {
		uint64_t v;

		memcpy(&v, (const unsigned char *)ev + 8, 8);
		if (ev->type == PERF_RECORD_LOST) {
			memcpy(&v, (const unsigned char *)ev + 16, 8);
			*lost += v;
			*next += v;
			continue;
		}
		if (v != *next)
			return -1;
		(*next)++;
		n++;
	}
	if (ret < 0)
		return -1;
	pm_ring__release(&f->ring, &s);
	return n;
}

static void test_empty(void)
{
	struct fake f;
	struct pm_span s;

	fake__init(&f, 4096, 0);
	tap_ok(pm_ring__peek(&f.ring, &s) == 0 && s.iovcnt == 0, "empty ring gives an empty span");
	fake__exit(&f);
}

static void test_contiguous(void)
{
	struct fake f;
	struct pm_span s;
	uint64_t len;

	fake__init(&f, 4096, 0);
	fake__produce(&f, 1, 64);
	fake__produce(&f, 2, 64);
	len = pm_ring__peek(&f.ring, &s);
	tap_ok(len == 128 && s.iovcnt == 1 && s.iov[0].iov_len == 128 &&
	       s.iov[0].iov_base == f.data, "contiguous span is one iovec");
	pm_ring__release(&f.ring, &s);
	tap_ok(f.ctl->data_tail == 128, "release stores data_tail");
	tap_ok(pm_ring__peek(&f.ring, &s) == 0, "released ring is empty");
	fake__exit(&f);
}

static void test_exact_fit(void)
{
	struct fake f;
	struct pm_span s;
	int i, ok = 1;

	fake__init(&f, 4096, 0);
	for (i = 0; i < 64; i++)
		ok &= fake__produce(&f, i, 64);
	tap_ok(ok && pm_ring__peek(&f.ring, &s) == 4096 && s.iovcnt == 1,
	       "a full ring is one span of the whole buffer");
	ok = fake__produce(&f, 99, 8);
	tap_ok(!ok && f.lost == 1, "producer cannot overwrite unreleased data");
	fake__exit(&f);
}

static void test_wrapped(void)
{
	struct fake f;
	struct pm_span s;
	unsigned char expect[192];
	uint64_t next = 9, lost = 0;

	fake__init(&f, 4096, 4096 - 64);
	fake__produce(&f, 7, 128);
	fake__produce(&f, 8, 64);
	pm_ring__peek(&f.ring, &s);
	make_record(expect, PERF_RECORD_SAMPLE, 7, 128);
	make_record(expect + 128, PERF_RECORD_SAMPLE, 8, 64);
	tap_ok(s.iovcnt == 2 && s.iov[0].iov_len == 64 && s.iov[1].iov_len == 128,
	       "wrapped span is two iovecs of exact lengths");
	tap_ok(!memcmp(s.iov[0].iov_base, expect, 64) &&
	       !memcmp(s.iov[1].iov_base, expect + 64, 128),
	       "wrapped iovecs hold the records' bytes in order");
	pm_ring__release(&f.ring, &s);
	fake__produce(&f, 9, 64);
	tap_ok(drain_check(&f, &next, &lost) == 1 && next == 10,
	       "next span starts after the released one");
	fake__exit(&f);
}

/* Every record size at every offset near the end comes back byte-identical. */
static void test_straddle(void)
{
	static const uint16_t big[] = { 4096, 8192, 32768, 65528 };
	struct fake f;
	unsigned char expect[PM_RING_MAX_RECORD];
	int bad = 0, cases = 0;
	uint16_t size;
	uint64_t start;

	for (size = 8; size <= 520 + 4 * 4; size += 8) {
		uint16_t sz = size <= 520 ? size : big[(size - 528) / 8];

		for (start = 131072 - sz - 16; start <= 131072 + 8; start += 8) {
			struct pm_span s;
			const struct perf_event_header *ev;
			uint64_t pos;

			fake__init(&f, 131072, start);
			fake__produce(&f, 5, sz);
			make_record(expect, PERF_RECORD_SAMPLE, 5, sz);
			pm_ring__peek(&f.ring, &s);
			pos = s.start;
			cases++;
			if (pm_ring__next(&f.ring, &s, &pos, &ev) != 1 || ev->size != sz ||
			    memcmp(ev, expect, sz) || pm_ring__next(&f.ring, &s, &pos, &ev) != 0)
				bad++;
			fake__exit(&f);
		}
	}
	tap_ok(!bad, "straddling records of 8..520 and 4K..65528 bytes at every offset near the end (%d cases)",
	       cases);
}

static void test_corrupt_sizes(void)
{
	static const uint16_t sizes[] = { 0, 4, 12, 4096 };
	struct fake f;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct pm_span s;
		const struct perf_event_header *ev;
		struct perf_event_header h = { .type = 9, .size = sizes[i] };
		uint64_t pos;
		int ret, steps = 0;

		fake__init(&f, 4096, 4096 - 8);
		fake__put(&f, 4096 - 8, &h, 8);
		f.ctl->data_head = 4096 - 8 + 64;
		pm_ring__peek(&f.ring, &s);
		pos = s.start;
		while ((ret = pm_ring__next(&f.ring, &s, &pos, &ev)) == 1 && steps < 100)
			steps++;
		tap_ok(ret == -EBADMSG && steps == 0, "header size %u is rejected without overread",
		       sizes[i]);
		fake__exit(&f);
	}
}

static void test_head_overrun(void)
{
	struct fake f;
	struct pm_span s;

	fake__init(&f, 4096, 0);
	f.ctl->data_head = 3 * 4096;
	tap_ok(pm_ring__peek(&f.ring, &s) == 0 && f.ring.corrupt == 1 &&
	       f.ring.tail == 3 * 4096, "head more than a buffer ahead: resync and count");
	fake__exit(&f);
}

/* The producer appends between peek and release: nothing is read twice. */
static void test_append_during_pass(void)
{
	struct fake f;
	struct pm_span s;
	uint64_t next = 1, lost = 0, seq = 1, total = 0;
	int round, n, bad = 0;

	fake__init(&f, 4096, 0);
	for (round = 0; round < 1000; round++) {
		const struct perf_event_header *ev;
		uint64_t pos, v;
		int ret;

		fake__produce(&f, seq++, 40);
		pm_ring__peek(&f.ring, &s);
		fake__produce(&f, seq++, 40);	/* published after the head load */
		pos = s.start;
		while ((ret = pm_ring__next(&f.ring, &s, &pos, &ev)) == 1) {
			memcpy(&v, (const unsigned char *)ev + 8, 8);
			if (ev->type == PERF_RECORD_SAMPLE) {
				bad |= v != next;
				next = v + 1;
				total++;
			}
		}
		pm_ring__release(&f.ring, &s);
	}
	n = drain_check(&f, &next, &lost);
	total += n > 0 ? n : 0;
	tap_ok(!bad && n >= 0 && total == seq - 1 && next == seq,
	       "records appended between peek and release are read once (%llu of %llu)",
	       (unsigned long long)total, (unsigned long long)(seq - 1));
	fake__exit(&f);
}

static void test_loss_conservation(void)
{
	struct fake f;
	uint64_t next = 1, lost = 0, seq, got = 0;
	int n, ok = 1;

	fake__init(&f, 4096, 0);
	for (seq = 1; seq <= 100000; seq++) {
		fake__produce(&f, seq, (uint16_t)(16 + 8 * (seq % 13)));
		if (seq % 97 == 0) {
			n = drain_check(&f, &next, &lost);
			ok &= n >= 0;
			got += n > 0 ? n : 0;
		}
	}
	/* A pending drop is announced with the next record that fits. */
	n = drain_check(&f, &next, &lost);
	ok &= n >= 0;
	got += n > 0 ? n : 0;
	ok &= fake__produce(&f, seq, 16);
	n = drain_check(&f, &next, &lost);
	ok &= n >= 0;
	got += n > 0 ? n : 0;
	tap_ok(ok && lost > 0 && got + lost == seq && next == seq + 1, "recorded + lost == produced (%llu + %llu)",
	       (unsigned long long)got, (unsigned long long)lost);
	fake__exit(&f);
}

static void test_u64_wrap(void)
{
	struct fake f;
	uint64_t next = 1, lost = 0, seq, got = 0;
	int ok = 1, n;

	fake__init(&f, 4096, UINT64_MAX - 3 * 4096 + 1);
	for (seq = 1; seq <= 2000; seq++) {
		ok &= fake__produce(&f, seq, 56);
		if (seq % 50 == 0) {
			n = drain_check(&f, &next, &lost);
			ok &= n == 50;
			got += n;
		}
	}
	tap_ok(ok && got == 2000 && !lost && f.ctl->data_head < 4096 * 30,
	       "head and tail run across 2^64");
	fake__exit(&f);
}

static int check_backward(struct pm_buf *b, uint64_t first, uint64_t last, uint16_t size)
{
	uint64_t seq, v;
	size_t off = 0;

	for (seq = first; seq <= last; seq++, off += size) {
		const struct perf_event_header *h = (const void *)(b->data + off);

		if (off + size > b->len || h->size != size)
			return 0;
		memcpy(&v, b->data + off + 8, 8);
		if (v != seq)
			return 0;
	}
	return off == b->len;
}

static void test_backward(void)
{
	struct fake f;
	struct pm_buf b = { 0 };
	uint64_t seq;

	fake__init(&f, 4096, 0);
	for (seq = 1; seq <= 10; seq++)
		fake__produce_backward(&f, seq, 88);
	pm_ring__read_backward(&f.ring, &b);
	tap_ok(check_backward(&b, 1, 10, 88), "backward, never wrapped: stops at the zero header");
	fake__exit(&f);

	pm_buf__reset(&b);
	fake__init(&f, 4096, 0);
	for (seq = 1; seq <= 1000; seq++)
		fake__produce_backward(&f, seq, 88);
	pm_ring__read_backward(&f.ring, &b);
	tap_ok(check_backward(&b, 955, 1000, 88),
	       "backward, wrapped: the 46 newest complete records, oldest first");
	fake__exit(&f);

	pm_buf__reset(&b);
	fake__init(&f, 4096, 0);
	for (seq = 1; seq <= 200; seq++)
		fake__produce_backward(&f, seq, 64);
	pm_ring__read_backward(&f.ring, &b);
	tap_ok(check_backward(&b, 137, 200, 64), "backward, exact fit: one full buffer");
	fake__exit(&f);
	pm_buf__exit(&b);
}

int main(void)
{
	test_empty();
	test_contiguous();
	test_exact_fit();
	test_wrapped();
	test_straddle();
	test_corrupt_sizes();
	test_head_overrun();
	test_append_during_pass();
	test_loss_conservation();
	test_u64_wrap();
	test_backward();
	return tap_done();
}
