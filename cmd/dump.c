// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec dump: prints the records of a perf.data file or stream, one line
 * per record (or one JSON object per line), then per-type counts.
 *
 * Output goes through one large buffer with hand-made number formatting:
 * dump is meant to be much faster than `perf report -D`.  Text and JSON
 * share every printer through the f_*() field emitters.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "buf.h"
#include "builtin.h"
#include "elf.h"
#include "folded.h"
#include "machine.h"
#include "perf_data.h"
#include "reader.h"
#include "reader_queue.h"
#include "tpformat.h"
#include "units.h"

#define OUT_BUF_SIZE (1u << 20)
#define DEFAULT_INPUT "pmrec.data"
#define MAX_OTHER_TYPES 64

struct out {
	char *buf;
	size_t len;
	size_t cap;
	int fd;
	int err;		/* errno of a failed write; EPIPE: reader went away */
};

struct range {
	int64_t lo, hi;
};

struct id_list {
	struct range *r;
	size_t nr;
};

struct dump_opts {
	const char *input;
	bool json;
	bool stats_only;
	bool header;
	bool raw;
	bool ordered;
	bool type_filter;
	bool type_unknown;	/* --type=unknown: types without a name */
	uint64_t types[4];	/* bitmap of record types < 256 */
	struct id_list cpus;
	struct id_list pids;
	bool no_symbols;
	enum { FOLDED_NONE, FOLDED_COUNT, FOLDED_PERIOD } folded;
	uint64_t queue_size;	/* bytes of records held for time order */
};

struct type_count {
	uint32_t type;
	uint64_t n;
};

struct stats {
	uint64_t records;
	uint64_t by_type[PERF_RECORD_HEADER_MAX];
	struct type_count other[MAX_OTHER_TYPES];
	size_t nr_other;
	uint64_t other_rest;
	uint64_t *by_evsel;
	size_t nr_by_evsel;
	uint64_t samples;
	uint64_t lost;
	uint64_t first_time;
	uint64_t last_time;
	bool have_time;
};

struct chain_frame {
	uint64_t addr;
	uint16_t cpumode;
};

/* What a record says about itself, beyond its body. */
struct info {
	struct pm_sample s;
	size_t body_len;	/* payload before the sample_id trailer */
	bool has_time, has_cpu, has_pid;
	uint64_t time;
	uint32_t cpu;
	int32_t pid, tid;
};

struct dump {
	struct dump_opts opts;
	struct out out;
	struct pm_reader *r;
	const char *name;	/* of the input, for messages */
	bool json;
	bool first;		/* no member/item yet in the current JSON scope */
	struct stats stats;
	bool warned_compressed;
	bool warned_queue;
	struct pm_machine *machine;	/* NULL with --no-symbols */
	int kernel_syms;		/* 0: not decided yet, 1: loaded, -1: none */
	unsigned char kernel_id[PM_BUILD_ID_SIZE];
	size_t kernel_id_len;		/* the recorded kernel's, 0 if unknown */
	struct pm_folded *folded;
	struct pm_buf stack;		/* the folded stack or frame name being built */
	struct chain_frame *chain;	/* a sample's frames, for folding */
	size_t nr_chain;
};

/* --- output buffer ------------------------------------------------------ */

static void out__flush(struct out *o)
{
	size_t done = 0;

	while (done < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			o->err = errno;
		else
			done += (size_t)n;
	}
	o->len = 0;
}

static inline void out__mem(struct out *o, const void *p, size_t n)
{
	/* Most pieces are a few bytes and fit: one copy, no loop. */
	if (n <= o->cap - o->len) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return;
	}
	while (n) {
		size_t room;

		if (o->len == o->cap)
			out__flush(o);
		room = o->cap - o->len < n ? o->cap - o->len : n;
		memcpy(o->buf + o->len, p, room);
		o->len += room;
		p = (const char *)p + room;
		n -= room;
	}
}

static inline void out__ch(struct out *o, char c)
{
	if (o->len == o->cap)
		out__flush(o);
	o->buf[o->len++] = c;
}

static inline void out__str(struct out *o, const char *s)
{
	out__mem(o, s, strlen(s));
}

/* "00".."99": decimal output goes two digits per division. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Number of decimal digits of v, from its bit length: no division chain. */
static size_t dec_len(uint64_t v)
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
static void put_dec8(char *p, uint32_t r)
{
	uint32_t hi = r / 10000, lo = r % 10000;

	memcpy(p, digit_pairs + 2 * (hi / 100), 2);
	memcpy(p + 2, digit_pairs + 2 * (hi % 100), 2);
	memcpy(p + 4, digit_pairs + 2 * (lo / 100), 2);
	memcpy(p + 6, digit_pairs + 2 * (lo % 100), 2);
}

/*
 * Writes the decimal digits of v ending at end.  Eight digits per 64-bit
 * division, the rest in 32 bits: a 20-digit value is 2 dependent 64-bit
 * divisions instead of 10.
 */
static void put_dec(char *end, uint64_t v)
{
	uint32_t x;

	while (v >= 100000000) {
		uint64_t q = v / 100000000;

		end -= 8;
		put_dec8(end, (uint32_t)(v - q * 100000000));
		v = q;
	}
	x = (uint32_t)v;
	while (x >= 100) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * (x % 100), 2);
		x /= 100;
	}
	if (x >= 10)
		memcpy(end - 2, digit_pairs + 2 * x, 2);
	else
		end[-1] = (char)('0' + x);
}

static void out__u64(struct out *o, uint64_t v)
{
	size_t n = dec_len(v);

	if (o->cap - o->len < n)
		out__flush(o);
	put_dec(o->buf + o->len + n, v);
	o->len += n;
}

static void out__s64(struct out *o, int64_t v)
{
	if (v < 0) {
		out__ch(o, '-');
		out__u64(o, -(uint64_t)v);
	} else {
		out__u64(o, (uint64_t)v);
	}
}

