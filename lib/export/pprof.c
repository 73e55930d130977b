// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "symbols/naming.h"
#include "base/cache.h"
#include "base/intern.h"
#include "export/pbuf.h"
#include "export/pprof.h"
#include "base/utf8.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,
	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

static const char *const label_names[] = { "pid", "tid", "comm", "cpu" };

int pm_pprof_label__parse(const char *name, enum pm_pprof_label *l)
{
	size_t i;

	for (i = 0; i < sizeof(label_names) / sizeof(label_names[0]); i++) {
		if (!strcmp(name, label_names[i])) {
			*l = (enum pm_pprof_label)(1 << i);
			return 0;
		}
	}
	return -EINVAL;
}

/* Keys are arrays of u64 words; these are their layouts. */
enum { MAP_START, MAP_LIMIT, MAP_PGOFF, MAP_FILE, MAP_BUILD_ID, MAP__NR };
enum { FN_NAME, FN_SYSTEM_NAME, FN_FILENAME, FN__NR };
enum { LOC_MAPPING, LOC_ADDRESS, LOC_NR_LINES, LOC_LINES };
enum { SMP_PID, SMP_TID, SMP_COMM, SMP_CPU, SMP_STATE, SMP_NR_LOCS, SMP_LOCS };

struct mapinfo {
	bool inline_frames;
	uint64_t samples;		/* whose stacks go through the mapping */
	uint64_t stamp;			/* the serial of the last sample counted */
};

/*
 * The location of a frame that makes one alone (no inlined frames with
 * it), met before: its strings, function and location are interned
 * already, and only its mapping's weight is left to count.  Every sample
 * names its callers' frames again, each a dozen string look-ups.  A
 * direct-mapped cache (cache.h) by the frame's address, which the profile
 * keeps while it lives.
 */
#define LOC_SEEN_BITS 14

struct loc_seen {
	const struct pm_profile_frame *f;	/* NULL: empty */
	uint64_t loc, map;
};

struct builder {
	const struct pm_profile *p;
	const struct pm_pprof_opts *o;
	struct pm_intern strs, maps, funcs, locs, samples;
	uint64_t *values;		/* per sample: samples, period */
	size_t values_cap;
	struct mapinfo *mi;		/* per mapping */
	size_t mi_cap;
	uint64_t serial;		/* of the sample being added */
	uint64_t key[SMP_LOCS + PM_PROFILE_MAX_FRAMES];
	uint64_t lines[LOC_LINES + 2 * PM_PROFILE_MAX_FRAMES];	/* function and line each */
	const struct pm_profile_frame *frames[PM_PROFILE_MAX_FRAMES];
	struct loc_seen *loc_seen;
	struct pm_buf scratch, name, msg, sub;
	struct pm_buf top;		/* one field of the Profile message */
	struct pm_out *out;
};

/* Appends s with every byte that is not part of valid UTF-8 as U+FFFD. */
static int utf8_clean(struct pm_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	uint32_t c;
	int err = 0;

	while (i < n && !err) {
		len = pm_utf8__len(u + i, n - i, &c);
		if (len) {
			err = pm_buf__append(b, u + i, len);
			i += len;
		} else {
			err = pm_buf__append(b, "\xef\xbf\xbd", 3);
			i++;
		}
	}
	return err;
}

/* The string table index of s (NULL: ""), UTF-8 cleaned. */
static int str_id(struct builder *bd, const char *s, size_t n, uint64_t *id)
{
	uint32_t v = 0;
	int err;

	bd->scratch.len = 0;
	if (s && utf8_clean(&bd->scratch, s, n))
		return -ENOMEM;
	err = pm_intern__id(&bd->strs, bd->scratch.data, bd->scratch.len, &v, NULL);
	*id = v;
	return err;
}

static int str_id0(struct builder *bd, const char *s, uint64_t *id)
{
	return str_id(bd, s, s ? strlen(s) : 0, id);
}

