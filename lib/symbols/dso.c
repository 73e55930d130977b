// SPDX-License-Identifier: GPL-2.0
#include <gelf.h>
#include <libelf.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "symbols/dso.h"
#include "symbols/elf.h"
#include "symbols/elf_int.h"
#include "base/file.h"
#include "symbols/symtab.h"
#include "symbols/symtab_int.h"

struct pm_seg {
	uint64_t off;
	uint64_t filesz;
	uint64_t vaddr;
};

struct pm_dso {
	/* Hash chain, or the cache's list of replaced DSOs. */
	struct pm_dso *next;
	uint64_t dev;
	uint64_t ino;			/* 0: known by path only */
	struct timespec mtime;
	bool has_mtime;
	bool hdr_done;
	bool syms_done;
	bool has_build_id;
	int hdr_err;
	int syms_err;
	size_t build_id_len;
	unsigned char build_id[PM_BUILD_ID_SIZE];
	struct pm_seg *segs;
	size_t nr_segs;
	struct pm_symtab symtab;
	char path[];
};

struct pm_dso_cache {
	struct pm_dso **buckets;
	size_t nr_buckets;		/* a power of two */
	size_t nr;
	/* Superseded by a newer file, but callers may still hold them. */
	struct pm_dso *replaced;
};

static int elf__read_segments(Elf *elf, struct pm_seg **segsp, size_t *nrp)
{
	struct pm_seg *segs;
	size_t i, nr, n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nr))
		return -ENOEXEC;
	if (!nr)
		return 0;
	segs = calloc(nr, sizeof(*segs));
	if (!segs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!gelf_getphdr(elf, i, &ph)) {
			free(segs);
			return -ENOEXEC;
		}
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		segs[n++] = (struct pm_seg){
			.off = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
		};
	}
	*segsp = segs;
	*nrp = n;
	return 0;
}

static int dso__read_headers(struct pm_dso *dso, Elf *elf)
{
	size_t len;
	int err;

	err = elf__build_id(elf, dso->build_id, &len);
	if (!err) {
		dso->has_build_id = true;
		dso->build_id_len = len;
	} else if (err != -ENOENT) {
		return err;
	}
	return elf__read_segments(elf, &dso->segs, &dso->nr_segs);
}

/*
 * Only the inode is compared: an MMAP2 record carries the device of the
 * filesystem holding the inode (an overlayfs layer, a btrfs volume), stat()
 * the device of the mount the path goes through.
 */
static int dso__check_file(struct pm_dso *dso, const struct stat *st)
{
	if (dso->ino && (uint64_t)st->st_ino != dso->ino)
		return -ESTALE;
	if (dso->has_mtime && (st->st_mtim.tv_sec != dso->mtime.tv_sec ||
			       st->st_mtim.tv_nsec != dso->mtime.tv_nsec))
		return -ESTALE;
	dso->mtime = st->st_mtim;
	dso->has_mtime = true;
	return 0;
}

/*
 * Distributions strip .symtab and ship it in a debug file named after the
 * build id (Debian's *-dbgsym, libc6-dbg): perf looks there first, so does
 * pmrec.  The file must carry the same build id and some symbols.
 */
static int dso__load_debug_symtab(struct pm_dso *dso)
{
	char path[PM_DEBUG_PATH_MAX];
	unsigned char id[PM_BUILD_ID_SIZE];
	struct elf_file ef;
	struct stat st;
	size_t len;
	int err;

	if (!dso->has_build_id || pm_elf__debug_path(path, dso->build_id, dso->build_id_len))
		return -ENOENT;
	/* The system's debug tree, whose entries are symlinks on some distributions. */
	err = elf_file__open(&ef, path, PM_FILE_FOLLOW, &st);
	if (err)
		return err;
	err = elf__build_id(ef.elf, id, &len);
	if (!err && (len != dso->build_id_len || memcmp(id, dso->build_id, len)))
		err = -ESTALE;
	if (!err)
		err = symtab__load_elf(&dso->symtab, ef.elf);
	if (!err && !dso->symtab.nr)
		err = -ENOENT;
	if (err) {
		symtab__exit(&dso->symtab);
		memset(&dso->symtab, 0, sizeof(dso->symtab));
	}
	elf_file__close(&ef);
	return err;
}

