// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the dump's emitter (lib/base/emit.h): number formatting at its
 * edges, JSON and text string escaping, the text/JSON field writers, and
 * the buffer going through an fd.  Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/emit.h"
#include "tap.h"
#include "base/utf8.h"

/* A buffer that never flushes in these tests: its bytes are the output. */
static struct pm_emit em;

static void reset(bool json)
{
	em.out.len = 0;
	em.out.err = 0;
	em.json = json;
	em.first = true;
}

static void expect(const char *what, const char *want)
{
	size_t n = strlen(want);
	bool same = em.out.len == n && !memcmp(em.out.buf, want, n);

	if (!tap_ok(same, "%s", what))
		printf("#   got  '%.*s'\n#   want '%s'\n", (int)em.out.len, em.out.buf, want);
}

static void test_u64(uint64_t v, const char *want)
{
	char tmp[32], *end;

	reset(false);
	pm_out__u64(&em.out, v);
	expect(want, want);
	end = pm_fmt_dec(tmp, v);
	tap_ok((size_t)(end - tmp) == strlen(want) && !memcmp(tmp, want, strlen(want)),
	       "pm_fmt_dec %s", want);
}

static void test_numbers(void)
{
	uint64_t p = 1;
	int i, bad = 0;

	test_u64(0, "0");
	test_u64(9, "9");
	test_u64(10, "10");
	test_u64(99, "99");
	test_u64(100, "100");
	test_u64(99999999, "99999999");
	test_u64(100000000, "100000000");
	test_u64(1234567890123ULL, "1234567890123");
	test_u64(10000000000000000000ULL, "10000000000000000000");
	test_u64(UINT64_MAX, "18446744073709551615");
	/* Every power of ten and the number before it. */
	for (i = 0; i < 20; i++, p *= 10) {
		char want[32];

		snprintf(want, sizeof(want), "%llu", (unsigned long long)p);
		bad += pm_dec_len(p) != strlen(want);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)(p - 1));
		bad += p > 1 && pm_dec_len(p - 1) != strlen(want);
	}
	tap_ok(!bad, "pm_dec_len at every power of ten and one below");

	reset(false);
	pm_out__s64(&em.out, INT64_MIN);
	expect("INT64_MIN", "-9223372036854775808");
	reset(false);
	pm_out__s64(&em.out, -1);
	pm_out__ch(&em.out, ' ');
	pm_out__s64(&em.out, INT64_MAX);
	expect("-1 and INT64_MAX", "-1 9223372036854775807");

	reset(false);
	pm_out__hex(&em.out, 0);
	pm_out__ch(&em.out, ' ');
	pm_out__hex(&em.out, 0xabcdef);
	pm_out__ch(&em.out, ' ');
	pm_out__hex(&em.out, UINT64_MAX);
	expect("hex: 0, lowercase, no padding, 16 digits", "0x0 0xabcdef 0xffffffffffffffff");

	reset(false);
	pm_out__time(&em.out, 0);
	pm_out__ch(&em.out, ' ');
	pm_out__time(&em.out, 1);
	pm_out__ch(&em.out, ' ');
	pm_out__time(&em.out, 1999999999);
	pm_out__ch(&em.out, ' ');
	pm_out__time(&em.out, 123456789012);
	pm_out__ch(&em.out, ' ');
	pm_out__time(&em.out, UINT64_MAX);
	expect("time: seconds with 9 decimals",
	       "0.000000000 0.000000001 1.999999999 123.456789012 18446744073.709551615");

	reset(false);
	pm_out__hexbytes(&em.out, (const unsigned char *)"\x00\x0f\xf0\xff", 4);
	expect("hexbytes", "000ff0ff");
}

static void json(const char *in, size_t n, const char *want)
{
	reset(true);
	pm_out__json_str(&em.out, in, n);
	expect(want, want);
}

static void text(const char *in, size_t n, const char *want)
{
	reset(false);
	pm_out__text_str(&em.out, in, n);
	expect(want, want);
}

