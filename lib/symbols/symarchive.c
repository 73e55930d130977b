// SPDX-License-Identifier: GPL-2.0
/*
 * The symbols a recording carries (symarchive.h has the layout): written
 * by `pmrec archive`, read by every command that names frames.  The
 * decoder trusts nothing: every count, size and offset is checked before
 * use, and what it builds is bounded by the payload's own size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf.h"
#include "symbols/symarchive.h"
#include "symbols/symname.h"
#include "symbols/symtab_int.h"

static const char magic[8] = "PMRECSYM";

#define HEADER_SIZE 32
#define TABLE_SIZE 40
#define SYM_SIZE 16

/* --- writing ------------------------------------------------------------- */

int pm_symarchive__begin(struct pm_buf *b)
{
	return pm_buf__alloc(b, HEADER_SIZE) ? 0 : -ENOMEM;
}

static size_t name__len(const char *name)
{
	return strnlen(name, PM_SYM_NAME_MAX);
}

static int table__check(const struct pm_symarchive_table *t, size_t *names_size)
{
	size_t i, n = 0, plen = strlen(t->path) + 1;

	if ((t->kind != PM_SYMARCHIVE_FILE && t->kind != PM_SYMARCHIVE_KERNEL) ||
	    t->build_id_len > PM_BUILD_ID_SIZE || plen > PM_SYMARCHIVE_MAX_PATH ||
	    t->nr_syms > PM_SYMARCHIVE_MAX_SYMS ||
	    (t->kind == PM_SYMARCHIVE_FILE && !t->build_id_len) ||
	    (t->kind == PM_SYMARCHIVE_KERNEL && plen - 1 > PM_SYMARCHIVE_MAX_MODULE + 2))
		return -EINVAL;
	for (i = 0; i < t->nr_syms; i++) {
		const struct pm_symarchive_sym *s = &t->syms[i];

		if (!s->size || s->start + s->size < s->start ||
		    (i && s->start <= t->syms[i - 1].start))
			return -EINVAL;
		n += name__len(s->name) + 1;
		if (n > PM_SYMARCHIVE_MAX_NAMES)
			return -EFBIG;
	}
	*names_size = n;
	return 0;
}

int pm_symarchive__add(struct pm_buf *b, const struct pm_symarchive_table *t)
{
	size_t names_size, plen = strlen(t->path) + 1, name = 0, i, start = b->len;
	unsigned char *h;
	uint32_t nr;
	int err = table__check(t, &names_size);

	if (err)
		return err;
	if (b->len < HEADER_SIZE)
		return -EINVAL;
	h = pm_buf__alloc(b, TABLE_SIZE);
	if (!h)
		return -ENOMEM;
	memcpy(h, &(uint32_t){ t->kind }, 4);
	memcpy(h + 4, &(uint32_t){ (uint32_t)t->nr_syms }, 4);
	memcpy(h + 8, &(uint32_t){ (uint32_t)names_size }, 4);
	memcpy(h + 12, &(uint16_t){ (uint16_t)plen }, 2);
	h[14] = (unsigned char)t->build_id_len;
	if (t->build_id_len)
		memcpy(h + 16, t->build_id, t->build_id_len);
	err = pm_buf__append(b, t->path, plen) ?: pm_buf__pad(b, 8);
	for (i = 0; i < t->nr_syms && !err; i++) {
		err = pm_buf__append_u64(b, t->syms[i].start) ?:
		      pm_buf__append_u32(b, t->syms[i].size) ?:
		      pm_buf__append_u32(b, (uint32_t)name);
		name += name__len(t->syms[i].name) + 1;
	}
	for (i = 0; i < t->nr_syms && !err; i++)
		err = pm_buf__append(b, t->syms[i].name, name__len(t->syms[i].name)) ?:
		      pm_buf__append(b, "", 1);
	err = err ?: pm_buf__pad(b, 8);
	if (!err && b->len > PM_SYMARCHIVE_MAX_SIZE)
		err = -EFBIG;
	if (err) {
		b->len = start;
		return err;
	}
	/* The table count sits in the header. */
	memcpy(&nr, b->data + 12, 4);
	nr++;
	memcpy(b->data + 12, &nr, 4);
	return 0;
}

