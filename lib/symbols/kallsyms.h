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
