/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_EMIT_H
#define PMREC_EMIT_H

/*
 * The one buffered writer of every output (dump's records, report's and
 * top's tables, annotate, the flame graph, the exports): a buffer handed
 * to a write callback when full, hand-made number formatting, and field
 * writers that give the same printer text ("key=value" after a space) or
 * JSON ("key":value inside an object).  Dump is meant to be much faster
 * than `perf report -D`: everything a record line calls is inline here.
 *
 * Without a callback (a zeroed struct pm_out, or pm_out__init with a NULL
 * write) the output stays in memory: the buffer grows, and buf[0, len) is
 * all that was written, for a caller that edits or colours it before
 * writing it.
 *
 * A failed write is sticky (pm_out.err, a negative errno; -EPIPE when the
 * reader went away, -ENOMEM when a memory output cannot grow): later output
 * is dropped.  Nothing here allocates but the init functions, the growth of
 * a memory output and a printf piece longer than the whole buffer.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/file.h"

struct pm_out {
	char *buf;
	size_t len;
	size_t cap;
	pm_write_fn *write;	/* NULL: a memory output */
	void *arg;
	uint64_t total;		/* bytes handed to write, or dropped after a failure */
	int err;		/* the first failure, a negative errno */
};

/* A buffer of cap bytes (at least 32) for write (NULL: memory).  0 or -ENOMEM. */
int pm_out__init(struct pm_out *o, pm_write_fn *write, void *arg, size_t cap);
/* The same, writing to fd (through short writes and EINTR). */
int pm_out__init_fd(struct pm_out *o, int fd, size_t cap);
/* Frees the buffer; does not flush. */
void pm_out__exit(struct pm_out *o);
/* Writes out what is buffered (dropped after a write error); a memory output keeps it. */
void pm_out__flush(struct pm_out *o);
/*
 * Room for n more bytes in the buffer (n at most 32 for a writing
 * output): a writing output flushes, a memory one grows.  false: none,
 * the bytes are dropped (a memory output that cannot grow).
 */
bool pm_out__room(struct pm_out *o, size_t n);
/* Bytes that do not fit the room left: the slow half of pm_out__mem. */
void pm_out__mem_slow(struct pm_out *o, const void *p, size_t n);
/* Formatted output, whole however long. */
void pm_out__printf(struct pm_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pm_out__vprintf(struct pm_out *o, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/*
 * A JSON string: valid UTF-8 as is; '"', '\\', \n and \t by their names,
 * the other control characters and DEL as \u00XX; every byte that starts
 * no valid UTF-8 sequence as U+FFFD (a JSON string holds Unicode text:
 * \u00XX would name another character).
 */
void pm_out__json_str(struct pm_out *o, const char *s, size_t n);
/* pm_out__json_str of a C string; null for NULL. */
void pm_out__json_cstr(struct pm_out *o, const char *s);
/*
 * A text string: bare when it is plain printable ASCII without '"', '\\'
 * or ',', else in double quotes with C escapes (\" \\ \n \t \xNN), so a
 * line never breaks or holds non-ASCII bytes.
 */
void pm_out__text_str(struct pm_out *o, const char *s, size_t n);
/*
 * Text a recording names, as a terminal may show it: pm_utf8__safe_run's
 * rule, each unsafe sequence as one '?' (tab kept when tab is true).
 */
void pm_out__term_str(struct pm_out *o, const char *s, size_t n, bool tab);

static inline void pm_out__mem(struct pm_out *o, const void *p, size_t n)
{
	/* Most pieces are a few bytes and fit: one copy, no loop. */
	if (n <= o->cap - o->len) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return;
	}
	pm_out__mem_slow(o, p, n);
}

static inline void pm_out__ch(struct pm_out *o, char c)
{
	if (o->len == o->cap && !pm_out__room(o, 1))
		return;
	o->buf[o->len++] = c;
}

static inline void pm_out__str(struct pm_out *o, const char *s)
{
	pm_out__mem(o, s, strlen(s));
}

/* "00".."99": decimal output goes two digits per division. */
extern const char pm_digit_pairs[201];

/* Number of decimal digits of v, from its bit length: no division chain. */
static inline size_t pm_dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL,
	};
	uint64_t w = v | 1;
	/* 1233 / 4096 ~ log10(2): t is floor(log10(w)) or one more. */
	unsigned int t = (unsigned int)(64 - __builtin_clzll(w)) * 1233 >> 12;

	return t - (w < pow10[t]) + 1;
}

