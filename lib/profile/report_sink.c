// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/buf.h"
#include "base/file.h"
#include "base/cache.h"
#include "format/perf_data.h"
#include "profile/report_sink.h"
#include "symbols/symname.h"

/* Events are registered as samples need them: a pipe's attrs come with its records. */
static int sink__events(struct pm_report_sink *k, struct pm_reader *r)
{
	size_t n = pm_reader__nr_evsels(r);
	uint32_t *ev;
	int idx;

	if (n <= k->nr_events)
		return 0;
	ev = realloc(k->event_of, n * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	k->event_of = ev;
	for (; k->nr_events < n; k->nr_events++) {
		idx = pm_profile__add_event(k->profile,
					    pm_evsel__name(pm_reader__evsel(r, k->nr_events)));
		if (idx < 0)
			return idx;
		ev[k->nr_events] = (uint32_t)idx;
	}
	return 0;
}

/* Beyond these, a kernel frame waits for the symbols instead (memory bound). */
#define SINK_DEFER_MAX (1u << 18)
#define SINK_PENDING_MAX (1u << 18)
#define SINK_PENDING_BIT (1u << 31)
#define SINK_REPEAT_BITS 12
/* 1 MiB: the chains of every repeat slot, at 32 addresses each. */
#define SINK_CHAIN_POOL (1u << 17)
#define SINK_WAIT_BITS 12

static pm_frame_id_fn sink__named;

int pm_report_sink__init(struct pm_report_sink *k, struct pm_reader *r, struct pm_profile *p)
{
	int err;

	*k = (struct pm_report_sink){ .profile = p, .r = r, .repeat_bits = SINK_REPEAT_BITS,
				      .chain_pool = SINK_CHAIN_POOL };
	err = pm_frame_ids__init(&k->frames, sink__named, k);
	k->repeat = calloc(1u << SINK_REPEAT_BITS, sizeof(*k->repeat));
	k->deferred_slot = calloc(1u << SINK_WAIT_BITS, sizeof(*k->deferred_slot));
	k->pending_slot = calloc(1u << SINK_WAIT_BITS, sizeof(*k->pending_slot));
	if (err || !k->repeat || !k->deferred_slot || !k->pending_slot)
		return -ENOMEM;
	return sink__events(k, r);
}

void pm_report_sink__exit(struct pm_report_sink *k)
{
	free(k->event_of);
	free(k->ids);
	pm_frame_ids__exit(&k->frames);
	free(k->repeat);
	free(k->chains);
	free(k->deferred_slot);
	free(k->pending_slot);
	free(k->deferred);
	free(k->deferred_ids);
	free(k->pending);
	pm_buf__exit(&k->comms);
	pm_srclines__delete(k->srclines);
	*k = (struct pm_report_sink){ 0 };
}

/* perf's short dso name: a file's base name; "[kernel.kallsyms]" and the like as they are. */
static const char *dso__short(const char *dso)
{
	return dso && dso[0] == '/' ? pm_path__base(dso) : dso;
}

static void frame__convert(struct pm_profile_frame *pf, const struct pm_named_frame *nf)
{
	uint16_t mode = nf->cpumode;
	bool kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;

	*pf = (struct pm_profile_frame){
		.dso = nf->f.dso_short ? nf->f.dso_short : dso__short(nf->f.dso),
		.dso_id = nf->f.dso,
		.sym = nf->f.sym,
		.addr = nf->ip,
		.kernel = kernel,
	};
	/*
	 * A function is its start, as perf keys it: two symbols of one name
	 * (C++ overloads, which demangle alike without their parameters;
	 * static functions of two files) are two rows.  In a mapped file the
	 * start is the symbol's offset in the file, the same in every
	 * process whatever the mapping's address (ASLR).  Kernel addresses
	 * are the same in every process, and JIT code is its process's own
	 * (perf keeps two versions of a JIT function apart).  An inlined
	 * function has no start of its own: perf keys it by name.
	 */
	if (nf->f.sym && (kernel || nf->f.jit))
		pf->addr = nf->lookup - nf->f.off;
	else if (nf->f.sym)
		pf->addr = nf->f.in_file && !nf->inlined ? nf->f.dsoff - nf->f.off : 0;
	/*
	 * An address no symbol covers is named by its offset in the mapped
	 * file, as perf names it (see pm_frame__label).
	 */
	else if (nf->f.in_file) {
		pf->addr = nf->f.dsoff;
		pf->in_file = true;
	}
}

/* The per-address part of a frame (see pm_profile_frame), for pprof. */
static void frame__address(struct pm_report_sink *k, struct pm_profile_frame *pf,
			   const struct pm_named_frame *nf, int32_t pid, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	struct pm_mapping m;
	size_t i;

	pf->ip = nf->lookup;
	pf->linkage = nf->f.linkage;
	pf->inlined = nf->inlined;
	if (pm_namer__mapping(k->namer, pid, nf->cpumode, nf->lookup, &nf->f, &m))
		return;
	for (i = 0; i < m.build_id_len; i++) {
		hex[2 * i] = digits[m.build_id[i] >> 4];
		hex[2 * i + 1] = digits[m.build_id[i] & 15];
	}
	hex[2 * i] = '\0';
	pf->map = (struct pm_profile_map){
		.start = m.start, .limit = m.end, .pgoff = m.pgoff,
		.file = m.path, .build_id = m.build_id_len ? hex : NULL,
	};
}

static int sink__reserve(struct pm_report_sink *k, size_t nr)
{
	size_t cap = nr < 64 ? 64 : nr;
	uint32_t *ids;

	if (nr <= k->cap_ids)
		return 0;
	ids = realloc(k->ids, cap * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	k->ids = ids;
	k->cap_ids = cap;
	return 0;
}

/*
 * perf's srcline of a frame: file:line from the line table (the whole
 * path for pprof); kernel code
 * (perf reads no vmlinux) as symbol+offset; else NULL, "??:0".
 */
static const char *sink__srcline(struct pm_report_sink *k, int32_t pid,
				 const struct pm_named_frame *fr, char *buf, size_t size)
{
	struct pm_mapping m;
	const char *file;
	uint32_t line;

	if (fr->cpumode == PERF_RECORD_MISC_KERNEL) {
		if (!fr->f.sym)
			return NULL;
		snprintf(buf, size, "%s+%" PRIu64, fr->f.sym, fr->f.off);
		return buf;
	}
	if (!fr->f.dso || pm_namer__mapping(k->namer, pid, fr->cpumode, fr->lookup, &fr->f, &m) ||
	    !m.dso || pm_srclines__find(k->srclines, m.dso, fr->lookup - m.start + m.pgoff,
					&file, &line))
		return NULL;
	/* pprof's files are paths; perf's srcline key shows base names. */
	snprintf(buf, size, "%s:%" PRIu32, k->addrs ? file : pm_path__base(file), line);
	return buf;
}

/* The profile's id of frame fr of process pid, just named (pm_frame_id_fn). */
static int sink__named(void *arg, int32_t pid, const struct pm_named_frame *fr, uint32_t *id)
{
	char hex[2 * PM_BUILD_ID_SIZE + 1], srcline[PM_SYM_NAME_MAX + 32];
	struct pm_report_sink *k = arg;
	struct pm_profile_frame pf;

	frame__convert(&pf, fr);
	if (k->addrs)
		frame__address(k, &pf, fr, pid, hex);
	if (k->srclines)
		pf.srcline = sink__srcline(k, pid, fr, srcline, sizeof(srcline));
	return pm_profile__frame_id(k->profile, &pf, id);
}

/* The offset + 1 of comm in the pool; consecutive samples mostly share one. */
static int sink__comm(struct pm_report_sink *k, const char *comm, uint32_t *off)
{
	size_t len = strlen(comm) + 1;

	if (k->last_comm && !strcmp((const char *)k->comms.data + k->last_comm - 1, comm)) {
		*off = (uint32_t)k->last_comm;
		return 0;
	}
	if (k->comms.len + len >= UINT32_MAX || pm_buf__reserve(&k->comms, len))
		return -ENOMEM;
	memcpy(k->comms.data + k->comms.len, comm, len);
	k->last_comm = k->comms.len + 1;
	k->comms.len += len;
	*off = (uint32_t)k->last_comm;
	return 0;
}

static uint32_t *sink__wait_slot(uint32_t *slots, uint64_t h)
{
	return &slots[pm_cache__slot(h, SINK_WAIT_BITS)];
}

/* The waiting sample of ps's context and frames, slot the place to remember a new one. */
static struct pm_sink_deferred *sink__waiting(struct pm_report_sink *k,
					      const struct pm_profile_sample *ps,
					      const uint32_t *ids, size_t nr, uint32_t **slot)
{
	uint64_t h = pm_cache__mix((uint64_t)ps->event << 32 | (uint32_t)ps->tid,
				   (uint64_t)(uint32_t)ps->cpu << 32 | (uint32_t)ps->pid);
	struct pm_sink_deferred *d;
	const char *comm;
	size_t i;

	for (i = 0; i < nr; i++)
		h = pm_cache__mix(h, ids[i]);
	*slot = sink__wait_slot(k->deferred_slot, h);
	if (!**slot || **slot > k->nr_deferred)
		return NULL;
	d = &k->deferred[**slot - 1];
	comm = d->comm ? (const char *)k->comms.data + d->comm - 1 : NULL;
	if (d->event != ps->event || d->pid != ps->pid || d->tid != ps->tid || d->cpu != ps->cpu ||
	    d->nr_frames != nr || memcmp(k->deferred_ids + d->first_id, ids, nr * sizeof(*ids)) ||
	    !comm != !ps->comm || (comm && strcmp(comm, ps->comm)))
		return NULL;
	return d;
}

/* Keeps sample ps, whose frames are ids[0..nr), some of them pending, for later. */
static int sink__defer(struct pm_report_sink *k, const struct pm_profile_sample *ps,
		       const uint32_t *ids, size_t nr)
{
	uint32_t comm = 0, *slot;
	struct pm_sink_deferred *d;
	int err;

	/*
	 * The time filter applies here, not in the profile: a sample that
	 * joins another would be counted at the other's time.  So would it on
	 * an observed profile's timeline: there, each sample waits on its own.
	 */
	if (!pm_profile__in_time(k->profile, ps->time))
		return 0;
	d = sink__waiting(k, ps, ids, nr, &slot);
	if (d && !pm_profile__observed(k->profile)) {
		if (ps->time < d->time)
			d->time = ps->time;
		if (ps->time > d->last_time)
			d->last_time = ps->time;
		d->period = d->period + ps->period < d->period ? UINT64_MAX : d->period + ps->period;
		d->samples++;
		return 0;
	}
	err = ps->comm ? sink__comm(k, ps->comm, &comm) : 0;
	if (err || pm_array__grow((void **)&k->deferred, &k->cap_deferred, k->nr_deferred,
				  sizeof(*k->deferred)))
		return -ENOMEM;
	while (k->nr_deferred_ids + nr > k->cap_deferred_ids)
		if (pm_array__grow((void **)&k->deferred_ids, &k->cap_deferred_ids,
				   k->cap_deferred_ids, sizeof(*k->deferred_ids)))
			return -ENOMEM;
	*slot = (uint32_t)k->nr_deferred + 1;
	k->deferred[k->nr_deferred++] = (struct pm_sink_deferred){
		.time = ps->time, .last_time = ps->time, .period = ps->period, .samples = 1,
		.pid = ps->pid, .tid = ps->tid, .cpu = ps->cpu,
		.event = ps->event, .nr_frames = ps->nr_frames,
		.first_id = (uint32_t)k->nr_deferred_ids, .comm = comm,
	};
	memcpy(k->deferred_ids + k->nr_deferred_ids, ids, nr * sizeof(*ids));
	k->nr_deferred_ids += nr;
	return 0;
}

/* A kernel frame to name once the symbols are in: its index, tagged. */
static int sink__pend(struct pm_report_sink *k, const struct pm_named_frame *fr, uint32_t *id)
{
	uint32_t *slot = sink__wait_slot(k->pending_slot, pm_cache__mix(fr->ip, fr->lookup));
	const struct pm_sink_pending *e;

	if (*slot && *slot <= k->nr_pending) {
		e = &k->pending[*slot - 1];
		if (e->ip == fr->ip && e->lookup == fr->lookup) {
			*id = SINK_PENDING_BIT | (*slot - 1);
			return 0;
		}
	}
	if (pm_array__grow((void **)&k->pending, &k->cap_pending, k->nr_pending,
			   sizeof(*k->pending)))
		return -ENOMEM;
	*slot = (uint32_t)k->nr_pending + 1;
	k->pending[k->nr_pending] = (struct pm_sink_pending){ .ip = fr->ip, .lookup = fr->lookup };
	*id = SINK_PENDING_BIT | (uint32_t)k->nr_pending++;
	return 0;
}

/* Names the pending kernel frames (waiting for the symbols) and adds the samples that waited. */
static int sink__flush(struct pm_report_sink *k)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < k->nr_pending && !err; i++) {
		struct pm_named_frame fr = { .ip = k->pending[i].ip, .lookup = k->pending[i].lookup,
					     .cpumode = PERF_RECORD_MISC_KERNEL };

		err = pm_frame_ids__get(&k->frames, k->namer, -1, &fr, &k->pending[i].id);
	}
	for (i = 0; i < k->nr_deferred && !err; i++) {
		const struct pm_sink_deferred *d = &k->deferred[i];
		uint32_t *ids = k->deferred_ids + d->first_id;

		for (j = 0; j < d->nr_frames; j++)
			if (ids[j] & SINK_PENDING_BIT)
				ids[j] = k->pending[ids[j] & ~SINK_PENDING_BIT].id;
		err = pm_profile__add(k->profile, &(struct pm_profile_sample){
			.event = d->event,
			.comm = d->comm ? (const char *)k->comms.data + d->comm - 1 : NULL,
			.pid = d->pid, .tid = d->tid, .cpu = d->cpu,
			.time = d->time, .period = d->period,
			.frame_ids = ids, .nr_frames = d->nr_frames,
			.samples = d->samples, .last_time = d->last_time,
		});
	}
	k->nr_deferred = k->nr_deferred_ids = k->nr_pending = 0;
	k->comms.len = k->last_comm = 0;
	return err;
}

