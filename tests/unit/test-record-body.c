// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the record-body layouts (lib/format/record_body.c): MMAP, MMAP2,
 * COMM, FORK, LOST, LOST_SAMPLES and build-id entries, including the
 * smallest valid BUILD_ID entry (37 bytes: 36 then the name's NUL).
 * Prints TAP.
 */
#include <errno.h>
#include <string.h>

#include "base/buf.h"
#include "format/perf_data.h"
#include "base/cursor.h"
#include "format/record_body.h"
#include "tap.h"

static struct pm_buf b;

static const struct perf_event_header *rec(uint32_t type, uint16_t misc)
{
	struct perf_event_header *h = (void *)b.data;

	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)b.len;
	return h;
}

static void test_mmap(void)
{
	const struct perf_event_header *h;
	struct pm_mmap_body m;

	b.len = 0;
	pm_buf__alloc(&b, 8);
	pm_buf__append_u32(&b, 7), pm_buf__append_u32(&b, 8);
	pm_buf__append_u64(&b, 0x1000), pm_buf__append_u64(&b, 0x2000);
	pm_buf__append_u64(&b, 0x30);
	pm_buf__append_u32(&b, 8), pm_buf__append_u32(&b, 3);
	pm_buf__append_u64(&b, 99), pm_buf__append_u64(&b, 4);
	pm_buf__append_u32(&b, 5), pm_buf__append_u32(&b, 2);
	pm_buf__append(&b, "/x\0\0\0\0\0\0", 8);
	h = rec(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	tap_ok(!pm_mmap_body__decode(h, h->size - 8, &m) && m.v2 && m.pid == 7 && m.tid == 8 &&
	       m.addr == 0x1000 && m.len == 0x2000 && m.pgoff == 0x30 && !m.has_build_id &&
	       m.maj == 8 && m.min == 3 && m.ino == 99 && m.ino_generation == 4 &&
	       m.prot == 5 && m.flags == 2 && !strcmp(m.filename, "/x") && m.filename_max == 8,
	       "MMAP2 with device and inode");
	/* The build-id flag, and a size byte and reserved bytes that agree. */
	b.data[40] = 20;
	memset(b.data + 41, 0, 3);
	h = rec(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	tap_ok(!pm_mmap_body__decode(h, h->size - 8, &m) && m.has_build_id &&
	       m.build_id_len == 20 && m.build_id == b.data + 44 && m.ino == 0,
	       "MMAP2 with a build id");
	b.data[40] = 21;
	tap_ok(!pm_mmap_body__decode(h, h->size - 8, &m) && !m.has_build_id && m.maj == 21,
	       "MMAP2 with the flag but a size over 20: device and inode");
	tap_ok(pm_mmap_body__decode(h, 63, &m) == -EBADMSG, "MMAP2 body under 64 bytes");
	h = rec(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	tap_ok(!pm_mmap_body__decode(h, 40, &m) && !m.v2 && m.filename == (char *)b.data + 40 &&
	       m.filename_max == 8 && m.addr == 0x1000, "MMAP: name at 32 of the body");
	tap_ok(pm_mmap_body__decode(h, 31, &m) == -EBADMSG, "MMAP body under 32 bytes");
}

static void test_task_lost(void)
{
	const struct perf_event_header *h;
	struct pm_comm_body c;
	struct pm_fork_body f;
	uint64_t id, lost;

	b.len = 0;
	pm_buf__alloc(&b, 8);
	pm_buf__append_u32(&b, 1), pm_buf__append_u32(&b, 2);
	pm_buf__append_u32(&b, 3), pm_buf__append_u32(&b, 4);
	pm_buf__append_u64(&b, 5);
	h = rec(PERF_RECORD_FORK, 0);
	tap_ok(!pm_fork_body__decode(h, 24, &f) && f.pid == 1 && f.ppid == 2 && f.tid == 3 &&
	       f.ptid == 4 && f.time == 5, "FORK: pid ppid tid ptid time");
	tap_ok(pm_fork_body__decode(h, 23, &f) == -EBADMSG, "FORK under 24 bytes");
	h = rec(PERF_RECORD_COMM, 0);
	tap_ok(!pm_comm_body__decode(h, 24, &c) && c.pid == 1 && c.tid == 2 &&
	       c.comm == (char *)b.data + 16 && c.comm_max == 16, "COMM: name at 8");
	h = rec(PERF_RECORD_LOST, 0);
	tap_ok(!pm_lost_body__decode(h, 16, &id, &lost) && id == 0x200000001ULL &&
	       lost == 0x400000003ULL, "LOST: id then count");
	h = rec(PERF_RECORD_LOST_SAMPLES, 0);
	tap_ok(!pm_lost_body__decode(h, 8, &id, &lost) && id == 0 && lost == 0x200000001ULL,
	       "LOST_SAMPLES: count only");
	h = rec(PERF_RECORD_COMM, 0);
	tap_ok(pm_lost_body__decode(h, 24, &id, &lost) == -EBADMSG, "not a loss record");
}

static void test_build_ids(void)
{
	static const unsigned char id[4] = { 1, 2, 3, 4 };
	struct pm_build_id_entry e;
	struct pm_cursor c;
	uint16_t size;
	size_t first;

	b.len = 0;
	tap_ok(!pm_build_id_entry__append(&b, 0, PERF_RECORD_MISC_USER, id, 4, "/bin/a") &&
	       b.len == 100, "an entry is 36 bytes and the name padded to 64");
	first = b.len;
	pm_build_id_entry__append(&b, 0, PERF_RECORD_MISC_KERNEL, id, 4, "[kernel.kallsyms]");
	pm_cursor__init(&c, b.data, b.len, 0);
	tap_ok(pm_build_id_entry__next(&c, &e) == 1 && e.cpumode == PERF_RECORD_MISC_USER &&
	       e.pid == -1 && e.id_len == 4 && !memcmp(e.id, id, 4) &&
	       !strcmp(e.filename, "/bin/a") && e.filename_max == 64, "first entry read back");
	tap_ok(pm_build_id_entry__next(&c, &e) == 1 && e.cpumode == PERF_RECORD_MISC_KERNEL &&
	       !strcmp(e.filename, "[kernel.kallsyms]"), "second entry");
	tap_ok(pm_build_id_entry__next(&c, &e) == 0, "then the end");

	/* Without the size flag an id is 20 bytes. */
	b.data[4] = PERF_RECORD_MISC_USER;
	b.data[5] = 0;
	pm_cursor__init(&c, b.data, first, 0);
	tap_ok(pm_build_id_entry__next(&c, &e) == 1 && e.id_len == 20, "no size flag: 20 bytes");

	/* 37 bytes hold an empty name; 36 cannot hold its NUL. */
	size = 37;
	memcpy(b.data + 6, &size, 2);
	pm_cursor__init(&c, b.data, 37, 0);
	tap_ok(pm_build_id_entry__next(&c, &e) == 1 && e.filename_max == 1 &&
	       pm_cursor__left(&c) == 0, "a 37-byte entry is the smallest");
	size = 36;
	memcpy(b.data + 6, &size, 2);
	pm_cursor__init(&c, b.data, 100, 0);
	tap_ok(pm_build_id_entry__next(&c, &e) == -EBADMSG && c.pos == 0,
	       "a 36-byte entry is malformed, the cursor stays at it");
	pm_cursor__init(&c, b.data, 35, 0);
	tap_ok(pm_build_id_entry__next(&c, &e) == -EBADMSG, "fewer than 36 bytes left");
	size = 200;
	memcpy(b.data + 6, &size, 2);
	pm_cursor__init(&c, b.data, 100, 0);
	tap_ok(pm_build_id_entry__next(&c, &e) == -EBADMSG, "an entry past the end");
	tap_ok(pm_build_id_entry__decode(b.data, 36, &e) == 0 && e.filename_max == 0 &&
	       pm_build_id_entry__decode(b.data, 35, &e) == -EBADMSG,
	       "a record of 36 bytes decodes, with no name");
}

int main(void)
{
	test_mmap();
	test_task_lost();
	test_build_ids();
	pm_buf__exit(&b);
	return tap_done();
}
