// SPDX-License-Identifier: GPL-2.0
/*
 * lib/jitsym: later ranges win where they overlap, lookups at the edges,
 * the loader hook, the bounds, and the recording's encoding read back
 * (whole, in pieces, and damaged).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "symbols/jitsym.h"
#include "symbols/symname.h"
#include "tap.h"

static int add(struct pm_jitsyms *t, int32_t pid, uint64_t start, uint64_t size, const char *name)
{
	return pm_jitsyms__add(t, &(struct pm_jitsym_add){ .pid = pid, .start = start,
							   .size = size, .name = name,
							   .name_len = strlen(name),
							   .dso = "/tmp/perf-1.map",
							   .dso_short = "[JIT] tid 1" });
}

/* The name at addr, or "-" when none. */
static const char *name_at(struct pm_jitsyms *t, int32_t pid, uint64_t addr)
{
	struct pm_jitsym js;

	return pm_jitsyms__find(t, pid, addr, &js) ? "-" : js.name;
}

static void test_overlaps(void)
{
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_jitsym js;

	add(t, 1, 0x1000, 0x100, "old");	/* [0x1000, 0x1100) */
	add(t, 1, 0x1040, 0x20, "new");		/* inside it, later */
	add(t, 1, 0x10f0, 0x20, "tail");	/* over its end */
	add(t, 1, 0x0f00, 0x400, "older?");	/* later still: covers all */
	add(t, 1, 0x2000, 0x10, "alone");
	add(t, 2, 0x1000, 0x10, "pid2");
	tap_ok(!strcmp(name_at(t, 1, 0x1050), "older?"), "the last range added wins everywhere it covers");
	tap_ok(!strcmp(name_at(t, 1, 0x2000), "alone") && !strcmp(name_at(t, 1, 0x200f), "alone") &&
	       !strcmp(name_at(t, 1, 0x2010), "-") && !strcmp(name_at(t, 1, 0x1fff), "-"),
	       "a range covers [start, start + size)");
	tap_ok(!strcmp(name_at(t, 2, 0x1000), "pid2") && !strcmp(name_at(t, 3, 0x1000), "-"),
	       "processes are apart");
	add(t, 1, 0x1040, 0x20, "newest");
	tap_ok(!strcmp(name_at(t, 1, 0x103f), "older?") && !strcmp(name_at(t, 1, 0x1040), "newest") &&
	       !strcmp(name_at(t, 1, 0x105f), "newest") && !strcmp(name_at(t, 1, 0x1060), "older?"),
	       "an addition after a lookup is sorted in");
	tap_ok(!pm_jitsyms__find(t, 1, 0x1041, &js) && js.start == 0x1040 && js.size == 0x20 &&
	       !strcmp(js.dso, "/tmp/perf-1.map") && !js.src, "the range found is the entry's");
	tap_ok(add(t, 1, 0x10, 0, "empty") == -EINVAL && add(t, 1, UINT64_MAX - 1, 4, "wrap") == -EINVAL,
	       "empty and wrapping ranges are refused");
	pm_jitsyms__delete(t);
}

/*
 * Random ranges, many overlapping, some abutting, some sharing starts or
 * ends, in random order (the radix sort), or in five runs of ascending
 * starts (the merge of runs): every address is named by the last range
 * added that covers it (a brute-force oracle), across the sorts' bytes
 * (addresses spread over 40 bits) and the sweep.
 */
static void test_random_overlaps(int runs)
{
	enum { N = 3000, PROBES = 20000 };
	static uint64_t start[N], size[N];
	static char names[N][16];
	struct pm_jitsyms *t = pm_jitsyms__new();
	uint64_t seed = 42, addr;
	int i, j, k, bad = 0;

	for (i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		start[i] = (i % 3 == 0 ? (seed >> 24) % (1ULL << 40) : (seed >> 20) % 4096) & ~3ULL;
		if (runs)	/* run i / (N / 5), ascending within it, over the others */
			start[i] = (uint64_t)(i / (N / 5)) * 0x40 + (uint64_t)(i % (N / 5)) * 8;
		if (i % 7 == 0 && i && !runs)
			start[i] = start[i - 1] + size[i - 1];	/* abutting */
		size[i] = 1 + (seed >> 50) % 200;
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		add(t, 9, start[i], size[i], names[i]);
	}
	for (k = 0; k < PROBES; k++) {
		const char *want = "-";

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		i = (int)((seed >> 33) % N);
		addr = start[i] + (seed >> 12) % (size[i] + 2) - 1;
		for (j = N - 1; j >= 0; j--)
			if (addr >= start[j] && addr - start[j] < size[j]) {
				want = names[j];
				break;
			}
		bad += strcmp(name_at(t, 9, addr), want) != 0;
	}
	tap_ok(!bad, "%s overlapping ranges: the last added names each address (%d wrong)",
	       runs ? "five runs of" : "random", bad);
	pm_jitsyms__delete(t);
}