/* Reads what is wanted and not yet read (headers, symbols) in one open. */
static void dso__load(struct pm_dso *dso, bool want_syms)
{
	bool need_hdr = !dso->hdr_done;
	bool need_syms = want_syms && !dso->syms_done;
	struct elf_file ef;
	struct stat st;
	int err;

	if (!need_hdr && !need_syms)
		return;
	if (dso->hdr_err) {
		dso->syms_done = true;
		dso->syms_err = dso->hdr_err;
		return;
	}
	err = elf_file__open(&ef, dso->path, 0, &st);
	if (!err) {
		err = dso__check_file(dso, &st);
		if (err)
			elf_file__close(&ef);
	}
	if (need_hdr) {
		dso->hdr_done = true;
		dso->hdr_err = err ? err : dso__read_headers(dso, ef.elf);
	}
	if (need_syms) {
		dso->syms_done = true;
		if (err || dso->hdr_err)
			dso->syms_err = err ? err : dso->hdr_err;
		else if (dso__load_debug_symtab(dso))
			dso->syms_err = symtab__load_elf(&dso->symtab, ef.elf);
	}
	if (!err)
		elf_file__close(&ef);
}

const char *pm_dso__path(const struct pm_dso *dso)
{
	return dso->path;
}

int pm_dso__build_id(struct pm_dso *dso, const unsigned char **id, size_t *len)
{
	dso__load(dso, false);
	if (dso->hdr_err)
		return dso->hdr_err;
	if (!dso->has_build_id)
		return -ENOENT;
	*id = dso->build_id;
	*len = dso->build_id_len;
	return 0;
}

int pm_dso__symtab(struct pm_dso *dso, const struct pm_symtab **st)
{
	dso__load(dso, true);
	if (dso->syms_err)
		return dso->syms_err;
	*st = &dso->symtab;
	return 0;
}

int pm_dso__resolve(struct pm_dso *dso, uint64_t map_start, uint64_t map_pgoff,
		    uint64_t ip, const char **sym, uint64_t *off)
{
	const struct pm_symtab *st;
	uint64_t foff;
	size_t i;
	int err;

	err = pm_dso__symtab(dso, &st);
	if (err)
		return err;
	foff = ip - map_start + map_pgoff;
	for (i = 0; i < dso->nr_segs; i++) {
		const struct pm_seg *seg = &dso->segs[i];

		if (foff - seg->off < seg->filesz)
			return pm_symtab__find(st, foff - seg->off + seg->vaddr,
					       sym, off);
	}
	return -ENOENT;
}