/* A key of nr words to its id + 1 (pprof ids are never 0). */
static int key_id(struct pm_intern *k, const uint64_t *w, size_t nr, uint64_t *id, bool *added)
{
	uint32_t v = 0;
	int err = pm_intern__id(k, w, nr * sizeof(*w), &v, added);

	*id = (uint64_t)v + 1;
	return err;
}

/* The sample's weight counted once in mapping id, which inl says has inlined frames. */
static void mapping_count(struct builder *bd, uint64_t id, bool inl, uint64_t weight)
{
	struct mapinfo *mi = &bd->mi[id - 1];

	mi->inline_frames |= inl;
	if (mi->stamp != bd->serial) {
		mi->stamp = bd->serial;
		mi->samples += weight;
	}
}

/* The mapping of f (0: none), counting the sample's weight in it once. */
static int mapping_id(struct builder *bd, const struct pm_profile_frame *f, bool inl,
		      uint64_t weight, uint64_t *id)
{
	uint64_t w[MAP__NR];
	bool added;

	*id = 0;
	if (!f->map.file)
		return 0;
	w[MAP_START] = f->map.start;
	w[MAP_LIMIT] = f->map.limit;
	w[MAP_PGOFF] = f->map.pgoff;
	if (str_id0(bd, f->map.file, &w[MAP_FILE]) || str_id0(bd, f->map.build_id, &w[MAP_BUILD_ID]) ||
	    key_id(&bd->maps, w, MAP__NR, id, &added))
		return -ENOMEM;
	if (added) {
		if (pm_array__grow((void **)&bd->mi, &bd->mi_cap, *id - 1, sizeof(*bd->mi)))
			return -ENOMEM;
		bd->mi[*id - 1] = (struct mapinfo){ 0 };
	}
	mapping_count(bd, *id, inl, weight);
	return 0;
}

/*
 * A frame's function name as folded stacks give it (pm_frame__label): sym,
 * "file+0xoffset", "[file]" or "[unknown]"; with the source file of its
 * line (flen bytes of file).
 */
static int function_id(struct builder *bd, const struct pm_profile_frame *f, const char *file,
		       size_t flen, uint64_t *id)
{
	uint64_t w[FN__NR] = { 0 };
	bool added;

	if (flen && str_id(bd, file, flen, &w[FN_FILENAME]))
		return -ENOMEM;
	if (f->sym) {
		if (str_id0(bd, f->sym, &w[FN_NAME]) ||
		    str_id0(bd, f->linkage ? f->linkage : f->sym, &w[FN_SYSTEM_NAME]))
			return -ENOMEM;
	} else {
		bd->name.len = 0;
		if (pm_frame__label(&bd->name, NULL, f->dso, f->in_file, f->addr))
			return -ENOMEM;
		if (str_id(bd, (const char *)bd->name.data, bd->name.len, &w[FN_NAME]))
			return -ENOMEM;
		w[FN_SYSTEM_NAME] = w[FN_NAME];
	}
	return key_id(&bd->funcs, w, FN__NR, id, &added);
}

/*
 * The source file (*flen bytes) and line of a frame's "path:line" srcline;
 * 0 when it has none (kernel code is "symbol+offset").
 */
static uint64_t frame__line(const struct pm_profile_frame *f, const char **file, size_t *flen)
{
	const char *colon = f->srcline ? strrchr(f->srcline, ':') : NULL;
	uint64_t line;
	char *end;

	*flen = 0;
	if (!colon || colon == f->srcline)
		return 0;
	line = strtoull(colon + 1, &end, 10);
	if (*end || !line)
		return 0;
	*file = f->srcline;
	*flen = (size_t)(colon - f->srcline);
	return line;
}

/*
 * The location of frames[0..n): functions inlined at one address, then
 * the one they are inlined into.  The line table's line is the innermost
 * one's; the others' (call sites) are not known.
 */
