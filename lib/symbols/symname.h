/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SYMNAME_H
#define PMREC_SYMNAME_H

/*
 * The longest function name kept, from a symbol table, DWARF or the
 * demangler: longer ones (only hostile or generated files have them) are
 * cut to this many bytes, the last three "...", as folded stacks cut
 * them, so no report mode hashes, compares or prints megabytes a sample.
 */
#include <string.h>

#define PM_SYM_NAME_MAX 4096

/* What a PLT stub's name ends in, after its function's (symtab_plt.c). */
#define PM_PLT_SUFFIX "@plt"

/* Cuts a malloc'ed or writable name in place; returns it. */
static inline char *pm_sym_name__cut(char *name)
{
	if (name && strnlen(name, PM_SYM_NAME_MAX + 1) > PM_SYM_NAME_MAX)
		memcpy(name + PM_SYM_NAME_MAX - 3, "...", 4);
	return name;
}

#endif
