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
	char *path;
	struct pm_dso *dso;		/* for offsets to addresses */
	struct pm_dwfile *dw;
};

struct pm_srclines {
	struct pm_dso_cache *dsos;
	struct srclines_file *files;
	size_t nr, cap;
	struct pm_hashtab ids;		/* files[] by path */
	size_t last;			/* the file of the last lookup: samples come in runs */
};

static uint64_t path_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	const char *path = ((const struct pm_srclines *)arg)->files[id].path;

	return pm_hashtab__hash_bytes(t, path, strlen(path));
}

static bool path_equal(uint64_t id, const void *key, void *arg)
{
	return !strcmp(((const struct pm_srclines *)arg)->files[id].path, key);
}

static const struct pm_hashtab_ops path_ops = { .hash = path_hash, .equal = path_equal };

struct pm_srclines *pm_srclines__new(void)
{
	struct pm_srclines *s = calloc(1, sizeof(*s));

	if (s)
		s->dsos = pm_dso_cache__new();
	if (s && !s->dsos) {
		free(s);
		return NULL;
	}
	if (s)
		pm_hashtab__init(&s->ids, &path_ops, s);
	return s;
}

void pm_srclines__delete(struct pm_srclines *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++) {
		free(s->files[i].path);
		pm_dwfile__close(s->files[i].dw);
	}
	free(s->files);
	pm_hashtab__exit(&s->ids);
	pm_dso_cache__delete(s->dsos);
	free(s);
}

/* A new file at s->files[s->nr], found by its path h; NULL on ENOMEM. */
static struct srclines_file *srclines__add(struct pm_srclines *s, const char *path, uint64_t h)
{
	struct srclines_file *f;

	if (pm_array__grow((void **)&s->files, &s->cap, s->nr, sizeof(*s->files)))
		return NULL;
	f = &s->files[s->nr];
	*f = (struct srclines_file){ .path = strdup(path) };
	if (!f->path)
		return NULL;
	f->dso = pm_dso_cache__findnew(s->dsos, path, 0, 0);
	f->dw = pm_dwfile__open(path);
	if (!f->dso || !f->dw || pm_hashtab__insert(&s->ids, h, s->nr)) {
		pm_dwfile__close(f->dw);
		free(f->path);
		return NULL;
	}
	s->last = s->nr++;
	return f;
}

static struct srclines_file *srclines__file(struct pm_srclines *s, const char *path)
{
	uint64_t h, id;

	if (s->last < s->nr && !strcmp(s->files[s->last].path, path))
		return &s->files[s->last];
	h = pm_hashtab__hash_bytes(&s->ids, path, strlen(path));
	if (pm_hashtab__find(&s->ids, h, path, &id)) {
		s->last = id;
		return &s->files[id];
	}
	return s->nr < PM_SRCLINES_FILES ? srclines__add(s, path, h) : NULL;
}

int pm_srclines__find(struct pm_srclines *s, const char *path, uint64_t off, const char **file,
		      uint32_t *line)
{
	struct srclines_file *f = path[0] == '/' ? srclines__file(s, path) : NULL;
	uint64_t vaddr;

	if (!f || pm_dso__offset_vaddr(f->dso, off, &vaddr))
		return -ENOENT;
	return pm_dwfile__line(f->dw, vaddr, file, line);
}
