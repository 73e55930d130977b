// SPDX-License-Identifier: GPL-2.0
/*
 * The JIT symbol table's on-disk format (the feature payload a recording
 * carries): entries written a piece at a time, read whole, in pieces, or
 * lazily (names left in the payload until a lookup needs them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "symbols/jitsym.h"
#include "symbols/jitsym_int.h"

/* The on-disk entry before its strings. */
struct jit_disk {
	uint32_t pid, line;
	uint64_t start, size;
	uint16_t name_len, src_len, dso_len, short_len;
	uint32_t flags, reserved;
};

static size_t disk__len(const struct jit_disk *d)
{
	return (sizeof(*d) + d->name_len + d->src_len + d->dso_len + d->short_len + 7) &
	       ~(size_t)7;
}

int pm_jitsyms__encode(const struct pm_jitsyms *t, size_t *pos, size_t max, struct pm_buf *out)
{
	const char *prev_dso = NULL, *prev_short = NULL;
	size_t start_len = out->len, next = *pos;
	struct pm_jitsym js;
	int32_t pid;

	if (pm_buf__append_u64(out, PM_JITSYM_FORMAT))
		return -ENOMEM;
	while (pm_jitsyms__next(t, &next, &pid, &js)) {
		struct jit_disk d = { .pid = (uint32_t)pid, .line = js.line, .start = js.start,
				      .size = js.size, .name_len = (uint16_t)strlen(js.name) };

		if (js.src) {
			d.flags |= PM_JITSYM_F_SRC;
			d.src_len = (uint16_t)strlen(js.src);
		}
		/* Strings are interned: one dso string is one pointer. */
		if ((js.dso || js.dso_short) && js.dso == prev_dso && js.dso_short == prev_short) {
			d.flags |= PM_JITSYM_F_SAME_DSO;
		} else {
			d.dso_len = js.dso ? (uint16_t)strlen(js.dso) : 0;
			d.short_len = js.dso_short ? (uint16_t)strlen(js.dso_short) : 0;
		}
		if (out->len - start_len + disk__len(&d) > max)
			break;
		if (pm_buf__append(out, &d, sizeof(d)) || pm_buf__append(out, js.name, d.name_len) ||
		    pm_buf__append(out, js.src, d.src_len) || pm_buf__append(out, js.dso, d.dso_len) ||
		    pm_buf__append(out, js.dso_short, d.short_len) || pm_buf__pad(out, 8))
			return -ENOMEM;
		prev_dso = js.dso;
		prev_short = js.dso_short;
		*pos = next;
	}
	return 0;
}

/* A dso string of an entry into buf (DSO_MAX bytes): "" when absent. */
static void disk__dso(char *buf, const char *s, uint16_t len)
{
	memcpy(buf, s, len);
	buf[len] = '\0';
}

/* Where decoding is, from one piece of a payload to the next. */
struct decode_state {
	uint32_t dso, dso_short;	/* the handles of the entry before (SAME_DSO) */
};

/*
 * The whole entries at the start of [b, b + len): *used bytes of them
 * added.  0 (what is left is an entry cut by the piece's end, when more
 * follows: more), -EBADMSG, or what pm_jitsyms__add returns.
 */
static int jitsyms__decode_entries(struct pm_jitsyms *t, struct decode_state *ds,
				   const unsigned char *b, size_t len, bool more, size_t *used,
				   uint64_t base)
{
	char dso[DSO_MAX], dso_short[DSO_MAX];
	size_t pos = 0;
	struct jit_disk d;
	int err;

	for (; pos < len; pos += disk__len(&d)) {
		struct pm_jitsym_add a;
		const char *s;

		if (len - pos < sizeof(d)) {
			*used = pos;
			return more ? 0 : -EBADMSG;
		}
		memcpy(&d, b + pos, sizeof(d));
		if (d.dso_len >= DSO_MAX || d.short_len >= DSO_MAX ||
		    (d.flags & PM_JITSYM_F_SAME_DSO && (d.dso_len || d.short_len)))
			return -EBADMSG;
		if (disk__len(&d) > len - pos) {
			*used = pos;
			return more ? 0 : -EBADMSG;
		}
		s = (const char *)b + pos + sizeof(d);
		a = (struct pm_jitsym_add){
			.pid = (int32_t)d.pid, .start = d.start, .size = d.size, .name = s,
			.src = d.flags & PM_JITSYM_F_SRC ? s + d.name_len : NULL, .line = d.line };
		/* Lazy: the lengths are measured when the strings are read. */
		if (base == UINT64_MAX) {
			a.name_len = strnlen(s, d.name_len);
			a.src_len = strnlen(s + d.name_len, d.src_len);
		}
		/* SAME_DSO: the handles of the entry before, not a string compared again. */
		if (!(d.flags & PM_JITSYM_F_SAME_DSO)) {
			disk__dso(dso, s + d.name_len + d.src_len, d.dso_len);
			disk__dso(dso_short, s + d.name_len + d.src_len + d.dso_len, d.short_len);
			a.dso = dso[0] ? dso : NULL;
			a.dso_short = dso_short[0] ? dso_short : NULL;
			err = jitsyms__add_dsos(t, &a, &ds->dso, &ds->dso_short);
			if (err)
				return err == -EINVAL ? -EBADMSG : err;
		}
		err = jitsyms__add_ent(t, &a, ds->dso, ds->dso_short,
				       base == UINT64_MAX ? UINT64_MAX : base + pos);
		if (err)
			return err == -EINVAL ? -EBADMSG : err;
	}
	*used = pos;
	return 0;
}

