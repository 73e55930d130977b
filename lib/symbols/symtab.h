/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SYMTAB_H
#define PMREC_SYMTAB_H

/*
 * Function symbols sorted by address, of a mapped file (dso.h) or of the
 * kernel (kallsyms.h).  Of several symbols at one address only one is
 * kept, the one perf would show: sized before unsized, global before local
 * before weak, fewer leading underscores, then the longer name.  Each
 * symbol runs until its size ends or the next symbol starts.  A table must
 * not be used by two threads at once.
 */
#include <stddef.h>
#include <stdint.h>

struct pm_symtab;

size_t pm_symtab__nr(const struct pm_symtab *st);
/*
 * Finds the symbol containing addr, in the symbol table's address space.
 * *name stays valid as long as the owner of the table.  Returns 0 or -ENOENT.
 */
int pm_symtab__find(const struct pm_symtab *st, uint64_t addr,
		    const char **name, uint64_t *off);

/*
 * The same, with the symbol's start and size in its table's address space
 * (the size as the lookup uses it: to the next symbol when the symbol has
 * none).  0 or -ENOENT.
 */
int pm_symtab__find_range(const struct pm_symtab *st, uint64_t addr, const char **name,
			  uint64_t *start, uint64_t *size);

/* One symbol of a table; name valid as long as the owner of the table. */
struct pm_symbol {
	uint64_t addr;
	uint32_t size;
	const char *name;
};

/* Symbol i of the table (i < pm_symtab__nr), in address order. */
void pm_symtab__get(const struct pm_symtab *st, size_t i, struct pm_symbol *s);

#endif
