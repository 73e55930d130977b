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
#include "base/file.h"
#include "base/hashtab.h"
#include "dwarf/dwfile.h"
#include "symbols/debuginfo.h"
#include "symbols/dso.h"

/* Source file names kept per file: a line table names few. */
#define NAMES_MAX 4096

/*
 * The scopes with code of one compilation unit, found once: a look-up then
 * searches them by address instead of walking the unit's tree (the walk
 * stepped over every DIE before the function, most of the inline cost).
 */
struct cu_scope {
	Dwarf_Addr start, end;
	Dwarf_Addr max_end;		/* the largest end up to this one, by start */
	uint32_t order;			/* in the walk: the first match wins, as in die__path */
	int nest;
	Dwarf_Die die;
};

struct cu_index {
	struct cu_scope *scopes;
	size_t nr, cap;
};

struct pm_dwfile {
	Dwfl *dwfl;
	Dwfl_Module *mod;		/* NULL: no ELF file there */
	Dwarf_Addr bias;
	char **names;			/* file names joined to their unit's directory */
	size_t nr_names, cap_names;
	struct pm_hashtab name_ids;	/* names[] by the name */
	/* The indexes of the units met, by libdwfl's DIE (stable while the module lives). */
	struct cu_index *cus;
	size_t nr_cus, cap_cus;
	struct pm_hashtab cu_ids;	/* cus[] by the unit's DIE */
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = pm_debuginfo__find_elf,
	.find_debuginfo = pm_debuginfo__find,
	.section_address = dwfl_offline_section_address,
};

static uint64_t name_hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	const char *name = ((const struct pm_dwfile *)arg)->names[id];

	return pm_hashtab__hash_bytes(t, name, strlen(name));
}

static bool name_equal(uint64_t id, const void *key, void *arg)
{
	return !strcmp(((const struct pm_dwfile *)arg)->names[id], key);
}

static const struct pm_hashtab_ops name_ops = { .hash = name_hash, .equal = name_equal };

struct pm_dwfile *pm_dwfile__open(struct pm_dso *dso)
{
	const char *path = pm_dso__path(dso);
	struct pm_dwfile *f = calloc(1, sizeof(*f));
	int fd;

	if (!f)
		return NULL;
	pm_hashtab__init(&f->name_ids, &name_ops, f);
	pm_hashtab__init(&f->cu_ids, NULL, NULL);
	f->dwfl = dwfl_begin(&callbacks);
	fd = f->dwfl ? pm_dso__open(dso) : -1;
	if (fd >= 0) {
		dwfl_report_begin(f->dwfl);
		f->mod = dwfl_report_offline(f->dwfl, pm_path__base(path), path, fd);
		dwfl_report_end(f->dwfl, NULL, NULL);
		/* A module made takes the fd; a refused one leaves it to us. */
		if (!f->mod)
			close(fd);
		pm_debuginfo__set_dso(f->mod, dso);
	}
	if (f->mod && !dwfl_module_getelf(f->mod, &f->bias))
		f->mod = NULL;
	return f;
}

void pm_dwfile__close(struct pm_dwfile *f)
{
	if (!f)
		return;
	if (f->dwfl)
		dwfl_end(f->dwfl);
	while (f->nr_names)
		free(f->names[--f->nr_names]);
	free(f->names);
	pm_hashtab__exit(&f->name_ids);
	while (f->nr_cus)
		free(f->cus[--f->nr_cus].scopes);
	free(f->cus);
	pm_hashtab__exit(&f->cu_ids);
	free(f);
}

/* ---- source lines ---- */

/* path, kept once per file: NULL when there is no room.  Takes path. */
static const char *dwfile__keep_name(struct pm_dwfile *f, char *path)
{
	uint64_t h = pm_hashtab__hash_bytes(&f->name_ids, path, strlen(path)), id;

	if (pm_hashtab__find(&f->name_ids, h, path, &id)) {
		free(path);
		return f->names[id];
	}
	if (f->nr_names >= NAMES_MAX ||
	    pm_array__grow((void **)&f->names, &f->cap_names, f->nr_names, sizeof(*f->names))) {
		free(path);
		return NULL;
	}
	f->names[f->nr_names] = path;
	if (pm_hashtab__insert(&f->name_ids, h, f->nr_names)) {
		free(path);
		return NULL;
	}
	f->nr_names++;
	return path;
}

