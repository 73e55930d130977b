// SPDX-License-Identifier: GPL-2.0
/*
 * The annotate sink: samples counted by function and by place in the
 * function's file; and the source files whose lines annotations show.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/annotate.h"
#include "base/buf.h"
#include "base/file.h"
#include "format/perf_data.h"

static uint64_t func__hash(const struct pm_hashtab *t, const char *dso, const char *sym)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_bytes(t, dso, strlen(dso)),
				     pm_hashtab__hash_bytes(t, sym, strlen(sym)));
}

struct func_key {
	const char *dso, *sym;
};

static uint64_t func__rehash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct pm_annotate_sink *k = arg;

	return func__hash(t, k->funcs[val].dso, k->funcs[val].sym);
}

static bool func__equal(uint64_t val, const void *key, void *arg)
{
	const struct pm_annotate_sink *k = arg;
	const struct func_key *fk = key;

	return !strcmp(k->funcs[val].dso, fk->dso) && !strcmp(k->funcs[val].sym, fk->sym);
}

static const struct pm_hashtab_ops func_ops = {
	.hash = func__rehash,
	.equal = func__equal,
};

void pm_annotate_sink__init(struct pm_annotate_sink *k)
{
	*k = (struct pm_annotate_sink){ .evsel = -1 };
	pm_hashtab__init(&k->by_name, &func_ops, k);
}

void pm_annotate_sink__exit(struct pm_annotate_sink *k)
{
	size_t i;

	for (i = 0; i < k->nr_funcs; i++) {
		free(k->funcs[i].sym);
		free(k->funcs[i].dso);
		free(k->funcs[i].hits);
		pm_hashtab__exit(&k->funcs[i].by_off);
	}
	free(k->funcs);
	pm_hashtab__exit(&k->by_name);
	*k = (struct pm_annotate_sink){ .evsel = -1 };
}

/* The function sym of dso, added on its first sample. */
static struct pm_annotate_func *sink__func(struct pm_annotate_sink *k, const char *dso,
					   const char *sym, bool kernel)
{
	struct func_key key = { .dso = dso, .sym = sym };
	uint64_t h = func__hash(&k->by_name, dso, sym), idx;
	struct pm_annotate_func *f;

	if (pm_hashtab__find(&k->by_name, h, &key, &idx))
		return &k->funcs[idx];
	if (k->nr_funcs >= UINT32_MAX - 1 ||
	    pm_array__grow((void **)&k->funcs, &k->cap_funcs, k->nr_funcs, sizeof(*k->funcs)))
		return NULL;
	f = &k->funcs[k->nr_funcs];
	*f = (struct pm_annotate_func){ .sym = strdup(sym), .dso = strdup(dso), .kernel = kernel };
	pm_hashtab__init(&f->by_off, NULL, NULL);
	if (!f->sym || !f->dso) {
		free(f->sym);
		free(f->dso);
		return NULL;
	}
	k->nr_funcs++;
	if (pm_hashtab__insert(&k->by_name, h, k->nr_funcs - 1)) {
		k->nr_funcs--;
		free(f->sym);
		free(f->dso);
		return NULL;
	}
	return f;
}

static int func__add(struct pm_annotate_func *f, uint64_t off, uint64_t period)
{
	uint64_t idx;

	if (!pm_hashtab__find_int(&f->by_off, off, &idx)) {
		if (pm_array__grow((void **)&f->hits, &f->cap_hits, f->nr_hits, sizeof(*f->hits)))
			return -ENOMEM;
		idx = f->nr_hits;
		if (pm_hashtab__insert_int(&f->by_off, off, idx))
			return -ENOMEM;
		f->hits[f->nr_hits++] = (struct pm_annotate_hit){ .off = off };
	}
	f->hits[idx].period += period;
	f->hits[idx].samples++;
	f->period += period;
	f->samples++;
	return 0;
}

static int sink__sample(struct pm_annotate_sink *k, uint16_t cpumode, const struct pm_sample *s)
{
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	struct pm_annotate_func *f;
	struct pm_mapping m;
	struct pm_frame fr;
	uint64_t off = s->ip;

	if (!(s->fields & PERF_SAMPLE_IP) || !s->evsel)
		return 0;
	if (k->evsel < 0)
		k->evsel = s->evsel->idx;
	if (s->evsel->idx != k->evsel)
		return 0;
	k->period += s->period;
	k->samples++;
	pm_namer__resolve(k->namer, (int32_t)s->pid, cpumode, s->ip, &fr);
	if (!fr.sym || !fr.dso)
		return 0;
	if (pm_namer__mapping(k->namer, (int32_t)s->pid, cpumode, s->ip, &fr, &m))
		return 0;
	if (!kernel)
		off = s->ip - m.start + m.pgoff;
	f = sink__func(k, fr.dso, fr.sym, kernel);
	if (!f)
		return -ENOMEM;
	if (!f->samples && m.build_id_len) {
		memcpy(f->build_id, m.build_id, m.build_id_len);
		f->build_id_len = m.build_id_len;
	}
	return func__add(f, off, s->period);
}

