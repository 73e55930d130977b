// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "dwarf/dwfile.h"
#include "dwarf/srcline.h"
#include "symbols/dso.h"

struct srclines_file {
	struct pm_dso *dso;
	struct pm_dwfile *dw;
};

struct pm_srclines {
	struct srclines_file *files;
	size_t nr, cap;
	struct pm_hashtab ids;		/* files[] by DSO */
	size_t last;			/* the file of the last lookup: samples come in runs */
};

struct pm_srclines *pm_srclines__new(void)
{
	struct pm_srclines *s = calloc(1, sizeof(*s));

	if (s)
		pm_hashtab__init(&s->ids, NULL, NULL);
	return s;
}

void pm_srclines__delete(struct pm_srclines *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++)
		pm_dwfile__close(s->files[i].dw);
	free(s->files);
	pm_hashtab__exit(&s->ids);
	free(s);
}

/* A new file at s->files[s->nr]; NULL on ENOMEM. */
static struct srclines_file *srclines__add(struct pm_srclines *s, struct pm_dso *dso)
{
	struct srclines_file *f;

	if (pm_array__grow((void **)&s->files, &s->cap, s->nr, sizeof(*s->files)))
		return NULL;
	f = &s->files[s->nr];
	*f = (struct srclines_file){ .dso = dso, .dw = pm_dwfile__open(dso) };
	if (!f->dw || pm_hashtab__insert_int(&s->ids, (uintptr_t)dso, s->nr)) {
		pm_dwfile__close(f->dw);
		return NULL;
	}
	s->last = s->nr++;
	return f;
}

static struct srclines_file *srclines__file(struct pm_srclines *s, struct pm_dso *dso)
{
	uint64_t id;

	if (s->last < s->nr && s->files[s->last].dso == dso)
		return &s->files[s->last];
	if (pm_hashtab__find_int(&s->ids, (uintptr_t)dso, &id)) {
		s->last = id;
		return &s->files[id];
	}
	return s->nr < PM_SRCLINES_FILES ? srclines__add(s, dso) : NULL;
}

int pm_srclines__find(struct pm_srclines *s, struct pm_dso *dso, uint64_t off, const char **file,
		      uint32_t *line)
{
	struct srclines_file *f = srclines__file(s, dso);
	uint64_t vaddr;

	if (!f || pm_dso__offset_vaddr(f->dso, off, &vaddr))
		return -ENOENT;
	return pm_dwfile__line(f->dw, vaddr, file, line);
}