/* Exactly 8 digits of r < 10^8 at p: two independent 32-bit halves. */
static inline void pm_put_dec8(char *p, uint32_t r)
{
	uint32_t hi = r / 10000, lo = r % 10000;

	memcpy(p, pm_digit_pairs + 2 * (hi / 100), 2);
	memcpy(p + 2, pm_digit_pairs + 2 * (hi % 100), 2);
	memcpy(p + 4, pm_digit_pairs + 2 * (lo / 100), 2);
	memcpy(p + 6, pm_digit_pairs + 2 * (lo % 100), 2);
}

/*
 * Writes the decimal digits of v ending at end (pm_dec_len(v) bytes before
 * it).  Eight digits per 64-bit division, the rest in 32 bits: a 20-digit
 * value is 2 dependent 64-bit divisions instead of 10.
 */
static inline void pm_put_dec(char *end, uint64_t v)
{
	uint32_t x;

	while (v >= 100000000) {
		uint64_t q = v / 100000000;

		end -= 8;
		pm_put_dec8(end, (uint32_t)(v - q * 100000000));
		v = q;
	}
	x = (uint32_t)v;
	while (x >= 100) {
		end -= 2;
		memcpy(end, pm_digit_pairs + 2 * (x % 100), 2);
		x /= 100;
	}
	if (x >= 10)
		memcpy(end - 2, pm_digit_pairs + 2 * x, 2);
	else
		end[-1] = (char)('0' + x);
}

/* The digits of v at p, not NUL-terminated; returns the end. */
static inline char *pm_fmt_dec(char *p, uint64_t v)
{
	p += pm_dec_len(v);
	pm_put_dec(p, v);
	return p;
}

static inline void pm_out__u64(struct pm_out *o, uint64_t v)
{
	size_t n = pm_dec_len(v);

	if (o->cap - o->len < n && !pm_out__room(o, n))
		return;
	pm_put_dec(o->buf + o->len + n, v);
	o->len += n;
}

static inline void pm_out__s64(struct pm_out *o, int64_t v)
{
	if (v < 0) {
		pm_out__ch(o, '-');
		pm_out__u64(o, -(uint64_t)v);
	} else {
		pm_out__u64(o, (uint64_t)v);
	}
}