static int location_id(struct builder *bd, const struct pm_profile_frame *const *fr, size_t n,
		       uint64_t weight, uint64_t *id)
{
	const struct pm_profile_frame *f = fr[n - 1];
	uint64_t *w = bd->lines;
	size_t i;
	bool added;

	/* lines holds the key: mapping, address, then the functions. */
	if (mapping_id(bd, f, n > 1, weight, &w[LOC_MAPPING]))
		return -ENOMEM;
	w[LOC_ADDRESS] = f->ip;
	w[LOC_NR_LINES] = n;
	for (i = 0; i < n; i++) {
		const char *file = NULL;
		size_t flen = 0;

		w[LOC_LINES + 2 * i + 1] = i ? 0 : frame__line(fr[0], &file, &flen);
		if (function_id(bd, fr[i], file, flen, &w[LOC_LINES + 2 * i]))
			return -ENOMEM;
	}
	return key_id(&bd->locs, w, LOC_LINES + 2 * n, id, &added);
}

/* The location of frame f alone, as location_id gives it, from loc_seen when it can. */
static int location_of_frame(struct builder *bd, const struct pm_profile_frame *f,
			     uint64_t weight, uint64_t *id)
{
	struct loc_seen *e = &bd->loc_seen[pm_cache__slot(pm_cache__mix((uintptr_t)f, 0),
							   LOC_SEEN_BITS)];
	int err;

	if (e->f == f) {
		if (e->map)
			mapping_count(bd, e->map, false, weight);
		*id = e->loc;
		return 0;
	}
	err = location_id(bd, &f, 1, weight, id);
	if (!err)
		*e = (struct loc_seen){ .f = f, .loc = *id, .map = bd->lines[LOC_MAPPING] };
	return err;
}

/* The sample of leaf node id, added to its Sample. */
static int sample_add(struct builder *bd, uint32_t leaf, const struct pm_profile_node *n,
		      const struct pm_profile_ctx *ctx)
{
	const struct pm_pprof_opts *o = bd->o;
	struct pm_profile_node x = *n;
	uint64_t *k = bd->key, sid;
	size_t nr = 0, i, j, nlocs = 0;
	bool added;
	int err;

	for (;;) {
		bd->frames[nr++] = x.frame;
		if (x.depth <= 1 || nr == PM_PROFILE_MAX_FRAMES)
			break;
		leaf = x.parent;
		if (pm_profile__node(bd->p, leaf, &x, NULL))
			return -EINVAL;
	}
	memset(k, 0, SMP_LOCS * sizeof(*k));
	bd->serial++;
	if (o->labels & PM_PPROF_LABEL_PID)
		k[SMP_PID] = (uint64_t)(int64_t)ctx->pid;
	if (o->labels & PM_PPROF_LABEL_TID)
		k[SMP_TID] = (uint64_t)(int64_t)ctx->tid;
	if ((o->labels & PM_PPROF_LABEL_COMM) && str_id0(bd, ctx->comm, &k[SMP_COMM]))
		return -ENOMEM;
	/* cpu + 1: 0 for a sample without a CPU. */
	if (o->labels & PM_PPROF_LABEL_CPU)
		k[SMP_CPU] = (uint64_t)((int64_t)ctx->cpu + 1);
	/* Off-CPU time keeps blocked and runnable apart, as report's state key. */
	if (ctx->state != PM_PROFILE_STATE_ON_CPU &&
	    str_id0(bd, pm_profile_state__name(ctx->state), &k[SMP_STATE]))
		return -ENOMEM;
	/* Innermost first; an inlined frame goes with the frames after it, up to a real one. */
	for (i = 0; i < nr; i = j) {
		for (j = i; j + 1 < nr && bd->frames[j]->inlined; j++)
			;
		j++;
		err = j - i == 1 ? location_of_frame(bd, bd->frames[i], n->self_samples,
						     &k[SMP_LOCS + nlocs]) :
				   location_id(bd, bd->frames + i, j - i, n->self_samples,
					       &k[SMP_LOCS + nlocs]);
		if (err)
			return err;
		nlocs++;
	}
	k[SMP_NR_LOCS] = nlocs;
	err = key_id(&bd->samples, k, SMP_LOCS + nlocs, &sid, &added);
	if (err)
		return err;
	sid--;
	if (added) {
		if (pm_array__grow((void **)&bd->values, &bd->values_cap, sid, 2 * sizeof(*bd->values)))
			return -ENOMEM;
		bd->values[2 * sid] = bd->values[2 * sid + 1] = 0;
	}
	bd->values[2 * sid] += n->self_samples;
	if (__builtin_add_overflow(bd->values[2 * sid + 1], n->self_period, &bd->values[2 * sid + 1]))
		bd->values[2 * sid + 1] = UINT64_MAX;
	return 0;
}

