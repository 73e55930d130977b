// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hashtab.h"
#include "record/jitcap.h"
#include "symbols/jitcode.h"
#include "symbols/jitdump.h"
#include "symbols/jitsym.h"
#include "format/perf_data.h"
#include "symbols/perfmap.h"
#include "format/record_body.h"

/* Processes noted at most. */
#define MAX_PROCS 4096
#define STATUS_MAX (64u << 10)

struct jc_proc {
	int32_t pid, nspid;
	uid_t ruid, euid;		/* (uid_t)-1: unknown, root's maps only */
	int tmp_fd;			/* its /tmp, when not pmrec's; else -1 */
	bool read;			/* its map was read at its exit */
	char *jitdump;			/* the path of its jitdump marker, NULL if none */
};

struct pm_jitcap {
	struct pm_jitsyms *syms;
	struct pm_jitcode *code;	/* the jitdumps' loads, held */
	struct jc_proc *procs;
	size_t nr_procs, cap_procs, nr_tmp_fds;
	struct pm_hashtab idx;		/* pid -> index in procs */
	struct pm_jitcap_stats stats;
	pm_warn_fn *warn;
	void *warn_arg;
};

struct pm_jitcap *pm_jitcap__new(pm_warn_fn *warn, void *warn_arg)
{
	struct pm_jitcap *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->syms = pm_jitsyms__new();
	c->code = c->syms ? pm_jitcode__new(c->syms) : NULL;
	if (!c->code) {
		pm_jitsyms__delete(c->syms);
		free(c);
		return NULL;
	}
	pm_jitcode__hold(c->code);
	pm_hashtab__init(&c->idx, NULL, NULL);
	c->warn = warn;
	c->warn_arg = warn_arg;
	return c;
}

void pm_jitcap__delete(struct pm_jitcap *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_procs; i++) {
		if (c->procs[i].tmp_fd >= 0)
			close(c->procs[i].tmp_fd);
		free(c->procs[i].jitdump);
	}
	free(c->procs);
	pm_hashtab__exit(&c->idx);
	pm_jitcode__delete(c->code);
	pm_jitsyms__delete(c->syms);
	free(c);
}

static void jitcap__warn(struct pm_jitcap *c, struct pm_warning w)
{
	if (c->warn)
		c->warn(c->warn_arg, &w);
}

/* The value after key ("Uid:", "NSpid:") in a /proc/PID/status text: its fields. */
static const char *status__field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p && (p == text || p[-1] == '\n') ? p + strlen(key) : NULL;
}

/* Who the process is, and its pid in its own namespace. */
static void proc__read_status(struct jc_proc *p)
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

/* Do the two paths name one file (one directory, one namespace)? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * A root other than pmrec's (a container, a chroot), or pmrec's root seen
 * through other mounts (a private /tmp): its /tmp is held open while the
 * process lives.  Not its root: a mount namespace dies with its last
 * process, before the EXIT record, and its /tmp mount with it, but an open
 * directory keeps that file system readable.
 */
static void jitcap__open_tmp(struct pm_jitcap *c, struct jc_proc *p)
{
	char path[64], ns[64];
	int root;

	snprintf(path, sizeof(path), "/proc/%d/root", p->pid);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", p->pid);
	if ((same_file("/", path) && same_file("/proc/self/ns/mnt", ns)) ||
	    c->nr_tmp_fds == PM_JITCAP_MAX_HELD)
		return;
	root = pm_file__open(path, O_RDONLY, PM_FILE_DIR | PM_FILE_FOLLOW, 0, NULL);
	if (root < 0)
		return;
	p->tmp_fd = pm_file__open_in_root(root, "tmp", O_RDONLY, PM_FILE_DIR, 0, NULL);
	close(root);
	c->nr_tmp_fds += p->tmp_fd >= 0;
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
		if (p->tmp_fd >= 0) {
			close(p->tmp_fd);
			c->nr_tmp_fds--;
		}
		free(p->jitdump);
	} else {
		if (c->nr_procs == MAX_PROCS ||
		    pm_array__grow((void **)&c->procs, &c->cap_procs, c->nr_procs, sizeof(*p)) ||
		    pm_hashtab__insert_int(&c->idx, (uint32_t)pid, c->nr_procs))
			return NULL;
		p = &c->procs[c->nr_procs++];
		c->stats.processes++;
	}
	*p = (struct jc_proc){ .pid = pid, .nspid = pid, .ruid = (uid_t)-1, .euid = (uid_t)-1,
			       .tmp_fd = -1 };
	proc__read_status(p);
	jitcap__open_tmp(c, p);
	return p;
}

/*
 * Holds the loads of p's jitdump, read as report reads it (the owner rule
 * of perf maps, no symlink), at the path its marker mapping names: in
 * pmrec's root only (a container's path means another file here, and
 * report reads the path as it is).
 */
