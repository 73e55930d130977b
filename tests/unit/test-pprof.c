// SPDX-License-Identifier: GPL-2.0
/*
 * lib/pbuf (varints, fields), lib/gzout (gzip read back
 * with zlib's inflate) and lib/pprof: the exact bytes of a tiny profile,
 * derived by hand from profile.proto, and how frames become Locations and
 * samples become Samples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/gzout.h"
#include "export/pbuf.h"
#include "export/pprof.h"
#include "profile/profile.h"
#include "tap.h"

static int same_bytes(const struct pm_buf *b, const void *want, size_t n)
{
	return b->len == n && !memcmp(b->data, want, n);
}

static void test_varint(void)
{
	static const struct {
		uint64_t v;
		unsigned char bytes[10];
		size_t n;
	} cases[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x01 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 300, { 0xac, 0x02 }, 2 },
		{ 16383, { 0xff, 0x7f }, 2 },
		{ 16384, { 0x80, 0x80, 0x01 }, 3 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10 },
	};
	struct pm_buf b = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b.len = 0;
		tap_ok(!pm_pb__varint(&b, cases[i].v) && same_bytes(&b, cases[i].bytes, cases[i].n),
		       "varint %llu is %zu bytes", (unsigned long long)cases[i].v, cases[i].n);
	}
	b.len = 0;
	tap_ok(!pm_pb__uint(&b, 3, 0) && b.len == 0, "a zero field is left out (proto3 default)");
	tap_ok(!pm_pb__int(&b, 1, -1) && b.len == 11 && b.data[0] == 0x08 && b.data[10] == 0x01,
	       "int64 -1 is its two's complement: key and 10 bytes");
	b.len = 0;
	{
		static const unsigned char want[] = { 0xa2, 0x06, 0x00 };

		tap_ok(!pm_pb__bytes(&b, 100, "", 0) && same_bytes(&b, want, sizeof(want)),
		       "an empty string is written; field 100's key takes two bytes");
	}
	b.len = 0;
	{
		static const uint64_t v[] = { 1, 300, 0 };
		static const unsigned char want[] = { 0x0a, 0x04, 0x01, 0xac, 0x02, 0x00 };

		tap_ok(!pm_pb__packed(&b, 1, v, 3) && same_bytes(&b, want, sizeof(want)),
		       "packed varints: one length for all");
		b.len = 0;
		tap_ok(!pm_pb__packed(&b, 1, v, 0) && b.len == 0, "an empty packed field is left out");
	}
	pm_buf__exit(&b);
}

/* Inflates a gzip stream with zlib. */
static int gunzip(const struct pm_buf *in, struct pm_buf *out)
{
	z_stream zs = { 0 };
	unsigned char chunk[4096];
	int ret;

	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return -1;
	zs.next_in = in->data;
	zs.avail_in = (uInt)in->len;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		ret = inflate(&zs, Z_NO_FLUSH);
		if (ret != Z_OK && ret != Z_STREAM_END)
			break;
		pm_buf__append(out, chunk, sizeof(chunk) - zs.avail_out);
	} while (ret != Z_STREAM_END);
	inflateEnd(&zs);
	/* The whole input is one stream, nothing after it. */
	return ret == Z_STREAM_END && zs.avail_in == 0 ? 0 : -1;
}

struct sink {
	struct pm_buf b;
	size_t calls, max;
	int fail_after;		/* -1: never */
};

static int sink_write(void *arg, const void *p, size_t n)
{
	struct sink *s = arg;

	if (s->fail_after >= 0 && s->calls >= (size_t)s->fail_after)
		return -ENOSPC;
	s->calls++;
	if (n > s->max)
		s->max = n;
	return pm_buf__append(&s->b, p, n);
}

