// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "hashtab.h"
#include "jitsym.h"
#include "symname.h"

/*
 * Strings live in chunks that never move (names handed out stay valid);
 * a string is chunk << CHUNK_BITS | offset.  Every string fits a chunk:
 * names and sources are cut to PM_SYM_NAME_MAX, dso strings to PATH_MAX.
 */
#define CHUNK_BITS 20
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define NR_CHUNKS (PM_JITSYM_MAX_BYTES / CHUNK_SIZE + 1)
#define NO_STR UINT32_MAX
#define DSO_MAX 4096

struct jit_ent {
	uint64_t start, end;
	uint32_t name, src, dso, line;
	uint32_t dso_short;
};

/* A disjoint piece of a process's code, named by entry ent. */
struct jit_run {
	uint64_t start, end;
	uint32_t ent;
};

struct jit_proc {
	int32_t pid;
	bool sorted;			/* runs match ents */
	struct jit_ent *ents;		/* in the order added: later wins */
	size_t nr_ents, cap_ents;
	struct jit_run *runs;		/* sorted by start, disjoint */
	size_t nr_runs;
};

struct pm_jitsyms {
	struct jit_proc *procs;
	size_t nr_procs, cap_procs;
	struct pm_hashtab proc_idx;	/* pid -> index in procs */
	struct pm_hashtab tried;	/* pids the loader ran for */
	char *chunk[NR_CHUNKS];
	uint32_t nr_chunks, chunk_used;	/* bytes used in the last chunk */
	size_t bytes, nr_ents;
	uint32_t last_dso[2];		/* the dso strings added last, reused while equal */
	uint64_t gen;
	pm_jitsym_load_fn *load;
	void *load_arg;
};

bool pm_jitsym__anon_mapping(const char *name)
{
	static const char *const prefix[] = { "//anon", "/dev/zero", "/anon_hugepage", "[stack",
					      "/SYSV", "[heap]", "[anon:" };
	size_t i;

	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

struct pm_jitsyms *pm_jitsyms__new(void)
{
	struct pm_jitsyms *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	pm_hashtab__init(&t->proc_idx, NULL, NULL);
	pm_hashtab__init(&t->tried, NULL, NULL);
	t->last_dso[0] = t->last_dso[1] = NO_STR;
	t->gen = 1;
	return t;
}

void pm_jitsyms__delete(struct pm_jitsyms *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_procs; i++) {
		free(t->procs[i].ents);
		free(t->procs[i].runs);
	}
	for (i = 0; i < t->nr_chunks; i++)
		free(t->chunk[i]);
	free(t->procs);
	pm_hashtab__exit(&t->proc_idx);
	pm_hashtab__exit(&t->tried);
	free(t);
}

void pm_jitsyms__set_loader(struct pm_jitsyms *t, pm_jitsym_load_fn *fn, void *arg)
{
	t->load = fn;
	t->load_arg = arg;
}

static const char *jitsyms__str(const struct pm_jitsyms *t, uint32_t s)
{
	if (s == NO_STR)
		return NULL;
	return t->chunk[s >> CHUNK_BITS] + (s & (CHUNK_SIZE - 1));
}

/* Copies len bytes of p, NUL-terminated, into the pool; *out gets its handle. */
static int jitsyms__intern(struct pm_jitsyms *t, const char *p, size_t len, uint32_t *out)
{
	char *dst;

	if (t->bytes + len + 1 > PM_JITSYM_MAX_BYTES)
		return -E2BIG;
	if (!t->nr_chunks || t->chunk_used + len + 1 > CHUNK_SIZE) {
		if (t->nr_chunks == NR_CHUNKS)
			return -E2BIG;
		t->chunk[t->nr_chunks] = malloc(CHUNK_SIZE);
		if (!t->chunk[t->nr_chunks])
			return -ENOMEM;
		t->nr_chunks++;
		t->chunk_used = 0;
	}
	dst = t->chunk[t->nr_chunks - 1] + t->chunk_used;
	memcpy(dst, p, len);
	dst[len] = '\0';
	*out = (t->nr_chunks - 1) << CHUNK_BITS | t->chunk_used;
	t->chunk_used += (uint32_t)len + 1;
	t->bytes += len + 1;
	return 0;
}

/* A name or source, cut as symname.h cuts names. */
static int jitsyms__intern_name(struct pm_jitsyms *t, const char *p, size_t len, uint32_t *out)
{
	int err;

	if (len <= PM_SYM_NAME_MAX)
		return jitsyms__intern(t, p, len, out);
	err = jitsyms__intern(t, p, PM_SYM_NAME_MAX, out);
	if (!err)
		memcpy((char *)jitsyms__str(t, *out) + PM_SYM_NAME_MAX - 3, "...", 3);
	return err;
}

