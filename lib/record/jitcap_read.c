// SPDX-License-Identifier: GPL-2.0
/*
 * The reader of the JIT files jitcap notes: a thread fed through a
 * bounded queue, each file read into tables of its own and encoded, the
 * encoding appended to the copies under the lock (never held while a
 * file is read: a rotation's encoding waits for an append at most).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/jitcap_int.h"
#include "symbols/jitcode.h"
#include "symbols/jitsym.h"
#include "symbols/perfmap.h"

/* Keeps w (its dso copied) for the end; under lock.  Out of memory, it is lost. */
static void reader__note(struct jc_reader *r, struct pm_warning w)
{
	char *dso = w.dso ? strdup(w.dso) : NULL;

	if ((w.dso && !dso) ||
	    pm_array__grow((void **)&r->notes, &r->cap_notes, r->nr_notes, sizeof(*r->notes))) {
		free(dso);
		return;
	}
	w.dso = dso;
	r->notes[r->nr_notes++] = (struct jc_note){ .w = w, .dso = dso };
}

/*
 * Appends a file's payload (its version word left out) to the copy,
 * unless the copy would pass PM_JITCAP_MAX_PAYLOAD; under lock.  False
 * when it was left out.
 */
static bool reader__append(struct pm_buf *copy, const struct pm_buf *payload)
{
	size_t len = payload->len - sizeof(uint64_t);

	return len <= PM_JITCAP_MAX_PAYLOAD - copy->len &&
	       !pm_buf__append(copy, payload->data + sizeof(uint64_t), len);
}

/* A file not opened: nothing there (quiet), or refused. */
static bool reader__opened(struct jc_reader *r, int fd, enum pm_warning_kind kind,
			   const char *path)
{
	if (fd >= 0 || fd == -ENOENT)
		return fd >= 0;
	pthread_mutex_lock(&r->lock);
	r->stats.refused++;
	reader__note(r, (struct pm_warning){ .kind = kind, .dso = path, .err = -fd });
	pthread_mutex_unlock(&r->lock);
	return false;
}

/* The jitdump's loads in a pm_jitcode that holds them, encoded into out. */
static int reader__jitdump(int fd, const struct jc_job *job, const struct pm_jit_limits *lim,
			   struct pm_jitcode_stats *st, struct pm_buf *out)
{
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_jitcode *code = t ? pm_jitcode__new(t) : NULL;
	int err = -ENOMEM;

	*st = (struct pm_jitcode_stats){ 0 };
	if (code) {
		pm_jitcode__hold(code);
		/* Timed: held with their times, report decides how to use them. */
		err = pm_jitcode__read_within(code, fd, job->pid, job->jitdump, true, lim, st) ?:
		      pm_jitcode__encode(code, out);
	}
	pm_jitcode__delete(code);
	pm_jitsyms__delete(t);
	return err;
}

/*
 * Copies the loads of the job's jitdump, read as report reads it (the
 * owner rule of perf maps, no symlink), at the path its marker mapping
 * names: in pmrec's root only (a container's path means another file
 * here, and report reads the path as it is).
 */
static void reader__read_jitdump(struct jc_reader *r, const struct jc_job *job,
				 const struct pm_jit_limits *lim)
{
	struct pm_jitcode_stats st;
	struct pm_buf out = { 0 };
	bool kept = true;
	int fd, err;

	if (!job->jitdump || job->tmp_fd >= 0)
		return;
	fd = pm_perfmap__open(-1, job->jitdump, job->ruid, job->euid);
	if (!reader__opened(r, fd, PM_WARN_JITDUMP_REFUSED, job->jitdump))
		return;
	err = reader__jitdump(fd, job, lim, &st, &out);
	close(fd);
	pthread_mutex_lock(&r->lock);
	if (!err && out.len) {
		kept = reader__append(&r->code, &out);
		r->stats.jitdumps += kept;
		r->stats.loads += kept ? st.loads + st.moves : 0;
	}
	if (err)
		reader__note(r, (struct pm_warning){ .kind = PM_WARN_JITDUMP_REFUSED,
						     .dso = job->jitdump, .err = -err });
	if (st.bad)
		reader__note(r, (struct pm_warning){ .kind = PM_WARN_JITDUMP_BAD,
						     .dso = job->jitdump, .offset = st.err.offset,
						     .why = st.err.why, .size = st.loads });
	if (st.truncated || !kept) {
		r->stats.cut++;
		reader__note(r, (struct pm_warning){ .kind = PM_WARN_JITDUMP_TRUNCATED,
						     .dso = job->jitdump, .err = kept ? -st.cut : E2BIG,
						     .size = kept ? st.loads : 0 });
	}
	pthread_mutex_unlock(&r->lock);
	pm_buf__exit(&out);
}

/* The perf map on fd in a table of its own, encoded into out. */
static int reader__map(int fd, const struct jc_job *job, const struct pm_jit_limits *lim,
		       struct pm_perfmap_stats *st, struct pm_buf *out)
{
	struct pm_jitsyms *t = pm_jitsyms__new();
	char dso[48], dso_short[32];
	size_t pos = 0;
	int err;

	*st = (struct pm_perfmap_stats){ 0 };
	if (!t)
		return -ENOMEM;
	/* What report would read: the pid as recorded. */
	snprintf(dso, sizeof(dso), "/tmp/perf-%d.map", job->pid);
	snprintf(dso_short, sizeof(dso_short), "[JIT] tid %d", job->pid);
	err = pm_perfmap__read(fd, t, job->pid, dso, dso_short, lim, st);
	if (!err && pm_jitsyms__count(t))
		err = pm_jitsyms__encode(t, &pos, SIZE_MAX, out);
	pm_jitsyms__delete(t);
	return err;
}