/* pprof has no hidden samples: it writes the ones report would show. */
static bool ctx_kept(const struct pm_profile_filter *f, const struct pm_profile_ctx *c)
{
	bool shown;

	return pm_profile_filter__keeps(f, c, &shown) && shown;
}

static int builder__collect(struct builder *bd)
{
	size_t nr = pm_profile__nr_nodes(bd->p), id;
	struct pm_profile_node n;
	struct pm_profile_ctx ctx;
	int err;

	for (id = 1; id < nr; id++) {
		if (pm_profile__node(bd->p, (uint32_t)id, &n, &ctx))
			return -EINVAL;
		if (!n.frame || !n.self_samples || ctx.event != bd->o->event ||
		    !ctx_kept(bd->o->filter, &ctx))
			continue;
		err = sample_add(bd, (uint32_t)id, &n, &ctx);
		if (err)
			return err;
	}
	return 0;
}

/* A nested message: msg's bytes as field of out; msg is emptied. */
static int emit(struct pm_buf *out, uint32_t field, struct pm_buf *msg)
{
	int err = pm_pb__bytes(out, field, msg->data, msg->len);

	msg->len = 0;
	return err;
}

/* The top-level field built in bd->top goes out: the document is never whole in memory. */
static int drain(struct builder *bd)
{
	pm_out__mem(bd->out, bd->top.data, bd->top.len);
	bd->top.len = 0;
	return bd->out->err;
}

static int emit_value_type(struct builder *bd, struct pm_buf *out, uint32_t field,
			   const char *type, const char *unit)
{
	uint64_t t, u;

	if (str_id0(bd, type, &t) || str_id0(bd, unit, &u))
		return -ENOMEM;
	return pm_pb__int(&bd->msg, VALUE_TYPE_TYPE, (int64_t)t) ?:
	       pm_pb__int(&bd->msg, VALUE_TYPE_UNIT, (int64_t)u) ?: emit(out, field, &bd->msg);
}

static int emit_label(struct builder *bd, const char *key, bool str, int64_t v)
{
	uint64_t k;

	if (str_id0(bd, key, &k))
		return -ENOMEM;
	return pm_pb__int(&bd->sub, LABEL_KEY, (int64_t)k) ?:
	       pm_pb__int(&bd->sub, str ? LABEL_STR : LABEL_NUM, v) ?:
	       emit(&bd->msg, SAMPLE_LABEL, &bd->sub);
}

/*
 * cpu is a string label: pprof's readers (go tool pprof among them) drop a
 * number label of 0 that has no unit, and CPU 0 is a CPU.
 */
static int emit_cpu_label(struct builder *bd, int64_t cpu)
{
	char s[24];
	uint64_t id;

	snprintf(s, sizeof(s), "%lld", (long long)cpu);
	return str_id0(bd, s, &id) ?: emit_label(bd, "cpu", true, (int64_t)id);
}