/* A dso string (which: 0 long, 1 short), shared with the entry before when equal. */
static int jitsyms__intern_dso(struct pm_jitsyms *t, const char *dso, int which, uint32_t *out)
{
	uint32_t *last = &t->last_dso[which];
	size_t len = strnlen(dso, DSO_MAX);
	int err;

	if (len == DSO_MAX)
		return -EINVAL;
	if (*last != NO_STR && !strcmp(jitsyms__str(t, *last), dso)) {
		*out = *last;
		return 0;
	}
	err = jitsyms__intern(t, dso, len, out);
	if (!err)
		*last = *out;
	return err;
}

static struct jit_proc *jitsyms__proc(struct pm_jitsyms *t, int32_t pid, bool create)
{
	uint64_t idx;

	if (pm_hashtab__find_int(&t->proc_idx, (uint32_t)pid, &idx))
		return &t->procs[idx];
	if (!create ||
	    pm_array__grow((void **)&t->procs, &t->cap_procs, t->nr_procs, sizeof(*t->procs)) ||
	    pm_hashtab__insert_int(&t->proc_idx, (uint32_t)pid, t->nr_procs))
		return NULL;
	t->procs[t->nr_procs] = (struct jit_proc){ .pid = pid };
	return &t->procs[t->nr_procs++];
}

int pm_jitsyms__add(struct pm_jitsyms *t, const struct pm_jitsym_add *a)
{
	struct jit_ent e = { .start = a->start, .end = a->start + a->size, .src = NO_STR,
			     .dso = NO_STR, .dso_short = NO_STR, .line = a->line };
	struct jit_proc *p;
	int err;

	if (!a->size || e.end < e.start)
		return -EINVAL;
	if (t->nr_ents >= PM_JITSYM_MAX_ENTRIES)
		return -E2BIG;
	p = jitsyms__proc(t, a->pid, true);
	if (!p || pm_array__grow((void **)&p->ents, &p->cap_ents, p->nr_ents, sizeof(e)))
		return -ENOMEM;
	err = jitsyms__intern_name(t, a->name, a->name_len, &e.name);
	if (!err && a->src)
		err = jitsyms__intern_name(t, a->src, a->src_len, &e.src);
	if (!err && a->dso)
		err = jitsyms__intern_dso(t, a->dso, 0, &e.dso);
	if (!err && a->dso_short)
		err = jitsyms__intern_dso(t, a->dso_short, 1, &e.dso_short);
	if (err)
		return err;
	p->ents[p->nr_ents++] = e;
	p->sorted = false;
	t->nr_ents++;
	t->gen++;
	return 0;
}

/* Sorting context: qsort has none, so the entries travel in the key. */
struct order_key {
	uint64_t start;
	uint32_t ent;
};

static int order__cmp(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ent < y->ent ? -1 : x->ent > y->ent;
}

