// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "dwarf/dwfile.h"
#include "dwarf/inlines.h"
#include "symbols/demangle.h"
#include "symbols/symname.h"

/*
 * Addresses kept before all are dropped (RSS bound).  The names dropped
 * are freed at the next drop: the frames of a sample named just before
 * one still point at them.
 */
#define MAX_ENTRIES (1u << 20)

/* A file's DWARF, by the machine's DSO. */
struct inline_file {
	const struct pm_dso *dso;
	struct pm_dwfile *dw;
};

/* The names at one address. */
struct inline_entry {
	const struct pm_dso *dso;
	uint64_t off;			/* file offset of the address */
	char **names;
	size_t nr;
};

struct pm_inlines {
	struct inline_file *files;
	size_t nr_files, cap_files;
	struct pm_hashtab file_ids;	/* files[] by DSO */
	struct inline_entry *entries;
	size_t nr, cap;
	struct pm_hashtab ids;		/* entries[] by (DSO, offset) */
	struct inline_entry *dropped;	/* at the last drop */
	size_t nr_dropped;
	bool demangle;
};

static uint64_t entry_key_hash(const struct pm_hashtab *t, const struct pm_dso *dso, uint64_t off)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_u64(t, (uintptr_t)dso), off);
}

static uint64_t entry_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	const struct inline_entry *e = &((const struct pm_inlines *)arg)->entries[id];

	return entry_key_hash(t, e->dso, e->off);
}

static bool entry_equal(uint64_t id, const void *key, void *arg)
{
	const struct inline_entry *e = &((const struct pm_inlines *)arg)->entries[id], *k = key;

	return e->dso == k->dso && e->off == k->off;
}

static const struct pm_hashtab_ops entry_ops = { .hash = entry_hash, .equal = entry_equal };

struct pm_inlines *pm_inlines__new(void)
{
	struct pm_inlines *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	pm_hashtab__init(&in->file_ids, NULL, NULL);
	pm_hashtab__init(&in->ids, &entry_ops, in);
	return in;
}

static void entry__free(struct inline_entry *e)
{
	while (e->nr)
		free(e->names[--e->nr]);
	free(e->names);
}

static void entries__free(struct inline_entry *e, size_t nr)
{
	while (nr)
		entry__free(&e[--nr]);
	free(e);
}

static void inlines__drop(struct pm_inlines *in)
{
	entries__free(in->dropped, in->nr_dropped);
	in->dropped = in->entries;
	in->nr_dropped = in->nr;
	in->entries = NULL;
	in->nr = in->cap = 0;
	pm_hashtab__exit(&in->ids);
	pm_hashtab__init(&in->ids, &entry_ops, in);
}

void pm_inlines__delete(struct pm_inlines *in)
{
	if (!in)
		return;
	entries__free(in->dropped, in->nr_dropped);
	entries__free(in->entries, in->nr);
	pm_hashtab__exit(&in->ids);
	while (in->nr_files)
		pm_dwfile__close(in->files[--in->nr_files].dw);
	free(in->files);
	pm_hashtab__exit(&in->file_ids);
	free(in);
}

void pm_inlines__set_demangle(struct pm_inlines *in, bool demangle)
{
	in->demangle = demangle;
}

bool pm_inlines__kept(const struct pm_inlines *in, const struct pm_dso *dso, uint64_t off,
		      const char *const **names, size_t *nr)
{
	struct inline_entry key = { .dso = dso, .off = off };
	uint64_t id;

	if (!pm_hashtab__find(&in->ids, entry_key_hash(&in->ids, dso, off), &key, &id))
		return false;
	*names = (const char *const *)in->entries[id].names;
	*nr = in->entries[id].nr;
	return true;
}

/* The DWARF of the file dso, opened on first use; NULL on ENOMEM. */
static struct pm_dwfile *inlines__file(struct pm_inlines *in, struct pm_dso *dso)
{
	struct pm_dwfile *dw;
	uint64_t id;

	if (pm_hashtab__find_int(&in->file_ids, (uintptr_t)dso, &id))
		return in->files[id].dw;
	if (pm_array__grow((void **)&in->files, &in->cap_files, in->nr_files, sizeof(*in->files)))
		return NULL;
	dw = pm_dwfile__open(dso);
	if (!dw || pm_hashtab__insert_int(&in->file_ids, (uintptr_t)dso, in->nr_files)) {
		pm_dwfile__close(dw);
		return NULL;
	}
	in->files[in->nr_files++] = (struct inline_file){ .dso = dso, .dw = dw };
	return dw;
}

/* The names of the functions inlined at vaddr of dw, as report names them, into e. */
static int entry__fill(struct inline_entry *e, struct pm_dwfile *dw, uint64_t vaddr,
		       bool demangle)
{
	const char *found[PM_DWFILE_MAX_INLINED];
	size_t i, nr;
	int err = pm_dwfile__inlined(dw, vaddr, PM_DWFILE_LINKAGE, found, &nr);

	if (err || !nr)
		return err;
	e->names = calloc(nr, sizeof(*e->names));
	if (!e->names)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const char *name = found[i] ? found[i] : "[inlined]";

		e->names[i] = demangle ? pm_demangle__str(name) : NULL;
		if (!e->names[i])
			e->names[i] = pm_sym_name__cut(strndup(name, PM_SYM_NAME_MAX + 1));
		if (!e->names[i])
			return -ENOMEM;
		e->nr++;
	}
	return 0;
}

int pm_inlines__read(struct pm_inlines *in, struct pm_dso *dso, uint64_t off, uint64_t vaddr,
		     const char *const **names, size_t *nr)
{
	struct inline_entry *e;
	struct pm_dwfile *dw;
	int err;

	if (in->nr >= MAX_ENTRIES)
		inlines__drop(in);
	dw = inlines__file(in, dso);
	if (!dw || pm_array__grow((void **)&in->entries, &in->cap, in->nr, sizeof(*in->entries)))
		return -ENOMEM;
	e = &in->entries[in->nr];
	*e = (struct inline_entry){ .dso = dso, .off = off };
	err = entry__fill(e, dw, vaddr, in->demangle);
	if (!err)
		err = pm_hashtab__insert(&in->ids, entry_key_hash(&in->ids, dso, off), in->nr);
	if (err) {
		entry__free(e);
		return err;
	}
	in->nr++;
	*names = (const char *const *)e->names;
	*nr = e->nr;
	return 0;
}