static void test_escapes(void)
{
	json("plain", 5, "\"plain\"");
	json("", 0, "\"\"");
	json("q\"b\\", 4, "\"q\\\"b\\\\\"");
	json("\n\t\r\x01\x1f", 5, "\"\\n\\t\\u000d\\u0001\\u001f\"");
	json("nul\0x", 5, "\"nul\\u0000x\"");
	json("\x7f", 1, "\"\x7f\"");
	/* Valid UTF-8 passes: 2, 3 and 4 bytes. */
	json("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/*
	 * Invalid: a lone byte, cut, overlong, surrogate, past U+10FFFF.  Each
	 * byte becomes U+FFFD: \u00XX would name a Latin-1 character.
	 */
	json("\xff", 1, "\"\\ufffd\"");
	json("\xe2\x82", 2, "\"\\ufffd\\ufffd\"");
	json("\xc0\x80", 2, "\"\\ufffd\\ufffd\"");
	json("\xe0\x80\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
	json("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
	json("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	json("a\xc3", 2, "\"a\\ufffd\"");
	json("\xc3\xa9\xff\xc3\xa9", 5, "\"\xc3\xa9\\ufffd\xc3\xa9\"");

	text("bare", 4, "bare");
	text("", 0, "\"\"");
	text("a b", 3, "\"a b\"");
	text("a,b", 3, "\"a,b\"");
	text("q\"b\\", 4, "\"q\\\"b\\\\\"");
	text("\n\t\x01", 3, "\"\\n\\t\\x01\"");
	text("\x7f\xff\xc3\xa9", 4, "\"\\x7f\\xff\\xc3\\xa9\"");
	text("[vdso]", 6, "[vdso]");
}

static void test_fields(void)
{
	static const uint64_t v[] = { 1, 0x10 };
	int pass;

	for (pass = 0; pass < 2; pass++) {
		reset(pass);
		em.first = false;
		pm_emit__u64(&em, "n", 7);
		pm_emit__s64(&em, "s", -7);
		pm_emit__hex(&em, "h", 255);
		pm_emit__cstr(&em, "str", "a b");
		pm_emit__strn(&em, "cut", "abc\0def", 7);
		pm_emit__bool(&em, "t", true);
		pm_emit__bool(&em, "f", false);
		pm_emit__u64_list(&em, "ul", v, 2);
		pm_emit__hex_list(&em, "hl", v, 2);
		pm_emit__list_begin(&em, "objs");
		pm_emit__obj_begin(&em, NULL);
		pm_emit__u64(&em, "a", 1);
		pm_emit__obj_end(&em);
		pm_emit__obj_begin(&em, NULL);
		pm_emit__u64(&em, "b", 2);
		pm_emit__obj_end(&em);
		pm_emit__list_end(&em);
		pm_emit__obj_begin(&em, "o");
		pm_emit__hexbytes(&em, "id", (const unsigned char *)"\x01\xab", 2);
		pm_emit__obj_end(&em);
		pm_emit__list_begin(&em, "empty");
		pm_emit__list_end(&em);
		if (pass)
			expect("JSON fields", ",\"n\":7,\"s\":-7,\"h\":\"0xff\",\"str\":\"a b\","
			       "\"cut\":\"abc\",\"t\":true,\"f\":false,\"ul\":[1,16],"
			       "\"hl\":[\"0x1\",\"0x10\"],\"objs\":[{\"a\":1},{\"b\":2}],"
			       "\"o\":{\"id\":\"01ab\"},\"empty\":[]");
		else
			expect("text fields", " n=7 s=-7 h=0xff str=\"a b\" cut=abc t=1 f=0 ul=1,16 "
			       "hl=0x1,0x10 objs= a=1 b=2 id=01ab empty=");
	}
}

/* Through a pipe with a small buffer: every byte arrives, in order. */
static void test_fd(void)
{
	struct pm_out o;
	char want[8192], got[8192];
	size_t n = 0, len = 0;
	ssize_t r;
	int fds[2], i;

	if (pipe(fds) || pm_out__init_fd(&o, fds[1], 16)) {
		tap_ok(0, "pipe and buffer");
		return;
	}
	tap_ok(o.cap == 32, "a buffer holds at least 32 bytes (a 20-digit number always fits)");
	for (i = 0; i < 500; i++) {
		pm_out__u64(&o, (uint64_t)i * 1000003);
		pm_out__ch(&o, ' ');
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%llu ",
				      (unsigned long long)i * 1000003);
	}
	pm_out__flush(&o);
	close(fds[1]);
	while ((r = read(fds[0], got + len, sizeof(got) - len)) > 0)
		len += (size_t)r;
	close(fds[0]);
	tap_ok(len == n && !memcmp(got, want, n) && !o.err, "500 numbers through a 32-byte buffer");
	pm_out__exit(&o);

	/* A reader that went away: EPIPE, kept, and later output dropped. */
	if (pipe(fds) || pm_out__init_fd(&o, fds[1], 64)) {
		tap_ok(0, "pipe and buffer");
		return;
	}
	close(fds[0]);
	pm_out__str(&o, "lost");
	pm_out__flush(&o);
	pm_out__str(&o, "again");
	pm_out__flush(&o);
	tap_ok(o.err == -EPIPE && o.len == 0, "write error EPIPE is sticky");
	close(fds[1]);
	pm_out__exit(&o);
}

/* A callback that takes two pieces, then fails. */
struct sink {
	char got[256];
	size_t len, calls, biggest;
};

static int sink__write(void *arg, const void *p, size_t n)
{
	struct sink *s = arg;

	if (++s->calls > 2)
		return -ENOSPC;
	memcpy(s->got + s->len, p, n);
	s->len += n;
	s->biggest = n > s->biggest ? n : s->biggest;
	return 0;
}

static void test_callback(void)
{
	struct sink s = { .len = 0 };
	struct pm_out o;
	int i;

	if (pm_out__init(&o, sink__write, &s, 32)) {
		tap_ok(0, "buffer");
		return;
	}
	for (i = 0; i < 20; i++)
		pm_out__str(&o, "abcd");
	pm_out__flush(&o);
	tap_ok(s.len == 64 && !memcmp(s.got, "abcdabcd", 8) && s.biggest == 32,
	       "the callback gets full buffers, in order");
	tap_ok(o.err == -ENOSPC && s.calls == 3, "its failure is kept as a negative errno");
	pm_out__str(&o, "more");
	pm_out__flush(&o);
	tap_ok(s.calls == 3 && o.total == 84, "no call after a failure; total counts every byte");
	pm_out__exit(&o);
}

/* printf's pieces come out whole, however long, through a callback or in memory. */
static void test_printf(void)
{
	static char name[3000], want[3100];
	struct sink s = { .len = 0 };
	struct pm_out o, m = { 0 };
	bool same;
	int n;

	memset(name, 'x', sizeof(name) - 1);
	n = snprintf(want, sizeof(want), "<%s+0x4e>:\n", name);
	if (pm_out__init(&o, sink__write, &s, 64)) {
		tap_ok(0, "buffer");
		return;
	}
	/* 30 bytes, then 40 that do not fit the 34 left of 64. */
	pm_out__printf(&o, "%s%s%s", "0123456789", "0123456789", "0123456789");
	pm_out__printf(&o, "%030d|%s", 7, "abcdefghi");
	pm_out__flush(&o);
	tap_ok(s.len == 70 && s.calls == 2 && s.biggest == 40 &&
	       !memcmp(s.got + 30, "000000000000000000000000000007|abcdefghi", 40),
	       "a piece that does not fit what is left goes after a flush, whole");
	pm_out__exit(&o);

	pm_out__printf(&m, "<%s+0x%x>:\n", name, 0x4e);
	same = m.len == (size_t)n && !memcmp(m.buf, want, (size_t)n) && !m.err;
	tap_ok(same, "a memory output grows for a %d-byte piece", n);
	m.len = 0;
	pm_out__str(&m, "ab");
	pm_out__u64(&m, 12345678901234567890ULL);
	pm_out__ch(&m, '!');
	tap_ok(m.len == 23 && !memcmp(m.buf, "ab12345678901234567890!", 23),
	       "a memory output takes every writer");
	pm_out__exit(&m);
}

/* A piece longer than a writing output's whole buffer. */
static void test_printf_long(void)
{
	static char name[2001];
	int fds[2], n;
	char got[2100];
	struct pm_out o;
	ssize_t r;

	memset(name, 'y', sizeof(name) - 1);
	if (pipe(fds) || pm_out__init_fd(&o, fds[1], 32)) {
		tap_ok(0, "pipe");
		return;
	}
	pm_out__str(&o, "head ");
	pm_out__printf(&o, "%s+0x4e>\n", name);
	pm_out__flush(&o);
	close(fds[1]);
	n = 0;
	while ((r = read(fds[0], got + n, sizeof(got) - (size_t)n)) > 0)
		n += (int)r;
	close(fds[0]);
	tap_ok(n == 5 + 2000 + 7 && !memcmp(got, "head yyy", 8) &&
	       !memcmp(got + n - 7, "+0x4e>\n", 7) && !o.err,
	       "a 2007-byte piece through a 32-byte buffer comes out whole (%d bytes)", n);
	pm_out__exit(&o);
}

/* The one UTF-8 check: what it takes and what it refuses. */
static void test_utf8(void)
{
	static const struct {
		const char *s;
		size_t len;
		uint32_t cp;
	} cases[] = {
		{ "a", 1, 'a' }, { "\t", 1, '\t' },
		{ "\xc3\xa9", 2, 0xe9 }, { "\xe2\x82\xac", 3, 0x20ac },
		{ "\xf0\x9f\x94\xa5", 4, 0x1f525 }, { "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
		{ "\xc0\x80", 0, 0 },			/* overlong NUL */
		{ "\xe0\x80\xaf", 0, 0 },		/* overlong '/' */
		{ "\xed\xa0\x80", 0, 0 },		/* a surrogate */
		{ "\xf4\x90\x80\x80", 0, 0 },		/* past U+10FFFF */
		{ "\x80", 0, 0 }, { "\xff", 0, 0 },	/* stray bytes */
		{ "\xe2\x82", 0, 0 },			/* cut short */
		{ "\xe2\x28\xa1", 0, 0 },		/* a broken continuation */
	};
	size_t i, len;
	uint32_t cp;
	bool ok = true;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cp = 0;
		len = pm_utf8__len((const unsigned char *)cases[i].s, strlen(cases[i].s), &cp);
		if (len != cases[i].len || (len && cp != cases[i].cp)) {
			printf("# case %zu: length %zu, code point %#x\n", i, len, (unsigned)cp);
			ok = false;
		}
	}
	tap_ok(ok, "pm_utf8__len: valid sequences of 1 to 4 bytes; overlong forms, surrogates, "
	       "past U+10FFFF, stray and cut bytes refused");
}

/* term_str(in) into a memory output, NUL-terminated; the caller frees it. */
static char *term(const char *in, size_t n, bool tab)
{
	struct pm_out o = { 0 };

	pm_out__term_str(&o, in, n, tab);
	pm_out__ch(&o, '\0');
	return o.buf;
}

static void test_term(void)
{
	static const struct {
		const char *in, *want, *what;
	} cases[] = {
		{ "plain name_1", "plain name_1", "printable ASCII as it is" },
		{ "caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5", "valid UTF-8 as it is" },
		{ "a\x1b[31mb", "a?[31mb", "ESC (C0)" },
		{ "a\nb\tc\x7f", "a?b?c?", "newline, tab, DEL" },
		{ "a\xc2\x9b" "31mb", "a?31mb", "C1 CSI (U+009B) as one '?'" },
		{ "a\xc2\x9d" "0;x\x07", "a?0;x?", "C1 OSC (U+009D)" },
		{ "a\xe2\x80\xae" "b\xe2\x81\xa6" "c", "a?b?c", "bidi override U+202E, isolate U+2066" },
		{ "a\xe2\x80\xa9" "b", "a\xe2\x80\xa9" "b", "U+2029 is not a bidi control" },
		{ "a\xff\xfe" "b", "a??b", "invalid bytes, one '?' each" },
		{ "a\xe2\x80", "a??", "a sequence cut short" },
		{ "a\xc0\xaf", "a??", "an overlong form" },
		{ "a\xed\xa0\x80", "a???", "a surrogate" },
	};
	size_t i, run, bad;
	char *t;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t = term(cases[i].in, strlen(cases[i].in), false);
		tap_ok(t && !strcmp(t, cases[i].want), "term: %s", cases[i].what);
		free(t);
	}
	t = term("a\tb", 3, true);
	tap_ok(t && !strcmp(t, "a\tb"), "term: tab kept where asked (source lines)");
	free(t);
	run = pm_utf8__safe_run("ab\xc2\x9b" "c", 5, false, &bad);
	tap_ok(run == 2 && bad == 2, "safe_run: 2 safe bytes, then a 2-byte C1 (%zu, %zu)", run, bad);
	run = pm_utf8__safe_run("abc", 3, false, &bad);
	tap_ok(run == 3 && bad == 0, "safe_run: all safe, nothing bad at the end");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (pm_out__init_fd(&em.out, -1, 1 << 16))
		return 1;
	test_numbers();
	test_utf8();
	test_term();
	test_escapes();
	test_fields();
	test_fd();
	test_callback();
	test_printf();
	test_printf_long();
	pm_out__exit(&em.out);
	return tap_done();
}
