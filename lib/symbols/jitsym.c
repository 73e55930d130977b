// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "symbols/jitsym.h"
#include "symbols/jitsym_int.h"
#include "symbols/symname.h"

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
	if (s == NO_STR || s == LAZY_STR)
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
int jitsyms__intern_name(struct pm_jitsyms *t, const char *p, size_t len, uint32_t *out)
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

int jitsyms__add_ent(struct pm_jitsyms *t, const struct pm_jitsym_add *a, uint32_t dso,
		     uint32_t dso_short, uint64_t lazy)
{
	struct jit_ent e = { .start = a->start, .end = a->start + a->size, .src = NO_STR,
			     .dso = dso, .dso_short = dso_short, .line = a->line };
	struct jit_proc *p;
	int err;

	if (!a->size || e.end < e.start)
		return -EINVAL;
	if (t->nr_ents >= PM_JITSYM_MAX_ENTRIES)
		return -E2BIG;
	/* Entries come process by process: the last one's, without a lookup. */
	if (t->nr_procs && t->procs[t->last_proc].pid == a->pid)
		p = &t->procs[t->last_proc];
	else
		p = jitsyms__proc(t, a->pid, true);
	if (!p || pm_array__grow((void **)&p->ents, &p->cap_ents, p->nr_ents, sizeof(e)))
		return -ENOMEM;
	t->last_proc = (size_t)(p - t->procs);
	err = 0;
	if (lazy < LAZY_STR) {
		e.name = (uint32_t)lazy;
		e.src = LAZY_STR;
	} else {
		err = jitsyms__intern_name(t, a->name, a->name_len, &e.name);
	}
	if (!err && a->src && e.src != LAZY_STR)
		err = jitsyms__intern_name(t, a->src, a->src_len, &e.src);
	if (err)
		return err;
	p->ents[p->nr_ents++] = e;
	p->sorted = false;
	t->nr_ents++;
	t->gen++;
	return 0;
}

/* The handles of an addition's dso strings. */
int jitsyms__add_dsos(struct pm_jitsyms *t, const struct pm_jitsym_add *a, uint32_t *dso,
		      uint32_t *dso_short)
{
	int err = 0;

	*dso = *dso_short = NO_STR;
	if (a->dso)
		err = jitsyms__intern_dso(t, a->dso, 0, dso);
	if (!err && a->dso_short)
		err = jitsyms__intern_dso(t, a->dso_short, 1, dso_short);
	return err;
}

int pm_jitsyms__add(struct pm_jitsyms *t, const struct pm_jitsym_add *a)
{
	uint32_t dso, dso_short;
	int err;

	if (!a->size || a->start + a->size < a->start)
		return -EINVAL;
	if (t->nr_ents >= PM_JITSYM_MAX_ENTRIES)
		return -E2BIG;
	err = jitsyms__add_dsos(t, a, &dso, &dso_short);
	return err ?: jitsyms__add_ent(t, a, dso, dso_short, UINT64_MAX);
}

/* The address an entry is sorted by: its start, or its end. */
static uint64_t ent__key(const struct jit_ent *e, bool end)
{
	return end ? e->end : e->start;
}

/*
 * Sorts n entry indexes by their entries' start (end: by their end),
 * stably (equal keys stay in the order given), tmp n indexes of room: runs
 * already in order merged when they are few, else a least significant
 * digit radix sort, a byte a pass, the counts of every
 * byte taken in one pass first and the bytes that all keys share skipped
 * (the high bytes of a process's addresses).  A 100k-line map sorts in a
 * few passes, where qsort's calls of a comparison cost five times the
 * rest of report's work on it; indexes, not keys, are moved: a quarter of
 * the memory to touch.  The result is in a or in tmp: the pointer
 * returned, NULL without memory.
 */
/* Runs of keys in order, at most, that a merge sorts instead of the radix sort. */
#define MAX_RUNS 16

/*
 * Merges the nr sorted runs of a (run r is [bound[r], bound[r + 1])),
 * stably, pairwise until one is left: log2 nr passes, for a map appended
 * in a few address ranges.  The result is in a or in tmp: the pointer
 * returned.
 */
