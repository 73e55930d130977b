// SPDX-License-Identifier: GPL-2.0
/* libelf first: "elf.h" below relies on <elf.h> being the C library's. */
#include <gelf.h>
#include <libelf.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf.h"
#include "symbols/elf_int.h"
#include "base/file.h"

#define PM_DEBUG_DIR "/usr/lib/debug"

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static bool elf_ready;

static void elf_init(void)
{
	elf_ready = elf_version(EV_CURRENT) != EV_NONE;
}

int elf_file__open_fd(struct elf_file *ef, int fd)
{
	int err = -ENOEXEC;

	ef->fd = fd;
	pthread_once(&elf_once, elf_init);
	if (!elf_ready) {
		err = -ELIBBAD;
		goto out_close;
	}
	ef->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf)
		goto out_close;
	if (elf_kind(ef->elf) == ELF_K_ELF)
		return 0;
	elf_end(ef->elf);
out_close:
	ef->elf = NULL;
	close(fd);
	return err;
}

int elf_file__open(struct elf_file *ef, const char *path, unsigned accept,
		   struct stat *st)
{
	/* A mapped path may name a FIFO or a device: never block on it. */
	int fd = pm_file__open(path, O_RDONLY, accept, 0, st);

	ef->elf = NULL;
	if (fd < 0)
		return fd == -EINVAL || fd == -EISDIR ? -ENOEXEC : fd;
	return elf_file__open_fd(ef, fd);
}

void elf_file__close(struct elf_file *ef)
{
	elf_end(ef->elf);
	close(ef->fd);
}

static void copy_build_id(unsigned char *id, size_t *len, const void *desc,
			  size_t descsz)
{
	*len = descsz < PM_BUILD_ID_SIZE ? descsz : PM_BUILD_ID_SIZE;
	memcpy(id, desc, *len);
}

static int data_build_id(Elf_Data *data, unsigned char *id, size_t *len)
{
	size_t off = 0, next, name_off, desc_off;
	const char *buf = data->d_buf;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID &&
		    nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(buf + name_off, ELF_NOTE_GNU,
			    sizeof(ELF_NOTE_GNU))) {
			copy_build_id(id, len, buf + desc_off, nh.n_descsz);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

bool elf__has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size)
			return true;
	return false;
}

Elf_Scn *elf__section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *sname;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && (sname = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(sname, name))
			return scn;
	return NULL;
}

int elf__build_id(Elf *elf, unsigned char *id, size_t *len)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Phdr ph;
	GElf_Shdr sh;
	size_t i, nr;

	if (elf_getphdrnum(elf, &nr))
		return -ENOEXEC;
	for (i = 0; i < nr; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_NOTE || !ph.p_filesz)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 :
							      ELF_T_NHDR);
		if (data && !data_build_id(data, id, len))
			return 0;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && !data_build_id(data, id, len))
			return 0;
	}
	return -ENOENT;
}

int pm_elf__build_id(const char *path, unsigned char id[PM_BUILD_ID_SIZE],
		     size_t *len)
{
	struct elf_file ef;
	struct stat st;
	int err;

	err = elf_file__open(&ef, path, 0, &st);
	if (err)
		return err;
	err = elf__build_id(ef.elf, id, len);
	elf_file__close(&ef);
	return err;
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t align4(uint64_t n)
{
	return (n + 3) & ~3ULL;
}

int pm_elf__build_id_from_notes(const void *notes, size_t size,
				unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	const unsigned char *p = notes, *name;
	uint64_t namesz, descsz;
	uint32_t type;
	size_t pos = 0;

	while (size - pos >= 12) {
		namesz = get_u32(p + pos);
		descsz = get_u32(p + pos + 4);
		type = get_u32(p + pos + 8);
		pos += 12;
		if (align4(namesz) > size - pos)
			break;
		name = p + pos;
		pos += align4(namesz);
		if (descsz > size - pos)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(name, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU))) {
			copy_build_id(id, len, p + pos, descsz);
			return 0;
		}
		if (align4(descsz) > size - pos)
			break;
		pos += align4(descsz);
	}
	return -ENOENT;
}

/* Notes files of sysfs: the module's name comes from the recording. */
#define NOTES_MAX (1u << 20)

static int read_all(const char *path, char **bufp, size_t *lenp)
{
	int fd = pm_file__open(path, O_RDONLY, 0, 0, NULL), err;

	if (fd < 0)
		return fd;
	err = pm_file__read_all(fd, NOTES_MAX, bufp, lenp);
	close(fd);
	return err;
}

static int notes_file_build_id(const char *path, unsigned char *id,
			       size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	int err;

	err = read_all(path, &buf, &size);
	if (err)
		return err;
	err = pm_elf__build_id_from_notes(buf, size, id, len);
	free(buf);
	return err;
}

int pm_elf__kernel_build_id(unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	return notes_file_build_id("/sys/kernel/notes", id, len);
}

int pm_elf__module_build_id(const char *module,
			    unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	char path[PATH_MAX];
	int n;

	if (!*module || strchr(module, '/') || !strcmp(module, ".") ||
	    !strcmp(module, ".."))
		return -EINVAL;
	n = snprintf(path, sizeof(path),
		     "/sys/module/%s/notes/.note.gnu.build-id", module);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return notes_file_build_id(path, id, len);
}

void pm_elf__build_id_hex(char hex[PM_BUILD_ID_HEX_MAX], const unsigned char *id, size_t len)
{
	static const char digit[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len && i < PM_BUILD_ID_SIZE; i++) {
		*hex++ = digit[id[i] >> 4];
		*hex++ = digit[id[i] & 15];
	}
	*hex = '\0';
}

int pm_elf__debug_path(char path[PM_DEBUG_PATH_MAX], const unsigned char *id, size_t len)
{
	char hex[PM_BUILD_ID_HEX_MAX];

	if (len < 2 || len > PM_BUILD_ID_SIZE)
		return -EINVAL;
	pm_elf__build_id_hex(hex, id, len);
	sprintf(path, "%s/.build-id/%.2s/%s.debug", PM_DEBUG_DIR, hex, hex + 2);
	return 0;
}
