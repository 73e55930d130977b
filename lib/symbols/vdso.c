// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/file.h"
#include "symbols/vdso.h"

/* The kernel's images are a few pages: more is not one. */
#define VDSO_MAX (1u << 20)

/*
 * The image and its size: up to its section headers, which the kernel maps
 * with it (they end the file), or its program headers' end if further.
 */
static int vdso__image(const unsigned char **image, size_t *len)
{
	const unsigned char *p = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
	uint64_t end;

	if (!p || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize > end)
		end = eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize;
	if (end < sizeof(*eh) || end > VDSO_MAX)
		return -ENOENT;
	*image = p;
	*len = (size_t)end;
	return 0;
}

int pm_vdso__build_id(unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	const unsigned char *image;
	const Elf64_Ehdr *eh;
	size_t size, i;
	int err = vdso__image(&image, &size);

	if (err)
		return err;
	eh = (const Elf64_Ehdr *)image;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(image + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == PT_NOTE && ph->p_offset <= size && ph->p_filesz <= size - ph->p_offset &&
		    !pm_elf__build_id_from_notes(image + ph->p_offset, ph->p_filesz, id, len))
			return 0;
	}
	return -ENOENT;
}

int pm_vdso__memfd(void)
{
	const unsigned char *image;
	size_t size;
	int fd, err = vdso__image(&image, &size);

	if (err)
		return err;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = pm_write_all(fd, image, size);
	if (!err && lseek(fd, 0, SEEK_SET) < 0)
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
