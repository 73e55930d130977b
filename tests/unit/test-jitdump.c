// SPDX-License-Identifier: GPL-2.0
/*
 * The jitdump parser on files built here byte by byte: every record kind
 * in both byte orders, the lines of a debug info record, and each size it
 * checks, refused with the offset and the reason; then the loads fed into
 * the JIT names, timed (reused code named by its time) and untimed; and
 * the recorder's copy of a file (held, encoded, found, read back) naming
 * alike, checked against the file it was made of, and refused when damaged.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "symbols/jitcode.h"
#include "symbols/jitdump.h"
#include "tap.h"

static bool swapped;

static void put32(struct pm_buf *b, uint32_t v)
{
	v = swapped ? bswap_32(v) : v;
	pm_buf__append(b, &v, 4);
}

static void put64(struct pm_buf *b, uint64_t v)
{
	v = swapped ? bswap_64(v) : v;
	pm_buf__append(b, &v, 8);
}

static void header(struct pm_buf *b, uint64_t flags)
{
	put32(b, PM_JITDUMP_MAGIC);
	put32(b, 1);
	put32(b, 40);
	put32(b, 62);
	put32(b, 0);
	put32(b, 1234);
	put64(b, 5);
	put64(b, flags);
}

static void load(struct pm_buf *b, uint64_t time, const char *name, uint64_t addr, uint64_t size,
		 uint64_t index)
{
	size_t n = strlen(name) + 1, i;

	put32(b, PM_JIT_CODE_LOAD);
	put32(b, (uint32_t)(16 + 40 + n + size));
	put64(b, time);
	put32(b, 1234);
	put32(b, 1235);
	put64(b, addr);
	put64(b, addr);
	put64(b, size);
	put64(b, index);
	pm_buf__append(b, name, n);
	for (i = 0; i < size; i++)
		pm_buf__append(b, "\x90", 1);
}

static void move(struct pm_buf *b, uint64_t time, uint64_t from, uint64_t to, uint64_t size,
		 uint64_t index)
{
	put32(b, PM_JIT_CODE_MOVE);
	put32(b, 16 + 48);
	put64(b, time);
	put32(b, 1234);
	put32(b, 1234);
	put64(b, to);
	put64(b, from);
	put64(b, to);
	put64(b, size);
	put64(b, index);
}

static void debug(struct pm_buf *b, uint64_t addr)
{
	put32(b, PM_JIT_CODE_DEBUG_INFO);
	put32(b, 16 + 16 + 16 + 7 + 16 + 2);
	put64(b, 1);
	put64(b, addr);
	put64(b, 2);
	put64(b, addr);
	put32(b, 42);
	put32(b, 0);
	pm_buf__append(b, "app.js", 7);
	put64(b, addr + 8);
	put32(b, 43);
	put32(b, 1);
	pm_buf__append(b, "\xff", 2);
}

static void test_records(void)
{
	struct pm_buf b = { 0 };
	struct pm_jitdump j;
	struct pm_jitdump_rec r;
	struct pm_jitdump_line l = { 0 };
	uint64_t idx = 0;
	size_t pos = 0;
	int s;

	for (s = 0; s < 2; s++) {
		swapped = s;
		b.len = 0;
		header(&b, 0);
		debug(&b, 0x1000);
		load(&b, 10, "hot", 0x1000, 32, 7);
		move(&b, 20, 0x1000, 0x3000, 32, 7);
		put32(&b, 99);			/* an unknown record: skipped */
		put32(&b, 24);
		put64(&b, 0);
		put64(&b, 0);
		put32(&b, PM_JIT_CODE_UNWINDING_INFO);
		put32(&b, 16 + 24 + 8);
		put64(&b, 30);
		put64(&b, 8);
		put64(&b, 4);
		put64(&b, 0);
		put64(&b, 0);
		put32(&b, PM_JIT_CODE_CLOSE);
		put32(&b, 16);
		put64(&b, 40);
		tap_ok(!pm_jitdump__init(&j, b.data, b.len) && j.swap == s && j.h.pid == 1234 &&
		       j.h.elf_mach == 62 && j.h.timestamp == 5, "%s: the header", s ? "swapped" : "native");
		tap_ok(pm_jitdump__next(&j, &r) == 1 && r.type == PM_JIT_CODE_DEBUG_INFO &&
		       r.debug.code_addr == 0x1000 && r.debug.nr_entry == 2, "debug info");
		idx = 0, pos = 0;
		tap_ok(pm_jitdump__next_line(&j, &r, &idx, &pos, &l) == 1 && l.addr == 0x1000 &&
		       l.line == 42 && l.file_len == 6 && !memcmp(l.file, "app.js", 6) &&
		       pm_jitdump__next_line(&j, &r, &idx, &pos, &l) == 1 && l.addr == 0x1008 &&
		       l.line == 43 && l.discrim == 1 && l.file_len == 6 &&
		       pm_jitdump__next_line(&j, &r, &idx, &pos, &l) == 0,
		       "its two lines, the second in the previous file");
		tap_ok(pm_jitdump__next(&j, &r) == 1 && r.type == PM_JIT_CODE_LOAD && r.time == 10 &&
		       r.load.code_addr == 0x1000 && r.load.code_size == 32 && r.load.code_index == 7 &&
		       r.load.name_len == 3 && !memcmp(r.load.name, "hot", 3) && r.load.code[0] == 0x90 &&
		       r.load.tid == 1235, "a code load: name, range, index, code");
		tap_ok(pm_jitdump__next(&j, &r) == 1 && r.type == PM_JIT_CODE_MOVE &&
		       r.move.old_addr == 0x1000 && r.move.new_addr == 0x3000 && r.move.code_index == 7,
		       "a code move");
		tap_ok(pm_jitdump__next(&j, &r) == 1 && r.type == PM_JIT_CODE_UNWINDING_INFO &&
		       r.unwind.unwinding_size == 8 && r.unwind.eh_frame_hdr_size == 4 && j.skipped == 1,
		       "unknown ids skipped; unwinding info");
		tap_ok(pm_jitdump__next(&j, &r) == 1 && r.type == PM_JIT_CODE_CLOSE &&
		       pm_jitdump__next(&j, &r) == 0, "close, then the end");
	}
	swapped = false;
	pm_buf__exit(&b);
}

