/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lib/ is a quote-only include directory (-iquote), so "elf.h" is this file
 * and <elf.h>, which libelf includes, stays the C library's.
 */
#ifndef PMREC_ELF_H
#define PMREC_ELF_H

/*
 * Build ids and function symbols of mapped files and of the kernel: what the
 * BUILD_ID feature needs and what names sample and call-chain addresses.
 *
 * Functions return 0 or a negative errno; constructors return NULL and set
 * errno.  The pm_elf__ functions are thread-safe; a cache or a symbol table
 * must not be used by two threads at once.
 */
#include <stddef.h>
#include <stdint.h>

/* GNU build ids are SHA-1 sized; longer ones are truncated, as perf does. */
#define PM_BUILD_ID_SIZE 20

/* "/usr/lib/debug/.build-id/xx/yyyy.debug": two hex digits a byte, one slash. */
#define PM_DEBUG_PATH_MAX (sizeof("/usr/lib/debug/.build-id/.debug") + 2 * PM_BUILD_ID_SIZE + 1)
/*
 * The path of the separate debug file of build id id, where Debian's
 * -dbgsym packages and perf look.  -EINVAL for an id shorter than 2 bytes.
 */
int pm_elf__debug_path(char path[PM_DEBUG_PATH_MAX], const unsigned char *id, size_t len);

/*
 * Build id of the ELF file at path: from the PT_NOTE segments, which survive
 * stripping, else from the SHT_NOTE sections.  *len is the number of bytes
 * stored in id.  Returns -ENOENT if the file or its build id is missing and
 * -ENOEXEC if it is not a regular ELF file.
 */
int pm_elf__build_id(const char *path, unsigned char id[PM_BUILD_ID_SIZE],
		     size_t *len);
/*
 * The same from raw notes (ELF note headers with 4-byte aligned name and
 * descriptor), as in /sys/kernel/notes or a loaded PT_NOTE segment.
 * Returns -ENOENT if no well-formed GNU build-id note is there.
 */
int pm_elf__build_id_from_notes(const void *notes, size_t size,
				unsigned char id[PM_BUILD_ID_SIZE],
				size_t *len);
/* The running kernel's, from /sys/kernel/notes. */
int pm_elf__kernel_build_id(unsigned char id[PM_BUILD_ID_SIZE], size_t *len);
/*
 * A loaded module's, from /sys/module/NAME/notes.  -EINVAL for a name that
 * is not a single path component, -ENOENT for modules without one (built-in
 * modules have no notes).
 */
int pm_elf__module_build_id(const char *module,
			    unsigned char id[PM_BUILD_ID_SIZE], size_t *len);

/*
 * Function symbols sorted by address.  Of several symbols at one address
 * only one is kept, the one perf would show: sized before unsized, global
 * before local before weak, fewer leading underscores, then the longer name.
 * Each symbol runs until its size ends or the next symbol starts.
 */
struct pm_symtab;

size_t pm_symtab__nr(const struct pm_symtab *st);
/*
 * Finds the symbol containing addr, in the symbol table's address space.
 * *name stays valid as long as the owner of the table.  Returns 0 or -ENOENT.
 */
int pm_symtab__find(const struct pm_symtab *st, uint64_t addr,
		    const char **name, uint64_t *off);

/*
 * A mapped file.  Nothing is read until asked for: the build id and the
 * program headers in one open, the symbols (with the build id, if not yet
 * read) in one more.  A failure is remembered, never retried.
 */
struct pm_dso;

const char *pm_dso__path(const struct pm_dso *dso);
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
 * Every file is read at most once per cache, however many mappings, paths
 * and processes refer to it.  The cache owns its DSOs.
 */
struct pm_dso_cache;

struct pm_dso_cache *pm_dso_cache__new(void);
void pm_dso_cache__delete(struct pm_dso_cache *cache);
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

/* Text symbols of the kernel and its modules. */
struct pm_kallsyms;

/*
 * Reads path, /proc/kallsyms if NULL.  Fails with EACCES when all addresses
 * read as zero (kernel.kptr_restrict hides them from this user), ENOENT when
 * there are no text symbols at all.
 */
struct pm_kallsyms *pm_kallsyms__load(const char *path);
void pm_kallsyms__delete(struct pm_kallsyms *ks);
/*
 * Finds the kernel function containing addr.  *module is NULL in the kernel
 * image, else the module name ("bpf" for BPF programs).  Returns 0 or -ENOENT.
 */
int pm_kallsyms__find(const struct pm_kallsyms *ks, uint64_t addr,
		      const char **name, const char **module, uint64_t *off);

#endif