/*
 * The path of a line's file: relative names (as compilers write them when
 * given relative paths) are under the unit's compilation directory.
 */
static const char *dwfile__name(struct pm_dwfile *f, Dwfl_Line *l, const char *file)
{
	const char *dir = file[0] == '/' ? NULL : dwfl_line_comp_dir(l);
	char *path;

	if (!dir || asprintf(&path, "%s/%s", dir, file) < 0)
		path = strdup(file);
	return path ? dwfile__keep_name(f, path) : NULL;
}

int pm_dwfile__line(struct pm_dwfile *f, uint64_t vaddr, const char **file, uint32_t *line)
{
	Dwfl_Line *l = f->mod ? dwfl_module_getsrc(f->mod, vaddr + f->bias) : NULL;
	const char *name;
	int n = 0;

	name = l ? dwfl_lineinfo(l, NULL, &n, NULL, NULL, NULL) : NULL;
	if (!name || n <= 0)
		return -ENOENT;
	*file = dwfile__name(f, l, name);
	*line = (uint32_t)n;
	return *file ? 0 : -ENOENT;
}

/* ---- inlined functions ---- */

/*
 * The DIEs with code at pc below parent, outermost first, from path[depth]
 * on; returns the depth reached.  One walk down the tree, pruned by pc:
 * dwarf_getscopes then dwarf_getscopes_die walked it twice per address.
 * Namespaces and types are searched but not part of the chain: Rust
 * defines its functions in them, and dwarf_getscopes (elfutils 0.188) does
 * not look there; an imported unit (dwz) is searched as if in place.
 */
static int die__path(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *path, int depth, int nest)
{
	Dwarf_Attribute a;
	Dwarf_Die child, unit;
	int n;

	if (depth >= PM_DWFILE_MAX_INLINED || nest > PM_DWFILE_MAX_INLINED ||
	    dwarf_child(parent, &child))
		return depth;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_imported_unit:
			if (!dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a), &unit))
				break;
			n = die__path(&unit, pc, path, depth, nest + 1);
			if (n > depth)
				return n;
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
			n = die__path(&child, pc, path, depth, nest + 1);
			if (n > depth)
				return n;
			break;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&child, pc) > 0) {
				path[depth] = child;
				return die__path(&child, pc, path, depth + 1, nest + 1);
			}
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return depth;
}

static bool die__is_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

static bool die__is_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_structure_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_enumeration_type;
}

static int cu_index__add(struct cu_index *ix, Dwarf_Die *die, uint32_t order, int nest)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (pm_array__grow((void **)&ix->scopes, &ix->cap, ix->nr, sizeof(*ix->scopes)))
			return -ENOMEM;
		ix->scopes[ix->nr++] = (struct cu_scope){ .start = start, .end = end, .order = order,
							  .nest = nest, .die = *die };
	}
	return 0;
}

/* The scopes die__path could start from, in its order (see there). */
static int cu_index__walk(struct cu_index *ix, Dwarf_Die *parent, uint32_t *order, int nest)
{
	Dwarf_Attribute a;
	Dwarf_Die child, unit;
	int tag, err = 0;

	if (nest > PM_DWFILE_MAX_INLINED || dwarf_child(parent, &child))
		return 0;
	do {
		tag = dwarf_tag(&child);
		if (tag == DW_TAG_imported_unit) {
			if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a), &unit))
				err = cu_index__walk(ix, &unit, order, nest + 1);
		} else if (die__is_container(tag)) {
			err = cu_index__walk(ix, &child, order, nest + 1);
		} else if (die__is_scope(tag)) {
			err = cu_index__add(ix, &child, (*order)++, nest);
		}
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	return err;
}

