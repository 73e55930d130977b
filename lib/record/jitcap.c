// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hashtab.h"
#include "format/record_body.h"
#include "record/filecap.h"
#include "record/jitcap.h"
#include "record/jitcap_int.h"
#include "symbols/jitcode.h"
#include "symbols/jitdump.h"
#include "symbols/jitsym.h"

/* Processes noted at most. */
#define MAX_PROCS 4096
#define STATUS_MAX (64u << 10)

struct pm_jitcap *pm_jitcap__new(pm_warn_fn *warn, void *warn_arg)
{
	struct pm_jitcap *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return NULL;
	pm_hashtab__init(&c->idx, NULL, NULL);
	c->warn = warn;
	c->warn_arg = warn_arg;
	err = jc_reader__start(c);
	if (err) {
		pm_hashtab__exit(&c->idx);
		free(c);
		errno = -err;
		return NULL;
	}
	return c;
}

void pm_jitcap__delete(struct pm_jitcap *c)
{
	size_t i;

	if (!c)
		return;
	jc_reader__stop(c, 0);
	for (i = 0; i < c->nr_procs; i++)
		jc_job__exit(c, &c->procs[i].job);
	free(c->procs);
	pm_hashtab__exit(&c->idx);
	jc_reader__exit(c);
	free(c);
}

void pm_jitcap__limit(struct pm_jitcap *c, const struct pm_jit_limits *lim)
{
	c->lim = *lim;
}

/* The value after key ("Uid:", "NSpid:") in a /proc/PID/status text: its fields. */
static const char *status__field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p && (p == text || p[-1] == '\n') ? p + strlen(key) : NULL;
}

/* Who the process is, and its pid in its own namespace. */
static void proc__read_status(struct jc_job *p)
{
	char path[64], *text = NULL;
	const char *f;
	size_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", p->pid);
	fd = pm_file__open(path, O_RDONLY, 0, 0, NULL);
	if (fd < 0)
		return;
	if (!pm_file__read_all(fd, STATUS_MAX, &text, &len)) {
		unsigned int r, e;
		char *end;
		long v;

		f = status__field(text, "Uid:");
		if (f && sscanf(f, "%u %u", &r, &e) == 2) {
			p->ruid = r;
			p->euid = e;
		}
		/* NSpid: the pid in each namespace, outermost first: the last is its own. */
		f = status__field(text, "NSpid:");
		while (f && *f && *f != '\n') {
			v = strtol(f, &end, 10);
			if (end == f)
				break;
			if (v > 0 && v <= INT32_MAX)
				p->nspid = (int32_t)v;
			f = end;
		}
	}
	free(text);
	close(fd);
}

/*
 * A root other than pmrec's (a container, a chroot), or pmrec's root seen
 * through other mounts (a private /tmp): its /tmp is held open while the
 * process lives.  Not its root: a mount namespace dies with its last
 * process, before the EXIT record, and its /tmp mount with it, but an open
 * directory keeps that file system readable.
 */
static void jitcap__open_tmp(struct pm_jitcap *c, struct jc_job *p)
{
	char path[64];
	int root;

	snprintf(path, sizeof(path), "/proc/%d/root", p->pid);
	if (pm_proc__shares_mounts(p->pid) ||
	    __atomic_load_n(&c->nr_tmp_fds, __ATOMIC_RELAXED) >= PM_JITCAP_MAX_HELD)
		return;
	root = pm_file__open(path, O_RDONLY, PM_FILE_DIR | PM_FILE_FOLLOW, 0, NULL);
	if (root < 0)
		return;
	p->tmp_fd = pm_file__open_in_root(root, "tmp", O_RDONLY, PM_FILE_DIR, 0, NULL);
	close(root);
	if (p->tmp_fd >= 0)
		__atomic_add_fetch(&c->nr_tmp_fds, 1, __ATOMIC_RELAXED);
}

void jc_job__exit(struct pm_jitcap *c, struct jc_job *job)
{
	if (job->tmp_fd >= 0) {
		close(job->tmp_fd);
		__atomic_sub_fetch(&c->nr_tmp_fds, 1, __ATOMIC_RELAXED);
	}
	free(job->jitdump);
	job->tmp_fd = -1;
	job->jitdump = NULL;
}

/* The process pid, noted now if it was not (or was read: its pid is reused); NULL if no room. */
static struct jc_proc *jitcap__note(struct pm_jitcap *c, int32_t pid)
{
	struct jc_proc *p;
	uint64_t i;

