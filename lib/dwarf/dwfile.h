/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DWFILE_H
#define PMREC_DWFILE_H

/*
 * The DWARF of one mapped file, read offline by libdw (one session per
 * file): the source line of an address and the functions inlined there,
 * also from a separate debug file found by build id or .gnu_debuglink
 * (debuginfo.c).  libdw is handed fds opened through pm_file__open, never
 * a path to open itself.  Not thread-safe.
 */
#include <stddef.h>
#include <stdint.h>

struct pm_dso;

/* The deepest chain of scopes searched at one address, so the most inlined functions. */
#define PM_DWFILE_MAX_INLINED 64

struct pm_dwfile;

/*
 * The file found for dso (pm_dso__open: libdw would open the path itself,
 * blocking on a FIFO, and never look beyond it); one without debug info,
 * or no file at all, finds nothing.  NULL with errno ENOMEM.
 */
struct pm_dwfile *pm_dwfile__open(struct pm_dso *dso);
void pm_dwfile__close(struct pm_dwfile *f);

/*
 * The source line of vaddr (in the file's address space): *file is the
 * source file's path, joined to its unit's compilation directory when
 * relative, valid as long as f.  0 or -ENOENT.
 */
int pm_dwfile__line(struct pm_dwfile *f, uint64_t vaddr, const char **file, uint32_t *line);

/* Which of a function's names pm_dwfile__inlined gives. */
enum pm_dwfile_name {
	PM_DWFILE_NAME,			/* its DW_AT_name, as in the source */
	PM_DWFILE_LINKAGE,		/* its linkage (mangled) name when it has one */
};

/*
 * The functions inlined at vaddr, innermost first, out to the function
 * they are inlined into (not among them): up to PM_DWFILE_MAX_INLINED
 * names in names[], NULL for one without a name, valid as long as f.  *nr
 * is 0 without inlining or DWARF.  0 or -ENOMEM.
 */
int pm_dwfile__inlined(struct pm_dwfile *f, uint64_t vaddr, enum pm_dwfile_name how,
		       const char **names, size_t *nr);

#endif
