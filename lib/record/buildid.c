// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/buf.h"
#include "record/buildid.h"
#include "record/filecap.h"
#include "symbols/dso.h"
#include "symbols/elf.h"
#include "symbols/vdso.h"
#include "base/hashtab.h"
#include "format/perf_data.h"
#include "format/record_body.h"

struct bid_entry {
	uint16_t cpumode;
	uint8_t len;
	unsigned char id[PM_BUILD_ID_SIZE];
	char *path;
};

struct bid_file {
	struct pm_dso *dso;
	/* The last mapping seen of it, to ask its process for it at the end. */
	int32_t pid;
	uint64_t start, len, dev, ino;
	bool user_exec;			/* a user mapping of code: what report names */
	enum pm_filecap_verdict where;
};

/* Entries and files in the order added (the order written); the tables find them. */
struct pm_build_ids {
	struct bid_entry *entries;
	size_t nr_entries, cap_entries;
	struct pm_hashtab entry_tab;	/* (path, id) -> index in entries */
	struct bid_file *files;
	size_t nr_files, cap_files;
	struct pm_hashtab file_tab;	/* dso -> index in files */
	struct pm_dso_cache *cache;
	struct pm_filecap *cap;		/* or NULL: files are read at their paths only */
	uint64_t ambiguous;		/* kept files not listed: their path has two ids */
	bool vdso;			/* a process mapped the vDSO */
};

/* What an entry is looked up by. */
struct bid_key {
	const char *path;
	const unsigned char *id;
	size_t len;
};

static uint64_t bid_key__hash(const struct pm_hashtab *t, const struct bid_key *k)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_bytes(t, k->path, strlen(k->path)),
				     pm_hashtab__hash_bytes(t, k->id, k->len));
}

static uint64_t entry_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct bid_entry *e = &((struct pm_build_ids *)arg)->entries[val];

	return bid_key__hash(t, &(struct bid_key){ .path = e->path, .id = e->id, .len = e->len });
}

static bool entry_equal(uint64_t val, const void *key, void *arg)
{
	const struct bid_entry *e = &((struct pm_build_ids *)arg)->entries[val];
	const struct bid_key *k = key;

	return e->len == k->len && !memcmp(e->id, k->id, k->len) && !strcmp(e->path, k->path);
}

static const struct pm_hashtab_ops entry_ops = { .hash = entry_hash, .equal = entry_equal };

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
	pm_hashtab__init(&b->entry_tab, &entry_ops, b);
	pm_hashtab__init(&b->file_tab, NULL, NULL);
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
	pm_hashtab__exit(&b->entry_tab);
	free(b->files);
	pm_hashtab__exit(&b->file_tab);
	pm_dso_cache__delete(b->cache);
	free(b);
}

int pm_build_ids__add(struct pm_build_ids *b, uint16_t cpumode, const char *path,
		      const unsigned char *id, size_t len)
{
	struct bid_entry *e;
	struct bid_key k = { .path = path, .id = id, .len = len };
	uint64_t h;
	int err;

	if (!len)
		return 0;
	if (len > PM_BUILD_ID_SIZE)
		k.len = len = PM_BUILD_ID_SIZE;
	h = bid_key__hash(&b->entry_tab, &k);
	if (pm_hashtab__find(&b->entry_tab, h, &k, NULL))
		return 0;
	err = pm_array__grow((void **)&b->entries, &b->cap_entries, b->nr_entries, sizeof(*e));
	if (err)
		return err;
	e = &b->entries[b->nr_entries];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	e->cpumode = cpumode;
	e->len = (uint8_t)len;
	memcpy(e->id, id, len);
	err = pm_hashtab__insert(&b->entry_tab, h, b->nr_entries);
	if (err) {
		free(e->path);
		return err;
	}
	b->nr_entries++;
	return 0;
}

void pm_build_ids__keep_files(struct pm_build_ids *b, struct pm_filecap *cap)
{
	b->cap = cap;
}

static bool is_deleted(const char *path)
{
	size_t n = strlen(path);

	return n > 10 && !strcmp(path + n - 10, " (deleted)");
}

/*
 * Only real files have build ids: not "[vdso]" or "//anon"; a deleted one
 * ("/memfd:x (deleted)" too) only through the process that maps it.
 */
static bool is_file_path(const char *path)
{
	return path[0] == '/' && !is_deleted(path);
}

/* What an MMAP2 record says of its file, for the copy of files not here. */
struct bid_map {
	struct pm_filecap_map m;
	bool user_exec;
};