	if (pm_hashtab__find_int(&c->idx, (uint32_t)pid, &i)) {
		p = &c->procs[i];
		/* Read at its exit: the pid is another process's now. */
		if (!p->read)
			return p;
		jc_job__exit(c, &p->job);
	} else {
		if (c->nr_procs == MAX_PROCS ||
		    pm_array__grow((void **)&c->procs, &c->cap_procs, c->nr_procs, sizeof(*p)) ||
		    pm_hashtab__insert_int(&c->idx, (uint32_t)pid, c->nr_procs))
			return NULL;
		p = &c->procs[c->nr_procs++];
		c->processes++;
	}
	*p = (struct jc_proc){ .job = { .pid = pid, .nspid = pid, .ruid = (uid_t)-1,
					.euid = (uid_t)-1, .tmp_fd = -1 } };
	proc__read_status(&p->job);
	jitcap__open_tmp(c, &p->job);
	return p;
}

static void jitcap__mmap2(struct pm_jitcap *c, const struct perf_event_header *h)
{
	struct pm_mmap_body mb;
	struct jc_proc *p;
	bool marker;

	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
	    pm_mmap_body__decode(h, h->size - sizeof(*h), &mb) || !mb.v2 ||
	    !(mb.prot & PROT_EXEC) || !memchr(mb.filename, '\0', mb.filename_max))
		return;
	/* A runtime's jitdump marker (perf inject --jit's rule): its first one is the file. */
	marker = pm_jitdump__marker_pid(mb.filename) >= 0 && mb.filename[0] == '/';
	if (!marker && !pm_jitsym__anon_mapping(mb.filename))
		return;
	p = jitcap__note(c, mb.pid);
	if (p && marker && !p->job.jitdump)
		p->job.jitdump = strdup(mb.filename);
}

/*
 * A process ends with its last thread; its map is complete once it has
 * exited: its files go to the reader, or wait for the end when the queue
 * is full.
 */
static void jitcap__exit(struct pm_jitcap *c, const struct perf_event_header *h)
{
	struct pm_fork_body fb;
	struct jc_proc *p;
	uint64_t i;

	if (pm_fork_body__decode(h, h->size - sizeof(*h), &fb) || fb.pid != fb.tid ||
	    !pm_hashtab__find_int(&c->idx, (uint32_t)fb.pid, &i) || c->procs[i].read)
		return;
	p = &c->procs[i];
	if (jc_reader__push(c, &p->job)) {
		c->deferred++;
		return;
	}
	/* The job's fd and path are the reader's now. */
	p->job.tmp_fd = -1;
	p->job.jitdump = NULL;
	p->read = true;
}

void pm_jitcap__event(struct pm_jitcap *c, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_MMAP2)
		jitcap__mmap2(c, h);
	else if (h->type == PERF_RECORD_EXIT)
		jitcap__exit(c, h);
}

void pm_jitcap__events(struct pm_jitcap *c, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t off = 0;

	while (len - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		if (h.type == PERF_RECORD_MMAP2 || h.type == PERF_RECORD_EXIT)
			pm_jitcap__event(c, (const void *)(p + off));
		off += h.size;
	}
}

void pm_jitcap__finish(struct pm_jitcap *c)
{
	uint64_t deadline = pm_jit_limits__now(&c->lim) + PM_JITCAP_FINISH_NSEC;
	size_t i;

	jc_reader__stop(c, deadline);
	for (i = 0; i < c->nr_procs; i++)
		if (!c->procs[i].read) {
			jc_reader__read(c, &c->procs[i].job, deadline);
			c->procs[i].read = true;
		}
	jc_reader__tell(c);
}

void pm_jitcap__stats(struct pm_jitcap *c, struct pm_jitcap_stats *st)
{
	pthread_mutex_lock(&c->r.lock);
	*st = c->r.stats;
	pthread_mutex_unlock(&c->r.lock);
	st->processes = c->processes;
	st->deferred = c->deferred;
}

/* A payload: its version word, then the entries copied; nothing when none. */
static int jitcap__encode(struct pm_jitcap *c, const struct pm_buf *entries, uint64_t version,
			  struct pm_buf *out)
{
	int err = 0;

	pthread_mutex_lock(&c->r.lock);
	if (entries->len && (pm_buf__append_u64(out, version) ||
			     pm_buf__append(out, entries->data, entries->len)))
		err = -ENOMEM;
	pthread_mutex_unlock(&c->r.lock);
	return err;
}

static bool jitcap__any(struct pm_jitcap *c, const struct pm_buf *entries)
{
	bool any;

	pthread_mutex_lock(&c->r.lock);
	any = entries->len > 0;
	pthread_mutex_unlock(&c->r.lock);
	return any;
}

int pm_jitcap__encode(struct pm_jitcap *c, struct pm_buf *out)
{
	return jitcap__encode(c, &c->r.syms, PM_JITSYM_FORMAT, out);
}

bool pm_jitcap__any(struct pm_jitcap *c)
{
	return jitcap__any(c, &c->r.syms);
}

int pm_jitcap__encode_code(struct pm_jitcap *c, struct pm_buf *out)
{
	return jitcap__encode(c, &c->r.code, PM_JITCODE_FORMAT, out);
}

bool pm_jitcap__any_code(struct pm_jitcap *c)
{
	return jitcap__any(c, &c->r.code);
}
