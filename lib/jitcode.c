// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "hashtab.h"
#include "jitcode.h"

/* A load or a move, until it is added; strings are offsets in c->strings. */
struct jit_load {
	uint64_t time, seq;		/* seq: file order among equal times */
	uint64_t start, size;
	int32_t pid;
	uint32_t line;
	size_t name_off, name_len, src_off, src_len, dso_off;
	bool has_src;
};

struct pm_jitcode {
	struct pm_jitsyms *t;
	struct jit_load *loads;		/* [next, nr): timed, not added yet */
	size_t nr, cap, next;
	bool unsorted;			/* loads appended since the last sort */
	uint64_t seq, now;		/* the time advanced to */
	struct pm_buf strings;
};

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
	pm_buf__exit(&c->strings);
	free(c);
}

static int jitcode__string(struct pm_jitcode *c, const void *p, size_t n, size_t *off)
{
	*off = c->strings.len;
	return pm_buf__append(&c->strings, p, n);
}

static struct jit_load *jitcode__push(struct pm_jitcode *c)
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
	src->len = best.file_len;
	return jitcode__string(c, best.file, best.file_len, &src->off);
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
	l->name_len = r->load.name_len;
	err = jitcode__string(c, r->load.name, r->load.name_len, &l->name_off);
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

/* Every record of the file as pending loads, from index c->nr on. */
static int jitcode__parse(struct pm_jitcode *c, struct pm_jitdump *j, int32_t pid, size_t dso_off,
			  struct pm_jitcode_stats *st)
{
	struct pending_src src = { 0 };
	struct pm_hashtab by_index;
	struct pm_jitdump_rec r;
	int err;

	pm_hashtab__init(&by_index, NULL, NULL);
	while ((err = pm_jitdump__next(j, &r)) == 1) {
		err = 0;
		switch (r.type) {
		case PM_JIT_CODE_LOAD:
		case PM_JIT_CODE_MOVE:
			err = jitcode__load(c, &r, pid, dso_off, &src, &by_index);
			if (!err)
				r.type == PM_JIT_CODE_LOAD ? st->loads++ : st->moves++;
			break;
		case PM_JIT_CODE_DEBUG_INFO:
			err = jitcode__debug(c, j, &r, &src, st);
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
	pm_hashtab__exit(&by_index);
	st->skipped = j->skipped;
	if (err == -E2BIG) {
		st->truncated = true;
		return 0;
	}
	if (err == -EBADMSG) {
		st->bad = true;
		st->err = j->err;
		return 0;
	}
	return err;
}

/* Up to PM_JITCODE_MAX_BYTES of fd; the file may still grow: its size now is what is read. */
static int jitcode__slurp(int fd, unsigned char **buf, size_t *len, bool *truncated)
{
	struct stat sb;
	size_t want, got = 0;
	ssize_t n;

	if (fstat(fd, &sb))
		return -errno;
	want = (uint64_t)sb.st_size > PM_JITCODE_MAX_BYTES ? PM_JITCODE_MAX_BYTES :
							     (size_t)sb.st_size;
	*truncated = (uint64_t)sb.st_size > PM_JITCODE_MAX_BYTES;
	*buf = malloc(want ? want : 1);
	if (!*buf)
		return -ENOMEM;
	while (got < want) {
		n = pread(fd, *buf + got, want - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(*buf);
			return -errno;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	*len = got;
	return 0;
}

static int load__cmp(const void *a, const void *b)
{
	const struct jit_load *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int pm_jitcode__read(struct pm_jitcode *c, int fd, int32_t pid, const char *dso, bool timed,
		     struct pm_jitcode_stats *st)
{
	size_t first = c->nr, strings = c->strings.len, len = 0, dso_off, i;
	struct pm_jitdump j;
	unsigned char *buf = NULL;
	int err;

	*st = (struct pm_jitcode_stats){ 0 };
	err = jitcode__slurp(fd, &buf, &len, &st->truncated);
	if (err)
		return err;
	if (pm_jitdump__init(&j, buf, len)) {
		st->bad = true;
		st->err = j.err;
		free(buf);
		return 0;
	}
	st->arch_time = j.h.flags & PM_JITDUMP_FLAG_ARCH_TIMESTAMP;
	timed = timed && !st->arch_time;
	err = jitcode__string(c, dso, strlen(dso) + 1, &dso_off);
	if (!err)
		err = jitcode__parse(c, &j, pid, dso_off, st);
	free(buf);
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

int pm_jitcode__advance(struct pm_jitcode *c, uint64_t time)
{
	int err = 0;

	if (time > c->now)
		c->now = time;
	if (c->next == c->nr)
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