int pm_report_sink__finish(struct pm_report_sink *k)
{
	return sink__flush(k);
}

/* Whether slot e holds the place of sample s of this key and mode on this CPU. */
static bool sink__repeat_holds(struct pm_report_sink *k, const struct pm_sink_repeat *e,
			       const struct pm_sample *s, uint64_t key, uint16_t cpumode,
			       int32_t cpu)
{
	return e->gen == pm_namer__generation_of(k->namer, (int32_t)s->pid) && e->key == key &&
	       e->tid == (int32_t)s->tid && e->pid == (int32_t)s->pid && e->cpu == cpu &&
	       e->evsel == s->evsel->idx && e->cpumode == cpumode;
}

static struct pm_sink_repeat *sink__repeat_slot(struct pm_report_sink *k,
						const struct pm_sample *s, uint64_t key,
						uint16_t cpumode, int32_t cpu)
{
	uint64_t h = pm_cache__mix(pm_cache__mix(key, (uint64_t)s->tid << 32 | (uint32_t)cpu),
				   cpumode);

	return &k->repeat[k->repeat_bits ? pm_cache__slot(h, k->repeat_bits) : 0];
}

/* The slot of an ip_only sample with an ip, and whether it holds its place. */
static struct pm_sink_repeat *sink__repeat(struct pm_report_sink *k, const struct pm_sample *s,
					   uint16_t cpumode, int32_t cpu, bool *hit)
{
	struct pm_sink_repeat *e = sink__repeat_slot(k, s, s->ip, cpumode, cpu);

	*hit = !e->nr && sink__repeat_holds(k, e, s, s->ip, cpumode, cpu);
	return e;
}

