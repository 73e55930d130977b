/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_KALLSYMS_INT_H
#define PMREC_KALLSYMS_INT_H

/*
 * A kallsyms table's insides, shared by the parser (kallsyms.c) and the
 * binary cache of the running kernel's symbols (kallsyms_cache.c).  Not
 * for cmd/.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/kallsyms.h"
#include "symbols/symtab_int.h"

struct pm_kallsyms {
	struct pm_symtab st;
	/*
	 * A table from the cache: st points into this read-only mapping, and
	 * key (in it too) lists the modules it was written with.  A lookup it
	 * cannot answer as /proc/kallsyms would now reads that (kallsyms
	 * below) in place: see kallsyms_cache__answers.
	 */
	void *map;
	size_t map_len;
	/*
	 * The mapping once kallsyms was read in its place: callers hold names
	 * from it (a report's frames, archive's table), so it lives as long
	 * as the table.
	 */
	void *old_map;
	size_t old_map_len;
	const char *key;
	size_t key_len;
	char *kallsyms;		/* NULL: /proc/kallsyms */
};

/* Parses a kallsyms file (NULL: /proc/kallsyms) into an empty ks.  0 or -errno. */
int kallsyms__parse(struct pm_kallsyms *ks, const char *path);
/* The symbol of the module after s's name, "" in the kernel image. */
const char *kallsyms__sym_module(const struct pm_symtab *st, const struct pm_sym *s);
/*
 * Whether s, the symbol a cached table finds for addr (NULL: none), is
 * what /proc/kallsyms would give now: see kallsyms_cache.c.
 */
bool kallsyms_cache__answers(const struct pm_kallsyms *ks, uint64_t addr, const struct pm_sym *s);

#endif