/* "0x" and lowercase digits, no padding. */
static inline void pm_out__hex(struct pm_out *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[18], *p = tmp + sizeof(tmp);

	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	pm_out__mem(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Nanoseconds as seconds with 9 decimals. */
static inline void pm_out__time(struct pm_out *o, uint64_t ns)
{
	char frac[10];
	uint64_t f = ns % 1000000000;
	int i;

	pm_out__u64(o, ns / 1000000000);
	frac[0] = '.';
	for (i = 9; i >= 3; i -= 2) {
		memcpy(frac + i - 1, pm_digit_pairs + 2 * (f % 100), 2);
		f /= 100;
	}
	frac[1] = (char)('0' + f);
	pm_out__mem(o, frac, sizeof(frac));
}

/* Bytes as lowercase hex digits, two per byte. */
static inline void pm_out__hexbytes(struct pm_out *o, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		pm_out__ch(o, hex[p[i] >> 4]);
		pm_out__ch(o, hex[p[i] & 15]);
	}
}

/*
 * Fields, shared by text and JSON.  first says that no member or item has
 * been written yet in the current JSON scope.
 */
struct pm_emit {
	struct pm_out out;
	bool json;
	bool first;
};

static inline void pm_emit__sep(struct pm_emit *e)
{
	if (e->json && !e->first)
		pm_out__ch(&e->out, ',');
	e->first = false;
}

/* Text " key="; JSON ,"key": (key is written as is: no escaping). */
static inline void pm_emit__key(struct pm_emit *e, const char *key)
{
	if (e->json) {
		pm_emit__sep(e);
		pm_out__ch(&e->out, '"');
		pm_out__str(&e->out, key);
		pm_out__str(&e->out, "\":");
	} else {
		pm_out__ch(&e->out, ' ');
		pm_out__str(&e->out, key);
		pm_out__ch(&e->out, '=');
	}
}

static inline void pm_emit__u64(struct pm_emit *e, const char *key, uint64_t v)
{
	pm_emit__key(e, key);
	pm_out__u64(&e->out, v);
}

static inline void pm_emit__s64(struct pm_emit *e, const char *key, int64_t v)
{
	pm_emit__key(e, key);
	pm_out__s64(&e->out, v);
}

/* A hex value: quoted in JSON, whose numbers cannot hold 64 bits. */
static inline void pm_emit__vhex(struct pm_emit *e, uint64_t v)
{
	if (e->json)
		pm_out__ch(&e->out, '"');
	pm_out__hex(&e->out, v);
	if (e->json)
		pm_out__ch(&e->out, '"');
}

static inline void pm_emit__hex(struct pm_emit *e, const char *key, uint64_t v)
{
	pm_emit__key(e, key);
	pm_emit__vhex(e, v);
}

static inline void pm_emit__vstr(struct pm_emit *e, const char *s, size_t n)
{
	if (e->json)
		pm_out__json_str(&e->out, s, n);
	else
		pm_out__text_str(&e->out, s, n);
}

static inline void pm_emit__str(struct pm_emit *e, const char *key, const char *s, size_t n)
{
	pm_emit__key(e, key);
	pm_emit__vstr(e, s, n);
}

static inline void pm_emit__cstr(struct pm_emit *e, const char *key, const char *s)
{
	pm_emit__str(e, key, s, strlen(s));
}

/* A string field of at most max bytes, ending at the first NUL. */
static inline void pm_emit__strn(struct pm_emit *e, const char *key, const void *p, size_t max)
{
	pm_emit__str(e, key, p, strnlen(p, max));
}

/* Text 1/0, JSON true/false. */
static inline void pm_emit__bool(struct pm_emit *e, const char *key, bool v)
{
	pm_emit__key(e, key);
	if (e->json)
		pm_out__str(&e->out, v ? "true" : "false");
	else
		pm_out__ch(&e->out, v ? '1' : '0');
}

/* Lists: text "key=a,b,c"; JSON "key":[a,b,c].  Each item starts with _item. */
static inline void pm_emit__list_begin(struct pm_emit *e, const char *key)
{
	pm_emit__key(e, key);
	if (e->json)
		pm_out__ch(&e->out, '[');
	e->first = true;
}

static inline void pm_emit__item(struct pm_emit *e)
{
	if (!e->first)
		pm_out__ch(&e->out, ',');
	e->first = false;
}

static inline void pm_emit__list_end(struct pm_emit *e)
{
	if (e->json)
		pm_out__ch(&e->out, ']');
	e->first = false;
}

/* Objects nest in JSON (key NULL: a list item); in text their members are flattened. */
static inline void pm_emit__obj_begin(struct pm_emit *e, const char *key)
{
	if (!e->json)
		return;
	if (key)
		pm_emit__key(e, key);
	else
		pm_emit__item(e);
	pm_out__ch(&e->out, '{');
	e->first = true;
}

static inline void pm_emit__obj_end(struct pm_emit *e)
{
	if (!e->json)
		return;
	pm_out__ch(&e->out, '}');
	e->first = false;
}

static inline void pm_emit__hex_list(struct pm_emit *e, const char *key, const uint64_t *v,
				     uint64_t n)
{
	uint64_t i;

	pm_emit__list_begin(e, key);
	for (i = 0; i < n; i++) {
		pm_emit__item(e);
		pm_emit__vhex(e, v[i]);
	}
	pm_emit__list_end(e);
}

/* v may be unaligned (record payloads). */
static inline void pm_emit__u64_list(struct pm_emit *e, const char *key, const void *v,
				     uint64_t n)
{
	uint64_t i, x;

	pm_emit__list_begin(e, key);
	for (i = 0; i < n; i++) {
		memcpy(&x, (const char *)v + 8 * i, sizeof(x));
		pm_emit__item(e);
		pm_out__u64(&e->out, x);
	}
	pm_emit__list_end(e);
}

/* Bytes as one hex string, e.g. build ids. */
static inline void pm_emit__hexbytes(struct pm_emit *e, const char *key, const unsigned char *p,
				     size_t n)
{
	pm_emit__key(e, key);
	if (e->json)
		pm_out__ch(&e->out, '"');
	pm_out__hexbytes(&e->out, p, n);
	if (e->json)
		pm_out__ch(&e->out, '"');
}

#endif