static uint32_t *order__merge_runs(const struct jit_ent *ents, bool end, uint32_t *a,
				   uint32_t *tmp, size_t *bound, size_t nr)
{
	size_t r, w, i, j, k;
	uint32_t *swap;

	while (nr > 1) {
		for (r = 0, w = 0; r < nr; r += 2, w++) {
			size_t lo = bound[r], mid = bound[r + 1], hi = r + 2 <= nr ? bound[r + 2] : mid;

			for (i = lo, j = mid, k = lo; i < mid && j < hi;)
				tmp[k++] = ent__key(&ents[a[j]], end) < ent__key(&ents[a[i]], end) ?
					   a[j++] : a[i++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
			bound[w] = lo;
		}
		bound[w] = bound[nr];
		nr = w;
		swap = a;
		a = tmp;
		tmp = swap;
	}
	return a;
}

static uint32_t *order__sort(const struct jit_ent *ents, bool end, uint32_t *a, uint32_t *tmp,
			     size_t n)
{
	size_t (*count)[256], i, sum, bound[MAX_RUNS + 1] = { 0 }, nr = 1;
	unsigned int d;
	uint32_t *swap;
	uint64_t k0;

	/* Maps are mostly written in address order: a few runs are merged, one is sorted. */
	for (i = 1; i < n && nr <= MAX_RUNS; i++)
		if (ent__key(&ents[a[i - 1]], end) > ent__key(&ents[a[i]], end) && nr++ < MAX_RUNS)
			bound[nr - 1] = i;
	if (nr <= MAX_RUNS) {
		bound[nr] = n;
		return order__merge_runs(ents, end, a, tmp, bound, nr);
	}
	if (!(count = calloc(8, sizeof(*count))))
		return NULL;
	for (i = 0; i < n; i++) {
		uint64_t k = ent__key(&ents[a[i]], end);

		for (d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 0xff]++;
	}
	k0 = ent__key(&ents[a[0]], end);
	for (d = 0; d < 8; d++) {
		if (count[d][(k0 >> (8 * d)) & 0xff] == n)
			continue;	/* one value of this byte: the pass would move nothing */
		for (i = 0, sum = 0; i < 256; i++) {
			size_t c = count[d][i];

			count[d][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[d][(ent__key(&ents[a[i]], end) >> (8 * d)) & 0xff]++] = a[i];
		swap = a;
		a = tmp;
		tmp = swap;
	}
	free(count);
	return a;
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
static bool proc__disjoint(const struct jit_proc *p, const uint32_t *order, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (p->ents[order[i - 1]].end > p->ents[order[i]].start)
			return false;
	return true;
}

/*
 * The runs of overlapping entries, the later entry winning each point: a
 * sweep over every start and end in address order (the entries by start,
 * order, merged with them by end, ends), the entries covering the current
 * point in a heap (an entry that has ended leaves it when it comes on
 * top).
 */
static void proc__sweep(struct jit_proc *p, const uint32_t *order, const uint32_t *ends,
			uint32_t *heap)
{
	size_t n = p->nr_ents, nr_heap = 0, next = 0, s = 0, e = 0;
	const struct jit_ent *ents = p->ents;
	bool have = false;
	uint64_t at = 0, pt;

	/* The points, each once: at is swept when the next greater point is known. */
	while (s < n || e < n) {
		if (s < n && (e == n || ents[order[s]].start <= ents[ends[e]].end))
			pt = ents[order[s++]].start;
		else
			pt = ents[ends[e++]].end;
		if (have && pt == at)
			continue;
		if (have) {
			/*
			 * The ended first: an entry pushed on top of one ended at
			 * this point would bury it, and a map of abutting ranges
			 * would grow the heap to the whole map.
			 */
			while (nr_heap && ents[heap[0]].end <= at)
				heap__pop(heap, &nr_heap);
			while (next < n && ents[order[next]].start <= at)
				heap__push(heap, &nr_heap, order[next++]);
			if (nr_heap)
				proc__add_run(p, at, pt, heap[0]);
		}
		at = pt;
		have = true;
	}
}

/*
 * The disjoint runs of p's entries, the later entry winning each point.
 * idx: room for 4 n indexes (the entries by start, by end, each with the
 * radix sort's spare room).
 */
static int proc__runs(struct jit_proc *p, uint32_t *idx, uint32_t *heap)
{
	size_t n = p->nr_ents, i;
	uint32_t *order, *ends;

	for (i = 0; i < n; i++)
		idx[i] = idx[2 * n + i] = (uint32_t)i;
	order = order__sort(p->ents, false, idx, idx + n, n);
	if (!order)
		return -ENOMEM;
	p->nr_runs = 0;
	if (proc__disjoint(p, order, n)) {
		/* The usual map: no two ranges overlap, each one is a run. */
		for (i = 0; i < n; i++)
			p->runs[i] = (struct jit_run){ .start = p->ents[order[i]].start,
						       .end = p->ents[order[i]].end,
						       .ent = order[i] };
		p->nr_runs = n;
		return 0;
	}
	ends = order__sort(p->ents, true, idx + 2 * n, idx + 3 * n, n);
	if (!ends)
		return -ENOMEM;
	proc__sweep(p, order, ends, heap);
	return 0;
}

static int proc__sort(struct jit_proc *p)
{
	size_t n = p->nr_ents;
	uint32_t *idx = malloc((4 * n + 1) * sizeof(*idx));
	uint32_t *heap = malloc((n + 1) * sizeof(*heap));
	struct jit_run *runs = realloc(p->runs, (2 * n + 1) * sizeof(*runs));
	int err = -ENOMEM;

	if (runs) {
		p->runs = runs;
		p->nr_runs = 0;
	}
	if (runs && idx && heap) {
		err = proc__runs(p, idx, heap);
		p->sorted = !err;
	}
	free(idx);
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
	/* A lazy entry whose name could not be read: no name. */
	bool lazy = e->src == LAZY_STR;

	*out = (struct pm_jitsym){ .start = e->start, .size = e->end - e->start,
				   .name = lazy ? "" : jitsyms__str(t, e->name),
				   .src = jitsyms__str(t, e->src),
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
	if (lo == p->nr_runs || p->runs[lo].start > addr ||
	    jitsyms__resolve(t, &p->ents[p->runs[lo].ent]))
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
	/* A lazy entry read now (the strings handed out are the table's anyway). */
	jitsyms__resolve((struct pm_jitsyms *)t, &t->procs[proc].ents[ent]);
	jitsyms__fill(t, &t->procs[proc].ents[ent], out);
	*pos = (size_t)proc << 32 | (ent + 1);
	return true;
}

