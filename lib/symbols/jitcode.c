// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hashtab.h"
#include "symbols/jitcode.h"
#include "symbols/jitcode_int.h"
#include "symbols/symname.h"

/* The source the last CODE_DEBUG_INFO gave, for the CODE_LOAD after it. */
struct pending_src {
	bool set;
	uint64_t code_addr;
	size_t off, len;
	uint32_t line;
};

struct pm_jitcode *pm_jitcode__new(struct pm_jitsyms *t)
{
	struct pm_jitcode *c = calloc(1, sizeof(*c));

	if (c)
		c->t = t;
	return c;
}

void pm_jitcode__delete(struct pm_jitcode *c)
{
	if (!c)
		return;
	free(c->loads);
	free(c->files);
	pm_buf__exit(&c->strings);
	free(c);
}

int jitcode__string(struct pm_jitcode *c, const void *p, size_t n, size_t *off)
{
	/* The recorder's copy holds what the table would: as many bytes of names. */
	if (c->hold && c->strings.len + n > PM_JITSYM_MAX_BYTES)
		return -E2BIG;
	*off = c->strings.len;
	return pm_buf__append(&c->strings, p, n);
}

struct jit_load *jitcode__push(struct pm_jitcode *c)
{
	struct jit_load *n;

	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;

		n = realloc(c->loads, cap * sizeof(*n));
		if (!n)
			return NULL;
		c->loads = n;
		c->cap = cap;
	}
	n = &c->loads[c->nr++];
	*n = (struct jit_load){ .seq = c->seq++ };
	return n;
}

static int jitcode__add(struct pm_jitcode *c, const struct jit_load *l)
{
	const char *s = (const char *)c->strings.data;

	return pm_jitsyms__add(c->t, &(struct pm_jitsym_add){
		.pid = l->pid,
		.start = l->start,
		.size = l->size,
		.name = s + l->name_off,
		.name_len = l->name_len,
		.src = l->has_src ? s + l->src_off : NULL,
		.src_len = l->src_len,
		.line = l->line,
		.dso = s + l->dso_off,
	});
}

/* The line for the code's first address: the last entry at or before it, else the first. */
static int jitcode__debug(struct pm_jitcode *c, struct pm_jitdump *j,
			  const struct pm_jitdump_rec *r, struct pending_src *src,
			  struct pm_jitcode_stats *st)
{
	struct pm_jitdump_line line = { 0 }, best = { 0 };
	uint64_t idx = 0;
	size_t pos = 0;
	bool found = false;
	int err;

	while ((err = pm_jitdump__next_line(j, r, &idx, &pos, &line)) == 1) {
		st->lines++;
		if (!found || (line.addr <= r->debug.code_addr && line.addr >= best.addr))
			best = line;
		found = true;
	}
	*src = (struct pending_src){ 0 };
	if (err || !found)
		return err;
	src->set = true;
	src->code_addr = r->debug.code_addr;
	src->line = best.line > 0 ? (uint32_t)best.line : 0;
	src->len = best.file_len < NAME_KEEP ? best.file_len : NAME_KEEP;
	return jitcode__string(c, best.file, src->len, &src->off);
}

/* A CODE_LOAD or CODE_MOVE as a pending load; the code index table finds a move's name. */
static int jitcode__load(struct pm_jitcode *c, const struct pm_jitdump_rec *r, int32_t pid,
			 size_t dso_off, struct pending_src *src, struct pm_hashtab *by_index)
{
	struct jit_load *l;
	uint64_t first;
	int err;

	if (c->nr >= PM_JITSYM_MAX_ENTRIES)
		return -E2BIG;
	if (r->type == PM_JIT_CODE_MOVE) {
		if (!pm_hashtab__find_int(by_index, r->move.code_index, &first))
			return 0;	/* the code it moves was never loaded: nothing to name */
		l = jitcode__push(c);
		if (!l)
			return -ENOMEM;
		*l = (struct jit_load){ .seq = l->seq, .time = r->time, .start = r->move.new_addr,
					.size = r->move.code_size, .pid = pid };
		/* The name and source of the load it moves (c->loads may have moved: by index). */
		l->name_off = c->loads[first].name_off;
		l->name_len = c->loads[first].name_len;
		l->has_src = c->loads[first].has_src;
		l->src_off = c->loads[first].src_off;
		l->src_len = c->loads[first].src_len;
		l->line = c->loads[first].line;
		l->dso_off = dso_off;
		l->move = true;
		l->ref = first;
		return 0;
	}
	l = jitcode__push(c);
	if (!l)
		return -ENOMEM;
	l->time = r->time;
	l->start = r->load.code_addr;
	l->size = r->load.code_size;
	l->pid = pid;
	l->dso_off = dso_off;
	l->name_len = r->load.name_len < NAME_KEEP ? r->load.name_len : NAME_KEEP;
	err = jitcode__string(c, r->load.name, l->name_len, &l->name_off);
	if (!err && src->set && src->code_addr == r->load.code_addr) {
		l->has_src = true;
		l->src_off = src->off;
		l->src_len = src->len;
		l->line = src->line;
	}
	*src = (struct pending_src){ 0 };
	if (!err) {
		/* A code index loaded again names the code from then on. */
		pm_hashtab__delete_int(by_index, r->load.code_index);
		err = pm_hashtab__insert_int(by_index, r->load.code_index, c->nr - 1);
	}
	return err;
}

