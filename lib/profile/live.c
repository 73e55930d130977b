// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/hostinfo.h"
#include "profile/live.h"
#include "record/pmdata.h"
#include "reader/rec_info.h"
#include "reader/reader.h"
#include "profile/report_sink.h"
#include "record/ring.h"
#include "record/synth.h"
#include "record/target.h"

/* Exited processes the namer may keep before a new one is made. */
#define LIVE_MAX_EXITS 4096

struct pm_live {
	struct pm_live_config cfg;
	int memfd;			/* the events' description, for the reader */
	struct pm_reader *r;
	struct pm_namer *namer;
	struct pm_profile *cur;		/* the interval under way */
	struct pm_profile *last;	/* the interval ended last, for the caller */
	struct pm_report_sink sink;	/* fills cur */
	struct pm_live_counts counts;
	uint64_t offset;		/* bytes taken in, as a record's offset */
	pid_t *tids;			/* the targets' threads; NULL: every process */
	size_t nr_tids;
	uint64_t exits;			/* processes that exited since the namer was made */
	unsigned char *scratch;		/* a record that a ring's wrap splits, made whole */
	struct pm_profile_frame *frames;	/* a decayed stack, innermost first */
};

/*
 * The reader sees only the description of the events (a pipe-mode
 * prologue written by the recording's own writer), from a memory file:
 * attrs and ids for the decoder, the OS release for the namer's kallsyms.
 */
static int live__describe(struct pm_live *l)
{
	struct pm_features f = { 0 };
	struct pmdata d = { 0 };
	struct pm_record rec;
	int err;

	l->memfd = memfd_create("pmrec-live", MFD_CLOEXEC);
	if (l->memfd < 0)
		return -errno;
	err = pmdata__start(&d, l->memfd, true, l->cfg.evlist);
	if (!err)
		err = pmdata__pipe_event_names(&d, l->cfg.evlist);
	if (!err)
		err = pm_hostinfo__feature(pm_features__add(&f, HEADER_OSRELEASE), HEADER_OSRELEASE);
	if (!err)
		err = pmdata__pipe_features(&d, &f);
	pm_features__exit(&f);
	pmdata__exit(&d);
	if (!err && lseek(l->memfd, 0, SEEK_SET))
		err = -errno;
	if (err)
		return err;
	l->r = pm_reader__new();
	if (!l->r)
		return -ENOMEM;
	err = pm_reader__open_fd(l->r, l->memfd);
	while (!err && (err = pm_reader__next(l->r, &rec)) > 0)
		err = 0;
	return err;
}

/*
 * The previous interval's stacks, each scaled by 7/8; those that fall
 * under one sample are dropped, so a stack not seen again leaves.
 */
static int live__carry(struct pm_live *l, const struct pm_profile *from)
{
	size_t id, nr = pm_profile__nr_nodes(from);
	struct pm_profile_node n, up;
	struct pm_profile_ctx ctx;
	uint32_t k, parent;
	int err = 0;

	for (id = 1; id < nr && !err; id++) {
		uint64_t samples;

		if (pm_profile__node(from, (uint32_t)id, &n, &ctx) || !n.frame || !n.self_samples)
			continue;
		samples = n.self_samples * 7 / 8;
		if (!samples)
			continue;
		l->frames[0] = *n.frame;
		for (k = 1, parent = n.parent; k < n.depth && k < PM_PROFILE_MAX_FRAMES; k++) {
			if (pm_profile__node(from, parent, &up, NULL) || !up.frame)
				break;
			l->frames[k] = *up.frame;
			parent = up.parent;
		}
		err = pm_profile__add(l->cur, &(struct pm_profile_sample){
			.event = ctx.event, .comm = ctx.comm,
			.pid = ctx.pid, .tid = ctx.tid, .cpu = ctx.cpu,
			.period = n.self_period - n.self_period / 8,
			.frames = l->frames, .nr_frames = k,
			.samples = samples,
		});
	}
	return err;
}

/* A new interval's profile and the sink that fills it; from: the last one, to decay. */
static int live__start(struct pm_live *l, const struct pm_profile *from)
{
	int err;

	l->cur = pm_profile__new();
	if (!l->cur)
		return -ENOMEM;
	err = pm_report_sink__init(&l->sink, l->r, l->cur);
	l->sink.namer = l->namer;
	l->sink.ip_only = !l->cfg.callchain;
	l->sink.addrs = l->cfg.addrs;
	if (!err && from && l->cfg.decay)
		err = live__carry(l, from);
	if (err) {
		/* No interval without its sink: samples count as unprocessed until one starts. */
		pm_report_sink__exit(&l->sink);
		pm_profile__delete(l->cur);
		l->cur = NULL;
	}
	return err;
}

struct pm_live *pm_live__new(const struct pm_live_config *cfg)
{
	struct pm_live *l = calloc(1, sizeof(*l));
	int err = -ENOMEM;