static int emit_samples(struct builder *bd, struct pm_buf *out)
{
	unsigned labels = bd->o->labels;
	const uint64_t *k;
	size_t i, n;
	int err = 0;

	for (i = 0; i < bd->samples.nr && !err; i++) {
		k = pm_intern__key(&bd->samples, i, &n);
		err = pm_pb__packed(&bd->msg, SAMPLE_LOCATION_ID, k + SMP_LOCS, k[SMP_NR_LOCS]) ?:
		      pm_pb__packed(&bd->msg, SAMPLE_VALUE, bd->values + 2 * i, 2);
		if (!err && (labels & PM_PPROF_LABEL_PID))
			err = emit_label(bd, "pid", false, (int64_t)k[SMP_PID]);
		if (!err && (labels & PM_PPROF_LABEL_TID))
			err = emit_label(bd, "tid", false, (int64_t)k[SMP_TID]);
		if (!err && (labels & PM_PPROF_LABEL_COMM))
			err = emit_label(bd, "comm", true, (int64_t)k[SMP_COMM]);
		if (!err && (labels & PM_PPROF_LABEL_CPU) && k[SMP_CPU])
			err = emit_cpu_label(bd, (int64_t)k[SMP_CPU] - 1);
		if (!err && k[SMP_STATE])
			err = emit_label(bd, "state", true, (int64_t)k[SMP_STATE]);
		if (!err)
			err = emit(out, PROFILE_SAMPLE, &bd->msg) ?: drain(bd);
	}
	return err;
}

/* pprof's test for a shared library's file name: ".so" at the end or before a version. */
static bool lib_name(const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	while ((p = memmem(p, (size_t)(end - p), ".so", 3))) {
		p += 3;
		if (p == end || ((*p == '.' || *p == '_') && p + 1 < end && p[1] >= '0' && p[1] <= '9'))
			return true;
	}
	return false;
}

/*
 * profile.proto: "mapping[0] will be the main binary".  pprof's guess
 * (massageMappings) is the first file that is neither "[...]" nor a
 * library; of those, the one most samples go through, which is the
 * recorded program's rather than that of the process that started it.
 */
static size_t main_mapping(const struct builder *bd)
{
	size_t i, n, best = 0;
	bool found = false;
	const uint64_t *k;
	const char *file;

	for (i = 0; i < bd->maps.nr; i++) {
		k = pm_intern__key(&bd->maps, i, &n);
		file = pm_intern__key(&bd->strs, k[MAP_FILE], &n);
		if (!n || file[0] == '[' || lib_name(file, n))
			continue;
		if (!found || bd->mi[i].samples > bd->mi[best].samples)
			best = i;
		found = true;
	}
	return best;
}

/* The id a mapping is written with: main's and the first's swapped. */
static uint64_t mapping_out_id(size_t main, uint64_t id)
{
	return id == main + 1 ? 1 : id == 1 ? main + 1 : id;
}