/* pm_jitsym_read_fn over a buffer, counting its calls. */
struct piece_src {
	const struct pm_buf *b;
	size_t reads;
	bool fail;			/* every read fails */
};

static int read_piece(void *arg, uint64_t off, void *buf, size_t len)
{
	struct piece_src *ps = arg;

	ps->reads++;
	if (ps->fail)
		return -EIO;
	if (off > ps->b->len || len > ps->b->len - off)
		return -EINVAL;
	memcpy(buf, ps->b->data + off, len);
	return 0;
}

/* A payload over the pieces' half megabyte, read in pieces: entries cut by a piece's end. */
static void test_decode_pieces(void)
{
	struct pm_jitsyms *t = pm_jitsyms__new(), *back = pm_jitsyms__new();
	struct pm_buf b = { 0 };
	struct piece_src ps = { .b = &b };
	char name[64];
	size_t pos = 0;
	int i, bad = 0;

	for (i = 0; i < 30000; i++) {
		snprintf(name, sizeof(name), "JS:*fn_%d /srv/app/module_%d.js:%d", i, i % 7, i);
		add(t, 3 + i / 10000, 0x10000 + 64ULL * (uint64_t)i, 64, name);
	}
	pm_jitsyms__encode(t, &pos, SIZE_MAX, &b);
	i = !pm_jitsyms__decode_from(back, b.len, read_piece, &ps);
	tap_ok(i && b.len > (1u << 20) && ps.reads > 3 && pm_jitsyms__count(back) == 30000,
	       "a %zu-byte payload read in %zu pieces", b.len, ps.reads);
	for (i = 0; i < 30000; i += 7) {
		snprintf(name, sizeof(name), "JS:*fn_%d /srv/app/module_%d.js:%d", i, i % 7, i);
		bad += strcmp(name_at(back, 3 + i / 10000, 0x10000 + 64ULL * (uint64_t)i + 5), name) != 0;
	}
	tap_ok(!bad, "every entry read back whole across the pieces (%d wrong)", bad);
	pm_jitsyms__delete(back);

	/* Lazy: the names stay in the payload until a lookup finds their code. */
	back = pm_jitsyms__new();
	ps.reads = 0;
	i = !pm_jitsyms__decode_lazy(back, b.len, read_piece, &ps);
	tap_ok(i && pm_jitsyms__count(back) == 30000 && ps.reads < 10 &&
	       pm_jitsyms__decode_lazy(back, b.len, read_piece, &ps) == -EBUSY,
	       "lazy: every range taken in, no name read (%zu reads), once per table", ps.reads);
	for (i = 0; i < 30000; i += 7) {
		snprintf(name, sizeof(name), "JS:*fn_%d /srv/app/module_%d.js:%d", i, i % 7, i);
		bad += strcmp(name_at(back, 3 + i / 10000, 0x10000 + 64ULL * (uint64_t)i + 5), name) != 0;
	}
	tap_ok(!bad && !strcmp(name_at(back, 3, 0x10000 + 5), "JS:*fn_0 /srv/app/module_0.js:0"),
	       "lazy: each name read at its lookup, and again from the table (%d wrong)", bad);
	{
		struct pm_jitsyms *again = pm_jitsyms__new();
		struct pm_buf b2 = { 0 };

		pos = 0;
		tap_ok(!pm_jitsyms__encode(back, &pos, SIZE_MAX, &b2) && b2.len == b.len &&
		       !memcmp(b2.data, b.data, b.len), "a lazy table encodes as the payload it read");
		pm_jitsyms__delete(again);
		pm_buf__exit(&b2);
	}
	pm_jitsyms__delete(back);
	/* The payload unreadable after the decode: a name unread is no name. */
	back = pm_jitsyms__new();
	pm_jitsyms__decode_lazy(back, b.len, read_piece, &ps);
	ps.fail = true;
	tap_ok(!strcmp(name_at(back, 5, 0x10000 + 64ULL * 29999 + 5), "-"),
	       "a name that cannot be read: the range is not named");
	ps.fail = false;
	tap_ok(!strcmp(name_at(back, 5, 0x10000 + 64ULL * 29999 + 5),
		       "JS:*fn_29999 /srv/app/module_4.js:29999"), "and named once it can");
	pm_jitsyms__delete(back);
	back = pm_jitsyms__new();
	tap_ok(pm_jitsyms__decode_from(back, b.len - 8, read_piece, &ps) == -EBADMSG &&
	       pm_jitsyms__count(back) == 29999, "cut: an error, the entries before it kept");
	pm_jitsyms__delete(back);
	back = pm_jitsyms__new();
	b.data[0] = 9;
	tap_ok(pm_jitsyms__decode_from(back, b.len, read_piece, &ps) == -EPROTO &&
	       pm_jitsyms__decode_from(back, 4, read_piece, &ps) == -EBADMSG && !pm_jitsyms__count(back),
	       "pieces: another version, a payload too short");
	pm_jitsyms__delete(back);
	pm_jitsyms__delete(t);
	pm_buf__exit(&b);
}