static void test_gzout(void)
{
	struct sink s = { .fail_after = -1 };
	struct pm_buf in = { 0 }, back = { 0 };
	struct pm_gzout g;
	uint64_t x = 88172645463325252ULL;
	size_t i;
	int err;

	/* 1 MiB of poorly compressible bytes: several output chunks. */
	for (i = 0; i < (1u << 20); i++) {
		unsigned char c;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		c = (unsigned char)(x % 7 ? x : 'a');
		pm_buf__append(&in, &c, 1);
	}
	err = pm_gzout__init(&g, -1, sink_write, &s);
	/* In uneven pieces, as a caller streams them. */
	for (i = 0; !err && i < in.len; i += 70001)
		err = pm_gzout__write(&g, in.data + i, in.len - i < 70001 ? in.len - i : 70001);
	err = err ?: pm_gzout__finish(&g);
	pm_gzout__exit(&g);
	tap_ok(!err && s.b.len > 18 && s.b.data[0] == 0x1f && s.b.data[1] == 0x8b,
	       "gzip magic at the start");
	tap_ok(s.calls > 1 && s.max <= PM_GZOUT_CHUNK, "output in pieces of at most a chunk (%zu calls)",
	       s.calls);
	tap_ok(!gunzip(&s.b, &back) && back.len == in.len && !memcmp(back.data, in.data, in.len),
	       "zlib's inflate gives the input back");

	pm_buf__exit(&s.b);
	s = (struct sink){ .fail_after = 0 };
	err = pm_gzout__init(&g, 9, sink_write, &s);
	err = err ?: pm_gzout__write(&g, in.data, in.len) ?: pm_gzout__finish(&g);
	tap_ok(err == -ENOSPC && pm_gzout__finish(&g) == -ENOSPC,
	       "a failed write stops the stream with its error");
	pm_gzout__exit(&g);
	tap_ok(pm_gzout__init(&g, 10, sink_write, &s) == -EINVAL, "level 10 is refused");
	pm_gzout__exit(&g);

	s.b.len = 0;
	s.fail_after = -1;
	err = pm_gzout__init(&g, 1, sink_write, &s) ?: pm_gzout__finish(&g);
	pm_gzout__exit(&g);
	back.len = 0;
	tap_ok(!err && !gunzip(&s.b, &back) && back.len == 0, "an empty stream is a valid gzip file");
	pm_buf__exit(&s.b);
	pm_buf__exit(&back);
	pm_buf__exit(&in);
}

#define MAP { .start = 0x1000, .limit = 0x2000, .file = "/bin/x", .build_id = "ab" }

static const struct pm_profile_frame tiny[] = {
	{ .dso = "x", .dso_id = "/bin/x", .sym = "leaf", .ip = 0x1010, .map = MAP },
	{ .dso = "x", .dso_id = "/bin/x", .sym = "main", .ip = 0x1020, .map = MAP },
};