static int emit_tables(struct builder *bd, struct pm_buf *out)
{
	size_t i, j, n, main = main_mapping(bd);
	const uint64_t *k;
	int err = 0;

	for (i = 0; i < bd->maps.nr && !err; i++) {
		/* In the order of their ids: the main one first. */
		size_t m = mapping_out_id(main, i + 1) - 1;

		k = pm_intern__key(&bd->maps, m, &n);
		err = pm_pb__uint(&bd->msg, MAPPING_ID, i + 1) ?:
		      pm_pb__uint(&bd->msg, MAPPING_MEMORY_START, k[MAP_START]) ?:
		      pm_pb__uint(&bd->msg, MAPPING_MEMORY_LIMIT, k[MAP_LIMIT]) ?:
		      pm_pb__uint(&bd->msg, MAPPING_FILE_OFFSET, k[MAP_PGOFF]) ?:
		      pm_pb__int(&bd->msg, MAPPING_FILENAME, (int64_t)k[MAP_FILE]) ?:
		      pm_pb__int(&bd->msg, MAPPING_BUILD_ID, (int64_t)k[MAP_BUILD_ID]) ?:
		      pm_pb__bool(&bd->msg, MAPPING_HAS_FUNCTIONS, true) ?:
		      pm_pb__bool(&bd->msg, MAPPING_HAS_INLINE_FRAMES, bd->mi[m].inline_frames) ?:
		      emit(out, PROFILE_MAPPING, &bd->msg) ?: drain(bd);
	}
	for (i = 0; i < bd->locs.nr && !err; i++) {
		k = pm_intern__key(&bd->locs, i, &n);
		err = pm_pb__uint(&bd->msg, LOCATION_ID, i + 1) ?:
		      pm_pb__uint(&bd->msg, LOCATION_MAPPING_ID,
				  k[LOC_MAPPING] ? mapping_out_id(main, k[LOC_MAPPING]) : 0) ?:
		      pm_pb__uint(&bd->msg, LOCATION_ADDRESS, k[LOC_ADDRESS]);
		for (j = 0; j < k[LOC_NR_LINES] && !err; j++)
			err = pm_pb__uint(&bd->sub, LINE_FUNCTION_ID, k[LOC_LINES + 2 * j]) ?:
			      pm_pb__int(&bd->sub, LINE_LINE, (int64_t)k[LOC_LINES + 2 * j + 1]) ?:
			      emit(&bd->msg, LOCATION_LINE, &bd->sub);
		if (!err)
			err = emit(out, PROFILE_LOCATION, &bd->msg) ?: drain(bd);
	}
	for (i = 0; i < bd->funcs.nr && !err; i++) {
		k = pm_intern__key(&bd->funcs, i, &n);
		err = pm_pb__uint(&bd->msg, FUNCTION_ID, i + 1) ?:
		      pm_pb__int(&bd->msg, FUNCTION_NAME, (int64_t)k[FN_NAME]) ?:
		      pm_pb__int(&bd->msg, FUNCTION_SYSTEM_NAME, (int64_t)k[FN_SYSTEM_NAME]) ?:
		      pm_pb__int(&bd->msg, FUNCTION_FILENAME, (int64_t)k[FN_FILENAME]) ?:
		      emit(out, PROFILE_FUNCTION, &bd->msg) ?: drain(bd);
	}
	return err;
}

static int emit_profile(struct builder *bd, struct pm_buf *out)
{
	const struct pm_pprof_opts *o = bd->o;
	const char *name = o->event_name ? o->event_name : "events";
	uint64_t comment;
	const void *s;
	size_t i, n;
	int err;

	bd->name.len = 0;
	err = pm_buf__append(&bd->name, "event: ", 7) ?:
	      pm_buf__append(&bd->name, name, strlen(name)) ?:
	      str_id(bd, (const char *)bd->name.data, bd->name.len, &comment) ?:
	      emit_value_type(bd, out, PROFILE_SAMPLE_TYPE, "samples", "count") ?:
	      emit_value_type(bd, out, PROFILE_SAMPLE_TYPE,
			      o->cpu_time ? (o->time_kind ? o->time_kind : "cpu") : "events",
			      o->cpu_time ? "nanoseconds" : "count") ?:
	      emit_samples(bd, out) ?: emit_tables(bd, out) ?:
	      pm_pb__int(out, PROFILE_TIME_NANOS, o->time_nanos) ?:
	      pm_pb__int(out, PROFILE_DURATION_NANOS, o->duration_nanos) ?:
	      emit_value_type(bd, out, PROFILE_PERIOD_TYPE,
			      o->cpu_time ? (o->time_kind ? o->time_kind : "cpu") : name,
			      o->cpu_time ? "nanoseconds" : "count") ?:
	      pm_pb__int(out, PROFILE_PERIOD, (int64_t)o->period) ?:
	      pm_pb__uint(out, PROFILE_COMMENT, comment);
	for (i = 0; i < bd->strs.nr && !err; i++) {
		s = pm_intern__key(&bd->strs, i, &n);
		err = pm_pb__bytes(out, PROFILE_STRING_TABLE, s, n) ?: drain(bd);
	}
	return err ?: drain(bd);
}

int pm_pprof__encode(const struct pm_profile *p, const struct pm_pprof_opts *o,
		     struct pm_out *out)
{
	struct builder *bd;
	uint64_t empty;
	int err;