static void test_sources_and_names(void)
{
	struct pm_jitsyms *t = pm_jitsyms__new();
	char *long_name = malloc(PM_SYM_NAME_MAX + 100);
	struct pm_jitsym js;

	memset(long_name, 'x', PM_SYM_NAME_MAX + 100);
	pm_jitsyms__add(t, &(struct pm_jitsym_add){ .pid = 5, .start = 0x100, .size = 4,
						    .name = "f(int)junk", .name_len = 6,
						    .src = "a.js", .src_len = 4, .line = 17 });
	pm_jitsyms__add(t, &(struct pm_jitsym_add){ .pid = 5, .start = 0x200, .size = 4,
						    .name = long_name,
						    .name_len = PM_SYM_NAME_MAX + 100 });
	tap_ok(!pm_jitsyms__find(t, 5, 0x100, &js) && !strcmp(js.name, "f(int)") &&
	       !strcmp(js.src, "a.js") && js.line == 17 && !js.dso, "name_len bytes, source and line kept");
	tap_ok(!pm_jitsyms__find(t, 5, 0x200, &js) && strlen(js.name) == PM_SYM_NAME_MAX &&
	       !strcmp(js.name + PM_SYM_NAME_MAX - 3, "..."), "a long name is cut as symname.h cuts");
	free(long_name);
	pm_jitsyms__delete(t);
}

static int loads;

static void loader(void *arg, struct pm_jitsyms *t, int32_t pid)
{
	loads++;
	if (pid == 7)
		add(t, 7, 0x500, 0x10, arg);
}

static void test_loader(void)
{
	struct pm_jitsyms *t = pm_jitsyms__new();
	uint64_t gen;

	pm_jitsyms__set_loader(t, loader, "loaded");
	gen = pm_jitsyms__generation(t);
	tap_ok(!strcmp(name_at(t, 7, 0x505), "loaded") && pm_jitsyms__generation(t) != gen,
	       "the loader fills a process on its first lookup, and the generation moves");
	name_at(t, 7, 0x600);
	name_at(t, 8, 0x600);
	name_at(t, 8, 0x700);
	tap_ok(loads == 2 && pm_jitsyms__has_pid(t, 7) && !pm_jitsyms__has_pid(t, 8),
	       "once per process, found or not");
	pm_jitsyms__delete(t);
}

static void test_bounds(void)
{
	struct pm_jitsyms *t = pm_jitsyms__new();
	uint32_t i;
	int err = 0;

	for (i = 0; i < PM_JITSYM_MAX_ENTRIES && !err; i++)
		err = add(t, (int32_t)(i % 3), (uint64_t)i * 16, 16, "f");
	tap_ok(!err && add(t, 1, 0, 16, "one more") == -E2BIG &&
	       pm_jitsyms__count(t) == PM_JITSYM_MAX_ENTRIES, "entries are bounded");
	tap_ok(!strcmp(name_at(t, 0, 0x30 * 1000 + 5), "f") && !strcmp(name_at(t, 1, 16), "f"),
	       "a full table still names");
	pm_jitsyms__delete(t);

	t = pm_jitsyms__new();
	{
		char *name = malloc(PM_SYM_NAME_MAX);

		memset(name, 'n', PM_SYM_NAME_MAX);
		for (i = 0, err = 0; !err; i++)
			err = pm_jitsyms__add(t, &(struct pm_jitsym_add){ .pid = 1, .start = i * 16ULL,
									  .size = 16, .name = name,
									  .name_len = PM_SYM_NAME_MAX });
		tap_ok(err == -E2BIG && i * (uint64_t)PM_SYM_NAME_MAX <= PM_JITSYM_MAX_BYTES + PM_SYM_NAME_MAX,
		       "name bytes are bounded (%u names of 4 KB)", i - 1);
		free(name);
	}
	pm_jitsyms__delete(t);
}

