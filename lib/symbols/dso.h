/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DSO_H
#define PMREC_DSO_H

/*
 * Mapped files and their cache: the build id, program headers and symbols
 * of each file that MMAP and MMAP2 records name, read once.
 *
 * Functions return 0 or a negative errno; constructors return NULL and set
 * errno.  A cache and its DSOs must not be used by two threads at once.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pm_locator;
struct pm_symtab;

/*
 * A mapped file.  Nothing is read until asked for: the build id and the
 * program headers in one open, the symbols (with the build id, if not yet
 * read) in one more.  A failure is remembered, never retried.
 */
struct pm_dso;

/* The path the recording names it by. */
const char *pm_dso__path(const struct pm_dso *dso);
/*
 * Where it was found (lib/symbols/locate.h), once read: NULL before, or
 * when no file fits.  And the candidates passed over before it, with why,
 * "; "-separated (NULL: none).
 */
const char *pm_dso__found(const struct pm_dso *dso);
const char *pm_dso__passed(const struct pm_dso *dso);
/*
 * A new fd on the file found, for libdw (the unwinder, source lines): the
 * same file each time, or -ESTALE.  Found first if not yet; its error if
 * none fits.
 */
int pm_dso__open(struct pm_dso *dso);
/*
 * An fd on a separate debug file of its build id (locate.h: perf's cache,
 * /usr/lib/debug, debuginfod), its path in *path (to free), for libdw; or
 * -ENOENT.
 */
int pm_dso__open_debug(struct pm_dso *dso, char **path);
/* Was it found with its code (not a separate debug file alone)? */
bool pm_dso__has_code(const struct pm_dso *dso);
/*
 * Points *id at the build id, valid as long as the cache.  Returns -ENOENT
 * if the file has none, -ESTALE if the file at the path is no longer the one
 * the cache was asked for (another inode, or rewritten since), or the error
 * of opening it (see pm_elf__build_id).
 */
int pm_dso__build_id(struct pm_dso *dso, const unsigned char **id, size_t *len);
/*
 * Symbols of .symtab, or of .dynsym in stripped files: functions (including
 * GNU indirect functions) defined in the file, in its virtual address space.
 */
int pm_dso__symtab(struct pm_dso *dso, const struct pm_symtab **st);
/*
 * Names the function containing ip, an address in a mapping of this file
 * that starts at map_start and maps file offset map_pgoff there (the start
 * and pgoff of an MMAP2 record or a /proc/PID/maps line).  Returns 0,
 * -ENOENT if no symbol covers ip, or the error of loading the symbols.
 */
int pm_dso__resolve(struct pm_dso *dso, uint64_t map_start, uint64_t map_pgoff,
		    uint64_t ip, const char **sym, uint64_t *off);

/*
 * The address in the file's virtual address space (its symbols') of file
 * offset off, inside a loaded segment: where an address of a mapping is
 * in the file itself (ip - map start + map pgoff).  0, -ENOENT outside
 * every segment, or the error of reading the headers.
 */
int pm_dso__offset_vaddr(struct pm_dso *dso, uint64_t off, uint64_t *vaddr);

/*
 * The file offset of virtual address vaddr of the file (its symbols'
 * space), through its loadable segments.  0, -ENOENT when no segment holds
 * it, or the error of reading the headers.
 */
int pm_dso__file_offset(struct pm_dso *dso, uint64_t vaddr, uint64_t *off);

/*
 * Every file is read at most once per cache, however many mappings, paths
 * and processes refer to it.  The cache owns its DSOs.
 */
struct pm_dso_cache;

struct pm_dso_cache *pm_dso_cache__new(void);
void pm_dso_cache__delete(struct pm_dso_cache *cache);
/*
 * Where its files are looked for (not owned; it must outlive the cache).
 * Without one, a locator of no --symfs and the default build-id cache.
 */
void pm_dso_cache__set_locator(struct pm_dso_cache *cache, struct pm_locator *l);
/*
 * The DSO for the file with device dev and inode ino, named path.  dev is a
 * dev_t, makedev(maj, min) of an MMAP2 record.  With ino 0 the file is
 * identified by stat(path): (device, inode, mtime), so a file rewritten in
 * place becomes a new DSO while the old one stays valid; when path cannot
 * be stat'ed ("[vdso]", a deleted file) by the path string alone.  Returns
 * NULL with errno ENOMEM.
 */
struct pm_dso *pm_dso_cache__findnew(struct pm_dso_cache *cache,
				     const char *path, uint64_t dev,
				     uint64_t ino);
/*
 * The DSO of the file recorded as path with build id id (len bytes, not
 * 0): whatever file has that build id, wherever it is found (locate.h),
 * whatever its inode or age.  NULL with errno ENOMEM.
 */
struct pm_dso *pm_dso_cache__findnew_id(struct pm_dso_cache *cache, const char *path,
					const unsigned char *id, size_t len);

#endif