/* A file of a header and one load, with 4 bytes at off replaced by v (8 for a u64 above 2^32). */
static int damaged(uint64_t off, uint64_t v, uint64_t flags, struct pm_jitdump *j)
{
	static struct pm_buf b;
	struct pm_jitdump_rec r;
	int err;

	b.len = 0;
	header(&b, flags);
	load(&b, 1, "f", 0x1000, 8, 0);
	if (off < b.len)
		memcpy(b.data + off, &v, v >> 32 ? 8 : 4);
	err = pm_jitdump__init(j, b.data, b.len);
	if (err)
		return err;
	while ((err = pm_jitdump__next(j, &r)) == 1)
		;
	return err;
}

static void test_refusals(void)
{
	static const struct {
		uint64_t off;
		uint64_t v;
		uint64_t flags;
		uint64_t at;
		const char *why;
	} bad[] = {
		{ 0, 0x12345678, 0, 0, "not a jitdump file (bad magic)" },
		{ 4, 0, 0, 4, "version 0" },
		{ 8, 39, 0, 8, "header size below 40 bytes" },
		{ 8, 1 << 20, 0, 8, "header size beyond the end of the file" },
		{ 1000, 0, 2, 32, "unknown header flags" },
		{ 44, 8, 0, 44, "record size below 16 bytes" },
		{ 44, 1 << 20, 0, 44, "record runs past the end of the file" },
		{ 44, 16 + 40, 0, 44, "code load record too short" },
		{ 80, 100, 0, 80, "code size beyond the record" },
		{ 80, 0, 0, 80, "code size 0" },
		{ 72, 0xfffffffffffffffcULL, 0, 72, "code range wraps around" },
	};
	struct pm_jitdump j;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = damaged(bad[i].off, bad[i].v, bad[i].flags, &j);

		tap_ok(err == -EBADMSG && j.err.offset == bad[i].at && !strcmp(j.err.why, bad[i].why),
		       "refused at %llu: %s (got %llu: %s)", (unsigned long long)bad[i].at, bad[i].why,
		       (unsigned long long)j.err.offset, j.err.why ? j.err.why : "none");
	}
	tap_ok(damaged(1000, 0, 0, &j) == 0, "the undamaged file parses");
	tap_ok(pm_jitdump__init(&j, "JiTD", 4) == -EBADMSG && j.err.offset == 0,
	       "a file shorter than the header");
}