static int build_ids__file(struct pm_build_ids *b, const struct bid_map *bm)
{
	const struct pm_filecap_map *m = &bm->m;
	struct bid_file *f;
	struct pm_dso *dso;
	uint64_t i;
	int err;

	if (!m->ino || (!is_file_path(m->path) && !(bm->user_exec && b->cap)))
		return 0;
	dso = pm_dso_cache__findnew(b->cache, m->path, m->dev, m->ino);
	if (!dso)
		return -errno;
	if (pm_hashtab__find_int(&b->file_tab, (uintptr_t)dso, &i)) {
		f = &b->files[i];
		if (bm->user_exec)
			*f = (struct bid_file){ .dso = dso, .pid = m->pid, .start = m->start,
						.len = m->len, .dev = m->dev, .ino = m->ino,
						.user_exec = true, .where = f->where };
		return 0;
	}
	err = pm_array__grow((void **)&b->files, &b->cap_files, b->nr_files, sizeof(*b->files));
	if (!err)
		err = pm_hashtab__insert_int(&b->file_tab, (uintptr_t)dso, b->nr_files);
	if (err)
		return err;
	f = &b->files[b->nr_files++];
	*f = (struct bid_file){ .dso = dso, .pid = m->pid, .start = m->start, .len = m->len,
				.dev = m->dev, .ino = m->ino, .user_exec = bm->user_exec,
				.where = PM_FILECAP_HERE };
	if (b->cap && bm->user_exec)
		f->where = pm_filecap__note(b->cap, m);
	else if (!is_file_path(m->path))
		f->where = PM_FILECAP_GONE;
	return 0;
}

int pm_build_ids__add_file(struct pm_build_ids *b, const char *path, uint64_t dev,
			   uint64_t ino)
{
	return build_ids__file(b, &(struct bid_map){ .m = { .path = path, .dev = dev,
							     .ino = ino } });
}

/* A record's id, once per (path, id); the file kept if it is not here. */
static int build_ids__id(struct pm_build_ids *b, const struct bid_map *bm)
{
	const struct pm_filecap_map *m = &bm->m;
	struct bid_key k = { .path = m->path, .id = m->build_id, .len = m->build_id_len };
	bool seen;

	if (!k.len)
		return 0;
	if (k.len > PM_BUILD_ID_SIZE)
		k.len = PM_BUILD_ID_SIZE;
	seen = pm_hashtab__find(&b->entry_tab, bid_key__hash(&b->entry_tab, &k), &k, NULL);
	if (!seen && b->cap && bm->user_exec)
		pm_filecap__note(b->cap, m);
	if (!is_file_path(m->path))
		return 0;
	return pm_build_ids__add(b, PERF_RECORD_MISC_USER, m->path, m->build_id, m->build_id_len);
}

int pm_build_ids__add_event(struct pm_build_ids *b, const struct perf_event_header *h)
{
	struct pm_mmap_body mb;
	struct bid_map bm;
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
	if (!strcmp(path, PM_VDSO_NAME)) {
		b->vdso |= pm_vdso__is_native(path, mb.addr);
		return 0;
	}
	bm = (struct bid_map){
		.m = { .pid = mb.pid, .start = mb.addr, .len = mb.len, .path = path },
		.user_exec = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER &&
			     (mb.prot & PROT_EXEC) && path[0] == '/',
	};
	if (mb.has_build_id) {
		bm.m.build_id = mb.build_id;
		bm.m.build_id_len = mb.build_id_len;
		return build_ids__id(b, &bm);
	}
	bm.m.dev = makedev(mb.maj, mb.min);
	bm.m.ino = mb.ino;
	return build_ids__file(b, &bm);
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

/*
 * A file that was here when mapped and is not now (replaced, deleted):
 * the process that mapped it last may still hold it.
 */
static bool bid_file__late(struct pm_build_ids *b, struct bid_file *f, int err)
{
	const char *path = pm_dso__path(f->dso);
	struct stat st;

	if (!b->cap || !f->user_exec || f->where != PM_FILECAP_HERE ||
	    (err != -ESTALE && (err != -ENOENT || !stat(path, &st))))
		return false;
	f->where = pm_filecap__late(b->cap, &(struct pm_filecap_map){
		.pid = f->pid, .start = f->start, .len = f->len, .path = path,
		.dev = f->dev, .ino = f->ino });
	return true;
}

/*
 * A path and its id, of an entry or a file kept: a path that has two
 * (a container's libc at the host's libc path) names no file for report,
 * which finds a mapping's id by its path.
 */
struct bid_path {
	const char *path;
	const unsigned char *id;
	size_t len;
	bool two;
};

struct bid_paths {
	struct bid_path *v;
	size_t nr, cap, nr_kept;	/* v[0..nr_kept): the files kept */
	struct pm_hashtab tab;		/* path -> its first bid_path */
};

static uint64_t path_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const char *path = ((struct bid_paths *)arg)->v[val].path;

	return pm_hashtab__hash_bytes(t, path, strlen(path));
}

