// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/archive.h"
#include "symbols/dso.h"
#include "symbols/elf.h"
#include "base/hashtab.h"
#include "symbols/kallsyms.h"
#include "format/perf_data.h"
#include "symbols/symarchive.h"
#include "symbols/vdso.h"

struct ar_file {
	struct pm_dso *dso;
	unsigned char id[PM_BUILD_ID_SIZE];
	size_t id_len;		/* the recorded build id's; 0: none */
	const char *missed;	/* why it has no table, once tried */
};

struct pm_archive {
	struct pm_namer *n;
	pm_warn_fn *warn;
	void *warn_arg;
	struct ar_file *files;		/* in the order first sampled */
	size_t nr_files, cap_files;
	struct pm_hashtab file_idx;	/* dso pointer -> index in files */
	struct pm_hashtab tables;	/* build id -> the file whose table is written */
	struct pm_hashtab kaddrs;	/* sampled kernel addresses (keys) */
	bool all_kernel;		/* all of kallsyms, not the sampled functions */
	struct pm_symarchive_sym *syms;	/* one table's, while it is written */
	size_t cap_syms;
};

static uint64_t table_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct ar_file *f = &((struct pm_archive *)arg)->files[val];

	return pm_hashtab__hash_bytes(t, f->id, f->id_len);
}

static bool table_equal(uint64_t val, const void *key, void *arg)
{
	const struct ar_file *f = &((struct pm_archive *)arg)->files[val];
	const struct ar_file *k = key;

	return f->id_len == k->id_len && !memcmp(f->id, k->id, k->id_len);
}

static const struct pm_hashtab_ops table_ops = { .hash = table_hash, .equal = table_equal };

struct pm_archive *pm_archive__new(struct pm_namer *n, pm_warn_fn *warn, void *warn_arg)
{
	struct pm_archive *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->n = n;
	a->warn = warn;
	a->warn_arg = warn_arg;
	pm_hashtab__init(&a->file_idx, NULL, NULL);
	pm_hashtab__init(&a->tables, &table_ops, a);
	pm_hashtab__init(&a->kaddrs, NULL, NULL);
	return a;
}

void pm_archive__delete(struct pm_archive *a)
{
	if (!a)
		return;
	pm_hashtab__exit(&a->file_idx);
	pm_hashtab__exit(&a->tables);
	pm_hashtab__exit(&a->kaddrs);
	free(a->files);
	free(a->syms);
	free(a);
}

static int archive__add_file(void *arg, struct pm_dso *dso, const unsigned char *id, size_t len)
{
	struct pm_archive *a = arg;

	if (pm_hashtab__find_int(&a->file_idx, (uint64_t)(uintptr_t)dso, NULL))
		return 0;
	if (pm_array__grow((void **)&a->files, &a->cap_files, a->nr_files, sizeof(*a->files)) ||
	    pm_hashtab__insert_int(&a->file_idx, (uint64_t)(uintptr_t)dso, a->nr_files))
		return -ENOMEM;
	a->files[a->nr_files] = (struct ar_file){ .dso = dso, .id_len = len };
	memcpy(a->files[a->nr_files++].id, id, len);
	return 0;
}

static int archive__user(struct pm_archive *a, int32_t pid, uint64_t ip)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	struct pm_dso *dso;
	size_t len;

	if (pm_namer__file_at(a->n, pid, ip, &dso, id, &len))
		return 0;
	return archive__add_file(a, dso, id, len);
}

int pm_archive__add_all(struct pm_archive *a)
{
	a->all_kernel = true;
	return pm_namer__for_each_file(a->n, archive__add_file, a);
}

int pm_archive__consume(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in)
{
	struct pm_archive *a = ctx;
	struct pm_named_frame *fr;
	size_t i, nr;
	int err;

	if (rec->header->type != PERF_RECORD_SAMPLE)
		return 0;
	err = pm_namer__chain(a->n, rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK, &in->s,
			      &fr, &nr);
	for (i = 0; i < nr && !err; i++) {
		if (fr[i].cpumode == PERF_RECORD_MISC_USER)
			err = archive__user(a, (int32_t)in->s.pid, fr[i].lookup);
		else if (fr[i].cpumode == PERF_RECORD_MISC_KERNEL &&
			 !pm_hashtab__find_int(&a->kaddrs, fr[i].lookup, NULL))
			err = pm_hashtab__insert_int(&a->kaddrs, fr[i].lookup, 0);
	}
	return err;
}

