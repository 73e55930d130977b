// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "symbols/debuginfo.h"
#include "symbols/dso.h"
#include "base/file.h"
#include "dwarf/srcline.h"

/* Source file names kept per file: a line table names few. */
#define SRCFILE_NAMES_MAX 4096

struct pm_srcfile {
	Dwfl *dwfl;
	Dwfl_Module *mod;		/* NULL: no ELF file there */
	Dwarf_Addr bias;
	char **names;			/* file names joined to their unit's directory */
	size_t nr_names, cap_names;
};

static int cb_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	*elfp = NULL;
	return -1;
}

static const Dwfl_Callbacks srcfile_callbacks = {
	.find_elf = cb_find_elf,
	.find_debuginfo = pm_debuginfo__find,
	.section_address = dwfl_offline_section_address,
};

struct pm_srcfile *pm_srcfile__open(const char *path)
{
	struct pm_srcfile *sf = calloc(1, sizeof(*sf));
	int fd;

	if (!sf)
		return NULL;
	sf->dwfl = dwfl_begin(&srcfile_callbacks);
	/* libdw would open the path itself, blocking on a FIFO. */
	fd = sf->dwfl ? pm_file__open(path, O_RDONLY, 0, 0, NULL) : -1;
	if (fd >= 0) {
		dwfl_report_begin(sf->dwfl);
		sf->mod = dwfl_report_offline(sf->dwfl, pm_path__base(path), path, fd);
		dwfl_report_end(sf->dwfl, NULL, NULL);
		if (!sf->mod)
			close(fd);
	}
	if (sf->mod && !dwfl_module_getelf(sf->mod, &sf->bias))
		sf->mod = NULL;
	return sf;
}

void pm_srcfile__close(struct pm_srcfile *sf)
{
	if (!sf)
		return;
	if (sf->dwfl)
		dwfl_end(sf->dwfl);
	while (sf->nr_names)
		free(sf->names[--sf->nr_names]);
	free(sf->names);
	free(sf);
}

/*
 * The path of a line's file: relative names (as compilers write them when
 * given relative paths) are under the unit's compilation directory.  Kept
 * once per name; NULL when there is no room.
 */
static const char *srcfile__name(struct pm_srcfile *sf, Dwfl_Line *l, const char *file)
{
	const char *dir = file[0] == '/' ? NULL : dwfl_line_comp_dir(l);
	char *path;
	size_t i;

	if (!dir || asprintf(&path, "%s/%s", dir, file) < 0)
		path = strdup(file);
	if (!path)
		return NULL;
	for (i = 0; i < sf->nr_names; i++) {
		if (!strcmp(sf->names[i], path)) {
			free(path);
			return sf->names[i];
		}
	}
	if (sf->nr_names >= SRCFILE_NAMES_MAX ||
	    pm_array__grow((void **)&sf->names, &sf->cap_names, sf->nr_names, sizeof(*sf->names))) {
		free(path);
		return NULL;
	}
	sf->names[sf->nr_names++] = path;
	return path;
}

int pm_srcfile__line(struct pm_srcfile *sf, uint64_t vaddr, const char **file, uint32_t *line)
{
	Dwfl_Line *l = sf->mod ? dwfl_module_getsrc(sf->mod, vaddr + sf->bias) : NULL;
	const char *name;
	int n = 0;

	name = l ? dwfl_lineinfo(l, NULL, &n, NULL, NULL, NULL) : NULL;
	if (!name || n <= 0)
		return -ENOENT;
	*file = srcfile__name(sf, l, name);
	*line = (uint32_t)n;
	return *file ? 0 : -ENOENT;
}

const char *pm_srcfile__inlined(struct pm_srcfile *sf, uint64_t vaddr)
{
	Dwarf_Die *cu, *scopes = NULL;
	const char *name = NULL;
	Dwarf_Attribute attr;
	Dwarf_Addr cubias;
	int i, n;

	cu = sf->mod ? dwfl_module_addrdie(sf->mod, vaddr + sf->bias, &cubias) : NULL;
	if (!cu)
		return NULL;
	n = dwarf_getscopes(cu, vaddr + sf->bias - cubias, &scopes);
	for (i = 0; i < n && !name; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &attr));
	}
	free(scopes);
	return name;
}

/* --- many files ---------------------------------------------------------- */

struct srclines_file {
	char *path;
	struct pm_dso *dso;		/* for offsets to addresses */
	struct pm_srcfile *sf;
};

struct pm_srclines {
	struct pm_dso_cache *dsos;
	struct srclines_file *files;
	size_t nr, cap;
	size_t last;			/* the file of the last lookup: samples come in runs */
};

struct pm_srclines *pm_srclines__new(void)
{
	struct pm_srclines *s = calloc(1, sizeof(*s));

	if (s)
		s->dsos = pm_dso_cache__new();
	if (s && !s->dsos) {
		free(s);
		return NULL;
	}
	return s;
}

void pm_srclines__delete(struct pm_srclines *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++) {
		free(s->files[i].path);
		pm_srcfile__close(s->files[i].sf);
	}
	free(s->files);
	pm_dso_cache__delete(s->dsos);
	free(s);
}

static struct srclines_file *srclines__file(struct pm_srclines *s, const char *path)
{
	struct srclines_file *f;
	size_t i;

	if (s->last < s->nr && !strcmp(s->files[s->last].path, path))
		return &s->files[s->last];
	for (i = 0; i < s->nr; i++) {
		if (!strcmp(s->files[i].path, path)) {
			s->last = i;
			return &s->files[i];
		}
	}
	if (s->nr >= PM_SRCLINES_FILES ||
	    pm_array__grow((void **)&s->files, &s->cap, s->nr, sizeof(*s->files)))
		return NULL;
	f = &s->files[s->nr];
	*f = (struct srclines_file){ .path = strdup(path) };
	if (!f->path)
		return NULL;
	f->dso = pm_dso_cache__findnew(s->dsos, path, 0, 0);
	f->sf = pm_srcfile__open(path);
	if (!f->dso || !f->sf) {
		pm_srcfile__close(f->sf);
		free(f->path);
		return NULL;
	}
	s->last = s->nr++;
	return f;
}

int pm_srclines__find(struct pm_srclines *s, const char *path, uint64_t off, const char **file,
		      uint32_t *line)
{
	struct srclines_file *f = path[0] == '/' ? srclines__file(s, path) : NULL;
	uint64_t vaddr;

	if (!f || pm_dso__offset_vaddr(f->dso, off, &vaddr))
		return -ENOENT;
	return pm_srcfile__line(f->sf, vaddr, file, line);
}