static bool path_equal(uint64_t val, const void *key, void *arg)
{
	return !strcmp(((struct bid_paths *)arg)->v[val].path, key);
}

static const struct pm_hashtab_ops path_ops = { .hash = path_hash, .equal = path_equal };

static int bid_paths__add(void *arg, const char *path, const unsigned char *id, size_t len)
{
	struct bid_paths *ps = arg;

	if (pm_array__grow((void **)&ps->v, &ps->cap, ps->nr, sizeof(*ps->v)))
		return -ENOMEM;
	ps->v[ps->nr++] = (struct bid_path){ .path = path, .id = id, .len = len };
	return 0;
}

/* The first bid_path of p's path, inserted if p is the first. */
static int bid_paths__first(struct bid_paths *ps, size_t i, uint64_t *first)
{
	const char *path = ps->v[i].path;
	uint64_t h = pm_hashtab__hash_bytes(&ps->tab, path, strlen(path));

	*first = i;
	if (pm_hashtab__find(&ps->tab, h, path, first))
		return 0;
	return pm_hashtab__insert(&ps->tab, h, i);
}

/* The ids of the files kept, each where its path has no other id. */
static int build_ids__add_kept(struct pm_build_ids *b)
{
	struct bid_paths ps = { 0 };
	uint64_t j;
	size_t i;
	int err;

	pm_hashtab__init(&ps.tab, &path_ops, &ps);
	err = pm_filecap__finish(b->cap, bid_paths__add, &ps);
	ps.nr_kept = ps.nr;
	for (i = 0; i < b->nr_entries && !err && ps.nr_kept; i++)
		err = bid_paths__add(&ps, b->entries[i].path, b->entries[i].id, b->entries[i].len);
	/* Every path's first id, and whether another follows. */
	for (i = 0; i < ps.nr && !err; i++) {
		err = bid_paths__first(&ps, i, &j);
		if (!err && (ps.v[j].len != ps.v[i].len || memcmp(ps.v[j].id, ps.v[i].id, ps.v[i].len)))
			ps.v[j].two = true;
	}
	for (i = 0; i < ps.nr_kept && !err; i++) {
		err = bid_paths__first(&ps, i, &j);
		if (!err && ps.v[j].two)
			b->ambiguous++;
		else if (!err)
			err = pm_build_ids__add(b, PERF_RECORD_MISC_USER, ps.v[i].path, ps.v[i].id,
						ps.v[i].len);
	}
	pm_hashtab__exit(&ps.tab);
	free(ps.v);
	return err;
}

int pm_build_ids__write(struct pm_build_ids *b, struct pm_buf *out, uint32_t type)
{
	size_t i;
	int err;

	/* Files go into the entry set, where an id the kernel gave meets it. */
	for (i = 0; i < b->nr_files; i++) {
		struct bid_file *f = &b->files[i];
		const unsigned char *id;
		size_t len;

		/* A file kept, or not here: the path here names another file, or none. */
		if (f->where != PM_FILECAP_HERE)
			continue;
		err = pm_dso__build_id(f->dso, &id, &len);
		if (err && bid_file__late(b, f, err))
			continue;
		if (err)
			continue;
		err = pm_build_ids__add(b, PERF_RECORD_MISC_USER, pm_dso__path(f->dso), id, len);
		if (err)
			return err;
	}
	if (b->cap) {
		b->ambiguous = 0;
		err = build_ids__add_kept(b);
		if (err)
			return err;
	}
	if (b->vdso) {
		unsigned char id[PM_BUILD_ID_SIZE];
		size_t len;

		/* The processes recorded ran this kernel: theirs is this process's. */
		err = pm_vdso__build_id(id, &len) ? 0 :
		      pm_build_ids__add(b, PERF_RECORD_MISC_USER, PM_VDSO_NAME, id, len);
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

uint64_t pm_build_ids__ambiguous(const struct pm_build_ids *b)
{
	return b->ambiguous;
}

bool pm_build_ids__any_symbols(const struct pm_build_ids *b)
{
	return b->cap && pm_filecap__any(b->cap);
}

int pm_build_ids__encode_symbols(struct pm_build_ids *b, struct pm_buf *out)
{
	return b->cap ? pm_filecap__encode(b->cap, out) : 0;
}