/*
 * The hash of sample s's call chain and ip.  A slot's chain is compared
 * whole: a collision costs a naming, never a wrong place.
 */
static uint64_t sink__chain_hash(const struct pm_sample *s)
{
	return pm_cache__hash_words(s->callchain, s->callchain_nr, s->ip);
}

/*
 * The slot of a sample named by its call chain alone, and whether it holds
 * its place; NULL when its chain is not remembered (too long, no memory).
 */
static struct pm_sink_repeat *sink__repeat_chain(struct pm_report_sink *k,
						 const struct pm_sample *s, uint16_t cpumode,
						 int32_t cpu, bool *hit)
{
	uint64_t key, nr = s->callchain_nr;
	struct pm_sink_repeat *e;

	*hit = false;
	/* Longer chains are not remembered: one would take too much of the ring. */
	if (!nr || nr > k->chain_pool / 64)
		return NULL;
	if (!k->chains && !(k->chains = malloc(k->chain_pool * sizeof(*k->chains))))
		return NULL;
	key = sink__chain_hash(s);
	e = sink__repeat_slot(k, s, key, cpumode, cpu);
	*hit = e->nr == nr && sink__repeat_holds(k, e, s, key, cpumode, cpu) &&
	       k->chains_written - e->pos <= k->chain_pool &&
	       !memcmp(k->chains + e->pos % k->chain_pool, s->callchain, nr * sizeof(uint64_t));
	return e;
}

