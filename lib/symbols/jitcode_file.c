// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's copy of the jitdump files it read (a feature payload):
 * the loads held, written out, found again by process and path, and read
 * back in place of a file that is gone or changed.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "symbols/jitcode.h"
#include "symbols/jitcode_int.h"

/* A file's part of the payload before its dso and entries. */
struct copy_file {
	uint32_t pid, flags, hdr_pid, dso_len;
	uint64_t stamp, size, nr;
};

/* An entry before its strings. */
struct copy_entry {
	uint64_t time, start, size;
	uint32_t line, flags;
	uint16_t name_len, src_len;
	uint32_t load;			/* a move's load: its index among the file's entries */
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Entry l of file f; a move names its load by index (its name is not copied again). */
static int copy__put_load(const struct pm_jitcode *c, const struct jit_file *f,
			  const struct jit_load *l, struct pm_buf *out)
{
	const char *s = (const char *)c->strings.data;
	struct copy_entry e = { .time = l->time, .start = l->start, .size = l->size,
				.line = l->line, .name_len = (uint16_t)l->name_len };

	if (l->move) {
		e = (struct copy_entry){ .time = l->time, .start = l->start, .size = l->size,
					 .flags = PM_JITCODE_F_MOVE,
					 .load = (uint32_t)(l->ref - f->first) };
	} else if (l->has_src) {
		e.flags |= PM_JITCODE_F_SRC;
		e.src_len = (uint16_t)l->src_len;
	}
	if (pm_buf__append(out, &e, sizeof(e)) || pm_buf__append(out, s + l->name_off, e.name_len) ||
	    pm_buf__append(out, s + l->src_off, e.src_len) || pm_buf__pad(out, 8))
		return -ENOMEM;
	return 0;
}

int pm_jitcode__encode(const struct pm_jitcode *c, struct pm_buf *out)
{
	size_t i, k;

	if (!c->nr_files)
		return 0;
	if (pm_buf__append_u64(out, PM_JITCODE_FORMAT))
		return -ENOMEM;
	for (i = 0; i < c->nr_files; i++) {
		const struct jit_file *f = &c->files[i];
		struct copy_file h = { .pid = (uint32_t)f->pid, .flags = f->flags,
				       .hdr_pid = (uint32_t)f->hdr_pid, .dso_len = (uint32_t)f->dso_len,
				       .stamp = f->stamp, .size = f->size, .nr = f->nr };

		if (pm_buf__append(out, &h, sizeof(h)) ||
		    pm_buf__append(out, c->strings.data + f->dso_off, f->dso_len) ||
		    pm_buf__pad(out, 8))
			return -ENOMEM;
		for (k = f->first; k < f->first + f->nr; k++)
			if (copy__put_load(c, f, &c->loads[k], out))
				return -ENOMEM;
	}
	return 0;
}

/* The entry at *pos of [p, p + len): its fixed part and strings, *pos moved past it. */
static int copy__entry(const unsigned char *p, size_t len, size_t *pos, struct copy_entry *e,
		       const char **name, const char **src)
{
	size_t n;

	if (len - *pos < sizeof(*e))
		return -EBADMSG;
	memcpy(e, p + *pos, sizeof(*e));
	n = pad8(sizeof(*e) + e->name_len + e->src_len);
	/* A size the table refuses (0, wrapping) is its to refuse, as from the file. */
	if (len - *pos < n)
		return -EBADMSG;
	*name = (const char *)p + *pos + sizeof(*e);
	*src = *name + e->name_len;
	*pos += n;
	return 0;
}

/* The file at *pos of the payload, its entries walked (checked), *pos moved past them. */
static int copy__file(const unsigned char *p, size_t len, size_t *pos, struct pm_jitcode_copy *out)
{
	struct copy_file h;
	struct copy_entry e;
	const char *name, *src;
	size_t start;
	uint64_t i;

	if (len - *pos < sizeof(h))
		return -EBADMSG;
	memcpy(&h, p + *pos, sizeof(h));
	if (h.dso_len >= 4096 || len - *pos - sizeof(h) < pad8(h.dso_len))
		return -EBADMSG;
	*out = (struct pm_jitcode_copy){ .pid = (int32_t)h.pid, .hdr_pid = (int32_t)h.hdr_pid,
					 .flags = h.flags, .stamp = h.stamp, .size = h.size,
					 .nr = h.nr, .dso = (const char *)p + *pos + sizeof(h),
					 .dso_len = h.dso_len };
	*pos += sizeof(h) + pad8(h.dso_len);
	start = *pos;
	/* Each entry is at least its fixed part: nr is bounded by the bytes. */
	for (i = 0; i < h.nr; i++)
		if (copy__entry(p, len, pos, &e, &name, &src))
			return -EBADMSG;
	out->entries = p + start;
	out->entries_len = *pos - start;
	return 0;
}

int pm_jitcode__copy_find(const void *p, size_t len, int32_t pid, const char *dso,
			  struct pm_jitcode_copy *out)
{
	size_t pos = sizeof(uint64_t), dso_len = strlen(dso);
	uint64_t version;

