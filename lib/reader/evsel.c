// SPDX-License-Identifier: GPL-2.0
/* Events of a recording: attrs, sample ids, names and tracepoint formats. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "reader/reader_int.h"

/* Sample ids come from the file: pm_hashtab's seed and probe bound keep them from colliding. */
void reader__init_ids(struct pm_reader *r)
{
	pm_hashtab__init(&r->ids, NULL, NULL);
}

int reader__room_for_evsel(struct pm_reader *r, uint64_t nr_ids, uint64_t offset)
{
	if (r->nr_evsels >= PM_ATTRS_MAX)
		return reader__fail(r, offset, -EFBIG, "too many attrs, over the limit of %u",
				    PM_ATTRS_MAX);
	if (nr_ids > PM_IDS_MAX - r->nr_evsel_ids)
		return reader__fail(r, offset, -EFBIG,
				    "too many sample ids: %llu in this attr after %zu, over the limit of %u",
				    (unsigned long long)nr_ids, r->nr_evsel_ids, PM_IDS_MAX);
	return 0;
}

/* Beyond this many entries (2 MiB) the ids are left to the table. */
#define ID_DENSE_MAX (1u << 18)

static void reader__drop_dense(struct pm_reader *r)
{
	free(r->id_dense);
	r->id_dense = NULL;
	r->id_lo = 0;
	r->id_span = 0;
	r->id_sparse = true;
}

/*
 * Makes the dense array cover [lo, hi) with room to spare on both sides,
 * so that it is remade only when the range doubles, and fills it from
 * every event in order: the first to claim an id keeps it, as in the table.
 */
static void reader__remake_dense(struct pm_reader *r, uint64_t lo, uint64_t hi)
{
	size_t span = 64, i, j;
	uint64_t start;

	while (span < 2 * (hi - lo))
		span *= 2;
	if (span > ID_DENSE_MAX) {
		reader__drop_dense(r);
		return;
	}
	start = lo - (lo < (span - (hi - lo)) / 2 ? lo : (span - (hi - lo)) / 2);
	if (start > UINT64_MAX - span) {
		reader__drop_dense(r);
		return;
	}
	free(r->id_dense);
	r->id_span = 0;
	r->id_dense = calloc(span, sizeof(*r->id_dense));
	if (!r->id_dense) {
		reader__drop_dense(r);
		return;
	}
	for (i = 0; i < r->nr_evsels; i++)
		for (j = 0; j < r->evsels[i]->nr_ids; j++) {
			uint64_t id = r->evsels[i]->ids[j];

			if (id - start < span && !r->id_dense[id - start])
				r->id_dense[id - start] = r->evsels[i];
		}
	r->id_lo = start;
	r->id_span = span;
}

/* Adds e's ids (e is the last event) to the dense array, or drops it. */
static void reader__dense_ids(struct pm_reader *r, struct pm_evsel *e)
{
	uint64_t lo = r->id_span ? r->id_lo : UINT64_MAX;
	uint64_t hi = r->id_span ? r->id_lo + r->id_span : 0;
	bool outside = false;
	size_t i;

	if (r->id_sparse || !e->nr_ids)
		return;
	for (i = 0; i < e->nr_ids; i++) {
		uint64_t id = e->ids[i];

		if (id - r->id_lo >= r->id_span)
			outside = true;
		if (id < lo)
			lo = id;
		if (id >= hi)
			hi = id + 1;
	}
	if (!hi || hi - lo > ID_DENSE_MAX) {
		reader__drop_dense(r);
		return;
	}
	if (outside) {
		reader__remake_dense(r, lo, hi);
		return;
	}
	for (i = 0; i < e->nr_ids; i++)
		if (!r->id_dense[e->ids[i] - r->id_lo])
			r->id_dense[e->ids[i] - r->id_lo] = e;
}

/* The first event to claim an id keeps it. */
static int reader__add_id(struct pm_reader *r, uint64_t id, struct pm_evsel *e)
{
	int err = pm_hashtab__insert_int(&r->ids, id, (uintptr_t)e);

	return err == -EEXIST ? 0 : err;
}

struct pm_evsel *pm_reader__evsel_by_id(const struct pm_reader *r, uint64_t id)
{
	uint64_t e;