/* Keeps sample s's chain in the ring: where it starts. */
static uint64_t sink__keep_chain(struct pm_report_sink *k, const struct pm_sample *s)
{
	uint64_t pos = k->chains_written;

	/* A chain is whole in the ring: one that would wrap starts it again. */
	if (pos % k->chain_pool + s->callchain_nr > k->chain_pool)
		pos += k->chain_pool - pos % k->chain_pool;
	pm_bigmem__populate_to(k->chains, k->chain_pool * sizeof(*k->chains), &k->chains_populated,
			       (pos % k->chain_pool + s->callchain_nr) * sizeof(*k->chains));
	memcpy(k->chains + pos % k->chain_pool, s->callchain,
	       s->callchain_nr * sizeof(uint64_t));
	k->chains_written = pos + s->callchain_nr;
	return pos;
}

/*
 * Whether a sample's kernel frames wait for the symbols; what waits goes in
 * first once they are in, or when the wait is full (waiting for them).
 */
static int sink__waits(struct pm_report_sink *k, bool *defer)
{
	int err;

	*defer = pm_namer__kernel_pending(k->namer);
	if (k->nr_deferred && (!*defer || k->nr_deferred >= SINK_DEFER_MAX ||
			       k->nr_pending >= SINK_PENDING_MAX - PM_PROFILE_MAX_FRAMES)) {
		err = sink__flush(k);
		if (err)
			return err;
		*defer = pm_namer__kernel_pending(k->namer);
	}
	return 0;
}