static void test_marker(void)
{
	tap_ok(pm_jitdump__marker_pid("/tmp/x/jit-123.dump") == 123 &&
	       pm_jitdump__marker_pid("jit-7.dump") == 7, "jit-PID.dump names its pid");
	tap_ok(pm_jitdump__marker_pid("/tmp/jit-.dump") < 0 &&
	       pm_jitdump__marker_pid("/tmp/jit-12.dumpx") < 0 &&
	       pm_jitdump__marker_pid("/tmp/xjit-12.dump") < 0 &&
	       pm_jitdump__marker_pid("/tmp/jit-99999999999.dump") < 0 &&
	       pm_jitdump__marker_pid("/tmp/jit-1a.dump") < 0, "other names are not markers");
}

static int memfd_of(const struct pm_buf *b)
{
	int fd = memfd_create("jitdump", 0);

	if (fd >= 0 && write(fd, b->data, b->len) != (ssize_t)b->len) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *name_at(struct pm_jitsyms *t, uint64_t addr)
{
	struct pm_jitsym s;

	return pm_jitsyms__find(t, 1234, addr, &s) ? "-" : s.name;
}

static void test_timeline(void)
{
	struct pm_jitcode_stats st;
	struct pm_buf b = { 0 };
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_jitcode *c = pm_jitcode__new(t);
	struct pm_jitsym s;
	int fd;

	header(&b, 0);
	debug(&b, 0x1000);
	load(&b, 100, "first", 0x1000, 16, 1);
	load(&b, 200, "reused", 0x1000, 16, 2);
	move(&b, 300, 0x1000, 0x2000, 16, 1);
	fd = memfd_of(&b);
	tap_ok(fd >= 0 && !pm_jitcode__read(c, fd, 1234, "/x/jit-1234.dump", true, &st) &&
	       st.loads == 2 && st.moves == 1 && st.lines == 2 && !st.bad, "timed: read");
	tap_ok(!strcmp(name_at(t, 0x1000), "-"), "nothing named before the first load");
	pm_jitcode__advance(c, 150);
	tap_ok(!strcmp(name_at(t, 0x1004), "first") && !pm_jitsyms__find(t, 1234, 0x1000, &s) &&
	       s.src && !strcmp(s.src, "app.js") && s.line == 42 && !strcmp(s.dso, "/x/jit-1234.dump"),
	       "at 150: the first load, its source line and file");
	pm_jitcode__advance(c, 250);
	tap_ok(!strcmp(name_at(t, 0x1004), "reused"), "at 250: the code that reused its memory");
	pm_jitcode__advance(c, 300);
	tap_ok(!strcmp(name_at(t, 0x2004), "first"), "at 300: the first code moved, by its index");
	close(fd);
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);

	t = pm_jitsyms__new();
	c = pm_jitcode__new(t);
	fd = memfd_of(&b);
	tap_ok(fd >= 0 && !pm_jitcode__read(c, fd, 1234, "/x/jit-1234.dump", false, &st) &&
	       !strcmp(name_at(t, 0x1004), "reused") && !strcmp(name_at(t, 0x2004), "first"),
	       "untimed: everything at once, the last load at an address wins");
	close(fd);
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);

	/* A file cut inside its last record keeps what came before. */
	t = pm_jitsyms__new();
	c = pm_jitcode__new(t);
	b.len -= 10;
	fd = memfd_of(&b);
	tap_ok(fd >= 0 && !pm_jitcode__read(c, fd, 1234, "/x/jit-1234.dump", false, &st) &&
	       st.bad && st.loads == 2 && !strcmp(st.err.why, "record runs past the end of the file") &&
	       !strcmp(name_at(t, 0x1004), "reused"), "a cut file: the loads before the cut");
	close(fd);
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);

	/* A record that says it is huge is refused before anything is read for it. */
	t = pm_jitsyms__new();
	c = pm_jitcode__new(t);
	b.len = 0;
	header(&b, 0);
	load(&b, 1, "f", 0x1000, 8, 0);
	put32(&b, PM_JIT_CODE_LOAD);
	put32(&b, PM_JITCODE_MAX_RECORD + 1);
	put64(&b, 2);
	fd = memfd_of(&b);
	tap_ok(fd >= 0 && !pm_jitcode__read(c, fd, 1234, "/x/jit-1234.dump", false, &st) &&
	       st.bad && st.loads == 1 && st.err.offset == b.len - 12 &&
	       !strcmp(st.err.why, "record larger than pmrec reads (16 MiB)") &&
	       !strcmp(name_at(t, 0x1004), "f"), "a record over 16 MiB: refused at its size field");
	close(fd);
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);
	pm_buf__exit(&b);
}

