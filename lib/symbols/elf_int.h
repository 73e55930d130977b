/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_ELF_INT_H
#define PMREC_ELF_INT_H

/*
 * Internals of elf.c shared with the DSO cache (dso.c), which reads build
 * ids, program headers and symbols of one open file; not for cmd/.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include <gelf.h>
#include <libelf.h>

/* An ELF file open for reading: its fd and libelf's handle on it. */
struct elf_file {
	int fd;
	Elf *elf;
};

/*
 * Opens path with pm_file__open's flags accept (PM_FILE_*), never blocking
 * on a FIFO or a device, and fills *st.  Returns 0, -ENOEXEC if it is not a
 * regular ELF file, -ELIBBAD if libelf is unusable, or the error of opening.
 */
int elf_file__open(struct elf_file *ef, const char *path, unsigned accept,
		   struct stat *st);
/* The same for fd, opened by pm_file__open: taken, closed on failure. */
int elf_file__open_fd(struct elf_file *ef, int fd);
void elf_file__close(struct elf_file *ef);

/*
 * The GNU build id of elf (see pm_elf__build_id), at most PM_BUILD_ID_SIZE
 * bytes stored in id.  Returns 0, -ENOENT or -ENOEXEC.
 */
int elf__build_id(Elf *elf, unsigned char *id, size_t *len);
/* Does elf have a .symtab (not only .dynsym: a stripped file has that alone)? */
bool elf__has_symtab(Elf *elf);
/* The first section of elf called name, its header in *sh; NULL if none. */
Elf_Scn *elf__section(Elf *elf, const char *name, GElf_Shdr *sh);

#endif