	if (id - r->id_lo < r->id_span)
		return r->id_dense[id - r->id_lo];
	return pm_hashtab__find_int(&r->ids, id, &e) ? (struct pm_evsel *)(uintptr_t)e : NULL;
}

size_t pm_reader__nr_evsels(const struct pm_reader *r)
{
	return r->nr_evsels;
}

struct pm_evsel *pm_reader__evsel(const struct pm_reader *r, size_t idx)
{
	return idx < r->nr_evsels ? r->evsels[idx] : NULL;
}

static void evsel__delete(struct pm_evsel *e)
{
	free(e->ids);
	free(e->name);
	free(e->derived_name);
	free(e);
}

void reader__delete_evsels(struct pm_reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_evsels; i++)
		evsel__delete(r->evsels[i]);
	free(r->evsels);
	pm_hashtab__exit(&r->ids);
	reader__drop_dense(r);
	r->id_sparse = false;
	r->evsels = NULL;
	r->nr_evsels = r->cap_evsels = r->nr_evsel_ids = 0;
}

static void evsel__link_tracepoint(struct pm_reader *r, struct pm_evsel *e)
{
	if (e->attr.type != PERF_TYPE_TRACEPOINT || !r->has_tp)
		return;
	e->tp = pm_tp_data__find(&r->tp, e->attr.config);
	free(e->derived_name);
	e->derived_name = NULL;
}

/* u64 position of the sample id, as perf's evsel__calc_id_pos(). */
static void reader__calc_id_pos(struct pm_reader *r, uint64_t type)
{
	int pos = 0;

	r->id_pos = r->is_pos = -1;
	if (type & PERF_SAMPLE_IDENTIFIER) {
		r->id_pos = 0;
		r->is_pos = 1;
	} else if (type & PERF_SAMPLE_ID) {
		pos += !!(type & PERF_SAMPLE_IP);
		pos += !!(type & PERF_SAMPLE_TID);
		pos += !!(type & PERF_SAMPLE_TIME);
		pos += !!(type & PERF_SAMPLE_ADDR);
		r->id_pos = pos;
		r->is_pos = 1 + !!(type & PERF_SAMPLE_STREAM_ID) + !!(type & PERF_SAMPLE_CPU);
	}
	r->trailer_size = r->sample_id_all ?
		8 * (size_t)__builtin_popcountll(type & PM_SAMPLE_ID_BITS) : 0;
}

struct pm_evsel *reader__add_evsel(struct pm_reader *r, const void *attr, size_t attr_len,
				   const void *ids, size_t nr_ids)
{
	struct pm_evsel *e = calloc(1, sizeof(*e));
	size_t i;

	if (!e)
		return NULL;
	memcpy(&e->attr, attr, attr_len < sizeof(e->attr) ? attr_len : sizeof(e->attr));
	e->ids = malloc(nr_ids ? nr_ids * sizeof(*e->ids) : 1);
	/* Doubling: a stream can carry tens of thousands of HEADER_ATTRs. */
	if (!e->ids || pm_array__grow((void **)&r->evsels, &r->cap_evsels, r->nr_evsels,
				      sizeof(*r->evsels))) {
		evsel__delete(e);
		return NULL;
	}
	if (nr_ids)
		memcpy(e->ids, ids, nr_ids * sizeof(*e->ids));
	e->nr_ids = nr_ids;
	r->nr_evsel_ids += nr_ids;
	e->idx = (int)r->nr_evsels;
	r->evsels[r->nr_evsels++] = e;
	for (i = 0; i < nr_ids; i++)
		if (reader__add_id(r, e->ids[i], e))
			return NULL;
	reader__dense_ids(r, e);
	if (e->idx == 0) {
		r->sample_id_all = e->attr.sample_id_all;
		reader__calc_id_pos(r, e->attr.sample_type);
	}
	evsel__link_tracepoint(r, e);
	return e;
}

int reader__set_name(struct pm_evsel *e, const char *name, size_t len)
{
	char *copy = strndup(name, len);

	if (!copy)
		return -ENOMEM;
	free(e->name);
	e->name = copy;
	return 0;
}

