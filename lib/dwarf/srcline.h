/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SRCLINE_H
#define PMREC_SRCLINE_H

/*
 * Source lines of the code of many mapped files, by file and offset
 * (report's srcline sort key), each file's DWARF read once (dwfile.h), at
 * most PM_SRCLINES_FILES of them; the others find no lines.
 */
#include <stdint.h>

#define PM_SRCLINES_FILES 256

struct pm_dso;
struct pm_srclines;

struct pm_srclines *pm_srclines__new(void);
void pm_srclines__delete(struct pm_srclines *s);
/*
 * The source line of the code at offset off of the file dso (an address of
 * a mapping less its start, plus its pgoff), from the file found for it
 * (lib/symbols/locate.h) and its debug file.  0 or -ENOENT.
 */
int pm_srclines__find(struct pm_srclines *s, struct pm_dso *dso, uint64_t off, const char **file,
		      uint32_t *line);

#endif
