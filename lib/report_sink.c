// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "perf_data.h"
#include "record_body.h"
#include "report_sink.h"

/* One thread's name; tid + 1 so that a zeroed slot is free. */
struct pm_report_comm {
	int64_t key;
	char comm[16];
};

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

int pm_report_sink__init(struct pm_report_sink *k, struct pm_reader *r, struct pm_profile *p)
{
	*k = (struct pm_report_sink){ .profile = p, .r = r };
	return sink__events(k, r);
}

void pm_report_sink__exit(struct pm_report_sink *k)
{
	free(k->event_of);
	free(k->comms);
	free(k->frames);
	free(k->build_ids);
	*k = (struct pm_report_sink){ 0 };
}

static struct pm_report_comm *comm__slot(struct pm_report_comm *t, size_t cap, int64_t key)
{
	size_t i = ((uint64_t)key * 0x9e3779b97f4a7c15ULL) >> 20 & (cap - 1);

	while (t[i].key && t[i].key != key)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

static int comm__grow(struct pm_report_sink *k)
{
	size_t cap = k->cap_comms ? k->cap_comms * 2 : 256, i;
	struct pm_report_comm *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < k->cap_comms; i++)
		if (k->comms[i].key)
			*comm__slot(t, cap, k->comms[i].key) = k->comms[i];
	free(k->comms);
	k->comms = t;
	k->cap_comms = cap;
	return 0;
}

static const char *sink__comm(const struct pm_report_sink *k, int32_t tid)
{
	struct pm_report_comm *c;

	if (!k->nr_comms)
		return NULL;
	c = comm__slot(k->comms, k->cap_comms, (int64_t)tid + 1);
	return c->key ? c->comm : NULL;
}

static int sink__set_comm(struct pm_report_sink *k, int32_t tid, const char *comm, size_t max)
{
	struct pm_report_comm *c;

	if ((k->nr_comms + 1) * 4 > k->cap_comms * 3 && comm__grow(k))
		return -ENOMEM;
	c = comm__slot(k->comms, k->cap_comms, (int64_t)tid + 1);
	if (!c->key)
		k->nr_comms++;
	c->key = (int64_t)tid + 1;
	max = strnlen(comm, max < sizeof(c->comm) - 1 ? max : sizeof(c->comm) - 1);
	memcpy(c->comm, comm, max);
	c->comm[max] = '\0';
	return 0;
}

/*
 * A thread takes the name its last COMM gave it (exec or prctl); a new
 * thread or process its parent's, as perf's thread__fork gives it.
 */
static int sink__track_comm(struct pm_report_sink *k, const struct pm_record *rec,
			    size_t body_len)
{
	struct pm_comm_body cb;
	struct pm_fork_body fb;
	const char *parent;
	char name[sizeof(((struct pm_report_comm *)0)->comm)];

	if (rec->header->type == PERF_RECORD_FORK) {
		if (pm_fork_body__decode(rec->header, body_len, &fb))
			return 0;
		parent = sink__comm(k, fb.ptid);
		if (!parent)
			return 0;
		/* The table may grow under the parent's entry. */
		memcpy(name, parent, sizeof(name));
		return sink__set_comm(k, fb.tid, name, strlen(name));
	}
	if (pm_comm_body__decode(rec->header, body_len, &cb))
		return 0;	/* the namer ignores it too */
	return sink__set_comm(k, cb.tid, cb.comm, cb.comm_max);
}

/* perf's short dso name: a file's base name; "[kernel.kallsyms]" and the like as they are. */
static const char *dso__short(const char *dso)
{
	const char *slash;

	if (!dso || dso[0] != '/')
		return dso;
	slash = strrchr(dso, '/');
	return slash[1] ? slash + 1 : dso;
}

static void frame__convert(struct pm_profile_frame *pf, const struct pm_named_frame *nf)
{
	uint16_t mode = nf->cpumode;
	bool kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;

	*pf = (struct pm_profile_frame){
		.dso = dso__short(nf->f.dso),
		.dso_id = nf->f.dso,
		.sym = nf->f.sym,
		.addr = nf->ip,
		.kernel = kernel,
	};
	/*
	 * A function is its start in its file, as perf keys it.  The frame
	 * gives the absolute start only, which differs between processes
	 * that map one library at different places (ASLR): for user code,
	 * 0 (unknown) keeps them one row; kernel addresses are the same in
	 * every process.
	 */
	if (nf->f.sym)
		pf->addr = kernel ? nf->lookup - nf->f.off : 0;
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
	struct pm_profile_frame *f;
	char (*ids)[2 * PM_BUILD_ID_SIZE + 1];

	if (k->cap_frames && nr <= k->cap_frames)
		return 0;
	f = realloc(k->frames, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	k->frames = f;
	ids = realloc(k->build_ids, cap * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	k->build_ids = ids;
	k->cap_frames = cap;
	return 0;
}

static int sink__sample(struct pm_report_sink *k, const struct pm_record *rec,
			const struct pm_sample *s)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const struct pm_named_frame *nf;
	size_t nr, i;
	int err;

	if (s->evsel->idx < 0 || (size_t)s->evsel->idx >= k->nr_events) {
		err = sink__events(k, k->r);
		if (err)
			return err;
	}
	if (k->ip_only) {
		k->ip = (struct pm_named_frame){ .ip = s->ip, .lookup = s->ip, .cpumode = cpumode };
		pm_namer__resolve(k->namer, (int32_t)s->pid, cpumode, s->ip, &k->ip.f);
		nf = &k->ip;
		nr = s->fields & PERF_SAMPLE_IP ? 1 : 0;
	} else {
		err = pm_namer__frames(k->namer, cpumode, s, &nf, &nr);
		if (err)
			return err;
	}
	if (nr > PM_PROFILE_MAX_FRAMES)
		nr = PM_PROFILE_MAX_FRAMES;
	err = sink__reserve(k, nr);
	if (err)
		return err;
	for (i = 0; i < nr; i++) {
		frame__convert(&k->frames[i], &nf[i]);
		if (k->addrs)
			frame__address(k, &k->frames[i], &nf[i], (int32_t)s->pid, k->build_ids[i]);
	}
	/* A sample without an ip still counts, as perf's [unknown]. */
	if (!nr)
		k->frames[nr++] = (struct pm_profile_frame){ 0 };
	return pm_profile__add(k->profile, &(struct pm_profile_sample){
		.event = k->event_of[s->evsel->idx],
		.comm = sink__comm(k, (int32_t)s->tid),
		.pid = (int32_t)s->pid,
		.tid = (int32_t)s->tid,
		.cpu = s->fields & PERF_SAMPLE_CPU ? (int32_t)s->cpu : -1,
		.time = s->time,
		.period = s->period,
		.frames = k->frames,
		.nr_frames = (uint32_t)nr,
	});
}

int pm_report_sink__record(void *arg, const struct pm_record *rec, const struct pm_rec_info *in)
{
	struct pm_report_sink *k = arg;

	switch (rec->header->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
		return sink__track_comm(k, rec, in->body_len);
	case PERF_RECORD_SAMPLE:
		return sink__sample(k, rec, &in->s);
	default:
		return 0;
	}
}