static void test_encoding(void)
{
	struct pm_jitsyms *t = pm_jitsyms__new(), *back = pm_jitsyms__new(), *parts = pm_jitsyms__new();
	struct pm_buf b = { 0 }, piece = { 0 };
	size_t pos = 0, nr_pieces = 0;
	struct pm_jitsym js;
	int ok = 1;

	add(t, 1, 0x1000, 0x100, "old");
	add(t, 1, 0x1040, 0x20, "new");
	add(t, 2, 0x1000, 0x10, "other");
	pm_jitsyms__add(t, &(struct pm_jitsym_add){ .pid = 2, .start = 0x3000, .size = 8,
						    .name = "g", .name_len = 1, .src = "g.js",
						    .src_len = 4, .line = 3, .dso = "jitted-2-1.so" });
	tap_ok(!pm_jitsyms__encode(t, &pos, SIZE_MAX, &b) && b.len % 8 == 0 &&
	       !pm_jitsyms__decode(back, b.data, b.len), "encoded and decoded");
	tap_ok(!strcmp(name_at(back, 1, 0x1050), "new") && !strcmp(name_at(back, 1, 0x1000), "old") &&
	       !strcmp(name_at(back, 2, 0x1000), "other") && !pm_jitsyms__find(back, 2, 0x3000, &js) &&
	       !strcmp(js.src, "g.js") && js.line == 3 && !strcmp(js.dso, "jitted-2-1.so") &&
	       !pm_jitsyms__find(back, 2, 0x1000, &js) && !strcmp(js.dso, "/tmp/perf-1.map") &&
	       !strcmp(js.dso_short, "[JIT] tid 1"),
	       "read back: the later still wins, sources and dsos kept");
	/* Pipe mode: pieces of at most 80 bytes, each a payload of its own. */
	pos = 0;
	do {
		size_t before = pos;

		pm_buf__reset(&piece);
		ok &= !pm_jitsyms__encode(t, &pos, 80, &piece) && piece.len <= 80 && pos != before &&
		      !pm_jitsyms__decode(parts, piece.data, piece.len);
		nr_pieces++;
	} while (ok && pm_jitsyms__count(parts) < pm_jitsyms__count(t));
	tap_ok(ok && nr_pieces > 1 && !strcmp(name_at(parts, 1, 0x1050), "new"),
	       "in %zu pieces", nr_pieces);
	pm_jitsyms__delete(parts);
	pm_jitsyms__delete(back);

	back = pm_jitsyms__new();
	tap_ok(pm_jitsyms__decode(back, b.data, b.len - 8) == -EBADMSG &&
	       pm_jitsyms__count(back) == 3, "a cut payload: an error, the entries before it kept");
	pm_jitsyms__delete(back);
	back = pm_jitsyms__new();
	b.data[0] = 9;
	tap_ok(pm_jitsyms__decode(back, b.data, b.len) == -EPROTO && pm_jitsyms__decode(back, b.data, 3) == -EBADMSG,
	       "another version, a payload too short");
	b.data[0] = 1;
	/* The first entry's name length past the end. */
	memset(b.data + 8 + 24, 0xff, 2);	/* name_len */
	tap_ok(pm_jitsyms__decode(back, b.data, b.len) == -EBADMSG && !pm_jitsyms__count(back),
	       "a length past the end");
	pm_jitsyms__delete(back);
	pm_buf__exit(&b);
	pm_buf__exit(&piece);
	pm_jitsyms__delete(t);
}

int main(void)
{
	test_overlaps();
	test_random_overlaps(0);
	test_random_overlaps(1);
	test_sources_and_names();
	test_loader();
	test_bounds();
	test_encoding();
	test_decode_pieces();
	return tap_done();
}
