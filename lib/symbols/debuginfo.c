// SPDX-License-Identifier: GPL-2.0
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/debuginfo.h"
#include "symbols/dso.h"
#include "symbols/elf.h"
#include "symbols/elf_int.h"
#include "base/file.h"

/* What makes a candidate the wanted file. */
struct debug_want {
	const unsigned char *id;	/* the build id it must carry, or NULL */
	size_t id_len;
	GElf_Word crc;			/* without an id: the debuglink's CRC-32, 0 for none */
};

static bool fd__has_build_id(int fd, const struct debug_want *w)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	bool same = len > 0 && (size_t)len == w->id_len && !memcmp(id, w->id, w->id_len);

	elf_end(elf);
	return same;
}

static bool fd__has_crc(int fd, GElf_Word want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		crc = crc32(crc, buf, (uInt)n);
	}
	return crc == want;
}

/* The fd of path when it is the wanted file, with its name in *name; else -1. */
static int debug__try(const char *path, unsigned accept, const struct debug_want *w, char **name)
{
	int fd = pm_file__open(path, O_RDONLY, accept, 0, NULL);
	bool ok;

	if (fd < 0)
		return -1;
	ok = w->id ? fd__has_build_id(fd, w) : !w->crc || fd__has_crc(fd, w->crc);
	if (ok)
		*name = strdup(path);
	if (!ok || !*name) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Under the system's build-id tree, whose entries are symlinks on some distributions. */
static int debug__by_build_id(const struct debug_want *w, char **name)
{
	char path[PM_DEBUG_PATH_MAX];

	if (!w->id || pm_elf__debug_path(path, w->id, w->id_len))
		return -1;
	return debug__try(path, PM_FILE_FOLLOW, w, name);
}

/* DIR/NAME, DIR/.debug/NAME and /usr/lib/debug/DIR/NAME, as libdw and gdb look. */
static int debug__beside(const char *file_name, const char *link, const struct debug_want *w,
			 char **name)
{
	static const char *const fmt[] = { "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s" };
	int dir = pm_path__dir_len(file_name);
	char path[PATH_MAX];
	size_t i;
	int fd, n;

	if (dir < 0 || strchr(link, '/'))
		return -1;
	for (i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		n = snprintf(path, sizeof(path), fmt[i], dir, file_name, link);
		if (n < 0 || (size_t)n >= sizeof(path) || !strcmp(path, file_name))
			continue;
		fd = debug__try(path, 0, w, name);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/*
 * The alternate debug file (dwz) that file_name's .gnu_debugaltlink names
 * as link: the section holds the name, a NUL, then the file's build id.
 */
static bool debug__altlink(const char *file_name, const char *link, unsigned char *id,
			   size_t *id_len)
{
	int fd = pm_file__open(file_name, O_RDONLY, 0, 0, NULL);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = elf ? elf__section(elf, ".gnu_debugaltlink", &(GElf_Shdr){ 0 }) : NULL;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	bool found = false;
	size_t n;

	if (d && d->d_buf) {
		n = strnlen(d->d_buf, d->d_size);
		if (n < d->d_size && !strcmp(d->d_buf, link)) {
			*id_len = d->d_size - n - 1;
			if (*id_len > PM_BUILD_ID_SIZE)
				*id_len = PM_BUILD_ID_SIZE;
			memcpy(id, (const char *)d->d_buf + n + 1, *id_len);
			found = *id_len > 0;
		}
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

static int debug__find_alt(const char *file_name, const char *link, const struct debug_want *w,
			   char **name)
{
	int dir = pm_path__dir_len(file_name);
	char path[PATH_MAX];
	int fd, n;

	fd = debug__by_build_id(w, name);
	if (fd >= 0)
		return fd;
	if (link[0] == '/')
		return debug__try(link, 0, w, name);
	if (dir < 0)
		return -1;
	n = snprintf(path, sizeof(path), "%.*s/%s", dir, file_name, link);
	return n < 0 || (size_t)n >= sizeof(path) ? -1 : debug__try(path, 0, w, name);
}

void pm_debuginfo__set_dso(Dwfl_Module *mod, struct pm_dso *dso)
{
	void **userdata;

	if (mod && dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
		*userdata = dso;
}

int pm_debuginfo__find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, char **file_name, Elf **elfp)
{
	*elfp = NULL;
	return -1;
}

int pm_debuginfo__find(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, const char *file_name, const char *debuglink_file,
		       GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct debug_want w = { .crc = debuglink_crc };
	unsigned char alt_id[PM_BUILD_ID_SIZE];
	const unsigned char *id = NULL;
	GElf_Addr vaddr;
	char *made = NULL;
	int fd, len;

	*debuginfo_file_name = NULL;
	errno = 0;
	if (!file_name)
		return -1;
	/* libdw asks for the dwz file with the link's name and no CRC. */
	if (debuglink_file && !debuglink_crc &&
	    debug__altlink(file_name, debuglink_file, alt_id, &w.id_len)) {
		w.id = alt_id;
		return debug__find_alt(file_name, debuglink_file, &w, debuginfo_file_name);
	}
	len = dwfl_module_build_id(mod, &id, &vaddr);
	if (len > 0) {
		w.id = id;
		w.id_len = (size_t)len;
	}
	/* A module of a mapped file: the one lookup order of its debug file. */
	fd = *userdata ? pm_dso__open_debug(*userdata, debuginfo_file_name) :
			 debug__by_build_id(&w, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	if (!debuglink_file) {
		if (asprintf(&made, "%s.debug", pm_path__base(file_name)) < 0)
			return -1;
		debuglink_file = made;
	}
	fd = debug__beside(file_name, debuglink_file, &w, debuginfo_file_name);
	free(made);
	return fd;
}