static int sym__cmp(const void *x, const void *y)
{
	const struct pm_symarchive_sym *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

size_t pm_symarchive__unique(struct pm_symarchive_sym *s, size_t nr)
{
	size_t i, j = 0;

	qsort(s, nr, sizeof(*s), sym__cmp);
	for (i = 0; i < nr; i++)
		if (!j || s[j - 1].start != s[i].start)
			s[j++] = s[i];
	return j;
}

int pm_symarchive__end(struct pm_buf *b)
{
	uint32_t version = PM_SYMARCHIVE_VERSION, nr;
	uint64_t size = b->len;

	if (b->len < HEADER_SIZE)
		return -EINVAL;
	memcpy(&nr, b->data + 12, 4);
	if (nr > PM_SYMARCHIVE_MAX_TABLES || size > PM_SYMARCHIVE_MAX_SIZE)
		return -EFBIG;
	memcpy(b->data, magic, sizeof(magic));
	memcpy(b->data + 8, &version, 4);
	memcpy(b->data + 16, &size, 8);
	return 0;
}

/* --- reading ------------------------------------------------------------- */

struct sa_file {
	unsigned char id[PM_BUILD_ID_SIZE];
	size_t id_len;
	size_t table;		/* its place among the FILE tables */
	struct pm_symtab st;
};

struct pm_symarchive {
	struct sa_file *files;		/* sorted by build id */
	size_t nr_files, nr_tables;
	/* Names as kallsyms has them: name, NUL, module, NUL. */
	struct pm_symtab kernel;	/* its names are in kernel_names until taken */
	size_t kernel_cap;
	struct pm_buf kernel_names;
};

struct sa_reader {
	const unsigned char *p;
	size_t len, pos;
	uint64_t base;
	struct pm_symarchive_error *e;
};

static int sa__fail(struct sa_reader *rd, size_t pos, const char *reason)
{
	rd->e->offset = rd->base + pos;
	rd->e->reason = reason;
	return -EBADMSG;
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* One decoded table: where its parts are in the payload. */
struct sa_table {
	uint32_t kind, nr_syms, names_size;
	size_t path_len, id_len;
	const unsigned char *id;
	const char *path;
	const unsigned char *syms;
	const char *names;
	size_t syms_pos;
};

static int sa__table(struct sa_reader *rd, struct sa_table *t)
{
	const unsigned char *h;
	size_t pos = rd->pos, left = rd->len - rd->pos, need;

	if (left < TABLE_SIZE)
		return sa__fail(rd, pos, "table header runs past the end of the section");
	h = rd->p + pos;
	t->kind = get_u32(h);
	t->nr_syms = get_u32(h + 4);
	t->names_size = get_u32(h + 8);
	t->path_len = (size_t)h[12] | (size_t)h[13] << 8;
	t->id_len = h[14];
	t->id = h + 16;
	if (t->kind != PM_SYMARCHIVE_FILE && t->kind != PM_SYMARCHIVE_KERNEL)
		return sa__fail(rd, pos, "unknown table kind");
	if (t->nr_syms > PM_SYMARCHIVE_MAX_SYMS)
		return sa__fail(rd, pos + 4, "too many symbols in a table");
	if (t->names_size > PM_SYMARCHIVE_MAX_NAMES)
		return sa__fail(rd, pos + 8, "names of a table too large");
	if (!t->path_len || t->path_len > PM_SYMARCHIVE_MAX_PATH)
		return sa__fail(rd, pos + 12, "bad path length");
	if (t->id_len > PM_BUILD_ID_SIZE || (t->kind == PM_SYMARCHIVE_FILE && !t->id_len))
		return sa__fail(rd, pos + 14, "bad build id length");
	if (h[15] || get_u32(h + 36))
		return sa__fail(rd, pos + 15, "reserved bytes are not zero");
	/* Each part is bounded above: the sum cannot wrap. */
	need = TABLE_SIZE + align8(t->path_len) + (size_t)t->nr_syms * SYM_SIZE +
	       align8(t->names_size);
	if (need > left)
		return sa__fail(rd, pos, "table runs past the end of the section");
	t->path = (const char *)h + TABLE_SIZE;
	if (t->path[t->path_len - 1] || strlen(t->path) + 1 != t->path_len)
		return sa__fail(rd, pos + TABLE_SIZE, "path is not one NUL-terminated string");
	t->syms_pos = pos + TABLE_SIZE + align8(t->path_len);
	t->syms = rd->p + t->syms_pos;
	t->names = (const char *)t->syms + (size_t)t->nr_syms * SYM_SIZE;
	if (t->names_size && t->names[t->names_size - 1])
		return sa__fail(rd, t->syms_pos + (size_t)t->nr_syms * SYM_SIZE,
				"names do not end with a NUL");
	rd->pos += need;
	return 0;
}

/*
 * Checks symbol i of t: 0 and its start, size and name, or a fault.  Its
 * name starts at *name_off, where the previous one ended: each name is
 * used once, so what the decoder copies is bounded by the names' size.
 */
static int sa__sym(struct sa_reader *rd, const struct sa_table *t, uint32_t i, uint64_t prev,
		   size_t *name_off, uint64_t *start, uint32_t *size, const char **name)
{
	const unsigned char *s = t->syms + (size_t)i * SYM_SIZE;
	size_t pos = t->syms_pos + (size_t)i * SYM_SIZE, len;
	uint32_t off;

	*start = get_u64(s);
	*size = get_u32(s + 8);
	off = get_u32(s + 12);
	if (!*size || *start + *size < *start)
		return sa__fail(rd, pos, "symbol with a bad size");
	if (i && *start <= prev)
		return sa__fail(rd, pos, "symbols out of address order");
	if (off != *name_off || off >= t->names_size)
		return sa__fail(rd, pos + 12, "symbol name not where the previous one ends");
	*name = t->names + off;
	len = strlen(*name);
	if (len > PM_SYM_NAME_MAX)
		return sa__fail(rd, pos + 12, "symbol name too long");
	*name_off += len + 1;
	return 0;
}

/* The names must all be used: their size is where the last one ends. */
static int sa__names_end(struct sa_reader *rd, const struct sa_table *t, size_t name_off)
{
	if (name_off != t->names_size)
		return sa__fail(rd, t->syms_pos + (size_t)t->nr_syms * SYM_SIZE,
				"names of the table not used by its symbols");
	return 0;
}

static int sa__kernel_sym(struct pm_symarchive *a, uint64_t start, uint32_t size,
			  const char *name, const char *module)
{
	size_t off = a->kernel_names.len;

	if (off + strlen(name) + strlen(module) + 2 >= SYM_NAMES_MAX)
		return -EFBIG;
	if (pm_array__grow((void **)&a->kernel.syms, &a->kernel_cap, a->kernel.nr,
			   sizeof(*a->kernel.syms)) ||
	    pm_buf__append(&a->kernel_names, name, strlen(name) + 1) ||
	    pm_buf__append(&a->kernel_names, module, strlen(module) + 1))
		return -ENOMEM;
	a->kernel.syms[a->kernel.nr++] = (struct pm_sym){
		.addr = start, .size = size, .name = (uint32_t)off,
		.rank = RANK_SIZED | RANK_STRONG | RANK_GLOBAL };
	return 0;
}

/* A FILE table: its names are copied as they are, once. */
static int sa__file(struct pm_symarchive *a, struct sa_reader *rd, const struct sa_table *t)
{
	struct sa_file *f;
	size_t name_off = 0;
	uint64_t start, prev = 0;
	const char *name;
	uint32_t i, size;
	int err;

	f = &a->files[a->nr_files];
	*f = (struct sa_file){ .id_len = t->id_len, .table = a->nr_files };
	memcpy(f->id, t->id, t->id_len);
	f->st.syms = calloc(t->nr_syms ? t->nr_syms : 1, sizeof(*f->st.syms));
	f->st.names = malloc(t->names_size ? t->names_size : 1);
	if (!f->st.syms || !f->st.names) {
		symtab__exit(&f->st);
		return -ENOMEM;
	}
	memcpy(f->st.names, t->names, t->names_size);
	for (i = 0; i < t->nr_syms; i++, prev = start) {
		err = sa__sym(rd, t, i, prev, &name_off, &start, &size, &name);
		if (err) {
			symtab__exit(&f->st);
			return err;
		}
		f->st.syms[i] = (struct pm_sym){ .addr = start, .size = size,
						 .name = (uint32_t)(name - t->names),
						 .rank = RANK_SIZED | RANK_STRONG | RANK_GLOBAL };
	}
	f->st.nr = t->nr_syms;
	a->nr_files++;
	return sa__names_end(rd, t, name_off);
}

/* A KERNEL table: "[kernel.kallsyms]" is the image, "[name]" a module. */
static int sa__kernel(struct pm_symarchive *a, struct sa_reader *rd, const struct sa_table *t)
{
	char module[PM_SYMARCHIVE_MAX_MODULE + 1];
	size_t name_off = 0;
	uint64_t start, prev = 0;
	const char *name;
	uint32_t i, size;
	int err;

	if (!strcmp(t->path, "[kernel.kallsyms]")) {
		module[0] = '\0';
	} else if (t->path_len >= 3 && t->path_len - 3 <= PM_SYMARCHIVE_MAX_MODULE &&
		   t->path[0] == '[' && t->path[t->path_len - 2] == ']') {
		memcpy(module, t->path + 1, t->path_len - 3);
		module[t->path_len - 3] = '\0';
	} else {
		return sa__fail(rd, t->syms_pos - align8(t->path_len),
				"kernel table of no module, or of a name too long");
	}
	for (i = 0; i < t->nr_syms; i++, prev = start) {
		err = sa__sym(rd, t, i, prev, &name_off, &start, &size, &name);
		if (!err)
			err = sa__kernel_sym(a, start, size, name, module);
		if (err)
			return err;
	}
	return sa__names_end(rd, t, name_off);
}

static int sa_file__cmp(const void *x, const void *y)
{
	const struct sa_file *a = x, *b = y;

	if (a->id_len != b->id_len)
		return a->id_len < b->id_len ? -1 : 1;
	return memcmp(a->id, b->id, a->id_len);
}

/* By build id, then in the order written. */
static int sa_file__cmp_table(const void *x, const void *y)
{
	const struct sa_file *a = x, *b = y;
	int c = sa_file__cmp(x, y);

	return c ? c : a->table < b->table ? -1 : a->table > b->table;
}

/*
 * pmrec archive wrote a table per path until it keyed them by build id:
 * a program run from two paths had two.  Their symbols are the same
 * file's, so the first one written is kept, not the whole section lost.
 */
static void sa__drop_repeats(struct pm_symarchive *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->nr_files; i++) {
		if (n && !sa_file__cmp(&a->files[n - 1], &a->files[i])) {
			symtab__exit(&a->files[i].st);
			continue;
		}
		a->files[n++] = a->files[i];
	}
	a->nr_files = n;
}

static int sa__header(struct sa_reader *rd, uint32_t *nr)
{
	uint64_t size;

	if (rd->len < HEADER_SIZE)
		return sa__fail(rd, 0, "section shorter than its header");
	if (memcmp(rd->p, magic, sizeof(magic)))
		return sa__fail(rd, 0, "bad magic (not pmrec symbols, or another byte order)");
	if (get_u32(rd->p + 8) != PM_SYMARCHIVE_VERSION)
		return sa__fail(rd, 8, "unknown version");
	*nr = get_u32(rd->p + 12);
	if (*nr > PM_SYMARCHIVE_MAX_TABLES)
		return sa__fail(rd, 12, "too many tables");
	size = get_u64(rd->p + 16);
	if (size != rd->len || size > PM_SYMARCHIVE_MAX_SIZE)
		return sa__fail(rd, 16, "size differs from the section's");
	if (get_u64(rd->p + 24))
		return sa__fail(rd, 24, "reserved bytes are not zero");
	rd->pos = HEADER_SIZE;
	return 0;
}

static int sa__decode(struct pm_symarchive *a, struct sa_reader *rd)
{
	struct sa_table t;
	uint32_t i, nr;
	int err = sa__header(rd, &nr);

	if (err)
		return err;
	a->files = calloc(nr ? nr : 1, sizeof(*a->files));
	if (!a->files)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		size_t pos = rd->pos;

		err = sa__table(rd, &t);
		if (!err)
			err = t.kind == PM_SYMARCHIVE_FILE ? sa__file(a, rd, &t) : sa__kernel(a, rd, &t);
		if (err == -EFBIG)
			err = sa__fail(rd, pos, "kernel names too large");
		if (err)
			return err;
		a->nr_tables++;
	}
	if (rd->pos != rd->len)
		return sa__fail(rd, rd->pos, "bytes after the last table");
	qsort(a->files, a->nr_files, sizeof(*a->files), sa_file__cmp_table);
	sa__drop_repeats(a);
	return 0;
}