/* The profile.proto of tiny, field by field (profile.proto's numbers). */
static const unsigned char tiny_golden[] = {
	0x0a, 0x04, 0x08, 0x07, 0x10, 0x08,		/* sample_type {samples, count} */
	0x0a, 0x04, 0x08, 0x09, 0x10, 0x0a,		/* sample_type {cpu, nanoseconds} */
	0x12, 0x1b,					/* sample, 27 bytes: */
	0x0a, 0x02, 0x01, 0x02,				/*   location_id [1, 2] */
	0x12, 0x03, 0x01, 0xe8, 0x07,			/*   value [1, 1000] */
	0x1a, 0x04, 0x08, 0x0b, 0x18, 0x01,		/*   label {pid, num 1} */
	0x1a, 0x04, 0x08, 0x0c, 0x18, 0x02,		/*   label {tid, num 2} */
	0x1a, 0x04, 0x08, 0x0d, 0x10, 0x01,		/*   label {comm, str "x"} */
	0x1a, 0x0e, 0x08, 0x01, 0x10, 0x80, 0x20,	/* mapping {id 1, start 0x1000, */
	0x18, 0x80, 0x40, 0x28, 0x02, 0x30, 0x03,	/*   limit 0x2000, file, build id, */
	0x38, 0x01,					/*   has_functions} */
	0x22, 0x0b, 0x08, 0x01, 0x10, 0x01,		/* location {id 1, mapping 1, */
	0x18, 0x90, 0x20, 0x22, 0x02, 0x08, 0x01,	/*   address 0x1010, line {function 1}} */
	0x22, 0x0b, 0x08, 0x02, 0x10, 0x01,		/* location {id 2, mapping 1, */
	0x18, 0xa0, 0x20, 0x22, 0x02, 0x08, 0x02,	/*   address 0x1020, line {function 2}} */
	0x2a, 0x06, 0x08, 0x01, 0x10, 0x04, 0x18, 0x04,	/* function {1, "leaf", "leaf"} */
	0x2a, 0x06, 0x08, 0x02, 0x10, 0x05, 0x18, 0x05,	/* function {2, "main", "main"} */
	0x5a, 0x04, 0x08, 0x09, 0x10, 0x0a,		/* period_type {cpu, nanoseconds} */
	0x60, 0xe8, 0x07,				/* period 1000 */
	0x68, 0x06,					/* comment "event: cpu-clock" */
	0x32, 0x00,					/* string_table: "" */
	0x32, 0x01, 'x',
	0x32, 0x06, '/', 'b', 'i', 'n', '/', 'x',
	0x32, 0x02, 'a', 'b',
	0x32, 0x04, 'l', 'e', 'a', 'f',
	0x32, 0x04, 'm', 'a', 'i', 'n',
	0x32, 0x10, 'e', 'v', 'e', 'n', 't', ':', ' ', 'c', 'p', 'u', '-', 'c', 'l', 'o', 'c', 'k',
	0x32, 0x07, 's', 'a', 'm', 'p', 'l', 'e', 's',
	0x32, 0x05, 'c', 'o', 'u', 'n', 't',
	0x32, 0x03, 'c', 'p', 'u',
	0x32, 0x0b, 'n', 'a', 'n', 'o', 's', 'e', 'c', 'o', 'n', 'd', 's',
	0x32, 0x03, 'p', 'i', 'd',
	0x32, 0x03, 't', 'i', 'd',
	0x32, 0x04, 'c', 'o', 'm', 'm',
};

static int add(struct pm_profile *p, const struct pm_profile_frame *f, uint32_t nr,
	       int32_t tid, int32_t cpu, uint64_t period)
{
	return pm_profile__add(p, &(struct pm_profile_sample){
		.comm = "x", .pid = 1, .tid = tid, .cpu = cpu, .time = 5, .period = period,
		.frames = f, .nr_frames = nr,
	});
}

/* The number of top-level fields numbered field in a message. */
static size_t count_fields(const struct pm_buf *b, uint32_t field)
{
	size_t i = 0, n = 0;
	uint64_t key, len;
	int shift;

	while (i < b->len) {
		for (key = 0, shift = 0; b->data[i] & 0x80; shift += 7)
			key |= (uint64_t)(b->data[i++] & 0x7f) << shift;
		key |= (uint64_t)b->data[i++] << shift;
		n += key >> 3 == field;
		for (len = 0, shift = 0; b->data[i] & 0x80; shift += 7)
			len |= (uint64_t)(b->data[i++] & 0x7f) << shift;
		len |= (uint64_t)b->data[i++] << shift;
		if ((key & 7) == 2)
			i += len;
	}
	return n;
}

/* A byte string's occurrences in a buffer. */
static size_t count_bytes(const struct pm_buf *b, const void *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i + n <= b->len; i++)
		c += !memcmp(b->data + i, s, n);
	return c;
}

/* pm_pprof__encode on a memory output, its bytes appended to b. */
static int encode(const struct pm_profile *p, const struct pm_pprof_opts *o, struct pm_buf *b)
{
	struct pm_out out = { 0 };
	int err = pm_pprof__encode(p, o, &out);

	err = err ?: out.err ?: pm_buf__append(b, out.buf, out.len);
	pm_out__exit(&out);
	return err;
}

