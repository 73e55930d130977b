/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SRCLINE_H
#define PMREC_SRCLINE_H

/*
 * Source lines of the code of mapped files, from their DWARF line tables
 * and scopes (libdw), also from a separate debug file found by build id
 * or .gnu_debuglink (debuginfo.c).  libdw is handed fds opened through
 * pm_file__open, never a path to open itself.  Not thread-safe.
 */
#include <stddef.h>
#include <stdint.h>

/* One file's line table and scopes. */
struct pm_srcfile;

/* The file at path; one without debug info finds no lines.  NULL with errno ENOMEM. */
struct pm_srcfile *pm_srcfile__open(const char *path);
void pm_srcfile__close(struct pm_srcfile *sf);
/*
 * The source line of vaddr (in the file's address space): *file is the
 * source file's path, joined to its unit's compilation directory when
 * relative, valid as long as sf.  0 or -ENOENT.
 */
int pm_srcfile__line(struct pm_srcfile *sf, uint64_t vaddr, const char **file, uint32_t *line);
/* The innermost function inlined at vaddr, or NULL; valid as long as sf. */
const char *pm_srcfile__inlined(struct pm_srcfile *sf, uint64_t vaddr);

/*
 * Lines of addresses of many files, each file opened once (at most
 * PM_SRCLINES_FILES of them; the others find no lines).
 */
#define PM_SRCLINES_FILES 256

struct pm_srclines;

struct pm_srclines *pm_srclines__new(void);
void pm_srclines__delete(struct pm_srclines *s);
/*
 * The source line of the code at offset off of the file at path (an
 * address of a mapping less its start, plus its pgoff).  0 or -ENOENT.
 */
int pm_srclines__find(struct pm_srclines *s, const char *path, uint64_t off, const char **file,
		      uint32_t *line);

#endif
