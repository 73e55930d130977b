/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_INLINES_H
#define PMREC_INLINES_H

/*
 * The functions inlined at the code of mapped files, as report names
 * frames: by linkage name, demangled if asked (pm_demangle__str), cut to
 * PM_SYM_NAME_MAX.  Inlines are a property of a file, not of a process:
 * each file's DWARF is read once (a pm_dwfile per file) and the names are
 * kept per (file, offset), at most 1 << 20 addresses before they are all
 * dropped (RSS bound), and freed at the drop after.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pm_dso;
struct pm_inlines;

/* NULL on ENOMEM. */
struct pm_inlines *pm_inlines__new(void);
void pm_inlines__delete(struct pm_inlines *in);

/* Names demangled from now on; off by default. */
void pm_inlines__set_demangle(struct pm_inlines *in, bool demangle);

/*
 * The names kept for file offset off of the file dso (only its address
 * is used), innermost first: true when they are there.  *names stays
 * valid for the next 1 << 20 addresses read at least.
 */
bool pm_inlines__kept(const struct pm_inlines *in, const struct pm_dso *dso, uint64_t off,
		      const char *const **names, size_t *nr);

/*
 * Reads and keeps the names at file offset off of the file dso, where off
 * is vaddr in the file's address space: as pm_inlines__kept then.  *nr is
 * 0 without inlining or DWARF.  0 or -ENOMEM.
 */
int pm_inlines__read(struct pm_inlines *in, struct pm_dso *dso, uint64_t off, uint64_t vaddr,
		     const char *const **names, size_t *nr);

#endif
