// SPDX-License-Identifier: GPL-2.0
#include <gelf.h>
#include <libelf.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "symbols/dso.h"
#include "symbols/elf.h"
#include "symbols/elf_int.h"
#include "symbols/locate.h"
#include "base/file.h"
#include "symbols/symtab.h"
#include "symbols/symtab_int.h"

struct pm_seg {
	uint64_t off;
	uint64_t filesz;
	uint64_t vaddr;
};

struct pm_dso {
	struct pm_dso *next;		/* in the cache's list of replaced DSOs */
	struct pm_dso_cache *cache;
	uint64_t dev;
	uint64_t ino;			/* 0: known by path only */
	/* The build id the recording saw: it decides which file is this one. */
	size_t want_len;		/* 0: none known */
	unsigned char want[PM_BUILD_ID_SIZE];
	struct pm_located loc;		/* where it was found */
	char *origin;			/* where it was found and what was passed over */
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
	struct pm_dso **dsos;		/* the current DSO of each file */
	size_t nr, cap;
	struct pm_hashtab ids;		/* dsos[] by build id, (device, inode), or path */
	/* Superseded by a newer file, but callers may still hold them. */
	struct pm_dso *replaced;
	struct pm_locator *locator;
	bool own_locator;
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

static struct pm_locator *dso_cache__locator(struct pm_dso_cache *cache)
{
	static const struct pm_locator_opts defaults;