/* What a file's records say to the ones after them. */
struct parse_state {
	struct pending_src src;
	struct pm_hashtab by_index;	/* code index -> its load in c->loads */
	int32_t pid;
	size_t dso_off;
};

/* The records of the window j is on, as pending loads. */
static int jitcode__records(struct pm_jitcode *c, struct pm_jitdump *j, struct parse_state *ps,
			    struct pm_jitcode_stats *st)
{
	struct pm_jitdump_rec r;
	int err;

	while ((err = pm_jitdump__next(j, &r)) == 1) {
		err = 0;
		switch (r.type) {
		case PM_JIT_CODE_LOAD:
		case PM_JIT_CODE_MOVE:
			err = jitcode__load(c, &r, ps->pid, ps->dso_off, &ps->src, &ps->by_index);
			if (!err)
				r.type == PM_JIT_CODE_LOAD ? st->loads++ : st->moves++;
			break;
		case PM_JIT_CODE_DEBUG_INFO:
			err = jitcode__debug(c, j, &r, &ps->src, st);
			break;
		case PM_JIT_CODE_UNWINDING_INFO:
			st->unwinding++;
			break;
		default:
			break;
		}
		if (err)
			break;
	}
	return err;
}

/*
 * The file one record at a time, each in buf (grown up to
 * PM_JITCODE_MAX_RECORD), from the end of the header to the file's size
 * now (a runtime may still be appending).
 */
static int jitcode__stream(struct pm_jitcode *c, int fd, uint64_t size, struct pm_jitdump *j,
			   struct parse_state *ps, struct pm_jitcode_stats *st)
{
	unsigned char prefix[PM_JITDUMP_PREFIX_SIZE], *buf = NULL, *n;
	uint64_t off = j->h.total_size;
	size_t cap = 0, len;
	int err = 0;

	while (off < size && !err) {
		len = size - off < sizeof(prefix) ? (size_t)(size - off) : sizeof(prefix);
		err = pm_file__pread_all(fd, prefix, len, off);
		if (err)
			break;
		if (len == sizeof(prefix)) {
			uint32_t rsize = pm_jitdump__size_at(j, prefix);

			if (rsize > PM_JITCODE_MAX_RECORD) {
				j->err = (struct pm_jitdump_error){ .offset = off + 4,
					.why = "record larger than pmrec reads (16 MiB)" };
				err = -EBADMSG;
				break;
			}
			/* A record cut by the end goes to the parser as it is: it says so. */
			len = rsize > size - off ? (size_t)(size - off) : rsize;
			len = len < sizeof(prefix) ? sizeof(prefix) : len;
		}
		if (len > cap) {
			n = realloc(buf, len);
			if (!n) {
				err = -ENOMEM;
				break;
			}
			buf = n;
			cap = len;
		}
		err = pm_file__pread_all(fd, buf, len, off);
		if (err)
			break;
		pm_jitdump__window(j, buf, len, off);
		err = jitcode__records(c, j, ps, st);
		off += len;
	}
	free(buf);
	/* Ending first, the file shrank while read (truncated by its owner): what was read stands. */
	return err == -EIO ? 0 : err;
}

int jitcode__header(int fd, uint64_t size, struct pm_jitdump *j, unsigned char *page)
{
	size_t len = size < 4096 ? (size_t)size : 4096;
	int err = pm_file__pread_all(fd, page, len, 0);

	if (err)
		return err;
	return pm_jitdump__init(j, page, len);
}