int pm_annotate_sink__record(void *arg, const struct pm_record *rec,
			     const struct pm_rec_info *in)
{
	struct pm_annotate_sink *k = arg;

	if (rec->header->type != PERF_RECORD_SAMPLE)
		return 0;
	return sink__sample(k, rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK, &in->s);
}

static int func__cmp_hot(const void *a, const void *b)
{
	const struct pm_annotate_func *x = a, *y = b;
	int c;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	c = strcmp(x->sym, y->sym);
	return c ? c : strcmp(x->dso, y->dso);
}

static int hit__cmp_off(const void *a, const void *b)
{
	const struct pm_annotate_hit *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

void pm_annotate_sink__sort(struct pm_annotate_sink *k)
{
	size_t i;

	/* The indexes by name and offset die with the order they point into. */
	pm_hashtab__exit(&k->by_name);
	pm_hashtab__init(&k->by_name, &func_ops, k);
	for (i = 0; i < k->nr_funcs; i++) {
		pm_hashtab__exit(&k->funcs[i].by_off);
		qsort(k->funcs[i].hits, k->funcs[i].nr_hits, sizeof(*k->funcs[i].hits),
		      hit__cmp_off);
	}
	qsort(k->funcs, k->nr_funcs, sizeof(*k->funcs), func__cmp_hot);
}

/* --- source files -------------------------------------------------------- */

/* At most this many source files are read for one run: debug info can name any number. */
#define SOURCES_MAX 1024

struct pm_source_file {
	char *path;
	struct pm_source_owner owner;	/* who it was read as */
	int err;			/* of reading it; 0: read */
	char *text;
	size_t len;
	size_t *starts;			/* offset of each line */
	size_t nr_lines;
};

static int source__read(struct pm_source_file *sf)
{
	int fd = pm_file__open_as(sf->path, O_RDONLY, 0, PM_SOURCE_MAX, NULL, sf->owner.uid,
				  sf->owner.gid);
	size_t i, cap = 0;
	int err;

	if (fd < 0)
		return fd;
	err = pm_file__read_all(fd, PM_SOURCE_MAX, &sf->text, &sf->len);
	close(fd);
	if (err)
		return err;
	for (i = 0; i < sf->len; i++) {
		if (i && sf->text[i - 1] != '\n')
			continue;
		if (pm_array__grow((void **)&sf->starts, &cap, sf->nr_lines, sizeof(*sf->starts)))
			return -ENOMEM;
		sf->starts[sf->nr_lines++] = i;
	}
	return 0;
}

static bool owner__same(const struct pm_source_owner *a, const struct pm_source_owner *b)
{
	return a->uid == b->uid && a->gid == b->gid;
}

int pm_sources__line(struct pm_sources *src, const struct pm_source_owner *owner,
		     const char *path, uint32_t line, const char **text, size_t *len)
{
	struct pm_source_file *sf = NULL;
	size_t i, end;

	for (i = 0; i < src->nr && !sf; i++)
		if (!strcmp(src->files[i].path, path) && owner__same(&src->files[i].owner, owner))
			sf = &src->files[i];
	if (!sf) {
		if (src->nr >= SOURCES_MAX ||
		    pm_array__grow((void **)&src->files, &src->cap, src->nr, sizeof(*src->files)))
			return -ENOENT;
		sf = &src->files[src->nr];
		*sf = (struct pm_source_file){ .path = strdup(path), .owner = *owner };
		if (!sf->path)
			return -ENOMEM;
		src->nr++;
		sf->err = source__read(sf);
	}
	if (sf->err == -EACCES)
		return -EACCES;
	if (sf->err || !line || line > sf->nr_lines)
		return -ENOENT;
	i = sf->starts[line - 1];
	end = line < sf->nr_lines ? sf->starts[line] : sf->len;
	while (end > i && (sf->text[end - 1] == '\n' || sf->text[end - 1] == '\r'))
		end--;
	*text = sf->text + i;
	*len = end - i;
	return 0;
}

bool pm_sources__withheld(const struct pm_sources *src, size_t i, const char **path,
			  struct pm_source_owner *owner)
{
	size_t j;

	for (j = 0; j < src->nr; j++) {
		if (src->files[j].err != -EACCES || i--)
			continue;
		*path = src->files[j].path;
		*owner = src->files[j].owner;
		return true;
	}
	return false;
}

void pm_sources__exit(struct pm_sources *src)
{
	size_t i;

	for (i = 0; i < src->nr; i++) {
		free(src->files[i].path);
		free(src->files[i].text);
		free(src->files[i].starts);
	}
	free(src->files);
	*src = (struct pm_sources){ 0 };
}