/*
 * Said after every file was tried: a file missed at one path is not
 * missing when another path of its build id gave the table.
 */
static void archive__say_missed(struct pm_archive *a, struct pm_archive_stats *st)
{
	const struct ar_file *f;
	size_t i;

	for (i = 0; i < a->nr_files; i++) {
		f = &a->files[i];
		if (!f->missed || (f->id_len &&
				   pm_hashtab__find(&a->tables, pm_hashtab__hash_bytes(
						&a->tables, f->id, f->id_len), f, NULL)))
			continue;
		st->files_missed++;
		if (a->warn)
			a->warn(a->warn_arg, &(struct pm_warning){
				.kind = PM_WARN_NOT_ARCHIVED, .dso = pm_dso__path(f->dso),
				.why = f->missed });
	}
}

static int archive__reserve(struct pm_archive *a, size_t nr)
{
	struct pm_symarchive_sym *s;

	if (nr <= a->cap_syms)
		return 0;
	s = realloc(a->syms, nr * sizeof(*s));
	if (!s)
		return -ENOMEM;
	a->syms = s;
	a->cap_syms = nr;
	return 0;
}

/*
 * A file's table, at file offsets, from st: the file's own symbols
 * (dso set: virtual addresses to translate) or the input's embedded ones.
 */
static int archive__table(struct pm_archive *a, struct pm_buf *out, const struct ar_file *f,
			  const struct pm_symtab *st, struct pm_dso *dso, struct pm_archive_stats *st_out)
{
	size_t i, nr = 0, n = pm_symtab__nr(st);
	struct pm_symbol s;
	uint64_t off;
	int err = archive__reserve(a, n);

	for (i = 0; i < n && !err; i++) {
		pm_symtab__get(st, i, &s);
		off = s.addr;
		if (!s.size || (dso && pm_dso__file_offset(dso, s.addr, &off)))
			continue;
		a->syms[nr++] = (struct pm_symarchive_sym){ .start = off, .size = s.size,
							    .name = s.name };
	}
	if (err || !nr)
		return err;
	nr = pm_symarchive__unique(a->syms, nr);
	err = pm_symarchive__add(out, &(struct pm_symarchive_table){
		.kind = PM_SYMARCHIVE_FILE, .path = pm_dso__path(f->dso), .build_id = f->id,
		.build_id_len = f->id_len, .syms = a->syms, .nr_syms = nr }) ?:
	      pm_hashtab__insert(&a->tables, pm_hashtab__hash_bytes(&a->tables, f->id, f->id_len),
				 (uint64_t)(f - a->files));
	if (!err) {
		st_out->files++;
		st_out->file_syms += nr;
	}
	return err;
}

static int archive__file(struct pm_archive *a, struct pm_buf *out, struct ar_file *f,
			 struct pm_archive_stats *st)
{
	const struct pm_symarchive *old = pm_namer__archive(a->n);
	const char *path = pm_dso__path(f->dso);
	const struct pm_symtab *syms;
	const unsigned char *id;
	size_t len;
	int err;

	/*
	 * Anonymous memory, memfd: no file to archive, named alike everywhere.
	 * The vDSO has one, by its build id: this kernel's (symbols/vdso.h).
	 */
	if ((path[0] != '/' && strcmp(path, PM_VDSO_NAME)) || path[1] == '/')
		return 0;
	err = pm_dso__build_id(f->dso, &id, &len);
	/* Without an id, a file that has one could be named by nothing else. */
	if (!f->id_len) {
		if (!err)
			f->missed = "no build id was recorded for it";
		return 0;
	}
	/*
	 * A table is keyed by its build id: one program run from two paths
	 * (copies, containers) has it written once, from the first path
	 * that has the file.
	 */
	if (pm_hashtab__find(&a->tables, pm_hashtab__hash_bytes(&a->tables, f->id, f->id_len), f,
			     NULL))
		return 0;
	if (!err && len == f->id_len && !memcmp(id, f->id, len)) {
		err = pm_dso__symtab(f->dso, &syms);
		if (err) {
			f->missed = "its symbols cannot be read";
			return 0;
		}
		return archive__table(a, out, f, syms, f->dso, st);
	}
	syms = old ? pm_symarchive__file(old, f->id, f->id_len) : NULL;
	if (syms)
		return archive__table(a, out, f, syms, NULL, st);
	f->missed = err == -ESTALE ? "the file was replaced since the recording" :
		    !err ? "its build id differs from the recorded one" :
		    "no file here has the recorded build id";
	return 0;
}