/*
 * The ids of frames nf[0..*nr) in k->ids, kernel ones pending if defer;
 * for none, one: a sample without an ip still counts, as perf's [unknown].
 */
static int sink__ids(struct pm_report_sink *k, int32_t pid, struct pm_named_frame *nf,
		     size_t *nr, bool defer)
{
	int err = sink__reserve(k, *nr + 1);
	size_t i;

	for (i = 0; i < *nr && !err; i++) {
		if (defer && nf[i].cpumode == PERF_RECORD_MISC_KERNEL && !nf[i].inlined)
			err = sink__pend(k, &nf[i], &k->ids[i]);
		else
			err = pm_frame_ids__get(&k->frames, k->namer, pid, &nf[i], &k->ids[i]);
	}
	if (!err && !*nr) {
		err = pm_profile__frame_id(k->profile, &(struct pm_profile_frame){ 0 }, &k->ids[0]);
		*nr = 1;
	}
	return err;
}

/* The ids of sample s's frames in k->ids: its ip alone if ip_only, else its call chain. */
static int sink__frames(struct pm_report_sink *k, const struct pm_sample *s, uint16_t cpumode,
			bool defer, size_t *nr)
{
	struct pm_named_frame *nf;
	int err;

	if (k->ip_only) {
		k->ip = (struct pm_named_frame){ .ip = s->ip, .lookup = s->ip, .cpumode = cpumode };
		nf = &k->ip;
		*nr = s->fields & PERF_SAMPLE_IP ? 1 : 0;
	} else {
		err = pm_frame_ids__chain(k->namer, cpumode, s, &nf, nr);
		if (err)
			return err;
	}
	return sink__ids(k, (int32_t)s->pid, nf, nr, defer);
}