static void test_tiny(void)
{
	struct pm_profile *p = pm_profile__new();
	struct pm_pprof_opts o = {
		.labels = PM_PPROF_LABELS_DEFAULT, .cpu_time = true, .event_name = "cpu-clock",
		.period = 1000,
	};
	struct pm_buf b = { 0 }, back = { 0 };
	struct sink s = { .fail_after = -1 };
	int err;

	err = pm_profile__add_event(p, "cpu-clock") < 0 || add(p, tiny, 2, 2, 0, 1000);
	err = err ?: encode(p, &o, &b);
	tap_ok(!err && same_bytes(&b, tiny_golden, sizeof(tiny_golden)),
	       "a one-sample profile encodes to the bytes derived from profile.proto");
	if (!same_bytes(&b, tiny_golden, sizeof(tiny_golden))) {
		size_t i;

		for (i = 0; i < b.len; i++)
			printf("%s%02x", i % 16 ? " " : "\n# ", b.data[i]);
		printf("\n");
	}
	err = pm_pprof__write(p, &o, sink_write, &s);
	tap_ok(!err && !gunzip(&s.b, &back) && same_bytes(&back, tiny_golden, sizeof(tiny_golden)),
	       "pm_pprof__write is the same bytes, gzipped");
	o.event = 1;
	tap_ok(encode(p, &o, &b) == -EINVAL, "an unknown event is refused");
	pm_buf__exit(&b);
	pm_buf__exit(&back);
	pm_buf__exit(&s.b);
	pm_profile__delete(p);
}

static void test_merge(void)
{
	static const struct pm_profile_frame other_ip[] = {
		{ .dso = "x", .dso_id = "/bin/x", .sym = "leaf", .ip = 0x1014, .map = MAP },
		{ .dso = "x", .dso_id = "/bin/x", .sym = "main", .ip = 0x1020, .map = MAP },
	};
	struct pm_profile *p = pm_profile__new();
	struct pm_pprof_opts o = { .labels = PM_PPROF_LABELS_DEFAULT, .period = 1 };
	struct pm_buf b = { 0 };
	size_t nodes;
	int err;

	err = pm_profile__add_event(p, "cycles") < 0 || add(p, tiny, 2, 2, 0, 10) ||
	      add(p, tiny, 2, 2, 1, 20);
	err = err ?: encode(p, &o, &b);
	tap_ok(!err && count_fields(&b, 2) == 1 && count_bytes(&b, "\x12\x02\x02\x1e", 4) == 1,
	       "samples that differ in CPU alone are one Sample without the cpu label: [2, 30]");
	b.len = 0;
	o.labels |= PM_PPROF_LABEL_CPU;
	err = encode(p, &o, &b);
	tap_ok(!err && count_fields(&b, 2) == 2, "two Samples with the cpu label");
	nodes = pm_profile__nr_nodes(p);
	err = add(p, other_ip, 2, 2, 0, 10);
	b.len = 0;
	o.labels = 0;
	err = err ?: encode(p, &o, &b);
	tap_ok(!err && pm_profile__nr_nodes(p) == nodes + 1 && count_fields(&b, 4) == 3 &&
	       count_fields(&b, 5) == 2 && count_fields(&b, 3) == 1,
	       "another address of one function: a node and a Location more, no Function more");
	pm_buf__exit(&b);
	pm_profile__delete(p);
}

static void test_inline(void)
{
	static const struct pm_profile_frame fr[] = {
		{ .dso = "x", .dso_id = "/bin/x", .sym = "mix", .ip = 0x1010, .map = MAP, .inlined = true },
		{ .dso = "x", .dso_id = "/bin/x", .sym = "leaf", .ip = 0x1010, .map = MAP },
		{ .dso = "x", .dso_id = "/bin/x", .sym = "main", .ip = 0x1020, .map = MAP },
	};
	struct pm_profile *p = pm_profile__new();
	struct pm_pprof_opts o = { .labels = 0 };
	struct pm_buf b = { 0 };
	/* location {id 1, mapping 1, address 0x1010, line {function 1}, line {function 2}} */
	static const unsigned char loc[] = {
		0x22, 0x0f, 0x08, 0x01, 0x10, 0x01, 0x18, 0x90, 0x20,
		0x22, 0x02, 0x08, 0x01, 0x22, 0x02, 0x08, 0x02,
	};
	int err;

	err = pm_profile__add_event(p, "cycles") < 0 || add(p, fr, 3, 2, 0, 1);
	err = err ?: encode(p, &o, &b);
	tap_ok(!err && count_fields(&b, 4) == 2 && count_bytes(&b, loc, sizeof(loc)) == 1,
	       "an inlined function is the first Line of its caller's Location");
	tap_ok(count_bytes(&b, "\x50\x01", 2) == 1, "its mapping has_inline_frames");
	pm_buf__exit(&b);
	pm_profile__delete(p);
}