static int scope__cmp(const void *a, const void *b)
{
	const struct cu_scope *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The scopes of unit cu, sorted by start, each with the largest end so far. */
static int cu_index__build(struct cu_index *ix, Dwarf_Die *cu)
{
	uint32_t order = 0;
	size_t i;

	if (cu_index__walk(ix, cu, &order, 0)) {
		free(ix->scopes);
		return -ENOMEM;
	}
	if (ix->nr)
		qsort(ix->scopes, ix->nr, sizeof(*ix->scopes), scope__cmp);
	for (i = 0; i < ix->nr; i++)
		ix->scopes[i].max_end = i && ix->scopes[i - 1].max_end > ix->scopes[i].end ?
					ix->scopes[i - 1].max_end : ix->scopes[i].end;
	return 0;
}

/* The index of unit cu, built on first use; NULL on ENOMEM. */
static struct cu_index *dwfile__cu_index(struct pm_dwfile *f, Dwarf_Die *cu)
{
	struct cu_index ix = { 0 };
	uint64_t id;

	if (pm_hashtab__find_int(&f->cu_ids, (uintptr_t)cu, &id))
		return &f->cus[id];
	if (pm_array__grow((void **)&f->cus, &f->cap_cus, f->nr_cus, sizeof(*f->cus)) ||
	    cu_index__build(&ix, cu))
		return NULL;
	if (pm_hashtab__insert_int(&f->cu_ids, (uintptr_t)cu, f->nr_cus)) {
		free(ix.scopes);
		return NULL;
	}
	f->cus[f->nr_cus] = ix;
	return &f->cus[f->nr_cus++];
}

/* The first scope of ix, in die__path's order, with code at pc; NULL if none. */
static const struct cu_scope *cu_index__find(const struct cu_index *ix, Dwarf_Addr pc)
{
	const struct cu_scope *best = NULL;
	size_t lo = 0, hi = ix->nr;

	/* The scopes that start at or before pc: [0, lo). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->scopes[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && ix->scopes[lo].max_end > pc)
		if (ix->scopes[lo].end > pc && (!best || ix->scopes[lo].order < best->order))
			best = &ix->scopes[lo];
	return best;
}

/* The name a DIE gives its function: how says which. */
static const char *die__function_name(Dwarf_Die *die, enum pm_dwfile_name how)
{
	Dwarf_Attribute a;
	const char *name = NULL;

	if (how == PM_DWFILE_LINKAGE) {
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
		if (!name)
			name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name,
								     &a));
	}
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return name;
}

/* The chain of scopes at vaddr, outermost first, in path: its length, or -ENOMEM. */
static int dwfile__scopes(struct pm_dwfile *f, uint64_t vaddr, Dwarf_Die *path)
{
	const struct cu_scope *scope;
	Dwarf_Addr bias, lookup = vaddr + f->bias;
	struct cu_index *ix;
	Dwarf_Die *cu;

	cu = f->mod ? dwfl_module_addrdie(f->mod, lookup, &bias) : NULL;
	if (!cu)
		return 0;
	ix = dwfile__cu_index(f, cu);
	if (!ix)
		return -ENOMEM;
	scope = cu_index__find(ix, lookup - bias);
	if (!scope)
		return 0;
	path[0] = scope->die;
	return die__path(&path[0], lookup - bias, path, 1, scope->nest + 1);
}

int pm_dwfile__inlined(struct pm_dwfile *f, uint64_t vaddr, enum pm_dwfile_name how,
		       const char **names, size_t *nr)
{
	Dwarf_Die path[PM_DWFILE_MAX_INLINED];
	int i, n = dwfile__scopes(f, vaddr, path);

	*nr = 0;
	if (n < 0)
		return n;
	/* Innermost first, out to the function the calls are inlined into. */
	for (i = n - 1; i >= 0; i--) {
		int tag = dwarf_tag(&path[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag == DW_TAG_inlined_subroutine)
			names[(*nr)++] = die__function_name(&path[i], how);
	}
	return 0;
}