static int load__cmp(const void *a, const void *b)
{
	const struct jit_load *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int jitcode__settle(struct pm_jitcode *c, size_t first, size_t strings, bool timed, int err)
{
	size_t i;

	if (err || timed) {
		c->unsorted |= c->nr > first;
		return err ?: pm_jitcode__advance(c, c->now);
	}
	/* Untimed: every load now, in file order; the table keeps its own copies. */
	for (i = first; i < c->nr && !err; i++)
		err = jitcode__add(c, &c->loads[i]);
	c->nr = first;
	c->strings.len = strings;
	return err;
}

/* Keeps the loads read since first as file j (the recorder's copy). */
static int jitcode__hold_file(struct pm_jitcode *c, const struct pm_jitdump *j, int32_t pid,
			      size_t dso_off, size_t first, size_t strings, uint64_t size, int err)
{
	struct jit_file *f;

	if (!err && pm_array__grow((void **)&c->files, &c->cap_files, c->nr_files, sizeof(*f)))
		err = -ENOMEM;
	if (err || c->nr == first) {
		c->nr = first;		/* nothing named, or no room: nothing of it kept */
		c->strings.len = strings;
		return err;
	}
	f = &c->files[c->nr_files++];
	*f = (struct jit_file){ .pid = pid, .hdr_pid = (int32_t)j->h.pid, .stamp = j->h.timestamp,
				.size = size, .dso_off = dso_off,
				.dso_len = strlen((const char *)c->strings.data + dso_off),
				.first = first, .nr = c->nr - first };
	if (j->h.flags & PM_JITDUMP_FLAG_ARCH_TIMESTAMP)
		f->flags |= PM_JITCODE_F_ARCH_TIME;
	return 0;
}

int pm_jitcode__read(struct pm_jitcode *c, int fd, int32_t pid, const char *dso, bool timed,
		     struct pm_jitcode_stats *st)
{
	size_t first = c->nr, strings = c->strings.len;
	struct parse_state ps = { .pid = pid };
	unsigned char page[4096];
	struct pm_jitdump j;
	struct stat sb;
	int err;

	*st = (struct pm_jitcode_stats){ 0 };
	if (fstat(fd, &sb))
		return -errno;
	err = jitcode__header(fd, (uint64_t)sb.st_size, &j, page);
	if (err == -EBADMSG) {
		st->bad = true;
		st->err = j.err;
		return 0;
	}
	if (err)
		return err;
	st->arch_time = j.h.flags & PM_JITDUMP_FLAG_ARCH_TIMESTAMP;
	timed = timed && !st->arch_time;
	pm_hashtab__init(&ps.by_index, NULL, NULL);
	err = jitcode__string(c, dso, strlen(dso) + 1, &ps.dso_off);
	if (!err)
		err = jitcode__stream(c, fd, (uint64_t)sb.st_size, &j, &ps, st);
	pm_hashtab__exit(&ps.by_index);
	st->skipped = j.skipped;
	if (err == -E2BIG) {
		st->truncated = true;
		err = 0;
	} else if (err == -EBADMSG) {
		st->bad = true;
		st->err = j.err;
		err = 0;
	}
	if (c->hold)
		return jitcode__hold_file(c, &j, pid, ps.dso_off, first, strings, (uint64_t)sb.st_size,
					  err);
	return jitcode__settle(c, first, strings, timed, err);
}

int pm_jitcode__advance(struct pm_jitcode *c, uint64_t time)
{
	int err = 0;

	if (time > c->now)
		c->now = time;
	if (c->next == c->nr || c->hold)
		return 0;
	if (c->unsorted) {
		qsort(c->loads + c->next, c->nr - c->next, sizeof(*c->loads), load__cmp);
		c->unsorted = false;
	}
	while (c->next < c->nr && c->loads[c->next].time <= c->now && !err)
		err = jitcode__add(c, &c->loads[c->next++]);
	if (err == -E2BIG)
		c->next = c->nr;
	/* All added: the table has its own copies of the strings. */
	if (c->next == c->nr) {
		c->next = c->nr = 0;
		c->strings.len = 0;
	}
	return err;
}

void pm_jitcode__hold(struct pm_jitcode *c)
{
	c->hold = true;
}

void pm_jitcode__held(const struct pm_jitcode *c, uint64_t *files, uint64_t *loads)
{
	*files = c->nr_files;
	*loads = c->hold ? c->nr : 0;
}