/* Copies the names of the job's perf map. */
static void reader__read_map(struct jc_reader *r, const struct jc_job *job,
			     const struct pm_jit_limits *lim)
{
	char name[32], path[96];
	struct pm_perfmap_stats st;
	struct pm_buf out = { 0 };
	bool kept = true;
	int fd, err;

	snprintf(name, sizeof(name), "perf-%d.map", job->nspid);
	if (job->tmp_fd >= 0)
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/%s", job->pid, name);
	else
		snprintf(path, sizeof(path), "/tmp/%s", name);
	fd = pm_perfmap__open(job->tmp_fd, job->tmp_fd >= 0 ? name : path, job->ruid, job->euid);
	if (!reader__opened(r, fd, PM_WARN_JIT_MAP_REFUSED, path))
		return;
	err = reader__map(fd, job, lim, &st, &out);
	close(fd);
	pthread_mutex_lock(&r->lock);
	r->stats.maps++;
	if (!err && out.len) {
		kept = reader__append(&r->syms, &out);
		r->stats.entries += kept ? st.added : 0;
	}
	if (err)
		reader__note(r, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_REFUSED, .dso = path,
						     .err = -err });
	if (st.malformed)
		reader__note(r, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_MALFORMED, .dso = path,
						     .size = st.malformed });
	if (st.truncated || !kept) {
		r->stats.cut++;
		reader__note(r, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_TRUNCATED, .dso = path,
						     .err = kept ? -st.cut : E2BIG,
						     .size = kept ? st.added : 0 });
	}
	pthread_mutex_unlock(&r->lock);
	pm_buf__exit(&out);
}

void jc_reader__read(struct pm_jitcap *c, struct jc_job *job, uint64_t deadline)
{
	struct pm_jit_limits lim = c->lim;
	bool skip;

	lim.deadline = deadline;
	pthread_mutex_lock(&c->r.lock);
	skip = c->r.abandon || (deadline && pm_jit_limits__now(&lim) >= deadline);
	c->r.stats.skipped += skip;
	pthread_mutex_unlock(&c->r.lock);
	if (!skip) {
		reader__read_jitdump(&c->r, job, &lim);
		reader__read_map(&c->r, job, &lim);
	}
	jc_job__exit(c, job);
}

static void *reader__run(void *arg)
{
	struct pm_jitcap *c = arg;
	struct jc_reader *r = &c->r;
	struct jc_job job;
	uint64_t deadline;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		while (!r->nr && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		if (!r->nr) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		job = r->queue[r->head];
		r->head = (r->head + 1) % PM_JITCAP_QUEUE;
		r->nr--;
		deadline = r->deadline;
		pthread_mutex_unlock(&r->lock);
		jc_reader__read(c, &job, deadline);
	}
}

int jc_reader__start(struct pm_jitcap *c)
{
	struct jc_reader *r = &c->r;
	sigset_t all, old;
	int err;

	err = pthread_mutex_init(&r->lock, NULL);
	if (err)
		return -err;
	err = pthread_cond_init(&r->cond, NULL);
	if (err) {
		pthread_mutex_destroy(&r->lock);
		return -err;
	}
	/* The recorder takes its signals on a signalfd: none may land in the reader. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&r->thread, NULL, reader__run, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&r->cond);
		pthread_mutex_destroy(&r->lock);
		return -err;
	}
	r->running = true;
	return 0;
}

int jc_reader__push(struct pm_jitcap *c, struct jc_job *job)
{
	struct jc_reader *r = &c->r;
	int err = 0;

	pthread_mutex_lock(&r->lock);
	if (r->nr == PM_JITCAP_QUEUE || r->stop) {
		err = -EAGAIN;
	} else {
		r->queue[(r->head + r->nr++) % PM_JITCAP_QUEUE] = *job;
		pthread_cond_signal(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	return err;
}

void jc_reader__stop(struct pm_jitcap *c, uint64_t deadline)
{
	struct jc_reader *r = &c->r;

	if (!r->running)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	r->abandon = !deadline;
	r->deadline = deadline;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	r->running = false;
}

void jc_reader__tell(struct pm_jitcap *c)
{
	struct jc_reader *r = &c->r;
	struct jc_note *notes;
	size_t i, nr;

	/* Taken out first: the callback runs without the lock. */
	pthread_mutex_lock(&r->lock);
	if (r->stats.skipped > r->told_skipped) {
		reader__note(r, (struct pm_warning){ .kind = PM_WARN_JIT_SKIPPED,
						     .size = r->stats.skipped - r->told_skipped });
		r->told_skipped = r->stats.skipped;
	}
	notes = r->notes;
	nr = r->nr_notes;
	r->notes = NULL;
	r->nr_notes = r->cap_notes = 0;
	pthread_mutex_unlock(&r->lock);
	for (i = 0; i < nr; i++) {
		if (c->warn)
			c->warn(c->warn_arg, &notes[i].w);
		free(notes[i].dso);
	}
	free(notes);
}

void jc_reader__exit(struct pm_jitcap *c)
{
	struct jc_reader *r = &c->r;
	size_t i;

	for (i = 0; i < r->nr_notes; i++)
		free(r->notes[i].dso);
	free(r->notes);
	pm_buf__exit(&r->syms);
	pm_buf__exit(&r->code);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
}
