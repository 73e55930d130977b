/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lib/ is a quote-only include directory (-iquote), so "elf.h" is this file
 * and <elf.h>, which libelf includes, stays the C library's.
 */
#ifndef PMREC_ELF_H
#define PMREC_ELF_H

/*
 * Build ids of ELF files, of the kernel and of its modules: what the
 * BUILD_ID feature records and what checks that a mapped file is the one
 * recorded.  Symbols are in symtab.h, mapped files in dso.h, the kernel's
 * symbols in kallsyms.h.
 *
 * Functions return 0 or a negative errno.  They are thread-safe.
 */
#include <stddef.h>

#include "format/perf_data.h"

/* A build id in lowercase hex, two digits a byte, and its NUL. */
#define PM_BUILD_ID_HEX_MAX (2 * PM_BUILD_ID_SIZE + 1)
void pm_elf__build_id_hex(char hex[PM_BUILD_ID_HEX_MAX], const unsigned char *id, size_t len);

/* "/usr/lib/debug/.build-id/xx/yyyy.debug": two hex digits a byte, one slash. */
#define PM_DEBUG_PATH_MAX (sizeof("/usr/lib/debug/.build-id/.debug") + 2 * PM_BUILD_ID_SIZE + 1)
/*
 * The path of the separate debug file of build id id, where Debian's
 * -dbgsym packages and perf look.  -EINVAL for an id shorter than 2 bytes.
 */
int pm_elf__debug_path(char path[PM_DEBUG_PATH_MAX], const unsigned char *id, size_t len);

/*
 * Build id of the ELF file at path: from the PT_NOTE segments, which survive
 * stripping, else from the SHT_NOTE sections.  *len is the number of bytes
 * stored in id.  Returns -ENOENT if the file or its build id is missing and
 * -ENOEXEC if it is not a regular ELF file.
 */
int pm_elf__build_id(const char *path, unsigned char id[PM_BUILD_ID_SIZE],
		     size_t *len);
/*
 * The same from raw notes (ELF note headers with 4-byte aligned name and
 * descriptor), as in /sys/kernel/notes or a loaded PT_NOTE segment.
 * Returns -ENOENT if no well-formed GNU build-id note is there.
 */
int pm_elf__build_id_from_notes(const void *notes, size_t size,
				unsigned char id[PM_BUILD_ID_SIZE],
				size_t *len);
/* The running kernel's, from /sys/kernel/notes. */
int pm_elf__kernel_build_id(unsigned char id[PM_BUILD_ID_SIZE], size_t *len);
/*
 * A loaded module's, from /sys/module/NAME/notes.  -EINVAL for a name that
 * is not a single path component, -ENOENT for modules without one (built-in
 * modules have no notes).
 */
int pm_elf__module_build_id(const char *module,
			    unsigned char id[PM_BUILD_ID_SIZE], size_t *len);

#endif