int pm_jitsyms__decode(struct pm_jitsyms *t, const void *p, size_t len)
{
	struct decode_state ds = { .dso = NO_STR, .dso_short = NO_STR };
	uint64_t version;
	size_t used;

	if (len < sizeof(version))
		return -EBADMSG;
	memcpy(&version, p, sizeof(version));
	if (version != PM_JITSYM_FORMAT)
		return -EPROTO;
	return jitsyms__decode_entries(t, &ds, (const unsigned char *)p + sizeof(version),
				       len - sizeof(version), false, &used, UINT64_MAX);
}

/* A piece holds any one entry: its fixed part, four strings of at most 64 KiB, padding. */
#define PIECE_SIZE (512u << 10)

/* pm_jitsyms__decode_from; lazy: names left in the payload (read keeps working). */
static int jitsyms__decode_pieces(struct pm_jitsyms *t, uint64_t size, pm_jitsym_read_fn *read,
				  void *arg, bool lazy)
{
	struct decode_state ds = { .dso = NO_STR, .dso_short = NO_STR };
	size_t have = 0, used, n;
	unsigned char *buf;
	uint64_t off = 0;
	int err;

	if (size < sizeof(uint64_t))
		return -EBADMSG;
	buf = malloc(PIECE_SIZE);
	if (!buf)
		return -ENOMEM;
	err = read(arg, 0, buf, sizeof(uint64_t));
	if (!err && memcmp(buf, &(uint64_t){ PM_JITSYM_FORMAT }, sizeof(uint64_t)))
		err = -EPROTO;
	off = sizeof(uint64_t);
	/* Pieces: what the last one left (an entry cut by its end) and what follows it. */
	while (!err && (off < size || have)) {
		n = size - off < PIECE_SIZE - have ? (size_t)(size - off) : PIECE_SIZE - have;
		err = read(arg, off, buf + have, n);
		if (err)
			break;
		off += n;
		have += n;
		/* Lazy names are offsets of 32 bits: a payload past 4 GiB is copied. */
		err = jitsyms__decode_entries(t, &ds, buf, have, off < size, &used,
					      lazy && size < LAZY_STR ? off - have : UINT64_MAX);
		memmove(buf, buf + used, have - used);
		have -= used;
		if (!err && !used && off < size)
			err = -EBADMSG;	/* no whole entry in a full piece */
	}
	free(buf);
	return err;
}

int pm_jitsyms__decode_from(struct pm_jitsyms *t, uint64_t size, pm_jitsym_read_fn *read,
			    void *arg)
{
	return jitsyms__decode_pieces(t, size, read, arg, false);
}

int pm_jitsyms__decode_lazy(struct pm_jitsyms *t, uint64_t size, pm_jitsym_read_fn *read,
			    void *arg)
{
	if (t->lazy_read)
		return -EBUSY;
	t->lazy_read = read;
	t->lazy_arg = arg;
	return jitsyms__decode_pieces(t, size, read, arg, true);
}

/* The lazy entry's strings: its on-disk entry, read again. */
int jitsyms__resolve(struct pm_jitsyms *t, struct jit_ent *e)
{
	uint32_t name = NO_STR, src = NO_STR;
	struct jit_disk d;
	char *buf;
	int err;

	if (e->src != LAZY_STR)
		return 0;
	err = t->lazy_read(t->lazy_arg, e->name, &d, sizeof(d));
	if (err)
		return err;
	buf = malloc((size_t)d.name_len + d.src_len + 1);
	if (!buf)
		return -ENOMEM;
	err = t->lazy_read(t->lazy_arg, e->name + sizeof(d), buf, (size_t)d.name_len + d.src_len);
	if (!err)
		err = jitsyms__intern_name(t, buf, strnlen(buf, d.name_len), &name);
	if (!err && d.flags & PM_JITSYM_F_SRC)
		err = jitsyms__intern_name(t, buf + d.name_len,
					   strnlen(buf + d.name_len, d.src_len), &src);
	free(buf);
	if (!err) {
		e->name = name;
		e->src = src;
	}
	return err;
}