	if (len < sizeof(version) || len % 8)
		return -EBADMSG;
	memcpy(&version, p, sizeof(version));
	if (version != PM_JITCODE_FORMAT)
		return -EPROTO;
	while (pos < len) {
		if (copy__file(p, len, &pos, out))
			return -EBADMSG;
		if (out->pid == pid && out->dso_len == dso_len && !memcmp(out->dso, dso, dso_len))
			return 0;
	}
	return -ENOENT;
}

bool pm_jitcode__copy_matches(const struct pm_jitcode_copy *cp, int fd)
{
	unsigned char page[4096];
	struct pm_jitdump j;
	struct stat sb;

	return !fstat(fd, &sb) && (uint64_t)sb.st_size >= cp->size &&
	       !jitcode__header(fd, (uint64_t)sb.st_size, &j, page) &&
	       j.h.pid == (uint32_t)cp->hdr_pid && j.h.timestamp == cp->stamp;
}

/*
 * Entry i of a copy as a pending load (the file's entries from loads[first]
 * on); a move takes the name and source of the load it names, as the file's
 * reading does.  -EBADMSG: a move of no load before it.
 */
static int copy__push(struct pm_jitcode *c, const struct pm_jitcode_copy *cp, size_t first,
		      uint64_t i, const struct copy_entry *e, const char *name, const char *src,
		      size_t dso_off)
{
	struct jit_load *l, *m;
	int err;

	if (c->nr >= PM_JITSYM_MAX_ENTRIES)
		return -E2BIG;
	if (e->flags & PM_JITCODE_F_MOVE &&
	    (e->load >= i || c->loads[first + e->load].move))
		return -EBADMSG;
	l = jitcode__push(c);
	if (!l)
		return -ENOMEM;
	if (e->flags & PM_JITCODE_F_MOVE) {
		m = &c->loads[first + e->load];
		*l = (struct jit_load){ .seq = l->seq, .time = e->time, .start = e->start,
					.size = e->size, .pid = cp->pid, .line = m->line,
					.name_off = m->name_off, .name_len = m->name_len,
					.src_off = m->src_off, .src_len = m->src_len,
					.has_src = m->has_src, .dso_off = dso_off, .move = true };
		return 0;
	}
	*l = (struct jit_load){ .seq = l->seq, .time = e->time, .start = e->start, .size = e->size,
				.pid = cp->pid, .line = e->line, .name_len = e->name_len,
				.src_len = e->src_len, .dso_off = dso_off,
				.has_src = e->flags & PM_JITCODE_F_SRC,
				.move = e->flags & PM_JITCODE_F_MOVE };
	err = jitcode__string(c, name, e->name_len, &l->name_off);
	if (!err && l->has_src)
		err = jitcode__string(c, src, e->src_len, &l->src_off);
	if (err)
		c->nr--;	/* not a load without its strings */
	return err;
}

int pm_jitcode__read_copy(struct pm_jitcode *c, const struct pm_jitcode_copy *cp, const char *dso,
			  bool timed, struct pm_jitcode_stats *st)
{
	size_t first = c->nr, strings = c->strings.len, pos = 0, dso_off;
	const char *name, *src;
	struct copy_entry e;
	uint64_t i;
	int err;

	*st = (struct pm_jitcode_stats){ .arch_time = cp->flags & PM_JITCODE_F_ARCH_TIME };
	timed = timed && !st->arch_time;
	err = jitcode__string(c, dso, strlen(dso) + 1, &dso_off);
	for (i = 0; i < cp->nr && !err; i++) {
		size_t at = pos;

		if (copy__entry(cp->entries, cp->entries_len, &pos, &e, &name, &src) ||
		    (err = copy__push(c, cp, first, i, &e, name, src, dso_off)) == -EBADMSG) {
			st->bad = true;
			st->err = (struct pm_jitdump_error){ .offset = at,
							     .why = "malformed entry in the copy" };
			err = 0;
			break;
		}
		if (!err)
			e.flags & PM_JITCODE_F_MOVE ? st->moves++ : st->loads++;
	}
	if (err == -E2BIG) {
		st->truncated = true;
		err = 0;
	}
	return jitcode__settle(c, first, strings, timed, err);
}

int pm_jitcode__read_either(struct pm_jitcode *c, int fd, const struct pm_jitcode_copy *cp,
			    int32_t pid, const char *path, bool timed, struct pm_jitcode_stats *st,
			    const char **why)
{
	static const char *const reason[] = { "the file is gone", "the file is not read",
					      "the file at its path is another one" };

	*why = NULL;
	if (fd >= 0 && (!cp || pm_jitcode__copy_matches(cp, fd)))
		return pm_jitcode__read(c, fd, pid, path, timed, st);
	if (!cp)
		return fd;
	*why = reason[fd == -ENOENT ? 0 : fd < 0 ? 1 : 2];
	return pm_jitcode__read_copy(c, cp, path, timed, st);
}