	if (!l)
		return NULL;
	l->cfg = *cfg;
	l->memfd = -1;
	l->scratch = aligned_alloc(8, PM_RING_MAX_RECORD + 8);
	l->frames = calloc(PM_PROFILE_MAX_FRAMES, sizeof(*l->frames));
	if (!l->scratch || !l->frames) {
		pm_live__delete(l);
		errno = -err;
		return NULL;
	}
	return l;
}

int pm_live__start(struct pm_live *l)
{
	int err = live__describe(l);

	if (!err) {
		l->namer = pm_namer__new(l->r, l->cfg.warn, l->cfg.warn_arg);
		err = l->namer ? 0 : -ENOMEM;
	}
	/* The stream has no build ids: it says its OS release, for the vDSO's. */
	if (!err)
		err = pm_namer__set_opts(l->namer, &l->cfg.naming) ?:
		      pm_namer__read_build_ids(l->namer);
	if (err)
		return err;
	pm_namer__prefetch_kallsyms(l->namer);
	return live__start(l, NULL);
}

void pm_live__delete(struct pm_live *l)
{
	if (!l)
		return;
	pm_report_sink__exit(&l->sink);
	pm_profile__delete(l->cur);
	pm_profile__delete(l->last);
	pm_namer__delete(l->namer);
	pm_reader__delete(l->r);
	if (l->memfd >= 0)
		close(l->memfd);
	free(l->scratch);
	free(l->frames);
	free(l->tids);
	free(l);
}

/* The bytes of a pass as one run of records, which a ring's wrap may split. */
struct live_walk {
	const struct iovec *iov;
	int nr, i;
	size_t off;
};

static void walk__skip_empty(struct live_walk *w)
{
	while (w->i < w->nr && w->off == w->iov[w->i].iov_len) {
		w->i++;
		w->off = 0;
	}
}

/* Copies n bytes from where the walk is to dst, moving it on; false if fewer are left. */
static bool walk__take(struct live_walk *w, void *dst, size_t n)
{
	unsigned char *out = dst;

	while (n) {
		size_t room, take;

		walk__skip_empty(w);
		if (w->i >= w->nr)
			return false;
		room = w->iov[w->i].iov_len - w->off;
		take = room < n ? room : n;
		if (out) {
			memcpy(out, (const unsigned char *)w->iov[w->i].iov_base + w->off, take);
			out += take;
		}
		w->off += take;
		n -= take;
	}
	return true;
}

/* The next whole record, in place or copied into scratch; NULL at the end. */
static const struct perf_event_header *walk__next(struct live_walk *w, void *scratch)
{
	struct perf_event_header h;
	struct live_walk at;
	const unsigned char *p;

	walk__skip_empty(w);
	at = *w;
	if (!walk__take(&at, &h, sizeof(h)) || h.size < sizeof(h) || h.size % 8)
		return NULL;
	p = (const unsigned char *)w->iov[w->i].iov_base + w->off;
	if (w->iov[w->i].iov_len - w->off >= h.size) {
		w->off += h.size;
		return (const void *)p;
	}
	return walk__take(w, scratch, h.size) ? scratch : NULL;
}

/* A record that shapes the address spaces, or says what the kernel lost. */
static void live__side_band(struct pm_live *l, const struct pm_record *rec)
{
	const struct perf_event_header *h = rec->header;
	struct pm_reader_error e;
	struct pm_rec_info in;

	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
		/* {id, lost}: the samples (and other records) dropped since the last one. */
		l->counts.lost += ((const uint64_t *)(const void *)(h + 1))[1];
		return;
	}
	if (h->type >= PERF_RECORD_USER_TYPE_START || pm_rec_info__decode(&in, l->r, rec, &e))
		return;
	pm_namer__track(l->namer, rec, in.body_len);
	/* EXIT {pid, ppid, tid, ptid, time}: a process ends with its leader. */
	if (h->type == PERF_RECORD_EXIT && in.body_len >= 12 &&
	    ((const uint32_t *)(const void *)(h + 1))[0] == ((const uint32_t *)(const void *)(h + 1))[2])
		l->exits++;
}

static void live__sample(struct pm_live *l, const struct pm_record *rec)
{
	struct pm_reader_error e;
	struct pm_rec_info in;

	struct pm_live_counts *c = &l->counts;

	if (!l->cur || pm_rec_info__decode(&in, l->r, rec, &e) ||
	    pm_report_sink__record(&l->sink, rec, &in)) {
		c->unprocessed++;
		return;
	}
	c->samples++;
	if (!in.has_time)
		return;
	if (!c->first_time || in.time < c->first_time)
		c->first_time = in.time;
	if (in.time > c->last_time)
		c->last_time = in.time;
}

/*
 * The rings of a pass follow each other, each in time order: the mappings
 * and names of every ring go in first, so a sample of one CPU is named
 * through a mapping that another CPU's ring announced in the same pass.
 */