struct pm_symarchive *pm_symarchive__decode(const void *p, size_t len, uint64_t base,
					    struct pm_symarchive_error *e)
{
	struct sa_reader rd = { .p = p, .len = len, .base = base, .e = e };
	struct pm_symarchive *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return NULL;
	err = sa__decode(a, &rd);
	if (err) {
		pm_symarchive__delete(a);
		errno = -err;
		return NULL;
	}
	return a;
}

void pm_symarchive__delete(struct pm_symarchive *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr_files; i++)
		symtab__exit(&a->files[i].st);
	free(a->files);
	free(a->kernel.syms);
	pm_buf__exit(&a->kernel_names);
	free(a);
}

size_t pm_symarchive__nr_tables(const struct pm_symarchive *a)
{
	return a->nr_tables;
}

const struct pm_symtab *pm_symarchive__file(const struct pm_symarchive *a,
					    const unsigned char *id, size_t len)
{
	struct sa_file key = { .id_len = len };
	const struct sa_file *f;

	if (!len || len > PM_BUILD_ID_SIZE)
		return NULL;
	memcpy(key.id, id, len);
	f = bsearch(&key, a->files, a->nr_files, sizeof(key), sa_file__cmp);
	return f ? &f->st : NULL;
}

bool pm_symarchive__has_kernel(const struct pm_symarchive *a)
{
	return a->kernel.nr > 0;
}

struct pm_kallsyms *pm_symarchive__kallsyms(const struct pm_symarchive *a)
{
	struct pm_symtab st = { 0 };
	struct pm_kallsyms *ks;

	if (!a->kernel.nr) {
		errno = ENOENT;
		return NULL;
	}
	st.syms = malloc(a->kernel.nr * sizeof(*st.syms));
	st.names = malloc(a->kernel_names.len);
	if (!st.syms || !st.names) {
		symtab__exit(&st);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(st.syms, a->kernel.syms, a->kernel.nr * sizeof(*st.syms));
	memcpy(st.names, a->kernel_names.data, a->kernel_names.len);
	st.nr = a->kernel.nr;
	ks = kallsyms__adopt(&st);
	if (!ks) {
		symtab__exit(&st);
		errno = ENOMEM;
	}
	return ks;
}