int pm_dso__offset_vaddr(struct pm_dso *dso, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	dso__load(dso, false);
	if (dso->hdr_err)
		return dso->hdr_err;
	for (i = 0; i < dso->nr_segs; i++) {
		if (off - dso->segs[i].off < dso->segs[i].filesz) {
			*vaddr = off - dso->segs[i].off + dso->segs[i].vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int pm_dso__file_offset(struct pm_dso *dso, uint64_t vaddr, uint64_t *off)
{
	size_t i;

	dso__load(dso, false);
	if (dso->hdr_err)
		return dso->hdr_err;
	for (i = 0; i < dso->nr_segs; i++) {
		const struct pm_seg *seg = &dso->segs[i];

		if (vaddr - seg->vaddr < seg->filesz) {
			*off = vaddr - seg->vaddr + seg->off;
			return 0;
		}
	}
	return -ENOENT;
}

static uint64_t hash_id(uint64_t dev, uint64_t ino)
{
	uint64_t h = ino ^ (dev * 0x9e3779b97f4a7c15ULL);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static uint64_t dso__hash(const struct pm_dso *dso)
{
	return dso->ino ? hash_id(dso->dev, dso->ino) : hash_str(dso->path);
}

struct pm_dso_cache *pm_dso_cache__new(void)
{
	struct pm_dso_cache *cache = calloc(1, sizeof(*cache));

	if (!cache)
		return NULL;
	cache->nr_buckets = 64;
	cache->buckets = calloc(cache->nr_buckets, sizeof(*cache->buckets));
	if (!cache->buckets) {
		free(cache);
		return NULL;
	}
	return cache;
}

static void dso__delete(struct pm_dso *dso)
{
	symtab__exit(&dso->symtab);
	free(dso->segs);
	free(dso);
}

static void dso_list__delete(struct pm_dso *dso)
{
	struct pm_dso *next;

	for (; dso; dso = next) {
		next = dso->next;
		dso__delete(dso);
	}
}

void pm_dso_cache__delete(struct pm_dso_cache *cache)
{
	size_t i;

	if (!cache)
		return;
	for (i = 0; i < cache->nr_buckets; i++)
		dso_list__delete(cache->buckets[i]);
	dso_list__delete(cache->replaced);
	free(cache->buckets);
	free(cache);
}

/* Growing is optional: a failed allocation only makes chains longer. */
static void dso_cache__grow(struct pm_dso_cache *cache)
{
	size_t i, n = cache->nr_buckets * 2;
	struct pm_dso **b, *dso, *next;

	b = calloc(n, sizeof(*b));
	if (!b)
		return;
	for (i = 0; i < cache->nr_buckets; i++) {
		for (dso = cache->buckets[i]; dso; dso = next) {
			next = dso->next;
			dso->next = b[dso__hash(dso) & (n - 1)];
			b[dso__hash(dso) & (n - 1)] = dso;
		}
	}
	free(cache->buckets);
	cache->buckets = b;
	cache->nr_buckets = n;
}

static bool dso__is(const struct pm_dso *dso, const char *path, uint64_t dev,
		    uint64_t ino)
{
	if (ino)
		return dso->ino == ino && dso->dev == dev;
	return !dso->ino && !strcmp(dso->path, path);
}

struct pm_dso *pm_dso_cache__findnew(struct pm_dso_cache *cache,
				     const char *path, uint64_t dev,
				     uint64_t ino)
{
	struct pm_dso **pp, *dso;
	bool has_mtime = false;
	struct stat st;
	size_t len;

	if (!ino && !stat(path, &st)) {
		dev = st.st_dev;
		ino = st.st_ino;
		has_mtime = true;
	}
	pp = &cache->buckets[(ino ? hash_id(dev, ino) : hash_str(path)) &
			     (cache->nr_buckets - 1)];
	for (; *pp; pp = &(*pp)->next) {
		dso = *pp;
		if (!dso__is(dso, path, dev, ino))
			continue;
		if (!has_mtime)
			return dso;
		if (!dso->has_mtime) {
			/* Its open then checks that it reads this version. */
			dso->mtime = st.st_mtim;
			dso->has_mtime = true;
			return dso;
		}
		if (dso->mtime.tv_sec == st.st_mtim.tv_sec &&
		    dso->mtime.tv_nsec == st.st_mtim.tv_nsec)
			return dso;
		*pp = dso->next;
		dso->next = cache->replaced;
		cache->replaced = dso;
		cache->nr--;
		break;
	}

	len = strlen(path) + 1;
	dso = calloc(1, sizeof(*dso) + len);
	if (!dso)
		return NULL;
	memcpy(dso->path, path, len);
	dso->dev = ino ? dev : 0;
	dso->ino = ino;
	if (has_mtime) {
		dso->mtime = st.st_mtim;
		dso->has_mtime = true;
	}
	if (cache->nr >= cache->nr_buckets)
		dso_cache__grow(cache);
	pp = &cache->buckets[dso__hash(dso) & (cache->nr_buckets - 1)];
	dso->next = *pp;
	*pp = dso;
	cache->nr++;
	return dso;
}
