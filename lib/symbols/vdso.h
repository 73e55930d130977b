/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_VDSO_H
#define PMREC_VDSO_H

/*
 * The running kernel's vDSO: the ELF image the kernel maps into every
 * process (this one's, at AT_SYSINFO_EHDR), whose exported functions
 * (__vdso_clock_gettime) are where a program's clock calls run.  A
 * recording of this kernel names its "[vdso]" frames from it when the
 * build ids agree: record writes the id, the locator (locate.h) offers the
 * image.  Only the native one: a 32-bit process's vDSO is another image.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "symbols/elf.h"

#define PM_VDSO_NAME "[vdso]"
/*
 * A 32-bit process's vDSO (mapped below 4 GiB, as all its memory is), as
 * perf calls it: another image than this process's, never named from it.
 */
#define PM_VDSO32_NAME "[vdso32]"

/* Is a mapping called name at addr the native vDSO, the one vdso.c reads? */
static inline bool pm_vdso__is_native(const char *name, uint64_t addr)
{
	return addr >> 32 && !strcmp(name, PM_VDSO_NAME);
}

/* Its build id: 0, or -ENOENT (no vDSO, or one without a build id). */
int pm_vdso__build_id(unsigned char id[PM_BUILD_ID_SIZE], size_t *len);
/* A memfd holding a copy of its image, read from the start, or -errno. */
int pm_vdso__memfd(void);

#endif