	if (o->event >= pm_profile__nr_events(p))
		return -EINVAL;
	bd = calloc(1, sizeof(*bd));
	if (!bd)
		return -ENOMEM;
	bd->p = p;
	bd->o = o;
	bd->out = out;
	pm_intern__init(&bd->strs);
	pm_intern__init(&bd->maps);
	pm_intern__init(&bd->funcs);
	pm_intern__init(&bd->locs);
	pm_intern__init(&bd->samples);
	bd->loc_seen = calloc((size_t)1 << LOC_SEEN_BITS, sizeof(*bd->loc_seen));
	/* string_table[0] must be "". */
	err = !bd->loc_seen ? -ENOMEM :
	      str_id0(bd, "", &empty) ?: builder__collect(bd) ?: emit_profile(bd, &bd->top);
	pm_intern__exit(&bd->strs);
	pm_intern__exit(&bd->maps);
	pm_intern__exit(&bd->funcs);
	pm_intern__exit(&bd->locs);
	pm_intern__exit(&bd->samples);
	pm_buf__exit(&bd->scratch);
	pm_buf__exit(&bd->name);
	pm_buf__exit(&bd->msg);
	pm_buf__exit(&bd->sub);
	pm_buf__exit(&bd->top);
	free(bd->values);
	free(bd->mi);
	free(bd->loc_seen);
	free(bd);
	return err;
}

int pm_pprof__write(const struct pm_profile *p, const struct pm_pprof_opts *o,
		    pm_write_fn *write, void *arg)
{
	struct pm_gzout g;
	struct pm_out out;
	/*
	 * gzip's fastest level, as Go's runtime/pprof writes its profiles: on
	 * a 48 MB recording's profile the default level took 28 ms of 370.
	 */
	int err = pm_gzout__init(&g, Z_BEST_SPEED, write, arg);

	if (!err)
		err = pm_out__init(&out, pm_gzout__write, &g, PM_GZOUT_CHUNK);
	if (!err) {
		err = pm_pprof__encode(p, o, &out);
		pm_out__flush(&out);
		err = err ?: out.err ?: pm_gzout__finish(&g);
		pm_out__exit(&out);
	}
	pm_gzout__exit(&g);
	return err;
}

int pm_pprof_opts__from_input(struct pm_pprof_opts *o, struct pm_reader *r,
			      const struct pm_profile *p, uint32_t event)
{
	static const struct perf_event_attr synthesized = { .freq = 1 };
	uint64_t first = 0, last = 0, samples;
	const struct perf_event_attr *a = &synthesized;
	struct pm_clock_ref clock;
	const char *name;

	if (event >= pm_profile__nr_events(p))
		return -EINVAL;
	name = pm_profile__event_name(p, event);
	if (event < pm_reader__nr_evsels(r))
		a = &pm_reader__evsel(r, event)->attr;
	else if (strcmp(name, "offcpu-time") && strcmp(name, "wall-time"))
		return -EINVAL;
	*o = (struct pm_pprof_opts){
		.event = event,
		.event_name = name,
		.cpu_time = a == &synthesized ||
			    (a->type == PERF_TYPE_SOFTWARE &&
			     (a->config == PERF_COUNT_SW_CPU_CLOCK ||
			      a->config == PERF_COUNT_SW_TASK_CLOCK)),
		.time_kind = a != &synthesized ? NULL :
			     !strcmp(name, "offcpu-time") ? "off-cpu" : "wall",
		.period = a->sample_period,
	};
	samples = pm_profile__samples(p, event);
	if (a->freq)
		o->period = samples ? pm_profile__period(p, event) / samples : 0;
	if (!pm_profile__time_range(p, event, &first, &last)) {
		o->duration_nanos = (int64_t)(last - first);
		if (!pm_reader__clock_data(r, &clock))
			o->time_nanos = (int64_t)(clock.wall_ns + (first - clock.clock_ns));
	}
	return 0;
}