static int u64__cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A max-heap of entry indexes: the later entry is on top. */
static void heap__push(uint32_t *h, size_t *nr, uint32_t v)
{
	size_t i = (*nr)++;

	while (i && h[(i - 1) / 2] < v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap__pop(uint32_t *h, size_t *nr)
{
	uint32_t v = h[--(*nr)];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < *nr) {
		if (c + 1 < *nr && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*nr)
		h[i] = v;
}

static void proc__add_run(struct jit_proc *p, uint64_t start, uint64_t end, uint32_t ent)
{
	struct jit_run *last = p->nr_runs ? &p->runs[p->nr_runs - 1] : NULL;

	if (last && last->ent == ent && last->end == start)
		last->end = end;
	else
		p->runs[p->nr_runs++] = (struct jit_run){ .start = start, .end = end, .ent = ent };
}

/* True when no two of p's entries, in start order, overlap. */
static bool proc__disjoint(const struct jit_proc *p, const struct order_key *order, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (p->ents[order[i - 1].ent].end > order[i].start)
			return false;
	return true;
}

/*
 * The disjoint runs of p's entries, the later entry winning each point: a
 * sweep over every start and end, the entries covering the current point
 * in a heap (an entry that has ended leaves it when it comes on top).
 */
static int proc__sort(struct jit_proc *p)
{
	size_t n = p->nr_ents, nr_pts = 0, nr_heap = 0, i, k, next = 0;
	struct order_key *order = malloc((n + 1) * sizeof(*order));
	uint64_t *pts = malloc((2 * n + 1) * sizeof(*pts));
	uint32_t *heap = malloc((n + 1) * sizeof(*heap));
	struct jit_run *runs = realloc(p->runs, (2 * n + 1) * sizeof(*runs));
	int err = -ENOMEM;

	if (!runs)
		goto out;
	p->runs = runs;
	p->nr_runs = 0;
	if (!order || !pts || !heap)
		goto out;
	for (i = 0; i < n; i++) {
		order[i] = (struct order_key){ .start = p->ents[i].start, .ent = (uint32_t)i };
		pts[nr_pts++] = p->ents[i].start;
		pts[nr_pts++] = p->ents[i].end;
	}
	qsort(order, n, sizeof(*order), order__cmp);
	if (proc__disjoint(p, order, n)) {
		/* The usual map: no two ranges overlap, each one is a run. */
		for (i = 0; i < n; i++)
			p->runs[i] = (struct jit_run){ .start = p->ents[order[i].ent].start,
						       .end = p->ents[order[i].ent].end,
						       .ent = order[i].ent };
		p->nr_runs = n;
		p->sorted = true;
		err = 0;
		goto out;
	}
	qsort(pts, nr_pts, sizeof(*pts), u64__cmp);
	for (k = 0; k < nr_pts; k++) {
		uint64_t at = pts[k];

		if (k + 1 < nr_pts && pts[k + 1] == at)
			continue;	/* the last copy of a point is the one swept */
		while (next < n && order[next].start <= at)
			heap__push(heap, &nr_heap, order[next++].ent);
		while (nr_heap && p->ents[heap[0]].end <= at)
			heap__pop(heap, &nr_heap);
		if (nr_heap && k + 1 < nr_pts)
			proc__add_run(p, at, pts[k + 1], heap[0]);
	}
	p->sorted = true;
	err = 0;
out:
	free(order);
	free(pts);
	free(heap);
	return err;
}

static struct jit_proc *jitsyms__lookup_proc(struct pm_jitsyms *t, int32_t pid)
{
	struct jit_proc *p = jitsyms__proc(t, pid, false);

	if (p || !t->load || pm_hashtab__find_int(&t->tried, (uint32_t)pid, NULL))
		return p;
	if (pm_hashtab__insert_int(&t->tried, (uint32_t)pid, 1))
		return NULL;
	t->load(t->load_arg, t, pid);
	return jitsyms__proc(t, pid, false);
}

static void jitsyms__fill(const struct pm_jitsyms *t, const struct jit_ent *e,
			  struct pm_jitsym *out)
{
	*out = (struct pm_jitsym){ .start = e->start, .size = e->end - e->start,
				   .name = jitsyms__str(t, e->name), .src = jitsyms__str(t, e->src),
				   .line = e->line, .dso = jitsyms__str(t, e->dso),
				   .dso_short = jitsyms__str(t, e->dso_short) };
}

int pm_jitsyms__find(struct pm_jitsyms *t, int32_t pid, uint64_t addr, struct pm_jitsym *out)
{
	struct jit_proc *p = jitsyms__lookup_proc(t, pid);
	size_t lo = 0, hi;

	if (!p || (!p->sorted && proc__sort(p)))
		return -ENOENT;
	/* The first run that ends after addr. */
	hi = p->nr_runs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->runs[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->nr_runs || p->runs[lo].start > addr)
		return -ENOENT;
	jitsyms__fill(t, &p->ents[p->runs[lo].ent], out);
	return 0;
}

bool pm_jitsyms__has_pid(const struct pm_jitsyms *t, int32_t pid)
{
	return pm_hashtab__find_int(&t->proc_idx, (uint32_t)pid, NULL);
}

size_t pm_jitsyms__count(const struct pm_jitsyms *t)
{
	return t->nr_ents;
}

uint64_t pm_jitsyms__generation(const struct pm_jitsyms *t)
{
	return t->gen;
}

bool pm_jitsyms__next(const struct pm_jitsyms *t, size_t *pos, int32_t *pid,
		      struct pm_jitsym *out)
{
	size_t proc = *pos >> 32, ent = *pos & UINT32_MAX;

	while (proc < t->nr_procs && ent >= t->procs[proc].nr_ents) {
		proc++;
		ent = 0;
	}
	if (proc == t->nr_procs)
		return false;
	*pid = t->procs[proc].pid;
	jitsyms__fill(t, &t->procs[proc].ents[ent], out);
	*pos = (size_t)proc << 32 | (ent + 1);
	return true;
}

/* The on-disk entry before its strings. */
struct jit_disk {
	uint32_t pid, line;
	uint64_t start, size;
	uint16_t name_len, src_len, dso_len, short_len;
	uint32_t flags, reserved;
};

static size_t disk__len(const struct jit_disk *d)
{
	return (sizeof(*d) + d->name_len + d->src_len + d->dso_len + d->short_len + 7) &
	       ~(size_t)7;
}

int pm_jitsyms__encode(const struct pm_jitsyms *t, size_t *pos, size_t max, struct pm_buf *out)
{
	const char *prev_dso = NULL, *prev_short = NULL;
	size_t start_len = out->len, next = *pos;
	struct pm_jitsym js;
	int32_t pid;

	if (pm_buf__append_u64(out, PM_JITSYM_FORMAT))
		return -ENOMEM;
	while (pm_jitsyms__next(t, &next, &pid, &js)) {
		struct jit_disk d = { .pid = (uint32_t)pid, .line = js.line, .start = js.start,
				      .size = js.size, .name_len = (uint16_t)strlen(js.name) };

		if (js.src) {
			d.flags |= PM_JITSYM_F_SRC;
			d.src_len = (uint16_t)strlen(js.src);
		}
		/* Strings are interned: one dso string is one pointer. */
		if ((js.dso || js.dso_short) && js.dso == prev_dso && js.dso_short == prev_short) {
			d.flags |= PM_JITSYM_F_SAME_DSO;
		} else {
			d.dso_len = js.dso ? (uint16_t)strlen(js.dso) : 0;
			d.short_len = js.dso_short ? (uint16_t)strlen(js.dso_short) : 0;
		}
		if (out->len - start_len + disk__len(&d) > max)
			break;
		if (pm_buf__append(out, &d, sizeof(d)) || pm_buf__append(out, js.name, d.name_len) ||
		    pm_buf__append(out, js.src, d.src_len) || pm_buf__append(out, js.dso, d.dso_len) ||
		    pm_buf__append(out, js.dso_short, d.short_len) || pm_buf__pad(out, 8))
			return -ENOMEM;
		prev_dso = js.dso;
		prev_short = js.dso_short;
		*pos = next;
	}
	return 0;
}

/* A dso string of an entry into buf (DSO_MAX bytes): "" when absent. */
static void disk__dso(char *buf, const char *s, uint16_t len)
{
	memcpy(buf, s, len);
	buf[len] = '\0';
}

int pm_jitsyms__decode(struct pm_jitsyms *t, const void *p, size_t len)
{
	const unsigned char *b = p, *end = b + len;
	char dso[DSO_MAX] = "", dso_short[DSO_MAX] = "";
	struct jit_disk d;
	uint64_t version;
	int err;

	if (len < sizeof(version))
		return -EBADMSG;
	memcpy(&version, b, sizeof(version));
	if (version != PM_JITSYM_FORMAT)
		return -EPROTO;
	for (b += sizeof(version); b < end; b += disk__len(&d)) {
		const char *s;

		if ((size_t)(end - b) < sizeof(d))
			return -EBADMSG;
		memcpy(&d, b, sizeof(d));
		if (disk__len(&d) > (size_t)(end - b) || d.dso_len >= DSO_MAX ||
		    d.short_len >= DSO_MAX ||
		    (d.flags & PM_JITSYM_F_SAME_DSO && (d.dso_len || d.short_len)))
			return -EBADMSG;
		s = (const char *)b + sizeof(d);
		if (!(d.flags & PM_JITSYM_F_SAME_DSO)) {
			disk__dso(dso, s + d.name_len + d.src_len, d.dso_len);
			disk__dso(dso_short, s + d.name_len + d.src_len + d.dso_len, d.short_len);
		}
		err = pm_jitsyms__add(t, &(struct pm_jitsym_add){
			.pid = (int32_t)d.pid, .start = d.start, .size = d.size,
			.name = s, .name_len = strnlen(s, d.name_len),
			.src = d.flags & PM_JITSYM_F_SRC ? s + d.name_len : NULL,
			.src_len = strnlen(s + d.name_len, d.src_len), .line = d.line,
			.dso = dso[0] ? dso : NULL, .dso_short = dso_short[0] ? dso_short : NULL });
		if (err == -EINVAL)
			return -EBADMSG;
		if (err)
			return err;
	}
	return 0;
}
