// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "format/perf_data.h"
#include "base/unaligned.h"
#include "format/record_body.h"

#define BID_NAME_ALIGN 64

int pm_mmap_body__decode(const struct perf_event_header *h, size_t body_len,
			 struct pm_mmap_body *m)
{
	const unsigned char *b = (const unsigned char *)h + sizeof(*h);
	size_t fixed;

	*m = (struct pm_mmap_body){ .v2 = h->type == PERF_RECORD_MMAP2 };
	fixed = m->v2 ? PM_MMAP2_BODY_SIZE : PM_MMAP_BODY_SIZE;
	if (body_len < fixed)
		return -EBADMSG;
	m->pid = (int32_t)rd32(b, 0);
	m->tid = (int32_t)rd32(b, 4);
	m->addr = rd64(b, 8);
	m->len = rd64(b, 16);
	m->pgoff = rd64(b, 24);
	m->filename = (const char *)b + fixed;
	m->filename_max = body_len - fixed;
	if (!m->v2)
		return 0;
	if (pm_mmap2__has_build_id(h)) {
		m->has_build_id = true;
		m->build_id_len = b[32];
		m->build_id = b + 36;
	} else {
		m->maj = rd32(b, 32);
		m->min = rd32(b, 36);
		m->ino = rd64(b, 40);
		m->ino_generation = rd64(b, 48);
	}
	m->prot = rd32(b, 56);
	m->flags = rd32(b, 60);
	return 0;
}

int pm_comm_body__decode(const struct perf_event_header *h, size_t body_len,
			 struct pm_comm_body *c)
{
	const unsigned char *b = (const unsigned char *)h + sizeof(*h);

	if (body_len < 8)
		return -EBADMSG;
	c->pid = (int32_t)rd32(b, 0);
	c->tid = (int32_t)rd32(b, 4);
	c->comm = (const char *)b + 8;
	c->comm_max = body_len - 8;
	return 0;
}

int pm_fork_body__decode(const struct perf_event_header *h, size_t body_len,
			 struct pm_fork_body *f)
{
	const unsigned char *b = (const unsigned char *)h + sizeof(*h);

	if (body_len < 24)
		return -EBADMSG;
	f->pid = (int32_t)rd32(b, 0);
	f->ppid = (int32_t)rd32(b, 4);
	f->tid = (int32_t)rd32(b, 8);
	f->ptid = (int32_t)rd32(b, 12);
	f->time = rd64(b, 16);
	return 0;
}

int pm_lost_body__decode(const struct perf_event_header *h, size_t body_len, uint64_t *id,
			 uint64_t *lost)
{
	const unsigned char *b = (const unsigned char *)h + sizeof(*h);

	if (h->type == PERF_RECORD_LOST_SAMPLES && body_len >= 8) {
		*id = 0;
		*lost = rd64(b, 0);
		return 0;
	}
	if (h->type == PERF_RECORD_LOST && body_len >= 16) {
		*id = rd64(b, 0);
		*lost = rd64(b, 8);
		return 0;
	}
	return -EBADMSG;
}

int pm_build_id_entry__decode(const void *p, size_t size, struct pm_build_id_entry *e)
{
	const unsigned char *b = p;

	if (size < PM_BUILD_ID_ENTRY_HEAD)
		return -EBADMSG;
	e->misc = rd16(b, 4);
	e->cpumode = e->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	e->pid = (int32_t)rd32(b, 8);
	e->id = b + 12;
	e->id_len = (e->misc & PM_BUILD_ID_MISC_SIZE) && b[32] <= PM_BUILD_ID_SIZE ? b[32] :
										 PM_BUILD_ID_SIZE;
	e->filename = (const char *)b + PM_BUILD_ID_ENTRY_HEAD;
	e->filename_max = size - PM_BUILD_ID_ENTRY_HEAD;
	return 0;
}

int pm_build_id_entry__next(struct pm_cursor *c, struct pm_build_id_entry *e)
{
	const void *p;
	uint16_t size;

	if (!pm_cursor__left(c))
		return 0;
	if (pm_cursor__left(c) < PM_BUILD_ID_ENTRY_HEAD)
		return -EBADMSG;
	size = rd16(c->p + c->pos, 6);
	if (size < PM_BUILD_ID_ENTRY_MIN || pm_cursor__bytes(c, size, &p))
		return -EBADMSG;
	pm_build_id_entry__decode(p, size, e);
	return 1;
}

int pm_build_id_entry__append(struct pm_buf *out, uint32_t type, uint16_t cpumode,
			      const unsigned char *id, size_t id_len, const char *path)
{
	size_t name = strlen(path) + 1;
	size_t size = PM_BUILD_ID_ENTRY_HEAD +
		      (name + BID_NAME_ALIGN - 1) / BID_NAME_ALIGN * BID_NAME_ALIGN;
	uint16_t misc = cpumode | PM_BUILD_ID_MISC_SIZE, size16 = (uint16_t)size;
	int32_t pid = -1;
	unsigned char *p;

	if (size > UINT16_MAX)
		return 0;
	if (id_len > PM_BUILD_ID_SIZE)
		id_len = PM_BUILD_ID_SIZE;
	p = pm_buf__alloc(out, size);
	if (!p)
		return -ENOMEM;
	memcpy(p, &type, 4);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &size16, 2);
	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, id, id_len);
	p[32] = (unsigned char)id_len;
	memcpy(p + PM_BUILD_ID_ENTRY_HEAD, path, name);
	return 0;
}