static int live__writev(void *arg, const struct iovec *iov, int iovcnt)
{
	struct pm_live *l = arg;
	const struct perf_event_header *h;
	struct live_walk w;
	int samples;

	/* Not started: no events can have written yet. */
	if (!l->namer)
		return 0;
	for (samples = 0; samples < 2; samples++) {
		uint64_t offset = l->offset;

		w = (struct live_walk){ .iov = iov, .nr = iovcnt };
		while ((h = walk__next(&w, l->scratch))) {
			struct pm_record rec = { .offset = offset, .header = h, .data = h };

			offset += h->size;
			if ((h->type == PERF_RECORD_SAMPLE) != (samples == 1))
				continue;
			if (samples)
				live__sample(l, &rec);
			else
				live__side_band(l, &rec);
		}
		if (samples)
			l->offset = offset;
	}
	return 0;
}

static int live__commit(void *arg)
{
	return 0;
}

struct pm_drain_sink pm_live__sink(struct pm_live *l)
{
	return (struct pm_drain_sink){ .writev = live__writev, .commit = live__commit, .arg = l };
}

/* Synthesized records, as a pass of one span. */
static int live__flush_synth(struct pm_buf *b, void *arg)
{
	struct iovec iov = { .iov_base = b->data, .iov_len = b->len };

	live__writev(arg, &iov, 1);
	pm_buf__reset(b);
	return 0;
}

/* The processes of tids, each once (threads of one process follow each other). */
static int live__synth_targets(struct pm_buf *b, const pid_t *tids, size_t nr, size_t trailer)
{
	pid_t last = 0;
	size_t i;
	int err = 0;

	for (i = 0; i < nr && (!err || err == -ENOENT || err == -ESRCH); i++) {
		pid_t pid = pm_tgid_of(tids[i]);

		if (pid == last)
			continue;
		last = pid;
		err = pm_synth__task(b, pid, trailer, true, NULL);
	}
	return err == -ENOENT || err == -ESRCH ? 0 : err;
}

/* The kernel's map, then the processes of the targets (all of them without). */
static int live__synth(struct pm_live *l)
{
	size_t trailer = pm_evlist__trailer_size(l->cfg.evlist);
	const struct pm_synth_sink sink = {
		.flush = live__flush_synth, .arg = l, .flush_at = 256 * 1024,
	};
	struct pm_buf b = { 0 };
	int err;

	/* Without the kernel's map, kernel frames are [unknown]: not a reason to stop. */
	pm_synth__kernel_mmap(&b, trailer);
	err = l->tids ? live__synth_targets(&b, l->tids, l->nr_tids, trailer) :
			pm_synth__all_tasks(&b, trailer, true, &sink);
	if (err == -ENOENT || err == -ESRCH)
		err = 0;
	if (!err)
		live__flush_synth(&b, l);
	pm_buf__exit(&b);
	return err;
}

int pm_live__synthesize(struct pm_live *l, const pid_t *tids, size_t nr)
{
	if (!l->namer)
		return -EINVAL;
	free(l->tids);
	l->tids = NULL;
	l->nr_tids = 0;
	if (tids) {
		l->tids = malloc((nr ? nr : 1) * sizeof(*tids));
		if (!l->tids)
			return -ENOMEM;
		memcpy(l->tids, tids, nr * sizeof(*tids));
		l->nr_tids = nr;
	}
	return live__synth(l);
}

/* A namer of its own: the address spaces as they are now, read from /proc. */
static void live__renew_namer(struct pm_live *l)
{
	struct pm_namer *n = pm_namer__new(l->r, l->cfg.warn, l->cfg.warn_arg);

	/* No memory for a new one: the old one goes on, larger. */
	if (!n || pm_namer__set_opts(n, &l->cfg.naming) || pm_namer__read_build_ids(n)) {
		pm_namer__delete(n);
		return;
	}
	pm_namer__delete(l->namer);
	l->namer = n;
	pm_namer__prefetch_kallsyms(n);
	l->exits = 0;
	l->counts.renewals++;
	live__synth(l);
}

int pm_live__interval(struct pm_live *l, struct pm_profile **p, struct pm_live_counts *c)
{
	int err;

	if (!l->namer)
		return -EINVAL;
	/* An interval whose start ran out of memory has nothing to show. */
	if (!l->cur) {
		live__start(l, NULL);
		return -ENOMEM;
	}
	err = pm_report_sink__finish(&l->sink);

	pm_report_sink__exit(&l->sink);
	pm_profile__delete(l->last);
	l->last = l->cur;
	l->cur = NULL;
	*c = l->counts;
	l->counts = (struct pm_live_counts){ 0 };
	*p = l->last;
	/*
	 * The namer keeps every process it was told of, exited or not: past
	 * so many exits, a new one from /proc keeps memory to the processes
	 * alive (and the kallsyms read again, on its thread).
	 */
	if (l->exits >= (l->cfg.max_exits ? l->cfg.max_exits : LIVE_MAX_EXITS))
		live__renew_namer(l);
	if (!err)
		err = live__start(l, l->last);
	return err;
}

struct pm_reader *pm_live__reader(struct pm_live *l)
{
	return l->r;
}

int pm_live__zero(struct pm_live *l)
{
	if (!l->namer)
		return -EINVAL;
	pm_report_sink__exit(&l->sink);
	pm_profile__delete(l->cur);
	l->cur = NULL;
	return live__start(l, NULL);
}
