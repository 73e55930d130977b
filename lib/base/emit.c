// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/emit.h"
#include "base/utf8.h"

const char pm_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

int pm_out__init(struct pm_out *o, pm_write_fn *write, void *arg, size_t cap)
{
	/* A 20-digit number or an escape always fits after a flush. */
	if (cap < 32)
		cap = 32;
	*o = (struct pm_out){ .write = write, .arg = arg, .cap = cap, .buf = malloc(cap) };
	return o->buf ? 0 : -ENOMEM;
}

static int out__write_fd(void *arg, const void *p, size_t n)
{
	return pm_write_all((int)(intptr_t)arg, p, n);
}

int pm_out__init_fd(struct pm_out *o, int fd, size_t cap)
{
	return pm_out__init(o, out__write_fd, (void *)(intptr_t)fd, cap);
}

void pm_out__exit(struct pm_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

void pm_out__flush(struct pm_out *o)
{
	if (!o->write)
		return;
	if (!o->err && o->len)
		o->err = o->write(o->arg, o->buf, o->len);
	o->total += o->len;
	o->len = 0;
}

/* A memory output's room for n more bytes: false when it cannot grow. */
static bool out__grow(struct pm_out *o, size_t n)
{
	size_t cap = o->cap;
	char *buf;

	if (o->err || n > SIZE_MAX / 4 - o->len)
		return false;
	if (cap < 32)
		cap = 32;
	while (cap - o->len < n)
		cap *= 2;
	buf = realloc(o->buf, cap);
	if (!buf)
		return false;
	o->buf = buf;
	o->cap = cap;
	return true;
}

/* Room for n bytes, or false; a writing output flushes, a memory one grows. */
static bool out__make_room(struct pm_out *o, size_t n)
{
	if (n <= o->cap - o->len)
		return true;
	if (o->write)
		pm_out__flush(o);
	else if (!out__grow(o, n))
		goto fail;
	return n <= o->cap - o->len;
fail:
	/* Dropped from here on: the buffer is reused for bytes nobody reads. */
	if (!o->err)
		o->err = -ENOMEM;
	o->total += o->len;
	o->len = 0;
	return n <= o->cap;
}

bool pm_out__room(struct pm_out *o, size_t n)
{
	return out__make_room(o, n);
}

void pm_out__mem_slow(struct pm_out *o, const void *p, size_t n)
{
	size_t room;

	if (!o->write) {
		if (out__make_room(o, n)) {
			memcpy(o->buf + o->len, p, n);
			o->len += n;
		} else {
			o->total += n;
		}
		return;
	}
	while (n) {
		if (o->len == o->cap)
			pm_out__flush(o);
		room = o->cap - o->len < n ? o->cap - o->len : n;
		memcpy(o->buf + o->len, p, room);
		o->len += room;
		p = (const char *)p + room;
		n -= room;
	}
}

/* A piece longer than a writing output's whole buffer: formatted apart. */
static void out__vprintf_long(struct pm_out *o, size_t n, const char *fmt, va_list ap)
{
	char *tmp = malloc(n + 1);

	if (!tmp) {
		if (!o->err)
			o->err = -ENOMEM;
		o->total += n;
		return;
	}
	vsnprintf(tmp, n + 1, fmt, ap);
	pm_out__mem(o, tmp, n);
	free(tmp);
}

void pm_out__vprintf(struct pm_out *o, const char *fmt, va_list ap)
{
	va_list again;
	size_t n;
	int r;

	/* Straight into the buffer: the common piece fits, and is formatted once. */
	va_copy(again, ap);
	r = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	if (r > 0) {
		n = (size_t)r;
		if (n < o->cap - o->len)
			o->len += n;
		else if (out__make_room(o, n + 1))
			o->len += (size_t)vsnprintf(o->buf + o->len, n + 1, fmt, again);
		else
			out__vprintf_long(o, n, fmt, again);
	}
	va_end(again);
}

void pm_out__printf(struct pm_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_out__vprintf(o, fmt, ap);
	va_end(ap);
}

/* The escape of byte c in a quoted string: JSON's \u00XX or text's \xXX for the unnamed ones. */
static void out__escape(struct pm_out *o, unsigned char c, bool json)
{
	static const char hex[] = "0123456789abcdef";

	if (c == '"' || c == '\\') {
		pm_out__ch(o, '\\');
		pm_out__ch(o, (char)c);
	} else if (c == '\n') {
		pm_out__str(o, "\\n");
	} else if (c == '\t') {
		pm_out__str(o, "\\t");
	} else if (json) {
		char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

		pm_out__mem(o, esc, sizeof(esc));
	} else {
		char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

		pm_out__mem(o, esc, sizeof(esc));
	}
}

void pm_out__json_str(struct pm_out *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0, len;
	uint32_t cp;

	pm_out__ch(o, '"');
	while (i < n) {
		unsigned char c = p[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80 && (len = pm_utf8__len(p + i, n - i, &cp))) {
			i += len;
			continue;
		}
		pm_out__mem(o, p + start, i - start);
		if (c >= 0x80)
			pm_out__str(o, "\\ufffd");
		else
			out__escape(o, c, true);
		start = ++i;
	}
	pm_out__mem(o, p + start, i - start);
	pm_out__ch(o, '"');
}

void pm_out__term_str(struct pm_out *o, const char *s, size_t n, bool tab)
{
	size_t run, bad;

	while (n) {
		run = pm_utf8__safe_run(s, n, tab, &bad);
		pm_out__mem(o, s, run);
		if (bad)
			pm_out__ch(o, '?');
		s += run + bad;
		n -= run + bad;
	}
}

void pm_out__json_cstr(struct pm_out *o, const char *s)
{
	if (s)
		pm_out__json_str(o, s, strlen(s));
	else
		pm_out__str(o, "null");
}

static bool text_bare_ok(const unsigned char *p, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (p[i] <= 0x20 || p[i] >= 0x7f || p[i] == '"' || p[i] == '\\' || p[i] == ',')
			return false;
	return true;
}

void pm_out__text_str(struct pm_out *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	if (text_bare_ok(p, n)) {
		pm_out__mem(o, s, n);
		return;
	}
	pm_out__ch(o, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f)
			out__escape(o, c, false);
		else
			pm_out__ch(o, (char)c);
	}
	pm_out__ch(o, '"');
}