static void test_report_frames(void)
{
	static const struct pm_profile_frame a[] = { { .dso = "x", .sym = "f" } };
	static const struct pm_profile_frame b[] = { { .dso = "x", .sym = "f", .ip = 0x10 } };
	struct pm_profile *p = pm_profile__new();
	size_t n0, n1;
	int err;

	err = pm_profile__add_event(p, "cycles") < 0 || add(p, a, 1, 2, 0, 1);
	n0 = pm_profile__nr_nodes(p);
	err = err ?: add(p, a, 1, 2, 0, 1);
	n1 = pm_profile__nr_nodes(p);
	err = err ?: add(p, b, 1, 2, 0, 1);
	tap_ok(!err && n0 == n1 && pm_profile__nr_nodes(p) == n1 + 1,
	       "frames without an address stay one per function; an address makes another");
	pm_profile__delete(p);
}

static void test_labels(void)
{
	enum pm_pprof_label l;

	tap_ok(!pm_pprof_label__parse("cpu", &l) && l == PM_PPROF_LABEL_CPU &&
	       !pm_pprof_label__parse("comm", &l) && l == PM_PPROF_LABEL_COMM &&
	       pm_pprof_label__parse("CPU", &l) == -EINVAL && pm_pprof_label__parse("", &l) == -EINVAL,
	       "label names: pid, tid, comm, cpu, exactly");
}

static void test_utf8(void)
{
	static const struct pm_profile_frame fr[] = {
		{ .dso = "x", .dso_id = "/bin/x", .sym = "caf\xc3\xa9\xff\xc0\x80", .ip = 1, .map = MAP },
	};
	struct pm_profile *p = pm_profile__new();
	struct pm_pprof_opts o = { .labels = 0 };
	struct pm_buf b = { 0 };
	int err;

	err = pm_profile__add_event(p, "cycles") < 0 || add(p, fr, 1, 2, 0, 1);
	err = err ?: encode(p, &o, &b);
	tap_ok(!err && count_bytes(&b, "caf\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 14) == 1,
	       "bytes that are not UTF-8 (0xff, an overlong NUL) become U+FFFD each");
	pm_buf__exit(&b);
	pm_profile__delete(p);
}

/* An address no symbol covers: the function file+offset in a file, [file] in anonymous memory. */
static void test_unnamed(void)
{
	static const struct pm_profile_frame fr[] = {
		{ .dso = "x", .dso_id = "/bin/x", .addr = 0x3010, .in_file = true, .ip = 0x1010,
		  .map = MAP },
		{ .dso = "anon", .dso_id = "//anon", .addr = 0x7f0000000020, .ip = 0x7f0000000020 },
	};
	struct pm_profile *p = pm_profile__new();
	struct pm_pprof_opts o = { .labels = 0 };
	struct pm_buf b = { 0 };
	int err;

	err = pm_profile__add_event(p, "cycles") < 0 || add(p, fr, 2, 2, 0, 1);
	err = err ?: encode(p, &o, &b);
	tap_ok(!err && count_bytes(&b, "\x08" "x+0x3010", 9) == 1 &&
	       count_bytes(&b, "\x06[anon]", 7) == 1,
	       "unnamed: x+0x3010 (its offset in the file), [anon] (no file)");
	pm_buf__exit(&b);
	pm_profile__delete(p);
}

int main(void)
{
	test_varint();
	test_gzout();
	test_tiny();
	test_merge();
	test_inline();
	test_report_frames();
	test_labels();
	test_utf8();
	test_unnamed();
	return tap_done();
}