int reader__set_tracing(struct pm_reader *r, const void *blob, size_t size, uint64_t offset)
{
	const char *reason;
	size_t err_off, i;
	int err;

	if (r->has_tp)
		pm_tp_data__exit(&r->tp);
	err = pm_tp_data__parse(&r->tp, blob, size, &err_off, &reason);
	r->has_tp = true;
	for (i = 0; i < r->nr_evsels; i++)
		evsel__link_tracepoint(r, r->evsels[i]);
	if (err == -ENOMEM)
		return reader__fail(r, offset, err, "out of memory");
	if (err)
		return reader__fail(r, offset + err_off, err, "tracing data: %s", reason);
	return 0;
}

/* u32 nr, u32 attr_size; nr x (attr, u32 nr_ids, perf string, u64 ids[]) */
int reader__apply_event_desc(struct pm_reader *r, const void *p, size_t len, uint64_t offset)
{
	struct pm_cursor c;
	uint32_t nr, attr_size, nr_ids, i;
	const void *attr, *ids;
	const char *name;
	size_t name_len;
	uint64_t id;
	struct pm_evsel *e;

	pm_cursor__init(&c, p, len, offset);
	if (pm_cursor__u32(&c, &nr) || pm_cursor__u32(&c, &attr_size))
		goto bad;
	for (i = 0; i < nr; i++) {
		if (pm_cursor__bytes(&c, attr_size, &attr) || pm_cursor__u32(&c, &nr_ids) ||
		    pm_cursor__perf_string(&c, &name, &name_len) ||
		    nr_ids > pm_cursor__left(&c) / 8 ||
		    pm_cursor__bytes(&c, (size_t)nr_ids * 8, &ids))
			goto bad;
		e = NULL;
		if (nr_ids) {
			memcpy(&id, ids, sizeof(id));
			e = pm_reader__evsel_by_id(r, id);
		}
		if (!e)
			e = pm_reader__evsel(r, i);
		if (e && reader__set_name(e, name, name_len))
			return reader__fail(r, offset, -ENOMEM, "out of memory");
	}
	return 0;
bad:
	return reader__fail(r, pm_cursor__offset(&c), -EBADMSG, "EVENT_DESC feature truncated");
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};

static const char *const cache_ops[][2] = {
	{ "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int evsel__derive_name(const struct pm_evsel *e, char **out)
{
	unsigned long long config = e->attr.config;
	unsigned int cache = config & 0xff, op = (config >> 8) & 0xff;
	unsigned int result = (config >> 16) & 0xff;

	switch (e->attr.type) {
	case PERF_TYPE_HARDWARE:
		if (config < ARRAY_SIZE(hw_names))
			return asprintf(out, "%s", hw_names[config]);
		break;
	case PERF_TYPE_SOFTWARE:
		if (config < ARRAY_SIZE(sw_names))
			return asprintf(out, "%s", sw_names[config]);
		break;
	case PERF_TYPE_TRACEPOINT:
		if (e->tp)
			return asprintf(out, "%s", e->tp->full_name);
		return asprintf(out, "tracepoint:%llu", config);
	case PERF_TYPE_HW_CACHE:
		if (cache < ARRAY_SIZE(cache_names) && op < ARRAY_SIZE(cache_ops) &&
		    result <= 1 && config <= 0xffffff)
			return result ?
			       asprintf(out, "%s-%s-misses", cache_names[cache], cache_ops[op][0]) :
			       asprintf(out, "%s-%s", cache_names[cache], cache_ops[op][1]);
		break;
	case PERF_TYPE_RAW:
		return asprintf(out, "r%llx", config);
	case PERF_TYPE_BREAKPOINT:
		return asprintf(out, "mem:0x%llx", (unsigned long long)e->attr.bp_addr);
	default:
		break;
	}
	return asprintf(out, "type%u/config=0x%llx/", e->attr.type, config);
}

const char *pm_evsel__name(struct pm_evsel *e)
{
	if (e->name)
		return e->name;
	if (!e->derived_name && evsel__derive_name(e, &e->derived_name) < 0) {
		e->derived_name = NULL;
		return "unknown";
	}
	return e->derived_name;
}