/* A sampled kernel function and its module (NULL: the image). */
struct ar_ksym {
	struct pm_symbol s;
	const char *module;
};

static int ksym__cmp_module(const struct ar_ksym *a, const struct ar_ksym *b)
{
	return strcmp(a->module ? a->module : "", b->module ? b->module : "");
}

static int ksym__cmp(const void *x, const void *y)
{
	const struct ar_ksym *a = x, *b = y;
	int c = ksym__cmp_module(a, b);

	if (c)
		return c;
	return a->s.addr < b->s.addr ? -1 : a->s.addr > b->s.addr;
}

/* One table of ks[0..nr), functions of one module, one entry per start. */
static int archive__module(struct pm_archive *a, struct pm_buf *out, const struct ar_ksym *ks,
			   size_t nr, struct pm_archive_stats *st)
{
	char path[PM_SYMARCHIVE_MAX_PATH];
	size_t i, k = 0;
	int err;

	for (i = 0; i < nr; i++)
		if (ks[i].s.size && (!k || a->syms[k - 1].start != ks[i].s.addr))
			a->syms[k++] = (struct pm_symarchive_sym){
				.start = ks[i].s.addr, .size = ks[i].s.size, .name = ks[i].s.name };
	snprintf(path, sizeof(path), ks->module ? "[%s]" : "[kernel.kallsyms]", ks->module);
	err = pm_symarchive__add(out, &(struct pm_symarchive_table){
		.kind = PM_SYMARCHIVE_KERNEL, .path = path, .syms = a->syms, .nr_syms = k });
	if (!err)
		st->kernel_syms += k;
	return err;
}

/* The kernel's: one table for the image, one per module, of the sampled functions. */
static int archive__kernel(struct pm_archive *a, struct pm_buf *out,
			   struct pm_archive_stats *st)
{
	size_t pos = 0, nr = 0, i, j, n = pm_hashtab__count(&a->kaddrs);
	const struct pm_kallsyms *kallsyms;
	struct ar_ksym *ks;
	uint64_t addr, val;
	int err = 0;

	if (!n && !a->all_kernel)
		return 0;
	kallsyms = pm_namer__kallsyms(a->n);
	if (!kallsyms)
		return 0;
	if (a->all_kernel)
		n = pm_kallsyms__nr(kallsyms);
	ks = calloc(n, sizeof(*ks));
	if (!ks || archive__reserve(a, n)) {
		free(ks);
		return -ENOMEM;
	}
	if (a->all_kernel)
		for (nr = 0; nr < n; nr++)
			pm_kallsyms__get(kallsyms, nr, &ks[nr].s, &ks[nr].module);
	else
		while (pm_hashtab__next(&a->kaddrs, &pos, &addr, &val))
			if (!pm_kallsyms__lookup(kallsyms, addr, &ks[nr].s, &ks[nr].module))
				nr++;
	qsort(ks, nr, sizeof(*ks), ksym__cmp);
	for (i = 0; i < nr && !err; i = j) {
		for (j = i + 1; j < nr && !ksym__cmp_module(&ks[i], &ks[j]); j++)
			;
		err = archive__module(a, out, ks + i, j - i, st);
	}
	free(ks);
	return err;
}

int pm_archive__build(struct pm_archive *a, struct pm_buf *out, struct pm_archive_stats *st)
{
	size_t i;
	int err;

	memset(st, 0, sizeof(*st));
	err = pm_symarchive__begin(out);
	for (i = 0; i < a->nr_files && !err; i++)
		err = archive__file(a, out, &a->files[i], st);
	err = err ?: archive__kernel(a, out, st) ?: pm_symarchive__end(out);
	if (!err)
		archive__say_missed(a, st);
	st->bytes = out->len;
	return err;
}