	if (!cache->locator) {
		cache->locator = pm_locator__new(&defaults);
		cache->own_locator = cache->locator != NULL;
	}
	return cache->locator;
}

/*
 * Distributions strip .symtab and ship it in a debug file named after the
 * build id (Debian's *-dbgsym, libc6-dbg): perf looks there first, so does
 * pmrec; fetch: a debuginfod server's too.  The file must carry the same
 * build id (pm_locator__open_debug checks) and some symbols.
 */
static int dso__load_debug_symtab(struct pm_dso *dso, bool fetch)
{
	struct pm_locator *l = dso_cache__locator(dso->cache);
	struct elf_file ef;
	int err;

	if (!dso->has_build_id || !l)
		return -ENOENT;
	err = pm_locator__open_debug(l, dso->build_id, dso->build_id_len, fetch, &ef, NULL);
	if (err)
		return err;
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

/*
 * The symbols: the local debug file's, else the file's own .symtab, else a
 * fetched debug file's (only for a stripped file: a fetch per library
 * would cost every run), else its .dynsym; and the file's PLT stubs.
 */
static int dso__load_symtab(struct pm_dso *dso, Elf *elf)
{
	int err = 0;

	if (dso__load_debug_symtab(dso, false) &&
	    (elf__has_symtab(elf) || dso__load_debug_symtab(dso, true)))
		err = symtab__load_elf(&dso->symtab, elf);
	/* A debug file's PLT has no contents: the stubs come from the file that ran. */
	return err ?: symtab__add_plt(&dso->symtab, elf);
}
/*
 * The file at the recorded path, used without a build id to decide: is it
 * still the one first opened?
 */
static int dso__check_recorded(struct pm_dso *dso, struct elf_file *ef)
{
	struct stat st;
	int err = fstat(ef->fd, &st) ? -errno : dso__check_file(dso, &st);

	if (err)
		elf_file__close(ef);
	return err;
}

/* The first open finds the file (locate.h); later ones open the same file. */
static int dso__open_elf(struct pm_dso *dso, struct elf_file *ef)
{
	struct pm_locator *l = dso_cache__locator(dso->cache);
	struct pm_buf trail = { 0 };
	int fd, err;

	if (!l)
		return -ENOMEM;
	if (dso->loc.path) {
		fd = pm_locator__reopen(l, &dso->loc);
		err = fd < 0 ? fd : elf_file__open_fd(ef, fd);
	} else {
		err = pm_locator__open(l, dso->path, dso->want, dso->want_len, ef, &dso->loc,
				       &trail);
		if (trail.len && !pm_buf__append(&trail, "", 1)) {
			dso->origin = (char *)trail.data;
			trail.data = NULL;
		}
		pm_buf__exit(&trail);
	}
	if (!err && dso->loc.recorded)
		err = dso__check_recorded(dso, ef);
	return err;
}

/* Reads what is wanted and not yet read (headers, symbols) in one open. */
static void dso__load(struct pm_dso *dso, bool want_syms)
{
	bool need_hdr = !dso->hdr_done;
	bool need_syms = want_syms && !dso->syms_done;
	struct elf_file ef;
	int err;

	if (!need_hdr && !need_syms)
		return;
	if (dso->hdr_err) {
		dso->syms_done = true;
		dso->syms_err = dso->hdr_err;
		return;
	}
	err = dso__open_elf(dso, &ef);
	if (need_hdr) {
		dso->hdr_done = true;
		dso->hdr_err = err ? err : dso__read_headers(dso, ef.elf);
	}
	if (need_syms) {
		dso->syms_done = true;
		if (err || dso->hdr_err)
			dso->syms_err = err ? err : dso->hdr_err;
		else
			dso->syms_err = dso__load_symtab(dso, ef.elf);
	}
	if (!err)
		elf_file__close(&ef);
}

const char *pm_dso__path(const struct pm_dso *dso)
{
	return dso->path;
}

const char *pm_dso__found(const struct pm_dso *dso)
{
	return dso->loc.path;
}

const char *pm_dso__passed(const struct pm_dso *dso)
{
	return dso->origin;
}

int pm_dso__open_debug(struct pm_dso *dso, char **path)
{
	struct pm_locator *l = dso_cache__locator(dso->cache);
	struct elf_file ef;
	int err;

	dso__load(dso, false);
	if (dso->hdr_err || !dso->has_build_id)
		return dso->hdr_err ? dso->hdr_err : -ENOENT;
	if (!l)
		return -ENOMEM;
	err = pm_locator__open_debug(l, dso->build_id, dso->build_id_len, true, &ef, path);
	if (err)
		return err;
	elf_end(ef.elf);
	return ef.fd;
}

bool pm_dso__has_code(const struct pm_dso *dso)
{
	return dso->loc.path && !dso->loc.no_code;
}

int pm_dso__open(struct pm_dso *dso)
{
	struct pm_locator *l;
	int fd;

	dso__load(dso, false);
	if (dso->hdr_err)
		return dso->hdr_err;
	l = dso_cache__locator(dso->cache);
	fd = l ? pm_locator__reopen(l, &dso->loc) : -ENOMEM;
	if (fd >= 0 && dso->loc.recorded) {
		struct stat st;
		int err = fstat(fd, &st) ? -errno : dso__check_file(dso, &st);

		if (err) {
			close(fd);
			return err;
		}
	}
	return fd;
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

/*
 * What identifies a file: the recorded build id with the path (two paths
 * of one build id are two names in a report), else its device and inode,
 * else (inode 0) its path.
 */
struct dso_key {
	const char *path;
	uint64_t dev, ino;
	const unsigned char *id;
	size_t id_len;
};

static uint64_t dso_key_hash(const struct pm_hashtab *t, const struct dso_key *k)
{
	uint64_t h;

	if (k->ino && !k->id_len)
		return pm_hashtab__hash_more(t, pm_hashtab__hash_u64(t, k->dev), k->ino);
	h = pm_hashtab__hash_bytes(t, k->path, strlen(k->path));
	return k->id_len ? pm_hashtab__hash_more(t, h, pm_hashtab__hash_bytes(t, k->id, k->id_len)) :
			   h;
}

static void dso__key(const struct pm_dso *dso, struct dso_key *k)
{
	*k = (struct dso_key){ .path = dso->path, .dev = dso->dev, .ino = dso->ino,
			       .id = dso->want, .id_len = dso->want_len };
}

static uint64_t dso_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	struct dso_key k;

	dso__key(((const struct pm_dso_cache *)arg)->dsos[id], &k);
	return dso_key_hash(t, &k);
}

static bool dso_equal(uint64_t id, const void *key, void *arg)
{
	const struct pm_dso *dso = ((const struct pm_dso_cache *)arg)->dsos[id];
	const struct dso_key *k = key;

	if (k->id_len != dso->want_len)
		return false;
	if (k->id_len)
		return !memcmp(dso->want, k->id, k->id_len) && !strcmp(dso->path, k->path);
	if (k->ino)
		return dso->ino == k->ino && dso->dev == k->dev;
	return !dso->ino && !strcmp(dso->path, k->path);
}

static const struct pm_hashtab_ops dso_ops = { .hash = dso_hash, .equal = dso_equal };

struct pm_dso_cache *pm_dso_cache__new(void)
{
	struct pm_dso_cache *cache = calloc(1, sizeof(*cache));

	if (cache)
		pm_hashtab__init(&cache->ids, &dso_ops, cache);
	return cache;
}

static void dso__delete(struct pm_dso *dso)
{
	pm_located__exit(&dso->loc);
	free(dso->origin);
	symtab__exit(&dso->symtab);
	free(dso->segs);
	free(dso);
}

void pm_dso_cache__delete(struct pm_dso_cache *cache)
{
	struct pm_dso *dso, *next;

	if (!cache)
		return;
	while (cache->nr)
		dso__delete(cache->dsos[--cache->nr]);
	for (dso = cache->replaced; dso; dso = next) {
		next = dso->next;
		dso__delete(dso);
	}
	free(cache->dsos);
	pm_hashtab__exit(&cache->ids);
	if (cache->own_locator)
		pm_locator__delete(cache->locator);
	free(cache);
}

void pm_dso_cache__set_locator(struct pm_dso_cache *cache, struct pm_locator *l)
{
	if (cache->own_locator)
		pm_locator__delete(cache->locator);
	cache->locator = l;
	cache->own_locator = false;
}

/* A DSO for the file k; st: its stat, NULL when it could not be stat'ed. */
static struct pm_dso *dso__new(struct pm_dso_cache *cache, const struct dso_key *k,
			       const struct stat *st)
{
	size_t len = strlen(k->path) + 1;
	struct pm_dso *dso = calloc(1, sizeof(*dso) + len);

	if (!dso)
		return NULL;
	memcpy(dso->path, k->path, len);
	dso->cache = cache;
	dso->want_len = k->id_len;
	if (k->id_len) {
		memcpy(dso->want, k->id, k->id_len);
		return dso;
	}
	dso->dev = k->ino ? k->dev : 0;
	dso->ino = k->ino;
	if (st) {
		dso->mtime = st->st_mtim;
		dso->has_mtime = true;
	}
	return dso;
}

/*
 * The DSO of the file k already in the cache as dsos[id]: itself unless
 * the file was rewritten since (st: its stat, or NULL), then a new DSO in
 * its place.
 */
static struct pm_dso *dso_cache__current(struct pm_dso_cache *cache, uint64_t id,
					 const struct dso_key *k, const struct stat *st)
{
	struct pm_dso *dso = cache->dsos[id];

	if (!st)
		return dso;
	if (!dso->has_mtime) {
		/* Its open then checks that it reads this version. */
		dso->mtime = st->st_mtim;
		dso->has_mtime = true;
		return dso;
	}
	if (dso->mtime.tv_sec == st->st_mtim.tv_sec && dso->mtime.tv_nsec == st->st_mtim.tv_nsec)
		return dso;
	/* The same key: the new DSO takes the old one's entry. */
	cache->dsos[id] = dso__new(cache, k, st);
	if (!cache->dsos[id]) {
		cache->dsos[id] = dso;
		return NULL;
	}
	dso->next = cache->replaced;
	cache->replaced = dso;
	return cache->dsos[id];
}

static struct pm_dso *dso_cache__findnew(struct pm_dso_cache *cache, const struct dso_key *kp,
					 const struct stat *stp)
{
	struct dso_key k = *kp;
	struct pm_dso *dso;
	uint64_t h, id;

	h = dso_key_hash(&cache->ids, &k);
	if (pm_hashtab__find(&cache->ids, h, &k, &id))
		return k.id_len ? cache->dsos[id] : dso_cache__current(cache, id, &k, stp);
	if (pm_array__grow((void **)&cache->dsos, &cache->cap, cache->nr, sizeof(*cache->dsos)))
		return NULL;
	dso = dso__new(cache, &k, stp);
	if (!dso)
		return NULL;
	cache->dsos[cache->nr] = dso;
	if (pm_hashtab__insert(&cache->ids, h, cache->nr)) {
		dso__delete(dso);
		return NULL;
	}
	cache->nr++;
	return dso;
}

struct pm_dso *pm_dso_cache__findnew(struct pm_dso_cache *cache,
				     const char *path, uint64_t dev,
				     uint64_t ino)
{
	struct dso_key k = { .path = path, .dev = dev, .ino = ino };
	struct stat st, *stp = NULL;

	if (!ino && !stat(path, &st)) {
		k.dev = st.st_dev;
		k.ino = st.st_ino;
		stp = &st;
	}
	return dso_cache__findnew(cache, &k, stp);
}

struct pm_dso *pm_dso_cache__findnew_id(struct pm_dso_cache *cache, const char *path,
					const unsigned char *id, size_t len)
{
	struct dso_key k = { .path = path, .id = id,
			     .id_len = len < PM_BUILD_ID_SIZE ? len : PM_BUILD_ID_SIZE };

	if (!len) {
		errno = EINVAL;
		return NULL;
	}
	return dso_cache__findnew(cache, &k, NULL);
}
