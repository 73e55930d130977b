/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_KALLSYMS_H
#define PMREC_KALLSYMS_H

/*
 * Text symbols of the kernel and its modules, from /proc/kallsyms or a copy
 * of it.  A table must not be used by two threads at once.
 */
#include <stdint.h>

#include "symbols/symtab.h"

struct pm_kallsyms;

/*
 * Reads path, /proc/kallsyms if NULL.  Fails with EACCES when all addresses
 * read as zero (kernel.kptr_restrict hides them from this user), ENOENT when
 * there are no text symbols at all.
 */
struct pm_kallsyms *pm_kallsyms__load(const char *path);
void pm_kallsyms__delete(struct pm_kallsyms *ks);

/*
 * Where the running kernel's symbols are: NULL paths are /proc/kallsyms,
 * /sys/kernel/notes (its build id) and /proc/modules (tests name others).
 */
struct pm_kallsyms_source {
	const char *cache_dir;	/* NULL: no cache */
	const char *kallsyms, *notes, *modules;
};

/*
 * The running kernel's symbols, answering as pm_kallsyms__load(kallsyms)
 * would: mapped from the binary cache in cache_dir when it was written by
 * this user for this kernel build id and these modules (see
 * kallsyms_cache.c), else read and then cached for the next run.  A
 * lookup the cache cannot answer alike reads kallsyms then, once.  NULL
 * with errno as pm_kallsyms__load.
 */
struct pm_kallsyms *pm_kallsyms__load_running(const struct pm_kallsyms_source *src);
/*
 * Finds the kernel function containing addr.  *module is NULL in the kernel
 * image, else the module name ("bpf" for BPF programs).  Returns 0 or -ENOENT.
 */
int pm_kallsyms__find(const struct pm_kallsyms *ks, uint64_t addr,
		      const char **name, const char **module, uint64_t *off);
/*
 * The same, the whole symbol: its start, size and name, and its module as
 * above.  Returns 0 or -ENOENT.
 */
int pm_kallsyms__lookup(const struct pm_kallsyms *ks, uint64_t addr, struct pm_symbol *s,
			const char **module);
/* Every symbol, in address order: symbol i of ks, and its module as above. */
size_t pm_kallsyms__nr(const struct pm_kallsyms *ks);
void pm_kallsyms__get(const struct pm_kallsyms *ks, size_t i, struct pm_symbol *s,
		      const char **module);

#endif