/* The payload of the file in b as the recorder holds and encodes it. */
static int copy_of(const struct pm_buf *b, struct pm_buf *payload, struct pm_jitcode_stats *st)
{
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_jitcode *c = pm_jitcode__new(t);
	int fd = memfd_of(b), err = -EIO;

	pm_jitcode__hold(c);
	if (fd >= 0)
		err = pm_jitcode__read(c, fd, 1234, "/x/jit-1234.dump", true, st) ?:
		      pm_jitcode__encode(c, payload);
	/* Held, not added: the recorder's table stays the perf maps'. */
	if (pm_jitsyms__count(t))
		err = -EINVAL;
	if (fd >= 0)
		close(fd);
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);
	return err;
}

static void test_copy(void)
{
	struct pm_buf b = { 0 }, p = { 0 }, other = { 0 };
	struct pm_jitcode_copy cp;
	struct pm_jitcode_stats st;
	struct pm_jitsyms *t;
	struct pm_jitcode *c;
	struct pm_jitsym s;
	uint64_t v;
	int fd;

	header(&b, 0);
	debug(&b, 0x1000);
	load(&b, 100, "first", 0x1000, 16, 1);
	load(&b, 200, "reused", 0x1000, 16, 2);
	move(&b, 300, 0x1000, 0x2000, 16, 1);
	tap_ok(!copy_of(&b, &p, &st) && st.loads == 2 && st.moves == 1 && p.len % 8 == 0,
	       "held: the loads and the move, encoded");
	tap_ok(!pm_jitcode__copy_find(p.data, p.len, 1234, "/x/jit-1234.dump", &cp) && cp.nr == 3 &&
	       cp.hdr_pid == 1234 && cp.stamp == 5 && cp.size == b.len &&
	       pm_jitcode__copy_find(p.data, p.len, 1235, "/x/jit-1234.dump", &cp) == -ENOENT &&
	       pm_jitcode__copy_find(p.data, p.len, 1234, "/x/jit-1.dump", &cp) == -ENOENT,
	       "found by pid and path, the file's header and size with it");
	pm_jitcode__copy_find(p.data, p.len, 1234, "/x/jit-1234.dump", &cp);
	t = pm_jitsyms__new();
	c = pm_jitcode__new(t);
	tap_ok(!pm_jitcode__read_copy(c, &cp, "/x/jit-1234.dump", true, &st) && st.loads == 2 &&
	       st.moves == 1 && !st.bad && !strcmp(name_at(t, 0x1000), "-"), "timed copy: read");
	pm_jitcode__advance(c, 150);
	tap_ok(!strcmp(name_at(t, 0x1004), "first") && !pm_jitsyms__find(t, 1234, 0x1000, &s) &&
	       s.src && !strcmp(s.src, "app.js") && s.line == 42 && !strcmp(s.dso, "/x/jit-1234.dump"),
	       "copy at 150: the first load, its source line and file");
	pm_jitcode__advance(c, 250);
	tap_ok(!strcmp(name_at(t, 0x1004), "reused"), "copy at 250: the code that reused its memory");
	pm_jitcode__advance(c, 300);
	tap_ok(!strcmp(name_at(t, 0x2004), "first") && !pm_jitsyms__find(t, 1234, 0x2000, &s) &&
	       s.src && s.line == 42, "copy at 300: the moved code, with its load's source");
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);

	t = pm_jitsyms__new();
	c = pm_jitcode__new(t);
	tap_ok(!pm_jitcode__read_copy(c, &cp, "/x/jit-1234.dump", false, &st) &&
	       !strcmp(name_at(t, 0x1004), "reused") && !strcmp(name_at(t, 0x2004), "first"),
	       "untimed copy: the last load at an address wins, as from the file");
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);

	/* The file at the path: the one copied (or grown), or another. */
	fd = memfd_of(&b);
	tap_ok(fd >= 0 && pm_jitcode__copy_matches(&cp, fd), "the file copied matches its copy");
	if (fd >= 0)
		close(fd);
	load(&b, 400, "later", 0x3000, 16, 3);
	fd = memfd_of(&b);
	tap_ok(fd >= 0 && pm_jitcode__copy_matches(&cp, fd), "so does the file grown since");
	if (fd >= 0)
		close(fd);
	header(&other, 0);
	pm_buf__append(&other, b.data + 40, b.len - 40);
	memcpy(other.data + 24, &(uint64_t){ 6 }, 8);	/* another run's timestamp */
	fd = memfd_of(&other);
	tap_ok(fd >= 0 && !pm_jitcode__copy_matches(&cp, fd), "another run's file does not");
	if (fd >= 0)
		close(fd);
	other.len = cp.size - 1;
	memcpy(other.data + 24, &(uint64_t){ 5 }, 8);
	fd = memfd_of(&other);
	tap_ok(fd >= 0 && !pm_jitcode__copy_matches(&cp, fd), "nor a shorter one");
	if (fd >= 0)
		close(fd);

	/* Report's choice between the file and the copy. */
	{
		const char *why = "?";

		t = pm_jitsyms__new();
		c = pm_jitcode__new(t);
		fd = memfd_of(&b);
		tap_ok(fd >= 0 && !pm_jitcode__read_either(c, fd, &cp, 1234, "/x/jit-1234.dump", false,
							   &st, &why) &&
		       !why && st.loads == 3 && !strcmp(name_at(t, 0x3004), "later"),
		       "the file copied, grown since: read, not the copy");
		if (fd >= 0)
			close(fd);
		tap_ok(!pm_jitcode__read_either(c, -ENOENT, &cp, 1234, "/x/jit-1234.dump", false, &st,
						&why) && why && !strcmp(why, "the file is gone") &&
		       st.loads == 2, "no file: the copy, and why");
		tap_ok(pm_jitcode__read_either(c, -ELOOP, NULL, 1234, "/x/jit-1234.dump", false, &st,
					       &why) == -ELOOP, "neither: why the file was not read");
		pm_jitcode__delete(c);
		pm_jitsyms__delete(t);
	}

	/* Damaged payloads. */
	tap_ok(pm_jitcode__copy_find(p.data, p.len - 8, 1234, "/x/jit-1234.dump", &cp) == -EBADMSG &&
	       pm_jitcode__copy_find(p.data, 4, 1234, "/x/jit-1234.dump", &cp) == -EBADMSG,
	       "a payload cut short is malformed");
	v = 2;
	memcpy(p.data, &v, 8);
	tap_ok(pm_jitcode__copy_find(p.data, p.len, 1234, "/x/jit-1234.dump", &cp) == -EPROTO,
	       "another version is refused");
	v = PM_JITCODE_FORMAT;
	memcpy(p.data, &v, 8);
	/* The move (the last entry, 40 bytes) names itself as its load. */
	memcpy(p.data + p.len - 4, &(uint32_t){ 2 }, 4);
	pm_jitcode__copy_find(p.data, p.len, 1234, "/x/jit-1234.dump", &cp);
	t = pm_jitsyms__new();
	c = pm_jitcode__new(t);
	tap_ok(!pm_jitcode__read_copy(c, &cp, "/x/jit-1234.dump", false, &st) && st.bad &&
	       st.loads == 2 && !st.moves && !strcmp(name_at(t, 0x1004), "reused") &&
	       !strcmp(name_at(t, 0x2004), "-"), "a move of no earlier load: the entries before it");
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);
	pm_buf__exit(&b);
	pm_buf__exit(&p);
	pm_buf__exit(&other);
}

int main(void)
{
	test_records();
	test_refusals();
	test_marker();
	test_timeline();
	test_copy();
	return tap_done();
}
