// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "buf.h"
#include "buildid.h"
#include "dso.h"
#include "elf.h"
#include "perf_data.h"
#include "record_body.h"

struct bid_entry {
	uint64_t hash;
	uint16_t cpumode;
	uint8_t len;
	unsigned char id[PM_BUILD_ID_SIZE];
	char *path;
};

struct bid_file {
	uint64_t hash;
	struct pm_dso *dso;
};

/* Open addressing: slot holds index + 1 of an entry or file, 0 when free. */
struct bid_table {
	uint32_t *slot;
	size_t mask;
};

struct pm_build_ids {
	struct bid_entry *entries;
	size_t nr_entries, cap_entries;
	struct bid_table entry_tab;
	struct bid_file *files;
	size_t nr_files, cap_files;
	struct bid_table file_tab;
	struct pm_dso_cache *cache;
};

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

#define FNV_SEED 0xcbf29ce484222325ULL

struct pm_build_ids *pm_build_ids__new(void)
{
	struct pm_build_ids *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->cache = pm_dso_cache__new();
	if (!b->cache) {
		free(b);
		return NULL;
	}
	return b;
}

void pm_build_ids__delete(struct pm_build_ids *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nr_entries; i++)
		free(b->entries[i].path);
	free(b->entries);
	free(b->entry_tab.slot);
	free(b->files);
	free(b->file_tab.slot);
	pm_dso_cache__delete(b->cache);
	free(b);
}

/*
 * Makes room for item nr (hashes[i] at stride apart give the existing
 * items' hashes) so the table stays at most half full.
 */
static int bid_table__reserve(struct bid_table *t, size_t nr, const void *items,
			      size_t stride)
{
	size_t cap = t->slot ? t->mask + 1 : 0, ncap, i;
	uint32_t *ns;

	if ((nr + 1) * 2 <= cap)
		return 0;
	if (nr >= UINT32_MAX / 2)
		return -ENOMEM;
	ncap = cap ? cap * 2 : 64;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		uint64_t h = *(const uint64_t *)((const char *)items + i * stride);
		size_t s = h & (ncap - 1);

		while (ns[s])
			s = (s + 1) & (ncap - 1);
		ns[s] = (uint32_t)(i + 1);
	}
	free(t->slot);
	t->slot = ns;
	t->mask = ncap - 1;
	return 0;
}

int pm_build_ids__add(struct pm_build_ids *b, uint16_t cpumode, const char *path,
		      const unsigned char *id, size_t len)
{
	struct bid_entry *e;
	uint64_t h;
	size_t s;
	int err;

	if (!len)
		return 0;
	if (len > PM_BUILD_ID_SIZE)
		len = PM_BUILD_ID_SIZE;
	h = fnv1a(id, len, fnv1a(path, strlen(path), FNV_SEED));
	err = bid_table__reserve(&b->entry_tab, b->nr_entries, b->entries, sizeof(*e));
	if (!err)
		err = pm_array__grow((void **)&b->entries, &b->cap_entries, b->nr_entries, sizeof(*e));
	if (err)
		return err;
	for (s = h & b->entry_tab.mask; b->entry_tab.slot[s]; s = (s + 1) & b->entry_tab.mask) {
		e = &b->entries[b->entry_tab.slot[s] - 1];
		if (e->hash == h && e->len == len && !memcmp(e->id, id, len) &&
		    !strcmp(e->path, path))
			return 0;
	}
	e = &b->entries[b->nr_entries];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	e->hash = h;
	e->cpumode = cpumode;
	e->len = (uint8_t)len;
	memcpy(e->id, id, len);
	b->entry_tab.slot[s] = (uint32_t)++b->nr_entries;
	return 0;
}

/* Only real files have build ids: not "[vdso]", "//anon" or "/memfd:x (deleted)". */
static bool is_file_path(const char *path)
{
	size_t n = strlen(path);

	return path[0] == '/' && !(n > 10 && !strcmp(path + n - 10, " (deleted)"));
}

int pm_build_ids__add_file(struct pm_build_ids *b, const char *path, uint64_t dev,
			   uint64_t ino)
{
	struct pm_dso *dso;
	struct bid_file *f;
	uint64_t h;
	size_t s;
	int err;

	if (!is_file_path(path) || !ino)
		return 0;
	dso = pm_dso_cache__findnew(b->cache, path, dev, ino);
	if (!dso)
		return -errno;
	h = fnv1a(&dso, sizeof(dso), FNV_SEED);
	err = bid_table__reserve(&b->file_tab, b->nr_files, b->files, sizeof(*f));
	if (!err)
		err = pm_array__grow((void **)&b->files, &b->cap_files, b->nr_files, sizeof(*f));
	if (err)
		return err;
	for (s = h & b->file_tab.mask; b->file_tab.slot[s]; s = (s + 1) & b->file_tab.mask)
		if (b->files[b->file_tab.slot[s] - 1].dso == dso)
			return 0;
	b->files[b->nr_files] = (struct bid_file){ .hash = h, .dso = dso };
	b->file_tab.slot[s] = (uint32_t)++b->nr_files;
	return 0;
}


int pm_build_ids__add_event(struct pm_build_ids *b, const struct perf_event_header *h)
{
	struct pm_mmap_body mb;
	char path[4096];
	size_t n;

	/* The whole body: the name is NUL-terminated, a sample_id trailer may follow. */
	if (h->type != PERF_RECORD_MMAP2 || h->size < sizeof(*h) ||
	    pm_mmap_body__decode(h, h->size - sizeof(*h), &mb))
		return 0;
	n = strnlen(mb.filename, mb.filename_max);
	if (n == mb.filename_max || n >= sizeof(path))
		return 0;
	memcpy(path, mb.filename, n + 1);
	if (!is_file_path(path))
		return 0;
	if (mb.has_build_id)
		return pm_build_ids__add(b, PERF_RECORD_MISC_USER, path, mb.build_id,
					 mb.build_id_len);
	return pm_build_ids__add_file(b, path, makedev(mb.maj, mb.min), mb.ino);
}

int pm_build_ids__add_events(struct pm_build_ids *b, const void *buf, size_t len)
{
	size_t off = 0;
	int err = 0;

	while (!err && off + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)((const char *)buf + off);

		if (h->size < sizeof(*h) || h->size > len - off)
			return -EINVAL;
		err = pm_build_ids__add_event(b, h);
		off += h->size;
	}
	return err;
}

int pm_build_ids__write(struct pm_build_ids *b, struct pm_buf *out, uint32_t type)
{
	size_t i;
	int err;

	/* Files go into the entry set, where an id the kernel gave meets it. */
	for (i = 0; i < b->nr_files; i++) {
		const unsigned char *id;
		size_t len;

		if (pm_dso__build_id(b->files[i].dso, &id, &len))
			continue;
		err = pm_build_ids__add(b, PERF_RECORD_MISC_USER, pm_dso__path(b->files[i].dso),
					id, len);
		if (err)
			return err;
	}
	for (i = 0; i < b->nr_entries; i++) {
		const struct bid_entry *e = &b->entries[i];

		err = pm_build_id_entry__append(out, type, e->cpumode, e->id, e->len, e->path);
		if (err)
			return err;
	}
	return 0;
}
