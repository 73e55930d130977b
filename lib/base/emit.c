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
	if (!o->err && o->len)
		o->err = o->write(o->arg, o->buf, o->len);
	o->total += o->len;
	o->len = 0;
}

void pm_out__printf(struct pm_out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		pm_out__mem(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
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
		out__escape(o, c, true);
		start = ++i;
	}
	pm_out__mem(o, p + start, i - start);
	pm_out__ch(o, '"');
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
