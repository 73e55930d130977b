// SPDX-License-Identifier: GPL-2.0
#include <byteswap.h>
#include <errno.h>
#include <string.h>

#include "base/file.h"
#include "symbols/jitdump.h"

/* Fixed parts of the records after their 16-byte prefix. */
#define LOAD_FIXED 40
#define MOVE_FIXED 48
#define DEBUG_FIXED 16
#define UNWIND_FIXED 24
#define LINE_FIXED 16

static int jitdump__fail(struct pm_jitdump *j, uint64_t offset, const char *why)
{
	j->err = (struct pm_jitdump_error){ .offset = offset, .why = why };
	return -EBADMSG;
}

static uint32_t get32(const struct pm_jitdump *j, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return j->swap ? bswap_32(v) : v;
}

static uint64_t get64(const struct pm_jitdump *j, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return j->swap ? bswap_64(v) : v;
}

int pm_jitdump__init(struct pm_jitdump *j, const void *p, size_t len)
{
	const unsigned char *b = p;
	uint32_t magic;

	*j = (struct pm_jitdump){ .p = p, .len = len };
	if (len < PM_JITDUMP_HEADER_SIZE)
		return jitdump__fail(j, 0, "shorter than a jitdump header (40 bytes)");
	memcpy(&magic, b, sizeof(magic));
	if (magic == bswap_32(PM_JITDUMP_MAGIC))
		j->swap = true;
	else if (magic != PM_JITDUMP_MAGIC)
		return jitdump__fail(j, 0, "not a jitdump file (bad magic)");
	j->h = (struct pm_jitdump_header){
		.version = get32(j, b + 4),
		.total_size = get32(j, b + 8),
		.elf_mach = get32(j, b + 12),
		.pid = get32(j, b + 20),
		.timestamp = get64(j, b + 24),
		.flags = get64(j, b + 32),
	};
	if (!j->h.version)
		return jitdump__fail(j, 4, "version 0");
	if (j->h.total_size < PM_JITDUMP_HEADER_SIZE)
		return jitdump__fail(j, 8, "header size below 40 bytes");
	if (j->h.total_size > len)
		return jitdump__fail(j, 8, "header size beyond the end of the file");
	/* As perf: flags it does not know mean a format it cannot read. */
	if (j->h.flags & ~PM_JITDUMP_FLAG_ARCH_TIMESTAMP)
		return jitdump__fail(j, 32, "unknown header flags");
	j->pos = j->h.total_size;
	return 0;
}

/* The NUL-terminated string at p, within end: its length, or -1 without a NUL. */
static long cstring_len(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *nul = memchr(p, '\0', (size_t)(end - p));

	return nul ? nul - p : -1;
}

static int jitdump__load(struct pm_jitdump *j, struct pm_jitdump_rec *r, const unsigned char *b)
{
	const unsigned char *body = b + PM_JITDUMP_PREFIX_SIZE, *end = b + r->size;
	long name_len;

	if (r->size < PM_JITDUMP_PREFIX_SIZE + LOAD_FIXED + 1)
		return jitdump__fail(j, r->offset + 4, "code load record too short");
	r->load.pid = get32(j, body);
	r->load.tid = get32(j, body + 4);
	r->load.vma = get64(j, body + 8);
	r->load.code_addr = get64(j, body + 16);
	r->load.code_size = get64(j, body + 24);
	r->load.code_index = get64(j, body + 32);
	/* The code ends the record: the name lies between the fixed part and it. */
	if (r->load.code_size > (uint64_t)(r->size - PM_JITDUMP_PREFIX_SIZE - LOAD_FIXED - 1))
		return jitdump__fail(j, r->offset + PM_JITDUMP_PREFIX_SIZE + 24,
				     "code size beyond the record");
	if (!r->load.code_size)
		return jitdump__fail(j, r->offset + PM_JITDUMP_PREFIX_SIZE + 24, "code size 0");
	if (r->load.code_addr + r->load.code_size < r->load.code_addr)
		return jitdump__fail(j, r->offset + PM_JITDUMP_PREFIX_SIZE + 16,
				     "code range wraps around");
	r->load.code = end - r->load.code_size;
	name_len = cstring_len(body + LOAD_FIXED, r->load.code);
	if (name_len < 0)
		return jitdump__fail(j, r->offset + PM_JITDUMP_PREFIX_SIZE + LOAD_FIXED,
				     "code load name not terminated before the code");
	r->load.name = (const char *)body + LOAD_FIXED;
	r->load.name_len = (size_t)name_len;
	return 0;
}

static int jitdump__move(struct pm_jitdump *j, struct pm_jitdump_rec *r, const unsigned char *b)
{
	const unsigned char *body = b + PM_JITDUMP_PREFIX_SIZE;

	if (r->size < PM_JITDUMP_PREFIX_SIZE + MOVE_FIXED)
		return jitdump__fail(j, r->offset + 4, "code move record too short");
	r->move.pid = get32(j, body);
	r->move.tid = get32(j, body + 4);
	r->move.vma = get64(j, body + 8);
	r->move.old_addr = get64(j, body + 16);
	r->move.new_addr = get64(j, body + 24);
	r->move.code_size = get64(j, body + 32);
	r->move.code_index = get64(j, body + 40);
	if (!r->move.code_size || r->move.new_addr + r->move.code_size < r->move.new_addr)
		return jitdump__fail(j, r->offset + PM_JITDUMP_PREFIX_SIZE + 32,
				     "code move size 0 or wrapping around");
	return 0;
}

