/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SYMTAB_INT_H
#define PMREC_SYMTAB_INT_H

/*
 * The layout of a symbol table and the steps that build one, shared by its
 * two sources: ELF files (symtab.c, for dso.c) and kallsyms (kallsyms.c).
 * Not for cmd/.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include <libelf.h>

#include "symbols/symtab.h"

struct pm_sym {
	uint64_t addr;
	uint32_t size;
	/*
	 * Offset of the name in the table's names; kallsyms names are
	 * followed by the module name ("" for the kernel image).  rank says
	 * how the symbol stands among its aliases (RANK_* bits).
	 */
	uint32_t name : 29;
	uint32_t rank : 3;
};

/* A table's names stay below this: offsets fit pm_sym.name. */
#define SYM_NAMES_MAX (1u << 29)

struct pm_symtab {
	struct pm_sym *syms;
	size_t nr;
	char *names;
	size_t names_len;	/* bytes of names used: tables of ELF files only */
};

/* Rank bits: what makes one alias a better name than another. */
#define RANK_SIZED	4
#define RANK_STRONG	2
#define RANK_GLOBAL	1

static inline const char *sym__name(const struct pm_symtab *st,
				    const struct pm_sym *s)
{
	return st->names + s->name;
}

static inline uint32_t clamp_size(uint64_t size)
{
	return size < UINT32_MAX ? size : UINT32_MAX;
}

/*
 * Sorts by address and keeps one symbol per address: the best as perf's
 * choose_best_symbol says, or with last_alias the last in table order, as
 * perf keeps kallsyms' (its end fixup leaves the earlier ones no size).
 */
void symtab__sort(struct pm_symtab *st, bool last_alias);
void symtab__exit(struct pm_symtab *st);
/* The symbol containing addr, or NULL. */
const struct pm_sym *symtab__lookup(const struct pm_symtab *st, uint64_t addr);
/*
 * Fills an empty st with the function symbols of elf's .symtab, else its
 * .dynsym; a file without either gives an empty table.  Returns 0,
 * -ENOEXEC, -ENOMEM, or -EFBIG when the names would not fit pm_sym.name.
 */
int symtab__load_elf(struct pm_symtab *st, Elf *elf);
/*
 * Adds a symbol for each stub of elf's PLT, as perf names them
 * ("memcpy@plt"), to st, loaded by symtab__load_elf (from elf, or from its
 * debug file, whose PLT has no contents).  Returns 0 (also for a file
 * without a PLT) or -ENOMEM.
 */
int symtab__add_plt(struct pm_symtab *st, Elf *elf);
/* Sorts st, keeps one symbol per address, and ends each where the next starts. */
void symtab__fit(struct pm_symtab *st);
/*
 * A kallsyms table made of st (names each followed by their module name,
 * sizes set), which it takes over, leaving st empty: sorted as
 * pm_kallsyms__load sorts.  NULL with errno ENOMEM.
 */
struct pm_kallsyms *kallsyms__adopt(struct pm_symtab *st);

#endif