static void out__hex(struct out *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[18], *p = tmp + sizeof(tmp);

	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	out__mem(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Nanoseconds as seconds with 9 decimals. */
static void out__time(struct out *o, uint64_t ns)
{
	char frac[10];
	uint64_t f = ns % 1000000000;
	int i;

	out__u64(o, ns / 1000000000);
	frac[0] = '.';
	for (i = 9; i >= 3; i -= 2) {
		memcpy(frac + i - 1, digit_pairs + 2 * (f % 100), 2);
		f /= 100;
	}
	frac[1] = (char)('0' + f);
	out__mem(o, frac, sizeof(frac));
}

static void out__printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out__printf(struct out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		out__mem(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Length of a valid UTF-8 sequence at p, or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

/*
 * JSON string.  Bytes that are not valid UTF-8 become \u00XX (their
 * Latin-1 reading): the output is always valid JSON.
 */
static void out__json_str(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0, len;

	out__ch(o, '"');
	while (i < n) {
		unsigned char c = p[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80 && (len = utf8_len(p + i, n - i))) {
			i += len;
			continue;
		}
		out__mem(o, p + start, i - start);
		if (c == '"' || c == '\\') {
			out__ch(o, '\\');
			out__ch(o, (char)c);
		} else if (c == '\n') {
			out__str(o, "\\n");
		} else if (c == '\t') {
			out__str(o, "\\t");
		} else {
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			out__mem(o, esc, sizeof(esc));
		}
		start = ++i;
	}
	out__mem(o, p + start, i - start);
	out__ch(o, '"');
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

/*
 * Text string: bare when it is plain printable ASCII, else in double quotes
 * with C escapes (\" \\ \n \t \xNN), so a line never breaks or holds
 * non-ASCII bytes.
 */
static void out__text_str(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	if (text_bare_ok(p, n)) {
		out__mem(o, s, n);
		return;
	}
	out__ch(o, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\') {
			out__ch(o, '\\');
			out__ch(o, (char)c);
		} else if (c == '\n') {
			out__str(o, "\\n");
		} else if (c == '\t') {
			out__str(o, "\\t");
		} else if (c < 0x20 || c >= 0x7f) {
			char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

			out__mem(o, esc, sizeof(esc));
		} else {
			out__ch(o, (char)c);
		}
	}
	out__ch(o, '"');
}

/* --- field emitters, shared by text and JSON ----------------------------- */

static void f_sep(struct dump *d)
{
	if (d->json && !d->first)
		out__ch(&d->out, ',');
	d->first = false;
}

static void f_key(struct dump *d, const char *key)
{
	if (d->json) {
		f_sep(d);
		out__ch(&d->out, '"');
		out__str(&d->out, key);
		out__str(&d->out, "\":");
	} else {
		out__ch(&d->out, ' ');
		out__str(&d->out, key);
		out__ch(&d->out, '=');
	}
}

static void f_u64(struct dump *d, const char *key, uint64_t v)
{
	f_key(d, key);
	out__u64(&d->out, v);
}

static void f_s64(struct dump *d, const char *key, int64_t v)
{
	f_key(d, key);
	out__s64(&d->out, v);
}

static void v_hex(struct dump *d, uint64_t v)
{
	if (d->json)
		out__ch(&d->out, '"');
	out__hex(&d->out, v);
	if (d->json)
		out__ch(&d->out, '"');
}

static void f_hex(struct dump *d, const char *key, uint64_t v)
{
	f_key(d, key);
	v_hex(d, v);
}

static void v_str(struct dump *d, const char *s, size_t n)
{
	if (d->json)
		out__json_str(&d->out, s, n);
	else
		out__text_str(&d->out, s, n);
}

static void f_str(struct dump *d, const char *key, const char *s, size_t n)
{
	f_key(d, key);
	v_str(d, s, n);
}

static void f_cstr(struct dump *d, const char *key, const char *s)
{
	f_str(d, key, s, strlen(s));
}

/* A string field of at most max bytes, ending at the first NUL. */
static void f_strn(struct dump *d, const char *key, const void *p, size_t max)
{
	f_str(d, key, p, strnlen(p, max));
}

static void f_bool(struct dump *d, const char *key, bool v)
{
	f_key(d, key);
	if (d->json)
		out__str(&d->out, v ? "true" : "false");
	else
		out__ch(&d->out, v ? '1' : '0');
}

/* Lists: text "key=a,b,c"; JSON "key":[a,b,c]. */
static void f_list_begin(struct dump *d, const char *key)
{
	f_key(d, key);
	if (d->json)
		out__ch(&d->out, '[');
	d->first = true;
}

static void f_item(struct dump *d)
{
	if (!d->first)
		out__ch(&d->out, ',');
	d->first = false;
}

static void f_list_end(struct dump *d)
{
	if (d->json)
		out__ch(&d->out, ']');
	d->first = false;
}

/* Objects nest in JSON; in text their members are flattened. */
static void f_obj_begin(struct dump *d, const char *key)
{
	if (!d->json)
		return;
	if (key)
		f_key(d, key);
	else
		f_item(d);
	out__ch(&d->out, '{');
	d->first = true;
}

static void f_obj_end(struct dump *d)
{
	if (!d->json)
		return;
	out__ch(&d->out, '}');
	d->first = false;
}

static void f_hex_list(struct dump *d, const char *key, const uint64_t *v, uint64_t n)
{
	uint64_t i;

	f_list_begin(d, key);
	for (i = 0; i < n; i++) {
		f_item(d);
		v_hex(d, v[i]);
	}
	f_list_end(d);
}

static void f_u64_list(struct dump *d, const char *key, const uint64_t *v, uint64_t n)
{
	uint64_t i;

	f_list_begin(d, key);
	for (i = 0; i < n; i++) {
		f_item(d);
		out__u64(&d->out, v[i]);
	}
	f_list_end(d);
}

/* Bytes as one hex string, e.g. build ids. */
static void f_hexbytes(struct dump *d, const char *key, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	f_key(d, key);
	if (d->json)
		out__ch(&d->out, '"');
	for (i = 0; i < n; i++) {
		out__ch(&d->out, hex[p[i] >> 4]);
		out__ch(&d->out, hex[p[i] & 15]);
	}
	if (d->json)
		out__ch(&d->out, '"');
}

/* --- record helpers ------------------------------------------------------ */

static inline uint64_t rd64(const unsigned char *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint32_t rd32(const unsigned char *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint16_t rd16(const unsigned char *p, size_t off)
{
	uint16_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static const char *type_name(uint32_t type, char *buf, size_t len)
{
	const char *name = pm_record_type__name(type);

	if (name)
		return name;
	snprintf(buf, len, "UNKNOWN_%u", type);
	return buf;
}

static const char *const cpumode_names[] = {
	"unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user", "6", "7",
};

/* Body pid/tid of the records that carry their own, as perf shows them. */
static void info__body_ids(struct info *in, const struct pm_record *rec)
{
	const unsigned char *b = (const unsigned char *)rec->data + 8;

	switch (rec->header->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_READ:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_NAMESPACES:
		in->pid = (int32_t)rd32(b, 0);
		in->tid = (int32_t)rd32(b, 4);
		in->has_pid = true;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		in->pid = (int32_t)rd32(b, 0);
		in->tid = (int32_t)rd32(b, 8);
		in->has_pid = true;
		if (!in->has_time) {
			in->time = rd64(b, 16);
			in->has_time = true;
		}
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (!in->has_time) {
			in->time = rd64(b, 0);
			in->has_time = true;
		}
		break;
	default:
		break;
	}
}

static int info__compute(struct dump *d, const struct pm_record *rec, struct info *in)
{
	uint32_t type = rec->header->type;
	int err;

	/* Not a memset of the whole: the decoders below clear in->s. */
	if (type >= PERF_RECORD_USER_TYPE_START) {
		*in = (struct info){ .body_len = rec->header->size - 8 };
		return 0;
	}
	in->body_len = rec->header->size - 8;
	if (type == PERF_RECORD_SAMPLE)
		err = pm_reader__parse_sample(d->r, rec, &in->s);
	else
		err = pm_reader__parse_id(d->r, rec, &in->s, &in->body_len);
	if (err)
		return err;
	in->has_time = in->s.fields & PERF_SAMPLE_TIME;
	in->time = in->s.time;
	in->has_cpu = in->s.fields & PERF_SAMPLE_CPU;
	in->cpu = in->s.cpu;
	in->has_pid = in->s.fields & PERF_SAMPLE_TID;
	in->pid = (int32_t)in->s.pid;
	in->tid = (int32_t)in->s.tid;
	if (type != PERF_RECORD_SAMPLE)
		info__body_ids(in, rec);
	return 0;
}

static void rec_begin(struct dump *d, const struct pm_record *rec, const struct info *in)
{
	struct out *o = &d->out;
	char buf[32];
	const char *name = type_name(rec->header->type, buf, sizeof(buf));

	if (d->json) {
		out__str(o, "{\"offset\":");
		out__u64(o, rec->offset);
		out__str(o, ",\"type\":\"");
		out__str(o, name);
		out__str(o, "\",\"size\":");
		out__u64(o, rec->header->size);
		out__str(o, ",\"misc\":");
		out__u64(o, rec->header->misc);
		d->first = false;
		if (in->has_time)
			f_u64(d, "time", in->time);
		if (in->has_cpu)
			f_u64(d, "cpu", in->cpu);
		if (in->has_pid) {
			f_s64(d, "pid", in->pid);
			f_s64(d, "tid", in->tid);
		}
		return;
	}
	out__hex(o, rec->offset);
	out__ch(o, ' ');
	if (in->has_time)
		out__time(o, in->time);
	else
		out__ch(o, '-');
	out__ch(o, ' ');
	if (in->has_cpu)
		out__u64(o, in->cpu);
	else
		out__ch(o, '-');
	out__ch(o, ' ');
	if (in->has_pid) {
		out__s64(o, in->pid);
		out__ch(o, '/');
		out__s64(o, in->tid);
	} else {
		out__ch(o, '-');
	}
	out__ch(o, ' ');
	out__str(o, name);
}

static void rec_end(struct dump *d)
{
	if (d->json)
		out__ch(&d->out, '}');
	out__ch(&d->out, '\n');
}

/* --raw in text: the record bytes, hexdump -C style, under its line. */
static void print_raw_text(struct dump *d, const struct pm_record *rec)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = rec->data;
	size_t n = rec->header->size, i, j;
	struct out *o = &d->out;

	for (i = 0; i < n; i += 16) {
		char line[80];
		size_t len = 0;

		memcpy(line, "    ", 4);
		len = 4;
		for (j = 0; j < 4; j++)
			line[len++] = hex[(i >> (12 - 4 * j)) & 15];
		line[len++] = ':';
		for (j = 0; j < 16; j++) {
			line[len++] = ' ';
			if (i + j < n) {
				line[len++] = hex[p[i + j] >> 4];
				line[len++] = hex[p[i + j] & 15];
			} else {
				line[len++] = ' ';
				line[len++] = ' ';
			}
		}
		line[len++] = ' ';
		line[len++] = ' ';
		for (j = 0; j < 16 && i + j < n; j++)
			line[len++] = p[i + j] >= 0x20 && p[i + j] < 0x7f ? (char)p[i + j] : '.';
		line[len++] = '\n';
		out__mem(o, line, len);
	}
}

/* --- SAMPLE -------------------------------------------------------------- */

static void print_tp_value(struct dump *d, const struct pm_tp_field *f,
			   const unsigned char *p, size_t len)
{
	size_t elem = f->elem_size, i, n;

	if (f->flags & PM_TP_FIELD_STRING) {
		v_str(d, (const char *)p, strnlen((const char *)p, len));
		return;
	}
	if (elem != 1 && elem != 2 && elem != 4 && elem != 8) {
		if (d->json)
			out__ch(&d->out, '"');
		for (i = 0; i < len; i++)
			out__printf(&d->out, "%02x", p[i]);
		if (d->json)
			out__ch(&d->out, '"');
		return;
	}
	n = len / elem;
	if (f->flags & PM_TP_FIELD_ARRAY) {
		if (d->json)
			out__ch(&d->out, '[');
		d->first = true;
	}
	for (i = 0; i < n; i++) {
		uint64_t v = pm_tp__read_int(p + i * elem, elem, f->is_signed);

		if (f->flags & PM_TP_FIELD_ARRAY)
			f_item(d);
		if (f->flags & PM_TP_FIELD_POINTER)
			v_hex(d, v);
		else if (f->is_signed)
			out__s64(&d->out, (int64_t)v);
		else
			out__u64(&d->out, v);
		if (!(f->flags & PM_TP_FIELD_ARRAY))
			break;
	}
	if (f->flags & PM_TP_FIELD_ARRAY) {
		if (d->json)
			out__ch(&d->out, ']');
		d->first = false;
	}
}

/*
 * Tracepoint fields by name.  Text skips the common_* header fields (pid
 * and cpu are in the columns already); JSON has them all under "fields".
 */
static void print_tp_fields(struct dump *d, const struct pm_tp_event *tp,
			    const struct pm_sample *s)
{
	const unsigned char *p;
	size_t i, len;

	f_obj_begin(d, "fields");
	for (i = 0; i < tp->nr_fields; i++) {
		const struct pm_tp_field *f = &tp->fields[i];

		if (!d->json && (f->flags & PM_TP_FIELD_COMMON))
			continue;
		f_key(d, f->name);
		if (pm_tp_field__data(f, s->raw, s->raw_size, &p, &len))
			out__str(&d->out, d->json ? "null" : "?");
		else
			print_tp_value(d, f, p, len);
	}
	f_obj_end(d);
}

static void print_regs(struct dump *d, const char *abi_key, const char *key,
		       const struct pm_regs *regs)
{
	f_u64(d, abi_key, regs->abi);
	f_hex_list(d, key, regs->regs, regs->nr);
}

static void print_branches(struct dump *d, const struct pm_sample *s)
{
	uint64_t i;

	if (s->branch_has_hw_idx)
		f_s64(d, "branch_hw_idx", (int64_t)s->branch_hw_idx);
	f_list_begin(d, "branches");
	for (i = 0; i < s->branch_nr; i++) {
		const uint64_t *b = s->branches + 3 * i;

		if (d->json) {
			f_obj_begin(d, NULL);
			f_hex(d, "from", b[0]);
			f_hex(d, "to", b[1]);
			f_hex(d, "flags", b[2]);
			f_obj_end(d);
		} else {
			f_item(d);
			out__hex(&d->out, b[0]);
			out__str(&d->out, "->");
			out__hex(&d->out, b[1]);
		}
	}
	f_list_end(d);
}

/* --- symbols ------------------------------------------------------------ */

static void dump__warn(struct dump *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void dump__warn(struct dump *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pmrec dump: %s: ", d->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A BUILD_ID entry (feature payload or pipe record body after the header). */
static int dump__expect_entry(struct dump *d, uint16_t misc, const unsigned char *b, size_t len)
{
	size_t n = (misc & 0x8000) && b[24] <= PM_BUILD_ID_SIZE ? b[24] : PM_BUILD_ID_SIZE;
	size_t name = strnlen((const char *)b + 28, len - 28);

	if (name == len - 28)
		return 0;
	if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		if (!strcmp((const char *)b + 28, "[kernel.kallsyms]")) {
			memcpy(d->kernel_id, b + 4, n);
			d->kernel_id_len = n;
		}
		return 0;
	}
	return pm_machine__expect_build_id(d->machine, (const char *)b + 28, b + 4, n);
}

/* The BUILD_ID feature of a file: what each binary was when it was recorded. */
static int dump__read_build_ids(struct dump *d)
{
	struct pm_cursor c;
	int err = 0;

	if (pm_reader__feature(d->r, HEADER_BUILD_ID, &c))
		return 0;
	while (!err && pm_cursor__left(&c) >= 36) {
		const unsigned char *e;
		const void *p;
		uint16_t misc, size;

		memcpy(&misc, c.p + c.pos + 4, 2);
		memcpy(&size, c.p + c.pos + 6, 2);
		if (size < 37 || pm_cursor__bytes(&c, size, &p))
			break;
		e = p;
		err = dump__expect_entry(d, misc, e + 8, size - 8u);
	}
	return err;
}

/* The perf string of a feature, or NULL. */
static const char *feature_string(struct pm_reader *r, int feat)
{
	struct pm_cursor c;
	const void *p;
	uint32_t len;

	if (pm_reader__feature(r, feat, &c) || pm_cursor__u32(&c, &len) ||
	    pm_cursor__bytes(&c, len, &p) || !len || !memchr(p, '\0', len))
		return NULL;
	return p;
}

/* kallsyms names the recording's kernel addresses only if this is its kernel. */
static bool dump__same_kernel(struct dump *d)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	struct utsname u;
	const char *rel;
	size_t len;

	if (d->kernel_id_len)
		return !pm_elf__kernel_build_id(id, &len) && len == d->kernel_id_len &&
		       !memcmp(id, d->kernel_id, len);
	rel = feature_string(d->r, HEADER_OSRELEASE);
	return rel && !uname(&u) && !strcmp(rel, u.release);
}

static void dump__load_kallsyms(struct dump *d)
{
	struct pm_kallsyms *ks;

	d->kernel_syms = -1;
	if (!dump__same_kernel(d)) {
		dump__warn(d, "recorded on another kernel: kernel addresses are not named");
		return;
	}
	ks = pm_kallsyms__load(NULL);
	if (!ks) {
		dump__warn(d, "cannot read kernel symbols from /proc/kallsyms: %s%s", strerror(errno),
			   errno == EACCES ? " (addresses hidden by kernel.kptr_restrict; "
					     "run as root or set it to 0)" : "");
		return;
	}
	pm_machine__set_kallsyms(d->machine, ks);
	d->kernel_syms = 1;
}

static void dump__resolve(struct dump *d, int32_t pid, uint16_t cpumode, uint64_t ip,
			  struct pm_frame *f)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL && !d->kernel_syms)
		dump__load_kallsyms(d);
	pm_machine__resolve(d->machine, pid, cpumode, ip, f);
	if (f->refused_now)
		dump__warn(d, "%s is not used for symbols: %s", f->dso, f->refusal);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* "sym", "[file]" when no symbol covers it, "[unknown]" without a map. */
static int frame__name(struct pm_buf *b, const struct pm_frame *f)
{
	const char *base;

	if (f->sym)
		return pm_buf__append(b, f->sym, strlen(f->sym));
	if (!f->dso)
		return pm_buf__append(b, "[unknown]", 9);
	base = base_name(f->dso);
	if (base[0] == '[')
		return pm_buf__append(b, base, strlen(base));
	return pm_buf__append(b, "[", 1) ?: pm_buf__append(b, base, strlen(base)) ?:
	       pm_buf__append(b, "]", 1);
}

/* Sample fields "sym", "symoff", "dso" of one address. */
static void print_frame_fields(struct dump *d, const struct pm_frame *f, const char *sym_key,
			       const char *off_key)
{
	if (f->sym) {
		f_cstr(d, sym_key, f->sym);
		f_hex(d, off_key, f->off);
	}
	if (f->dso)
		f_cstr(d, "dso", f->dso);
}

/*
 * Walks a call chain: context markers switch between kernel and user; after
 * the first address of a context the entries are return addresses, looked up
 * one byte back so a call at the end of a function names that function.
 */
struct chain_walk {
	const uint64_t *ips;
	uint64_t nr, i;
	uint16_t cpumode;
	bool first;
};

static bool chain_walk__next(struct chain_walk *w, uint64_t *ip, uint64_t *lookup,
			     uint16_t *cpumode)
{
	while (w->i < w->nr) {
		uint64_t v = w->ips[w->i++];

		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			w->cpumode = v == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL :
				     v == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER :
				     PERF_RECORD_MISC_CPUMODE_UNKNOWN;
			w->first = true;
			continue;
		}
		*ip = v;
		*lookup = w->first ? v : v - 1;
		*cpumode = w->cpumode;
		w->first = false;
		return true;
	}
	return false;
}

static void chain_walk__init(struct chain_walk *w, const struct pm_sample *s, uint16_t cpumode)
{
	*w = (struct chain_walk){ .ips = s->callchain, .nr = s->callchain_nr, .cpumode = cpumode,
				  .first = true };
}

static void print_frames(struct dump *d, const struct pm_sample *s, uint16_t cpumode)
{
	struct chain_walk w;
	struct pm_frame f;
	uint64_t ip, lookup;
	uint16_t mode;

	chain_walk__init(&w, s, cpumode);
	f_list_begin(d, "frames");
	while (chain_walk__next(&w, &ip, &lookup, &mode)) {
		dump__resolve(d, (int32_t)s->pid, mode, lookup, &f);
		if (f.sym)
			f.off += ip - lookup;
		if (d->json) {
			f_obj_begin(d, NULL);
			f_hex(d, "ip", ip);
			print_frame_fields(d, &f, "sym", "off");
			f_obj_end(d);
		} else if (f.sym) {
			f_item(d);
			v_str(d, f.sym, strlen(f.sym));
			out__ch(&d->out, '+');
			out__hex(&d->out, f.off);
		} else {
			f_item(d);
			d->stack.len = 0;
			if (!frame__name(&d->stack, &f))
				v_str(d, (const char *)d->stack.data, d->stack.len);
		}
	}
	f_list_end(d);
}

/* One folded line's worth: comm, then the frames from the outermost in. */
static int dump__fold(struct dump *d, const struct pm_record *rec, const struct pm_sample *s)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const char *comm = pm_machine__comm(d->machine, (int32_t)s->tid);
	struct pm_buf *b = &d->stack;
	struct chain_walk w;
	struct pm_frame f;
	uint64_t ip, lookup;
	size_t nr = 0;
	uint16_t mode;
	char tid[16];
	int err;

	/* The chain is innermost first: keep it, then name it backwards. */
	if (s->callchain_nr >= d->nr_chain) {
		struct chain_frame *c = realloc(d->chain, (s->callchain_nr + 1) * sizeof(*c));

		if (!c)
			return -ENOMEM;
		d->chain = c;
		d->nr_chain = s->callchain_nr + 1;
	}
	if (s->fields & PERF_SAMPLE_CALLCHAIN) {
		chain_walk__init(&w, s, cpumode);
		while (chain_walk__next(&w, &ip, &lookup, &mode))
			d->chain[nr++] = (struct chain_frame){ .addr = lookup, .cpumode = mode };
	}
	if (!nr && (s->fields & PERF_SAMPLE_IP))
		d->chain[nr++] = (struct chain_frame){ .addr = s->ip, .cpumode = cpumode };
	if (!comm) {
		snprintf(tid, sizeof(tid), ":%d", (int32_t)s->tid);
		comm = tid;
	}
	b->len = 0;
	err = pm_buf__append(b, comm, strlen(comm));
	while (nr-- && !err) {
		dump__resolve(d, (int32_t)s->pid, d->chain[nr].cpumode, d->chain[nr].addr, &f);
		err = pm_buf__append(b, ";", 1);
		if (!err)
			err = frame__name(b, &f);
	}
	if (err)
		return err;
	return pm_folded__add(d->folded, (const char *)b->data, b->len,
			      d->opts.folded == FOLDED_PERIOD ? s->period : 1);
}

static void dump__print_folded(struct dump *d)
{
	const struct pm_folded_entry *e;
	size_t i, n = pm_folded__sorted(d->folded, &e);

	for (i = 0; i < n && !d->out.err; i++) {
		out__mem(&d->out, e[i].stack, e[i].len);
		out__ch(&d->out, ' ');
		out__u64(&d->out, e[i].weight);
		out__ch(&d->out, '\n');
	}
}

static void print_sample(struct dump *d, const struct pm_record *rec, const struct info *in)
{
	const struct pm_sample *s = &in->s;
	struct pm_evsel *e = (struct pm_evsel *)s->evsel;
	uint64_t t = s->fields;

	f_cstr(d, "event", pm_evsel__name(e));
	f_cstr(d, "cpumode", cpumode_names[rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK]);
	if (t & PERF_SAMPLE_IP) {
		f_hex(d, "ip", s->ip);
		if (d->machine) {
			struct pm_frame f;

			dump__resolve(d, (int32_t)s->pid,
				      rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK, s->ip, &f);
			print_frame_fields(d, &f, "sym", "symoff");
		}
	}
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		f_u64(d, "sample_id", s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		f_u64(d, "stream_id", s->stream_id);
	if ((t & PERF_SAMPLE_PERIOD) || !e->attr.freq)
		f_u64(d, "period", s->period);
	if (t & PERF_SAMPLE_ADDR)
		f_hex(d, "addr", s->addr);
	if (t & PERF_SAMPLE_READ)
		f_u64_list(d, "read", s->read, s->read_nr);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		f_hex_list(d, "callchain", s->callchain, s->callchain_nr);
		if (d->machine)
			print_frames(d, s, rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	}
	if (t & PERF_SAMPLE_RAW) {
		f_u64(d, "raw_size", s->raw_size);
		if (e->tp)
			print_tp_fields(d, e->tp, s);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK)
		print_branches(d, s);
	if (t & PERF_SAMPLE_REGS_USER)
		print_regs(d, "regs_user_abi", "regs_user", &s->regs_user);
	if (t & PERF_SAMPLE_STACK_USER) {
		f_u64(d, "stack_user_size", s->stack_user_size);
		f_u64(d, "stack_user_dyn_size", s->stack_user_dyn_size);
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		f_u64(d, "weight", s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		f_hex(d, "data_src", s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		f_hex(d, "transaction", s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		print_regs(d, "regs_intr_abi", "regs_intr", &s->regs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		f_hex(d, "phys_addr", s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		f_u64(d, "cgroup", s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		f_u64(d, "data_page_size", s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		f_u64(d, "code_page_size", s->code_page_size);
	if (t & PERF_SAMPLE_AUX)
		f_u64(d, "aux_size", s->aux_size);
}

/* --- kernel records ------------------------------------------------------ */

/*
 * Event named by the trailer id, when there are several events; id 0 is
 * what perf writes into synthesized records.
 */
static void print_trailer_event(struct dump *d, const struct info *in)
{
	if (in->s.evsel && in->s.id && pm_reader__nr_evsels(d->r) > 1)
		f_cstr(d, "event", pm_evsel__name((struct pm_evsel *)in->s.evsel));
}

static void print_mmap2_ids(struct dump *d, const struct pm_record *rec, const unsigned char *b)
{
	if (pm_mmap2__has_build_id(rec->data)) {
		f_hexbytes(d, "build_id", b + 36, b[32]);
	} else {
		f_u64(d, "maj", rd32(b, 32));
		f_u64(d, "min", rd32(b, 36));
		f_u64(d, "ino", rd64(b, 40));
		f_u64(d, "ino_generation", rd64(b, 48));
	}
}

static void print_namespaces(struct dump *d, const unsigned char *b)
{
	uint64_t nr = rd64(b, 8), i;

	f_list_begin(d, "namespaces");
	for (i = 0; i < nr; i++) {
		if (d->json) {
			f_obj_begin(d, NULL);
			f_u64(d, "dev", rd64(b, 16 + 16 * i));
			f_u64(d, "ino", rd64(b, 24 + 16 * i));
			f_obj_end(d);
		} else {
			f_item(d);
			out__u64(&d->out, rd64(b, 16 + 16 * i));
			out__ch(&d->out, ':');
			out__u64(&d->out, rd64(b, 24 + 16 * i));
		}
	}
	f_list_end(d);
}

static void print_text_poke(struct dump *d, const unsigned char *b, size_t len)
{
	uint16_t old_len = rd16(b, 8), new_len = rd16(b, 10);

	f_hex(d, "addr", rd64(b, 0));
	f_u64(d, "old_len", old_len);
	f_u64(d, "new_len", new_len);
	if ((size_t)old_len + new_len <= len - 12) {
		f_hexbytes(d, "old_bytes", b + 12, old_len);
		f_hexbytes(d, "new_bytes", b + 12 + old_len, new_len);
	}
}

static void print_kernel_record(struct dump *d, const struct pm_record *rec,
				const struct info *in)
{
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	size_t len = in->body_len;
	uint16_t misc = rec->header->misc;

	switch (rec->header->type) {
	case PERF_RECORD_MMAP:
		f_hex(d, "addr", rd64(b, 8));
		f_hex(d, "len", rd64(b, 16));
		f_hex(d, "pgoff", rd64(b, 24));
		f_cstr(d, "cpumode", cpumode_names[misc & PERF_RECORD_MISC_CPUMODE_MASK]);
		f_strn(d, "filename", b + 32, len - 32);
		break;
	case PERF_RECORD_LOST:
		f_u64(d, "id", rd64(b, 0));
		f_u64(d, "lost", rd64(b, 8));
		break;
	case PERF_RECORD_COMM:
		f_strn(d, "comm", b + 8, len - 8);
		f_bool(d, "exec", misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		f_s64(d, "ppid", (int32_t)rd32(b, 4));
		f_s64(d, "ptid", (int32_t)rd32(b, 12));
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		f_u64(d, "id", rd64(b, 8));
		f_u64(d, "stream_id", rd64(b, 16));
		break;
	case PERF_RECORD_READ:
		f_u64_list(d, "values", (const uint64_t *)(b + 8), (len - 8) / 8);
		break;
	case PERF_RECORD_MMAP2:
		f_hex(d, "addr", rd64(b, 8));
		f_hex(d, "len", rd64(b, 16));
		f_hex(d, "pgoff", rd64(b, 24));
		print_mmap2_ids(d, rec, b);
		f_hex(d, "prot", rd32(b, 56));
		f_hex(d, "flags", rd32(b, 60));
		f_cstr(d, "cpumode", cpumode_names[misc & PERF_RECORD_MISC_CPUMODE_MASK]);
		f_strn(d, "filename", b + 64, len - 64);
		break;
	case PERF_RECORD_AUX:
		f_hex(d, "aux_offset", rd64(b, 0));
		f_u64(d, "aux_size", rd64(b, 8));
		f_hex(d, "flags", rd64(b, 16));
		break;
	case PERF_RECORD_LOST_SAMPLES:
		f_u64(d, "lost", rd64(b, 0));
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		f_s64(d, "next_prev_pid", (int32_t)rd32(b, 0));
		f_s64(d, "next_prev_tid", (int32_t)rd32(b, 4));
		/* fall through */
	case PERF_RECORD_SWITCH:
		f_bool(d, "out", misc & PERF_RECORD_MISC_SWITCH_OUT);
		f_bool(d, "preempt", misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		break;
	case PERF_RECORD_NAMESPACES:
		print_namespaces(d, b);
		break;
	case PERF_RECORD_KSYMBOL:
		f_hex(d, "addr", rd64(b, 0));
		f_u64(d, "len", rd32(b, 8));
		f_u64(d, "ksym_type", rd16(b, 12));
		f_hex(d, "flags", rd16(b, 14));
		f_strn(d, "name", b + 16, len - 16);
		break;
	case PERF_RECORD_BPF_EVENT:
		f_u64(d, "bpf_type", rd16(b, 0));
		f_hex(d, "flags", rd16(b, 2));
		f_u64(d, "bpf_id", rd32(b, 4));
		f_hexbytes(d, "tag", b + 8, 8);
		break;
	case PERF_RECORD_CGROUP:
		f_u64(d, "cgroup_id", rd64(b, 0));
		f_strn(d, "path", b + 8, len - 8);
		break;
	case PERF_RECORD_TEXT_POKE:
		print_text_poke(d, b, len);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		f_u64(d, "hw_id", rd64(b, 0));
		break;
	default:
		break;
	}
	print_trailer_event(d, in);
}

/* --- perf's own records -------------------------------------------------- */

static void print_attr_fields(struct dump *d, const struct perf_event_attr *attr)
{
	f_u64(d, "attr_type", attr->type);
	f_hex(d, "config", attr->config);
	f_u64(d, attr->freq ? "sample_freq" : "sample_period", attr->sample_period);
	f_hex(d, "sample_type", attr->sample_type);
	f_hex(d, "read_format", attr->read_format);
	f_bool(d, "sample_id_all", attr->sample_id_all);
}

static void print_header_attr(struct dump *d, const struct pm_record *rec)
{
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	size_t len = rec->header->size - 8;
	struct perf_event_attr attr = { 0 };
	uint32_t size = rd32(b, 4) ? rd32(b, 4) : PERF_ATTR_SIZE_VER0;
	struct pm_evsel *e = NULL;
	uint64_t nr, i;

	memcpy(&attr, b, size < sizeof(attr) ? size : sizeof(attr));
	nr = (len - size) / 8;
	if (nr)
		e = pm_reader__evsel_by_id(d->r, rd64(b, size));
	if (e)
		f_cstr(d, "event", pm_evsel__name(e));
	print_attr_fields(d, &attr);
	f_list_begin(d, "ids");
	for (i = 0; i < nr; i++) {
		f_item(d);
		out__u64(&d->out, rd64(b, size + 8 * i));
	}
	f_list_end(d);
}

static void print_id_index(struct dump *d, const unsigned char *b)
{
	uint64_t nr = rd64(b, 0), i;

	f_u64(d, "nr", nr);
	f_list_begin(d, "entries");
	for (i = 0; i < nr; i++) {
		const unsigned char *e = b + 8 + 32 * i;

		if (d->json) {
			f_obj_begin(d, NULL);
			f_u64(d, "id", rd64(e, 0));
			f_u64(d, "idx", rd64(e, 8));
			f_s64(d, "cpu", (int64_t)rd64(e, 16));
			f_s64(d, "tid", (int64_t)rd64(e, 24));
			f_obj_end(d);
		} else {
			f_item(d);
			out__u64(&d->out, rd64(e, 0));
			out__ch(&d->out, ':');
			out__u64(&d->out, rd64(e, 8));
			out__ch(&d->out, ':');
			out__s64(&d->out, (int64_t)rd64(e, 16));
			out__ch(&d->out, ':');
			out__s64(&d->out, (int64_t)rd64(e, 24));
		}
	}
	f_list_end(d);
}

static void print_thread_map(struct dump *d, const unsigned char *b)
{
	uint64_t nr = rd64(b, 0), i;

	f_u64(d, "nr", nr);
	f_list_begin(d, "threads");
	for (i = 0; i < nr; i++) {
		const unsigned char *e = b + 8 + 24 * i;

		if (d->json) {
			f_obj_begin(d, NULL);
			f_s64(d, "pid", (int64_t)rd64(e, 0));
			f_strn(d, "comm", e + 8, 16);
			f_obj_end(d);
		} else {
			f_item(d);
			out__s64(&d->out, (int64_t)rd64(e, 0));
			out__ch(&d->out, ':');
			v_str(d, (const char *)e + 8, strnlen((const char *)e + 8, 16));
		}
	}
	f_list_end(d);
}

static void cpus_add(struct dump *d, uint64_t cpu)
{
	f_item(d);
	out__u64(&d->out, cpu);
}

/* perf_record_cpu_map_data: list, mask or range (format doc, 4.2). */
static void print_cpu_map_data(struct dump *d, const unsigned char *b, size_t len)
{
	uint16_t type = rd16(b, 0), nr, long_size;
	uint64_t i, bit;

	f_list_begin(d, "cpus");
	if (type == 0 && len >= 4) {
		nr = rd16(b, 2);
		for (i = 0; i < nr && 4 + 2 * i + 2 <= len; i++)
			cpus_add(d, rd16(b, 4 + 2 * i));
	} else if (type == 1 && len >= 6) {
		size_t off;

		nr = rd16(b, 2);
		long_size = rd16(b, 4);
		off = long_size == 8 ? 8 : 6;
		if (long_size == 4 || long_size == 8)
			for (i = 0; i < nr && off + long_size * (i + 1) <= len; i++) {
				uint64_t word = long_size == 8 ? rd64(b, off + 8 * i) :
								 rd32(b, off + 4 * i);

				for (bit = 0; bit < (uint64_t)long_size * 8; bit++)
					if (word & (1ULL << bit))
						cpus_add(d, i * long_size * 8 + bit);
			}
	} else if (type == 2 && len >= 8) {
		for (i = rd16(b, 4); i <= rd16(b, 6); i++)
			cpus_add(d, i);
	}
	f_list_end(d);
}

static void print_event_update(struct dump *d, const unsigned char *b, size_t len)
{
	static const char *const kinds[] = { "unit", "scale", "name", "cpus" };
	uint64_t kind = rd64(b, 0);
	struct pm_evsel *e = pm_reader__evsel_by_id(d->r, rd64(b, 8));
	double scale;

	f_cstr(d, "update", kind < 4 ? kinds[kind] : "unknown");
	f_u64(d, "id", rd64(b, 8));
	if (e)
		f_cstr(d, "event", pm_evsel__name(e));
	switch (kind) {
	case PERF_EVENT_UPDATE__UNIT:
	case PERF_EVENT_UPDATE__NAME:
		f_strn(d, "value", b + 16, len - 16);
		break;
	case PERF_EVENT_UPDATE__SCALE:
		if (len >= 24) {
			memcpy(&scale, b + 16, sizeof(scale));
			f_key(d, "value");
			out__printf(&d->out, "%.17g", scale);
		}
		break;
	case PERF_EVENT_UPDATE__CPUS:
		print_cpu_map_data(d, b + 16, len - 16);
		break;
	default:
		break;
	}
}

static void print_build_id_entry(struct dump *d, uint16_t misc, const unsigned char *b,
				 size_t len)
{
	/* misc bit 15: the size byte after the 20 id bytes is valid. */
	size_t n = (misc & 0x8000) && b[24] <= 20 ? b[24] : 20;

	f_s64(d, "build_id_pid", (int32_t)rd32(b, 0));
	f_hexbytes(d, "build_id", b + 4, n);
	f_cstr(d, "cpumode", cpumode_names[misc & PERF_RECORD_MISC_CPUMODE_MASK]);
	f_strn(d, "filename", b + 28, len - 28);
}

static void print_auxtrace_error(struct dump *d, const unsigned char *b, size_t len)
{
	static const char *const keys[] = { "err_type", "code", "err_cpu", "err_pid",
					    "err_tid", "fmt" };
	size_t i;

	for (i = 0; i < 6; i++)
		f_u64(d, keys[i], rd32(b, 4 * i));
	f_hex(d, "ip", rd64(b, 24));
	f_u64(d, "err_time", rd64(b, 32));
	if (len > 40)
		f_strn(d, "msg", b + 40, len - 40 < 64 ? len - 40 : 64);
}

static void print_user_record(struct dump *d, const struct pm_record *rec)
{
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	size_t len = rec->header->size - 8;
	const struct pm_tp_data *tp;
	uint64_t i, nr;
	const char *name;
	char buf[24];

	switch (rec->header->type) {
	case PERF_RECORD_HEADER_ATTR:
		print_header_attr(d, rec);
		break;
	case PERF_RECORD_HEADER_EVENT_TYPE:
		f_u64(d, "event_id", rd64(b, 0));
		f_strn(d, "name", b + 8, 64);
		break;
	case PERF_RECORD_HEADER_TRACING_DATA:
		tp = pm_reader__tracing(d->r);
		f_u64(d, "data_size", rec->extra_size);
		f_u64(d, "formats", tp ? tp->nr_events : 0);
		break;
	case PERF_RECORD_HEADER_BUILD_ID:
		print_build_id_entry(d, rec->header->misc, b, len);
		break;
	case PERF_RECORD_ID_INDEX:
		print_id_index(d, b);
		break;
	case PERF_RECORD_AUXTRACE_INFO:
		f_u64(d, "auxtrace_type", rd32(b, 0));
		break;
	case PERF_RECORD_AUXTRACE:
		f_u64(d, "data_size", rd64(b, 0));
		f_hex(d, "aux_offset", rd64(b, 8));
		f_hex(d, "reference", rd64(b, 16));
		f_u64(d, "idx", rd32(b, 24));
		f_s64(d, "aux_tid", (int32_t)rd32(b, 28));
		f_s64(d, "aux_cpu", (int32_t)rd32(b, 32));
		break;
	case PERF_RECORD_AUXTRACE_ERROR:
		print_auxtrace_error(d, b, len);
		break;
	case PERF_RECORD_THREAD_MAP:
		print_thread_map(d, b);
		break;
	case PERF_RECORD_CPU_MAP:
		print_cpu_map_data(d, b, len);
		break;
	case PERF_RECORD_STAT_CONFIG:
		nr = rd64(b, 0);
		f_list_begin(d, "config");
		for (i = 0; i < nr; i++) {
			if (d->json) {
				f_obj_begin(d, NULL);
				f_u64(d, "tag", rd64(b, 8 + 16 * i));
				f_u64(d, "val", rd64(b, 16 + 16 * i));
				f_obj_end(d);
				continue;
			}
			f_item(d);
			out__u64(&d->out, rd64(b, 8 + 16 * i));
			out__ch(&d->out, ':');
			out__u64(&d->out, rd64(b, 16 + 16 * i));
		}
		f_list_end(d);
		break;
	case PERF_RECORD_STAT:
		f_u64(d, "id", rd64(b, 0));
		f_s64(d, "stat_cpu", (int32_t)rd32(b, 8));
		f_s64(d, "thread", (int32_t)rd32(b, 12));
		f_u64(d, "val", rd64(b, 16));
		f_u64(d, "ena", rd64(b, 24));
		f_u64(d, "run", rd64(b, 32));
		break;
	case PERF_RECORD_STAT_ROUND:
		f_u64(d, "round_type", rd64(b, 0));
		f_u64(d, "round_time", rd64(b, 8));
		break;
	case PERF_RECORD_EVENT_UPDATE:
		print_event_update(d, b, len);
		break;
	case PERF_RECORD_TIME_CONV:
		f_u64(d, "time_shift", rd64(b, 0));
		f_u64(d, "time_mult", rd64(b, 8));
		f_u64(d, "time_zero", rd64(b, 16));
		if (len >= 48) {
			f_u64(d, "time_cycles", rd64(b, 24));
			f_hex(d, "time_mask", rd64(b, 32));
			f_bool(d, "cap_user_time_zero", b[40]);
			f_bool(d, "cap_user_time_short", b[41]);
		}
		break;
	case PERF_RECORD_HEADER_FEATURE:
		nr = rd64(b, 0);
		name = nr < INT32_MAX ? pm_feature__name((int)nr) : NULL;
		if (!name) {
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)nr);
			name = buf;
		}
		f_cstr(d, "feature", name);
		f_u64(d, "data_size", len - 8);
		break;
	case PERF_RECORD_COMPRESSED:
		f_u64(d, "data_size", len);
		f_cstr(d, "note", "zstd-compressed records are not supported");
		break;
	default:
		break;
	}
}

static void print_record(struct dump *d, const struct pm_record *rec, const struct info *in)
{
	uint32_t type = rec->header->type;
	bool unknown = !pm_record_type__name(type);

	rec_begin(d, rec, in);
	if (type == PERF_RECORD_SAMPLE)
		print_sample(d, rec, in);
	else if (unknown)
		f_u64(d, "data_size", rec->header->size - 8u);
	else if (type < PERF_RECORD_USER_TYPE_START)
		print_kernel_record(d, rec, in);
	else
		print_user_record(d, rec);
	/* Unknown records show their bytes: there is nothing else to show. */
	if (d->json && (d->opts.raw || unknown))
		f_hexbytes(d, "raw", rec->data, rec->header->size);
	rec_end(d);
	if (!d->json && (d->opts.raw || unknown))
		print_raw_text(d, rec);
}

/* --- stats --------------------------------------------------------------- */

static void stats__count_type(struct stats *st, uint32_t type)
{
	size_t i;

	st->records++;
	if (type < PERF_RECORD_HEADER_MAX) {
		st->by_type[type]++;
		return;
	}
	for (i = 0; i < st->nr_other; i++)
		if (st->other[i].type == type) {
			st->other[i].n++;
			return;
		}
	if (st->nr_other < MAX_OTHER_TYPES)
		st->other[st->nr_other++] = (struct type_count){ .type = type, .n = 1 };
	else
		st->other_rest++;
}

static int stats__count(struct stats *st, const struct pm_record *rec, const struct info *in)
{
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	uint32_t type = rec->header->type;

	stats__count_type(st, type);
	if (type == PERF_RECORD_LOST)
		st->lost += rd64(b, 8);
	else if (type == PERF_RECORD_LOST_SAMPLES)
		st->lost += rd64(b, 0);
	if (type != PERF_RECORD_SAMPLE)
		return 0;
	st->samples++;
	if ((size_t)in->s.evsel->idx >= st->nr_by_evsel) {
		size_t n = (size_t)in->s.evsel->idx + 16;
		uint64_t *p = realloc(st->by_evsel, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + st->nr_by_evsel, 0, (n - st->nr_by_evsel) * sizeof(*p));
		st->by_evsel = p;
		st->nr_by_evsel = n;
	}
	st->by_evsel[in->s.evsel->idx]++;
	if (in->has_time) {
		if (!st->have_time || in->time < st->first_time)
			st->first_time = in->time;
		if (!st->have_time || in->time > st->last_time)
			st->last_time = in->time;
		st->have_time = true;
	}
	return 0;
}

/* Text: "KIND NAME VALUE", padded into columns; names quoted if need be. */
static void stats__text_begin(struct dump *d, const char *kind, const char *name)
{
	size_t n = strlen(name), col = d->out.len;

	out__printf(&d->out, "%-6s ", kind);
	out__text_str(&d->out, name, n);
	/* The buffer may have been flushed: padding is then best effort. */
	col = d->out.len > col ? d->out.len - col : 0;
	while (col++ < 32)
		out__ch(&d->out, ' ');
	out__ch(&d->out, ' ');
}

static void stats__line(struct dump *d, const char *kind, const char *name, uint64_t n)
{
	if (d->json) {
		f_u64(d, name, n);
		return;
	}
	stats__text_begin(d, kind, name);
	out__printf(&d->out, "%12llu\n", (unsigned long long)n);
}

static void stats__print_types(struct dump *d)
{
	const struct stats *st = &d->stats;
	char buf[32];
	uint32_t t;
	size_t i;

	for (t = 0; t < PERF_RECORD_HEADER_MAX; t++)
		if (st->by_type[t])
			stats__line(d, "type", type_name(t, buf, sizeof(buf)), st->by_type[t]);
	for (i = 0; i < st->nr_other; i++)
		stats__line(d, "type", type_name(st->other[i].type, buf, sizeof(buf)),
			    st->other[i].n);
	if (st->other_rest)
		stats__line(d, "type", "UNKNOWN_OTHER", st->other_rest);
}

static void stats__print_events(struct dump *d)
{
	const struct stats *st = &d->stats;
	size_t i;

	for (i = 0; i < st->nr_by_evsel; i++)
		if (st->by_evsel[i])
			stats__line(d, "event", pm_evsel__name(pm_reader__evsel(d->r, i)),
				    st->by_evsel[i]);
}

static void stats__print_time(struct dump *d, const char *key, uint64_t t)
{
	if (d->json) {
		f_u64(d, key, t);
		return;
	}
	stats__text_begin(d, "time", key);
	out__time(&d->out, t);
	out__ch(&d->out, '\n');
}

static void stats__print(struct dump *d)
{
	const struct stats *st = &d->stats;

	if (d->json) {
		out__str(&d->out, "{\"type\":\"STATS\"");
		d->first = false;
		f_u64(d, "records", st->records);
		f_u64(d, "samples", st->samples);
		f_u64(d, "lost", st->lost);
		if (st->have_time) {
			stats__print_time(d, "first_sample_time", st->first_time);
			stats__print_time(d, "last_sample_time", st->last_time);
		}
		f_key(d, "by_type");
		out__ch(&d->out, '{');
		d->first = true;
		stats__print_types(d);
		out__str(&d->out, "},\"by_event\":{");
		d->first = true;
		stats__print_events(d);
		out__str(&d->out, "}}\n");
		return;
	}
	stats__print_types(d);
	stats__print_events(d);
	stats__line(d, "total", "records", st->records);
	stats__line(d, "total", "samples", st->samples);
	stats__line(d, "total", "lost", st->lost);
	if (st->have_time) {
		stats__print_time(d, "first_sample", st->first_time);
		stats__print_time(d, "last_sample", st->last_time);
	}
}

/* --- filters ------------------------------------------------------------- */

static bool list__match(const struct id_list *l, int64_t v)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (v >= l->r[i].lo && v <= l->r[i].hi)
			return true;
	return false;
}

static bool dump__type_wanted(const struct dump *d, uint32_t type)
{
	if (!d->opts.type_filter)
		return true;
	if (!pm_record_type__name(type))
		return d->opts.type_unknown ||
		       (type < 256 && (d->opts.types[type / 64] & (1ULL << (type % 64))));
	return d->opts.types[type / 64] & (1ULL << (type % 64));
}

static bool dump__wanted(const struct dump *d, const struct info *in)
{
	if (d->opts.cpus.nr && (!in->has_cpu || !list__match(&d->opts.cpus, in->cpu)))
		return false;
	if (d->opts.pids.nr && (!in->has_pid || !list__match(&d->opts.pids, in->pid)))
		return false;
	return true;
}

/* --- main loop ----------------------------------------------------------- */

static void dump__compressed_note(struct dump *d)
{
	if (d->warned_compressed)
		return;
	d->warned_compressed = true;
	fprintf(stderr, "pmrec dump: %s: zstd-compressed records (COMPRESSED) are not supported; "
		"they are shown undecoded\n", d->name);
}

/* Every record that shapes the address spaces counts, filtered out or not. */
static int dump__track(struct dump *d, const struct pm_record *rec, const struct info *in)
{
	uint32_t type = rec->header->type;
	int err = 0;

	if (type == PERF_RECORD_HEADER_BUILD_ID && in->body_len >= 29)
		err = dump__expect_entry(d, rec->header->misc, (const unsigned char *)rec->data + 8,
					 in->body_len);
	else if (type < PERF_RECORD_USER_TYPE_START)
		err = pm_machine__event(d->machine, rec->header, in->body_len);
	if (err)
		fprintf(stderr, "pmrec dump: out of memory\n");
	return err;
}

static int dump__record(struct dump *d, const struct pm_record *rec)
{
	struct info in;
	int err = info__compute(d, rec, &in);

	if (err)
		return err;
	if (d->machine) {
		err = dump__track(d, rec, &in);
		if (err)
			return err;
	}
	if (!dump__type_wanted(d, rec->header->type) || !dump__wanted(d, &in))
		return 0;
	if (rec->header->type == PERF_RECORD_COMPRESSED)
		dump__compressed_note(d);
	err = stats__count(&d->stats, rec, &in);
	if (err || d->opts.stats_only)
		return err;
	if (d->folded)
		return rec->header->type == PERF_RECORD_SAMPLE ? dump__fold(d, rec, &in.s) : 0;
	print_record(d, rec, &in);
	return 0;
}

/*
 * Prints queued records up to time limit, until the queue holds at most
 * keep bytes.  Samples are decoded here, so a malformed one is found here:
 * its error is returned (the reader keeps the first), and the valid records
 * queued with it still go out.
 */
static int dump__flush_queue(struct dump *d, struct pm_oqueue *q, uint64_t limit, size_t keep)
{
	struct pm_record rec;
	int err = 0, rerr;

	while (!d->out.err && pm_oqueue__bytes(q) > keep && pm_oqueue__pop(q, limit, &rec) > 0) {
		rerr = dump__record(d, &rec);
		if (!err)
			err = rerr;
	}
	return err;
}

/*
 * Queues rec.  A window between two rounds that outgrows --queue-size (a
 * file without FINISHED_ROUND, or a hostile one) has its oldest half printed
 * early, as perf does: memory stays bounded, order may not.
 */
static int dump__queue(struct dump *d, struct pm_oqueue *q, const struct pm_record *rec,
		       uint64_t time)
{
	int err = pm_oqueue__push(q, rec, time);

	if (err || pm_oqueue__bytes(q) <= d->opts.queue_size)
		return err;
	if (!d->warned_queue) {
		fprintf(stderr, "pmrec dump: %s: more than %llu bytes of records between two "
			"FINISHED_ROUND records (at offset %llu); printing the oldest early, "
			"so time order may break (see --queue-size)\n", d->name,
			(unsigned long long)d->opts.queue_size, (unsigned long long)rec->offset);
		d->warned_queue = true;
	}
	return dump__flush_queue(d, q, UINT64_MAX, d->opts.queue_size / 2);
}

/*
 * --ordered: kernel records with a time wait in the queue; the rest, like
 * perf's own records, go out as they come.
 */
static int dump__ordered(struct dump *d, struct pm_oqueue *q, const struct pm_record *rec)
{
	struct info in;
	int err;

	if (rec->header->type == PERF_RECORD_FINISHED_ROUND) {
		err = dump__flush_queue(d, q, pm_oqueue__round(q), 0);
		return err ? err : dump__record(d, rec);
	}
	if (rec->header->type >= PERF_RECORD_USER_TYPE_START)
		return dump__record(d, rec);
	if (rec->header->type == PERF_RECORD_SAMPLE) {
		/* Decoded once, when it leaves the queue. */
		uint64_t time;

		err = pm_reader__sample_time(d->r, rec, &time);
		if (err < 0)
			return err;
		return err ? dump__queue(d, q, rec, time) : dump__record(d, rec);
	}
	err = info__compute(d, rec, &in);
	if (err)
		return err;
	if (!in.has_time)
		return dump__record(d, rec);
	return dump__queue(d, q, rec, in.time);
}

static int dump__records(struct dump *d)
{
	struct pm_oqueue q;
	struct pm_record rec;
	int err;

	pm_oqueue__init(&q);
	while (!d->out.err && (err = pm_reader__next(d->r, &rec)) > 0) {
		err = d->opts.ordered ? dump__ordered(d, &q, &rec) : dump__record(d, &rec);
		if (err)
			break;
	}
	/* On a fault, every record read before it still goes out. */
	if (d->opts.ordered && !d->out.err) {
		int ferr = dump__flush_queue(d, &q, UINT64_MAX, 0);

		if (!err)
			err = ferr;
	}
	pm_oqueue__exit(&q);
	return err;
}

/* --- header -------------------------------------------------------------- */

/* Header lines: text "# key : value"; JSON members of one object. */
static void h_key(struct dump *d, const char *key)
{
	if (d->json) {
		f_key(d, key);
		return;
	}
	out__printf(&d->out, "# %s : ", key);
}

static void h_end(struct dump *d)
{
	if (!d->json)
		out__ch(&d->out, '\n');
}

static void h_str(struct dump *d, const char *key, const char *s, size_t n)
{
	h_key(d, key);
	if (d->json)
		out__json_str(&d->out, s, n);
	else
		out__mem(&d->out, s, n);
	h_end(d);
}

static void h_u64(struct dump *d, const char *key, uint64_t v)
{
	h_key(d, key);
	out__u64(&d->out, v);
	h_end(d);
}

static void h_bad(struct dump *d, const char *key, const struct pm_cursor *c)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "<malformed at offset 0x%llx>",
		 (unsigned long long)pm_cursor__offset(c));
	h_str(d, key, msg, strlen(msg));
}

static void h_perf_string(struct dump *d, struct pm_reader *r, int feat, const char *key)
{
	struct pm_cursor c;
	const char *s;
	size_t n;

	if (pm_reader__feature(r, feat, &c))
		return;
	if (pm_cursor__perf_string(&c, &s, &n))
		h_bad(d, key, &c);
	else
		h_str(d, key, s, n);
}

/* perf string list joined by sep (CMDLINE, CPU_TOPOLOGY sibling lists). */
static int h_string_list(struct dump *d, struct pm_cursor *c, const char *key, const char *sep)
{
	uint32_t nr, i;
	const char *s;
	size_t n;

	if (pm_cursor__u32(c, &nr))
		return -EBADMSG;
	h_key(d, key);
	if (d->json)
		out__ch(&d->out, '[');
	for (i = 0; i < nr; i++) {
		if (pm_cursor__perf_string(c, &s, &n))
			break;
		if (i)
			out__str(&d->out, d->json ? "," : sep);
		if (d->json)
			out__json_str(&d->out, s, n);
		else
			out__text_str(&d->out, s, n);
	}
	if (d->json)
		out__ch(&d->out, ']');
	h_end(d);
	return i == nr ? 0 : -EBADMSG;
}

static void h_nrcpus(struct dump *d, struct pm_reader *r)
{
	struct pm_cursor c;
	uint32_t avail, online;

	if (pm_reader__feature(r, HEADER_NRCPUS, &c))
		return;
	if (pm_cursor__u32(&c, &avail) || pm_cursor__u32(&c, &online)) {
		h_bad(d, "nrcpus", &c);
		return;
	}
	h_u64(d, "nrcpus online", online);
	h_u64(d, "nrcpus avail", avail);
}

static void h_u64_feature(struct dump *d, struct pm_reader *r, int feat, const char *key,
			  const char *unit)
{
	struct pm_cursor c;
	uint64_t v;

	if (pm_reader__feature(r, feat, &c))
		return;
	if (pm_cursor__u64(&c, &v)) {
		h_bad(d, key, &c);
		return;
	}
	h_key(d, key);
	out__u64(&d->out, v);
	if (!d->json)
		out__str(&d->out, unit);
	h_end(d);
}

static void h_sample_time(struct dump *d, struct pm_reader *r)
{
	struct pm_cursor c;
	uint64_t first, last;

	if (pm_reader__feature(r, HEADER_SAMPLE_TIME, &c))
		return;
	if (pm_cursor__u64(&c, &first) || pm_cursor__u64(&c, &last)) {
		h_bad(d, "sample time", &c);
		return;
	}
	if (d->json) {
		f_u64(d, "first_sample_time", first);
		f_u64(d, "last_sample_time", last);
		return;
	}
	out__str(&d->out, "# time of first sample : ");
	out__time(&d->out, first);
	out__str(&d->out, "\n# time of last sample : ");
	out__time(&d->out, last);
	out__ch(&d->out, '\n');
}

static void h_cmdline(struct dump *d, struct pm_reader *r)
{
	struct pm_cursor c;

	if (pm_reader__feature(r, HEADER_CMDLINE, &c))
		return;
	if (h_string_list(d, &c, "cmdline", " "))
		h_bad(d, "cmdline", &c);
}

static void h_cpu_topology(struct dump *d, struct pm_reader *r)
{
	struct pm_cursor c;

	if (pm_reader__feature(r, HEADER_CPU_TOPOLOGY, &c))
		return;
	if (h_string_list(d, &c, "sibling sockets", " ; ") ||
	    h_string_list(d, &c, "sibling threads", " ; "))
		h_bad(d, "cpu topology", &c);
}

static void h_pmu_mappings(struct dump *d, struct pm_reader *r)
{
	struct pm_cursor c;
	uint32_t nr, i, type;
	const char *s;
	size_t n;

	if (pm_reader__feature(r, HEADER_PMU_MAPPINGS, &c))
		return;
	if (pm_cursor__u32(&c, &nr)) {
		h_bad(d, "pmu mappings", &c);
		return;
	}
	h_key(d, "pmu mappings");
	if (d->json)
		out__ch(&d->out, '{');
	for (i = 0; i < nr; i++) {
		if (pm_cursor__u32(&c, &type) || pm_cursor__perf_string(&c, &s, &n))
			break;
		if (d->json) {
			out__str(&d->out, i ? "," : "");
			out__json_str(&d->out, s, n);
			out__ch(&d->out, ':');
			out__u64(&d->out, type);
		} else {
			out__str(&d->out, i ? ", " : "");
			out__text_str(&d->out, s, n);
			out__printf(&d->out, " = %u", type);
		}
	}
	if (d->json)
		out__ch(&d->out, '}');
	h_end(d);
}

static void h_build_ids(struct dump *d, struct pm_reader *r)
{
	struct pm_cursor c;
	const unsigned char *e;
	uint16_t misc, size;

	if (pm_reader__feature(r, HEADER_BUILD_ID, &c))
		return;
	if (d->json)
		f_list_begin(d, "build_ids");
	while (pm_cursor__left(&c)) {
		const void *p;

		if (pm_cursor__left(&c) < 36)
			break;
		memcpy(&misc, c.p + c.pos + 4, 2);
		memcpy(&size, c.p + c.pos + 6, 2);
		if (size < 36 || pm_cursor__bytes(&c, size, &p))
			break;
		e = p;
		if (d->json) {
			f_obj_begin(d, NULL);
			print_build_id_entry(d, misc, e + 8, size - 8u);
			f_obj_end(d);
		} else {
			out__str(&d->out, "# build id :");
			print_build_id_entry(d, misc, e + 8, size - 8u);
			out__ch(&d->out, '\n');
		}
	}
	if (d->json)
		f_list_end(d);
	if (pm_cursor__left(&c))
		h_bad(d, "build id", &c);
}

static void h_event(struct dump *d, struct pm_evsel *e)
{
	size_t i;

	if (d->json) {
		f_obj_begin(d, NULL);
		f_cstr(d, "name", pm_evsel__name(e));
		print_attr_fields(d, &e->attr);
		f_u64(d, "attr_size", e->attr.size);
		f_hex(d, "flags", rd64((const unsigned char *)&e->attr, 40));
		f_u64_list(d, "ids", e->ids, e->nr_ids);
		f_obj_end(d);
		return;
	}
	out__str(&d->out, "# event :");
	f_cstr(d, "name", pm_evsel__name(e));
	print_attr_fields(d, &e->attr);
	f_u64(d, "attr_size", e->attr.size);
	f_hex(d, "flags", rd64((const unsigned char *)&e->attr, 40));
	f_list_begin(d, "ids");
	for (i = 0; i < e->nr_ids; i++) {
		f_item(d);
		out__u64(&d->out, e->ids[i]);
	}
	f_list_end(d);
	out__ch(&d->out, '\n');
}

static void h_tracing(struct dump *d, struct pm_reader *r)
{
	const struct pm_tp_data *tp = pm_reader__tracing(r);
	struct pm_cursor c;
	size_t i;

	if (!tp)
		return;
	if (!pm_reader__feature(r, HEADER_TRACING_DATA, &c))
		h_u64(d, "tracing data size", c.len);
	h_key(d, "tracepoint formats");
	if (d->json)
		out__ch(&d->out, '[');
	for (i = 0; i < tp->nr_events; i++) {
		if (i)
			out__str(&d->out, d->json ? "," : " ");
		if (d->json)
			out__json_str(&d->out, tp->events[i].full_name,
				      strlen(tp->events[i].full_name));
		else
			out__printf(&d->out, "%s(%llu)", tp->events[i].full_name,
				    (unsigned long long)tp->events[i].id);
	}
	if (d->json)
		out__ch(&d->out, ']');
	h_end(d);
}

static void h_file_layout(struct dump *d, struct pm_reader *r)
{
	const struct perf_file_header *h = pm_reader__header(r);

	h_str(d, "mode", pm_reader__is_pipe(r) ? "pipe" : "file", 4);
	h_u64(d, "header size", h->size);
	if (pm_reader__is_pipe(r))
		return;
	h_u64(d, "attr size", h->attr_size);
	h_key(d, "attrs");
	out__printf(&d->out, d->json ? "{\"offset\":%llu,\"size\":%llu}" :
		    "offset 0x%llx, size %llu", (unsigned long long)h->attrs.offset,
		    (unsigned long long)h->attrs.size);
	h_end(d);
	h_key(d, "data");
	out__printf(&d->out, d->json ? "{\"offset\":%llu,\"size\":%llu}" :
		    "offset 0x%llx, size %llu", (unsigned long long)h->data.offset,
		    (unsigned long long)h->data.size);
	h_end(d);
}

static void h_features(struct dump *d, struct pm_reader *r)
{
	struct pm_cursor c;
	bool any = false;
	char buf[16];
	int feat;

	h_key(d, "features");
	if (d->json)
		out__ch(&d->out, '{');
	for (feat = 1; feat < HEADER_FEAT_BITS; feat++) {
		const char *name = pm_feature__name(feat);

		if (pm_reader__feature(r, feat, &c))
			continue;
		if (!name) {
			snprintf(buf, sizeof(buf), "%d", feat);
			name = buf;
		}
		if (d->json) {
			out__str(&d->out, any ? ",\"" : "\"");
			out__str(&d->out, name);
			out__str(&d->out, "\":");
			out__u64(&d->out, c.len);
		} else {
			out__printf(&d->out, "%s%s(%zu)", any ? " " : "", name, c.len);
		}
		any = true;
	}
	if (d->json)
		out__ch(&d->out, '}');
	h_end(d);
}

static void dump__print_header(struct dump *d)
{
	struct pm_reader *r = d->r;
	size_t i;

	if (d->json) {
		out__str(&d->out, "{\"type\":\"HEADER\"");
		d->first = false;
	}
	h_file_layout(d, r);
	h_perf_string(d, r, HEADER_HOSTNAME, "hostname");
	h_perf_string(d, r, HEADER_OSRELEASE, "os release");
	h_perf_string(d, r, HEADER_VERSION, "perf version");
	h_perf_string(d, r, HEADER_ARCH, "arch");
	h_nrcpus(d, r);
	h_perf_string(d, r, HEADER_CPUDESC, "cpudesc");
	h_perf_string(d, r, HEADER_CPUID, "cpuid");
	h_u64_feature(d, r, HEADER_TOTAL_MEM, "total memory", " kB");
	h_cmdline(d, r);
	if (d->json)
		f_list_begin(d, "events");
	for (i = 0; i < pm_reader__nr_evsels(r); i++)
		h_event(d, pm_reader__evsel(r, i));
	if (d->json)
		f_list_end(d);
	h_sample_time(d, r);
	h_u64_feature(d, r, HEADER_CLOCKID, "clockid frequency", " ns resolution");
	h_cpu_topology(d, r);
	h_pmu_mappings(d, r);
	h_build_ids(d, r);
	h_tracing(d, r);
	h_features(d, r);
	if (d->json)
		out__str(&d->out, "}\n");
}

/*
 * Pipe mode: the attrs and features are records at the start of the
 * stream; read them up to the first kernel record.
 */
static int dump__scan_pipe_header(struct dump *d)
{
	struct pm_record rec;
	int err;

	while ((err = pm_reader__next(d->r, &rec)) > 0)
		if (rec.header->type < PERF_RECORD_USER_TYPE_START ||
		    rec.header->type == PERF_RECORD_FINISHED_ROUND)
			return 0;
	return err;
}

/* --- command line -------------------------------------------------------- */

enum {
	OPT_ORDERED = 256,
	OPT_SYMBOLS,
	OPT_NO_SYMBOLS,
	OPT_FOLDED,
	OPT_QUEUE_SIZE,
};

static const struct argp_option dump_options[] = {
	{ .name = "input", .key = 'i', .arg = "FILE",
	  .doc = "Read FILE (same as the FILE argument)" },
	{ .name = "json", .key = 'j', .doc = "JSON Lines: one object per record" },
	{ .name = "stats", .key = 's',
	  .doc = "Print only the counts per record type and per event" },
	{ .name = "header", .key = 'H',
	  .doc = "Print only the file header, events and features" },
	{ .name = "raw", .key = 'r', .doc = "Hex dump of each record under its line" },
	{ .name = "type", .key = 't', .arg = "TYPES",
	  .doc = "Only records of these types (comma-separated names, e.g. sample,comm; "
		 "case-insensitive; 'unknown' for unnamed types)" },
	{ .name = "cpu", .key = 'C', .arg = "CPUS",
	  .doc = "Only records from these CPUs (e.g. 0,2-3)" },
	{ .name = "pid", .key = 'p', .arg = "PIDS", .doc = "Only records of these pids" },
	{ .name = "ordered", .key = OPT_ORDERED,
	  .doc = "Time order, with perf's FINISHED_ROUND windows (default: file order)" },
	{ .name = "symbols", .key = OPT_SYMBOLS,
	  .doc = "Name sample and call-chain addresses: sym, symoff, dso, frames (default)" },
	{ .name = "no-symbols", .key = OPT_NO_SYMBOLS, .doc = "Do not name addresses" },
	{ .name = "folded", .key = OPT_FOLDED, .arg = "count|period", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "Print one 'comm;outer;...;inner N' line per distinct stack instead of records, "
		 "N = samples (default) or summed period: FlameGraph's input" },
	{ .name = "queue-size", .key = OPT_QUEUE_SIZE, .arg = "SIZE",
	  .doc = "Memory for records waiting to be put in time order (default 256M); "
		 "beyond it the oldest are printed early" },
	{ 0 },
};

static int list__parse(struct id_list *l, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		struct range *r, rg;
		char *end;
		long long lo, hi;

		errno = 0;
		lo = strtoll(tok, &end, 10);
		hi = lo;
		if (*end == '-' && end != tok)
			hi = strtoll(end + 1, &end, 10);
		if (errno || *end || end == tok || lo < 0 || hi < lo || hi > INT32_MAX) {
			err = -EINVAL;
			break;
		}
		rg = (struct range){ .lo = lo, .hi = hi };
		r = realloc(l->r, (l->nr + 1) * sizeof(*r));
		if (!r) {
			err = -ENOMEM;
			break;
		}
		l->r = r;
		l->r[l->nr++] = rg;
	}
	free(copy);
	if (!err && !l->nr)
		err = -EINVAL;
	return err;
}

static int types__parse(struct dump_opts *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL, *end;
	int err = 0, type;

	if (!copy)
		return -ENOMEM;
	o->type_filter = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(tok, "unknown")) {
			o->type_unknown = true;
			continue;
		}
		type = pm_record_type__from_name(tok);
		if (type < 0) {
			long v = strtol(tok, &end, 10);

			if (*end || end == tok || v < 0 || v > 255) {
				err = -EINVAL;
				break;
			}
			type = (int)v;
		}
		o->types[type / 64] |= 1ULL << (type % 64);
	}
	free(copy);
	return err;
}

static error_t dump_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct dump_opts *o = state->input;

	switch (key) {
	case 'i':
		o->input = arg;
		break;
	case 'j':
		o->json = true;
		break;
	case 's':
		o->stats_only = true;
		break;
	case 'H':
		o->header = true;
		break;
	case 'r':
		o->raw = true;
		break;
	case 't':
		if (types__parse(o, arg))
			argp_error(state, "unknown record type in '%s'", arg);
		break;
	case 'C':
		if (list__parse(&o->cpus, arg))
			argp_error(state, "bad CPU list '%s'", arg);
		break;
	case 'p':
		if (list__parse(&o->pids, arg))
			argp_error(state, "bad pid list '%s'", arg);
		break;
	case OPT_ORDERED:
		o->ordered = true;
		break;
	case OPT_SYMBOLS:
		o->no_symbols = false;
		break;
	case OPT_NO_SYMBOLS:
		o->no_symbols = true;
		break;
	case OPT_QUEUE_SIZE: {
		bool suffixed;

		if (pm_units__parse_size(arg, &o->queue_size, &suffixed) || !o->queue_size)
			argp_error(state, "bad queue size '%s' (bytes, or a number with K, M or G)",
				   arg);
		break;
	}
	case OPT_FOLDED:
		if (!arg || !strcmp(arg, "count"))
			o->folded = FOLDED_COUNT;
		else if (!strcmp(arg, "period"))
			o->folded = FOLDED_PERIOD;
		else
			argp_error(state, "bad --folded '%s' (count or period)", arg);
		break;
	case ARGP_KEY_END:
		if (o->folded && (o->json || o->stats_only || o->header || o->raw))
			argp_error(state, "--folded is an output format of its own: it excludes "
				   "--json, --stats, --header and --raw");
		if (o->folded && o->no_symbols)
			argp_error(state, "--folded names frames: it excludes --no-symbols");
		break;
	case ARGP_KEY_ARG:
		if (o->input)
			argp_error(state, "only one input file can be given");
		o->input = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp dump_argp = {
	.options = dump_options,
	.parser = dump_parse_opt,
	.args_doc = "[FILE | -]",
	.doc = "Print the records of a perf.data file or stream, one line each.\v"
	       "FILE defaults to pmrec.data, or to stdin when stdin is a pipe; '-' reads "
	       "stdin.  Exit status: 0 ok, 1 malformed input or I/O error, 64 usage error.  "
	       "See pmrec-dump(1) for the output format.",
};

/* --- entry point --------------------------------------------------------- */

static bool stdin_is_pipe(void)
{
	struct stat st;

	return !fstat(STDIN_FILENO, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

static int dump__open(struct dump *d, int *fd)
{
	const char *path = d->opts.input;
	int err;

	*fd = -1;
	if (!path)
		path = stdin_is_pipe() ? "-" : DEFAULT_INPUT;
	if (!strcmp(path, "-")) {
		d->name = "<stdin>";
		err = pm_reader__open_fd(d->r, STDIN_FILENO);
	} else {
		d->name = path;
		*fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*fd < 0) {
			fprintf(stderr, "pmrec dump: cannot open '%s': %s\n", path, strerror(errno));
			return -errno;
		}
		err = pm_reader__open_fd(d->r, *fd);
	}
	if (!err && pm_reader__is_unfinished(d->r))
		fprintf(stderr, "pmrec dump: %s: data size is 0, the recording was not finished; "
			"reading records up to the end of the file\n", d->name);
	if (!err && pm_reader__features_skipped(d->r))
		fprintf(stderr, "pmrec dump: %s: file-mode data from a pipe: header features "
			"(event names, tracepoint formats) are not read\n", d->name);
	return err;
}

static void dump__report(struct dump *d)
{
	const struct pm_reader_error *e = pm_reader__error(d->r);

	if (e)
		fprintf(stderr, "pmrec dump: %s: offset 0x%llx: %s\n", d->name,
			(unsigned long long)e->offset, e->reason);
}

/* Symbols only where addresses are printed. */
static int dump__setup_symbols(struct dump *d)
{
	const struct dump_opts *o = &d->opts;

	if (o->no_symbols || o->header || (o->stats_only && !o->folded))
		return 0;
	d->machine = pm_machine__new();
	if (d->machine && o->folded)
		d->folded = pm_folded__new();
	if (!d->machine || (o->folded && !d->folded)) {
		fprintf(stderr, "pmrec dump: out of memory\n");
		return -ENOMEM;
	}
	if (dump__read_build_ids(d)) {
		fprintf(stderr, "pmrec dump: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

static int dump__run(struct dump *d)
{
	int err, fd;

	err = dump__open(d, &fd);
	if (!err)
		err = dump__setup_symbols(d);
	if (!err && d->opts.header) {
		if (pm_reader__is_pipe(d->r))
			err = dump__scan_pipe_header(d);
		if (!err)
			dump__print_header(d);
	} else if (!err) {
		/* Stats describe what was shown, up to a fault if any. */
		err = dump__records(d);
		if (d->folded)
			dump__print_folded(d);
		else if (!d->out.err)
			stats__print(d);
		if (d->machine && pm_machine__overloaded(d->machine))
			dump__warn(d, "too many mappings for the input's size: addresses after that "
				   "point are not named");
	}
	out__flush(&d->out);
	if (err)
		dump__report(d);
	if (fd >= 0)
		close(fd);
	if (d->out.err && d->out.err != EPIPE) {
		fprintf(stderr, "pmrec dump: write error: %s\n", strerror(d->out.err));
		return PM_EXIT_FAILURE;
	}
	return err ? PM_EXIT_FAILURE : PM_EXIT_OK;
}

int cmd_dump(int argc, char **argv)
{
	struct dump d = {
		.out = { .fd = STDOUT_FILENO, .cap = OUT_BUF_SIZE },
		.opts.queue_size = 256 << 20,
	};
	int ret;

	if (argp_parse(&dump_argp, argc, argv, 0, NULL, &d.opts))
		return PM_EXIT_USAGE;
	d.json = d.opts.json;
	/*
	 * A sample is named through the mappings that precede it in time, and
	 * the rings of different CPUs interleave in the file: symbols need
	 * time order.
	 */
	if (!d.opts.no_symbols && !d.opts.header && !(d.opts.stats_only && !d.opts.folded))
		d.opts.ordered = true;
	/* A closed stdout (`| head`) ends the dump quietly, not by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	d.out.buf = malloc(d.out.cap);
	d.r = pm_reader__new();
	if (!d.out.buf || !d.r) {
		fprintf(stderr, "pmrec dump: out of memory\n");
		free(d.out.buf);
		pm_reader__delete(d.r);
		return PM_EXIT_FAILURE;
	}
	ret = dump__run(&d);
	pm_machine__delete(d.machine);
	pm_folded__delete(d.folded);
	pm_buf__exit(&d.stack);
	free(d.chain);
	pm_reader__delete(d.r);
	free(d.out.buf);
	free(d.stats.by_evsel);
	free(d.opts.cpus.r);
	free(d.opts.pids.r);
	return ret;
}