static void jitcap__read_jitdump(struct pm_jitcap *c, struct jc_proc *p)
{
	struct pm_jitcode_stats st;
	int fd, err;

	if (!p->jitdump || p->tmp_fd >= 0)
		return;
	fd = pm_perfmap__open(-1, p->jitdump, p->ruid, p->euid);
	if (fd == -ENOENT)
		return;
	if (fd < 0) {
		jitcap__warn(c, (struct pm_warning){ .kind = PM_WARN_JITDUMP_REFUSED,
						     .dso = p->jitdump, .err = -fd });
		return;
	}
	/* Timed: held with their times, report decides how to use them. */
	err = pm_jitcode__read(c->code, fd, p->pid, p->jitdump, true, &st);
	close(fd);
	if (err)
		jitcap__warn(c, (struct pm_warning){ .kind = PM_WARN_JITDUMP_REFUSED,
						     .dso = p->jitdump, .err = -err });
	if (st.bad)
		jitcap__warn(c, (struct pm_warning){ .kind = PM_WARN_JITDUMP_BAD, .dso = p->jitdump,
						     .offset = st.err.offset, .why = st.err.why,
						     .size = st.loads });
	if (st.truncated)
		jitcap__warn(c, (struct pm_warning){ .kind = PM_WARN_JITDUMP_TRUNCATED,
						     .dso = p->jitdump, .size = st.loads });
}

/* Reads the map of p into the table, and holds its jitdump's loads. */
static void jitcap__read(struct pm_jitcap *c, struct jc_proc *p)
{
	char name[32], path[96], dso[48], dso_short[32];
	struct pm_perfmap_stats st;
	int fd, err;

	snprintf(name, sizeof(name), "perf-%d.map", p->nspid);
	if (p->tmp_fd >= 0)
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/%s", p->pid, name);
	else
		snprintf(path, sizeof(path), "/tmp/%s", name);
	/* What report would read: the pid as recorded. */
	snprintf(dso, sizeof(dso), "/tmp/perf-%d.map", p->pid);
	snprintf(dso_short, sizeof(dso_short), "[JIT] tid %d", p->pid);
	jitcap__read_jitdump(c, p);
	fd = pm_perfmap__open(p->tmp_fd, p->tmp_fd >= 0 ? name : path, p->ruid, p->euid);
	if (fd == -ENOENT)
		return;
	if (fd < 0) {
		jitcap__warn(c, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_REFUSED, .dso = path,
						     .err = -fd });
		return;
	}
	err = pm_perfmap__read(fd, c->syms, p->pid, dso, dso_short, &st);
	close(fd);
	c->stats.maps++;
	c->stats.entries += st.added;
	if (err)
		jitcap__warn(c, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_REFUSED, .dso = path,
						     .err = -err });
	if (st.malformed)
		jitcap__warn(c, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_MALFORMED, .dso = path,
						     .size = st.malformed });
	if (st.truncated)
		jitcap__warn(c, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_TRUNCATED, .dso = path,
						     .size = st.added });
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
	if (p && marker && !p->jitdump)
		p->jitdump = strdup(mb.filename);
}

static void jitcap__exit(struct pm_jitcap *c, const struct perf_event_header *h)
{
	struct pm_fork_body fb;
	uint64_t i;

	/* A process ends with its last thread; its map is complete once it has exited. */
	if (pm_fork_body__decode(h, h->size - sizeof(*h), &fb) || fb.pid != fb.tid ||
	    !pm_hashtab__find_int(&c->idx, (uint32_t)fb.pid, &i) || c->procs[i].read)
		return;
	jitcap__read(c, &c->procs[i]);
	c->procs[i].read = true;
	if (c->procs[i].tmp_fd >= 0) {
		close(c->procs[i].tmp_fd);
		c->procs[i].tmp_fd = -1;
		c->nr_tmp_fds--;
	}
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
	size_t i;

	for (i = 0; i < c->nr_procs; i++)
		if (!c->procs[i].read) {
			jitcap__read(c, &c->procs[i]);
			c->procs[i].read = true;
		}
}

void pm_jitcap__stats(const struct pm_jitcap *c, struct pm_jitcap_stats *st)
{
	*st = c->stats;
	pm_jitcode__held(c->code, &st->jitdumps, &st->loads);
}

int pm_jitcap__encode(const struct pm_jitcap *c, size_t *pos, size_t max, struct pm_buf *out)
{
	return pm_jitsyms__encode(c->syms, pos, max, out);
}

bool pm_jitcap__any(const struct pm_jitcap *c)
{
	return pm_jitsyms__count(c->syms) > 0;
}

int pm_jitcap__encode_code(const struct pm_jitcap *c, struct pm_buf *out)
{
	return pm_jitcode__encode(c->code, out);
}

bool pm_jitcap__any_code(const struct pm_jitcap *c)
{
	uint64_t files, loads;

	pm_jitcode__held(c->code, &files, &loads);
	return files > 0;
}