/*
 * Adds ps where it goes, and remembers where for the next sample of
 * repeat's thread and ip (an ip_only sink) or chain.
 */
static int sink__place(struct pm_report_sink *k, const struct pm_profile_sample *ps,
		       const struct pm_sample *s, uint16_t cpumode, struct pm_sink_repeat *repeat)
{
	int err = pm_profile__add_placed(k->profile, ps, &repeat->at);

	/* The generation after the naming: naming may start one. */
	if (!err && repeat->at.node != UINT32_MAX) {
		*repeat = (struct pm_sink_repeat){ .key = s->ip,
						   .gen = pm_namer__generation_of(k->namer, ps->pid),
						   .pid = ps->pid, .tid = ps->tid, .cpu = ps->cpu,
						   .evsel = s->evsel->idx, .cpumode = cpumode,
						   .at = repeat->at };
		if (!k->ip_only) {
			repeat->key = sink__chain_hash(s);
			repeat->nr = (uint32_t)s->callchain_nr;
			repeat->pos = sink__keep_chain(k, s);
		}
	} else {
		repeat->gen = 0;
	}
	return err;
}

static int sink__sample(struct pm_report_sink *k, const struct pm_record *rec,
			const struct pm_sample *s)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int32_t cpu = !k->any_cpu && (s->fields & PERF_SAMPLE_CPU) ? (int32_t)s->cpu : -1;
	struct pm_sink_repeat *repeat = NULL;
	struct pm_profile_sample ps;
	bool defer, hit;
	size_t nr;
	int err;

	if (s->evsel->idx < 0 || (size_t)s->evsel->idx >= k->nr_events) {
		err = sink__events(k, k->r);
		if (err)
			return err;
	}
	err = sink__waits(k, &defer);
	if (err)
		return err;
	if (k->ip_only && !defer && (s->fields & PERF_SAMPLE_IP))
		repeat = sink__repeat(k, s, cpumode, cpu, &hit);
	else if (!k->ip_only && !defer && (s->fields & PERF_SAMPLE_CALLCHAIN) &&
		 pm_namer__chain_only(k->namer, s))
		repeat = sink__repeat_chain(k, s, cpumode, cpu, &hit);
	if (repeat && hit) {
		pm_profile__add_again(k->profile, &repeat->at, s->time, s->period);
		k->nr_repeated++;
		return 0;
	}
	err = sink__frames(k, s, cpumode, defer, &nr);
	if (err)
		return err;
	ps = (struct pm_profile_sample){
		.event = k->event_of[s->evsel->idx],
		.comm = pm_namer__comm(k->namer, (int32_t)s->tid),
		.pid = (int32_t)s->pid,
		.tid = (int32_t)s->tid,
		.cpu = cpu,
		.time = s->time,
		.period = s->period,
		.frame_ids = k->ids,
		.nr_frames = (uint32_t)nr,
	};
	if (defer)
		return sink__defer(k, &ps, k->ids, nr);
	return repeat ? sink__place(k, &ps, s, cpumode, repeat) : pm_profile__add(k->profile, &ps);
}

int pm_report_sink__stack(struct pm_report_sink *k, const struct pm_record *rec,
			  const struct pm_sample *s, const uint32_t **ids, size_t *nr)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct pm_named_frame *nf;
	size_t n = 0;
	int err = pm_frame_ids__chain(k->namer, cpumode, s, &nf, &n) ?:
		  sink__ids(k, (int32_t)s->pid, nf, &n, false);

	*ids = k->ids;
	*nr = n;
	return err;
}

int pm_report_sink__redirect(struct pm_report_sink *k, int idx, uint32_t ev)
{
	int err = sink__events(k, k->r);

	if (!err && idx >= 0 && (size_t)idx < k->nr_events) {
		k->event_of[idx] = ev;
		/* The places remembered are the old event's. */
		memset(k->repeat, 0, (1u << SINK_REPEAT_BITS) * sizeof(*k->repeat));
	}
	return err;
}

int pm_report_sink__record(void *arg, const struct pm_record *rec, const struct pm_rec_info *in)
{
	struct pm_report_sink *k = arg;

	return rec->header->type == PERF_RECORD_SAMPLE ? sink__sample(k, rec, &in->s) : 0;
}