static int jitdump__debug(struct pm_jitdump *j, struct pm_jitdump_rec *r, const unsigned char *b)
{
	const unsigned char *body = b + PM_JITDUMP_PREFIX_SIZE;

	if (r->size < PM_JITDUMP_PREFIX_SIZE + DEBUG_FIXED)
		return jitdump__fail(j, r->offset + 4, "debug info record too short");
	r->debug.code_addr = get64(j, body);
	r->debug.nr_entry = get64(j, body + 8);
	r->debug.entries = body + DEBUG_FIXED;
	r->debug.entries_len = r->size - PM_JITDUMP_PREFIX_SIZE - DEBUG_FIXED;
	/* Each entry takes 17 bytes at least: a count beyond that cannot be. */
	if (r->debug.nr_entry > r->debug.entries_len / (LINE_FIXED + 1))
		return jitdump__fail(j, r->offset + PM_JITDUMP_PREFIX_SIZE + 8,
				     "more debug entries than the record holds");
	return 0;
}

static int jitdump__unwind(struct pm_jitdump *j, struct pm_jitdump_rec *r, const unsigned char *b)
{
	const unsigned char *body = b + PM_JITDUMP_PREFIX_SIZE;
	uint64_t room;

	if (r->size < PM_JITDUMP_PREFIX_SIZE + UNWIND_FIXED)
		return jitdump__fail(j, r->offset + 4, "unwinding info record too short");
	r->unwind.unwinding_size = get64(j, body);
	r->unwind.eh_frame_hdr_size = get64(j, body + 8);
	r->unwind.mapped_size = get64(j, body + 16);
	r->unwind.data = body + UNWIND_FIXED;
	room = r->size - PM_JITDUMP_PREFIX_SIZE - UNWIND_FIXED;
	if (r->unwind.unwinding_size > room)
		return jitdump__fail(j, r->offset + PM_JITDUMP_PREFIX_SIZE,
				     "unwinding data beyond the record");
	if (r->unwind.eh_frame_hdr_size > r->unwind.unwinding_size)
		return jitdump__fail(j, r->offset + PM_JITDUMP_PREFIX_SIZE + 8,
				     "eh_frame_hdr larger than the unwinding data");
	return 0;
}

void pm_jitdump__window(struct pm_jitdump *j, const void *p, size_t len, uint64_t base)
{
	j->p = p;
	j->len = len;
	j->pos = 0;
	j->base = base;
}

uint32_t pm_jitdump__size_at(const struct pm_jitdump *j, const void *prefix)
{
	return get32(j, (const unsigned char *)prefix + 4);
}

int pm_jitdump__next(struct pm_jitdump *j, struct pm_jitdump_rec *r)
{
	const unsigned char *b;
	int err;

	for (;;) {
		if (j->err.why)
			return -EBADMSG;
		if (j->pos == j->len)
			return 0;
		b = j->p + j->pos;
		*r = (struct pm_jitdump_rec){ .offset = j->base + j->pos };
		if (j->len - j->pos < PM_JITDUMP_PREFIX_SIZE)
			return jitdump__fail(j, r->offset, "record header cut by the end of the file");
		r->type = get32(j, b);
		r->size = get32(j, b + 4);
		r->time = get64(j, b + 8);
		if (r->size < PM_JITDUMP_PREFIX_SIZE)
			return jitdump__fail(j, r->offset + 4, "record size below 16 bytes");
		if (r->size > j->len - j->pos)
			return jitdump__fail(j, r->offset + 4, "record runs past the end of the file");
		switch (r->type) {
		case PM_JIT_CODE_LOAD:
			err = jitdump__load(j, r, b);
			break;
		case PM_JIT_CODE_MOVE:
			err = jitdump__move(j, r, b);
			break;
		case PM_JIT_CODE_DEBUG_INFO:
			err = jitdump__debug(j, r, b);
			break;
		case PM_JIT_CODE_UNWINDING_INFO:
			err = jitdump__unwind(j, r, b);
			break;
		case PM_JIT_CODE_CLOSE:
			err = 0;
			break;
		default:
			j->skipped++;
			j->pos += r->size;
			continue;
		}
		if (err)
			return err;
		j->pos += r->size;
		return 1;
	}
}

int pm_jitdump__next_line(struct pm_jitdump *j, const struct pm_jitdump_rec *r, uint64_t *idx,
			  size_t *pos, struct pm_jitdump_line *line)
{
	const unsigned char *p = r->debug.entries + *pos, *end = r->debug.entries + r->debug.entries_len;
	uint64_t at = r->offset + PM_JITDUMP_PREFIX_SIZE + DEBUG_FIXED + *pos;
	long n;

	if (*idx >= r->debug.nr_entry)
		return 0;
	if ((size_t)(end - p) < LINE_FIXED + 1)
		return jitdump__fail(j, at, "debug entry runs past its record");
	line->addr = get64(j, p);
	line->line = (int32_t)get32(j, p + 8);
	line->discrim = (int32_t)get32(j, p + 12);
	n = cstring_len(p + LINE_FIXED, end);
	if (n < 0)
		return jitdump__fail(j, at + LINE_FIXED, "debug entry file name not terminated");
	/* "\xff": the file of the entry before (none before the first). */
	if (n == 1 && p[LINE_FIXED] == 0xff) {
		if (!*idx)
			return jitdump__fail(j, at + LINE_FIXED, "first debug entry refers to a previous file");
	} else {
		line->file = (const char *)p + LINE_FIXED;
		line->file_len = (size_t)n;
	}
	*pos += LINE_FIXED + (size_t)n + 1;
	(*idx)++;
	return 1;
}

int32_t pm_jitdump__marker_pid(const char *path)
{
	const char *base = pm_path__base(path), *p;
	int64_t pid = 0;

	if (strncmp(base, "jit-", 4))
		return -1;
	for (p = base + 4; *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > INT32_MAX)
			return -1;
	}
	if (p == base + 4 || strcmp(p, ".dump"))
		return -1;
	return (int32_t)pid;
}
