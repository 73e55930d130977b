// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hashtab.h"
#include "record/filecap.h"
#include "symbols/symarchive.h"

/* A file held, then read: the path is the recorded one, the id the file's own. */
struct fc_file {
	char *path;
	uint64_t dev, ino;		/* the record's (ino 0: a record with a build id) */
	int fd;				/* held until read; -1 after */
	uint8_t want_len, id_len;	/* the record's build id (0: none), the file's */
	unsigned char want[PM_BUILD_ID_SIZE];
	unsigned char id[PM_BUILD_ID_SIZE];
};

/* A file at its path, watched: replaced or deleted, it is held through this mapping. */
struct fc_watch {
	struct pm_filecap_map m;	/* m.path owned */
	int wd;				/* -1 once handled */
};

struct pm_filecap {
	struct fc_file *files;
	size_t nr, cap;
	struct pm_hashtab held;		/* (dev, ino) -> the file held */
	struct pm_hashtab tables;	/* build id -> the file whose table has it */
	int ifd;			/* inotify, non-blocking; or -1 */
	struct fc_watch *watches;
	size_t nr_watches, cap_watches;
	struct pm_hashtab wds;		/* watch descriptor -> index in watches */
	struct pm_buf payload;		/* begun with the first table */
	struct pm_filecap_stats st;
};

static uint64_t id__hash(const struct pm_hashtab *t, const unsigned char *id, size_t len)
{
	return pm_hashtab__hash_bytes(t, id, len);
}

static uint64_t table_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct fc_file *f = &((struct pm_filecap *)arg)->files[val];

	return id__hash(t, f->id, f->id_len);
}

static bool table_equal(uint64_t val, const void *key, void *arg)
{
	const struct fc_file *f = &((struct pm_filecap *)arg)->files[val];
	const struct fc_file *k = key;

	return f->id_len == k->id_len && !memcmp(f->id, k->id, k->id_len);
}

static const struct pm_hashtab_ops table_ops = { .hash = table_hash, .equal = table_equal };

static uint64_t inode__hash(const struct pm_hashtab *t, uint64_t dev, uint64_t ino)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_u64(t, dev), ino);
}

static uint64_t held_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct fc_file *f = &((struct pm_filecap *)arg)->files[val];

	return inode__hash(t, f->dev, f->ino);
}

static bool held_equal(uint64_t val, const void *key, void *arg)
{
	const struct fc_file *f = &((struct pm_filecap *)arg)->files[val];
	const struct pm_filecap_map *m = key;

	return f->dev == m->dev && f->ino == m->ino;
}

static const struct pm_hashtab_ops held_ops = { .hash = held_hash, .equal = held_equal };

struct pm_filecap *pm_filecap__new(void)
{
	struct pm_filecap *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pm_hashtab__init(&c->held, &held_ops, c);
	pm_hashtab__init(&c->tables, &table_ops, c);
	pm_hashtab__init(&c->wds, NULL, NULL);
	/* Without inotify, a file replaced after its first pass is kept only if its process lasts. */
	c->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return c;
}

void pm_filecap__delete(struct pm_filecap *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++) {
		if (c->files[i].fd >= 0)
			close(c->files[i].fd);
		free(c->files[i].path);
	}
	for (i = 0; i < c->nr_watches; i++)
		free((char *)c->watches[i].m.path);
	if (c->ifd >= 0)
		close(c->ifd);
	free(c->watches);
	pm_hashtab__exit(&c->wds);
	free(c->files);
	pm_hashtab__exit(&c->held);
	pm_hashtab__exit(&c->tables);
	pm_buf__exit(&c->payload);
	free(c);
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool pm_proc__shares_mounts(pid_t pid)
{
	char root[64], ns[64];

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)pid);
	return same_file("/", root) && same_file("/proc/self/ns/mnt", ns);
}

static bool is_deleted(const char *path)
{
	size_t n = strlen(path);

	return n > 10 && !strcmp(path + n - 10, " (deleted)");
}

/*
 * Is st the record's file?  Its inode, and its device: an inode number
 * alone names files of two tmpfs mounts alike.  A record with a build id
 * has no inode: the id is checked when the file is read.
 */
static bool map__is(const struct pm_filecap_map *m, const struct stat *st)
{
	return !m->ino || ((uint64_t)st->st_ino == m->ino && (uint64_t)st->st_dev == m->dev);
}

/* The file at the recorded path inside the process's root, if it is the record's. */
static int open__in_root(const struct pm_filecap_map *m)
{
	char root[64];
	struct stat st;
	int rfd, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)m->pid);
	rfd = pm_file__open(root, O_RDONLY, PM_FILE_DIR | PM_FILE_FOLLOW, 0, NULL);
	if (rfd < 0)
		return rfd;
	fd = pm_file__open_in_root(rfd, m->path, O_RDONLY, PM_FILE_FOLLOW, 0, &st);
	close(rfd);
	if (fd >= 0 && !map__is(m, &st)) {
		close(fd);
		fd = -ESTALE;
	}
	return fd;
}

/* The file the process maps at m's range (the kernel's link to it), if it is the record's. */
static int open__mapping(const struct pm_filecap_map *m)
{
	char path[96];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)m->pid,
		 (unsigned long long)m->start, (unsigned long long)(m->start + m->len));
	fd = pm_file__open(path, O_RDONLY, PM_FILE_FOLLOW, 0, &st);
	if (fd >= 0 && !map__is(m, &st)) {
		close(fd);
		fd = -ESTALE;
	}
	return fd;
}

static enum pm_filecap_verdict filecap__hold(struct pm_filecap *c, const struct pm_filecap_map *m,
					     bool foreign)
{
	uint64_t h = inode__hash(&c->held, m->dev, m->ino);
	struct fc_file *f;
	char *path;
	int fd = -ENOENT;
	bool root = false;

	/* Held already: a watch and the end can both ask for one file. */
	if (m->ino && pm_hashtab__find(&c->held, h, m, NULL))
		return PM_FILECAP_HELD;
	if (c->nr >= PM_FILECAP_MAX_HELD) {
		c->st.over++;
		return PM_FILECAP_GONE;
	}
	if (foreign && !is_deleted(m->path)) {
		fd = open__in_root(m);
		root = fd >= 0;
	}
	if (fd < 0)
		fd = open__mapping(m);
	path = fd < 0 ? NULL : strdup(m->path);
	if (!path || pm_array__grow((void **)&c->files, &c->cap, c->nr, sizeof(*f)) ||
	    (m->ino && pm_hashtab__insert(&c->held, h, c->nr))) {
		if (fd >= 0)
			close(fd);
		free(path);
		c->st.gone++;
		return PM_FILECAP_GONE;
	}
	f = &c->files[c->nr];
	*f = (struct fc_file){ .path = path, .dev = m->dev, .ino = m->ino, .fd = fd,
			       .want_len = (uint8_t)m->build_id_len };
	if (m->build_id_len)
		memcpy(f->want, m->build_id, m->build_id_len);
	c->nr++;
	if (root)
		c->st.through_root++;
	else
		c->st.through_map++;
	return PM_FILECAP_HELD;
}

/*
 * A file at its path, and the mapping to hold it through if it is
 * replaced or deleted: its link count falls (IN_ATTRIB), while the process
 * most likely still runs.  One watch per inode.
 */
static void filecap__watch(struct pm_filecap *c, const struct pm_filecap_map *m)
{
	struct fc_watch *w;
	char *path;
	int wd;

	if (c->ifd < 0 || c->nr_watches >= PM_FILECAP_MAX_WATCHED)
		return;
	wd = inotify_add_watch(c->ifd, m->path, IN_ATTRIB | IN_DONT_FOLLOW);
	if (wd < 0 || pm_hashtab__find_int(&c->wds, (uint32_t)wd, NULL))
		return;
	path = strdup(m->path);
	if (!path || pm_array__grow((void **)&c->watches, &c->cap_watches, c->nr_watches,
				    sizeof(*w)) ||
	    pm_hashtab__insert_int(&c->wds, (uint32_t)wd, c->nr_watches)) {
		free(path);
		inotify_rm_watch(c->ifd, wd);
		return;
	}
	w = &c->watches[c->nr_watches++];
	*w = (struct fc_watch){ .m = *m, .wd = wd };
	w->m.path = path;
	w->m.build_id = NULL;
	w->m.build_id_len = 0;
	c->st.watched++;
}

/* A watched file's attributes changed: held if its path holds it no more. */
static void filecap__changed(struct pm_filecap *c, int wd)
{
	struct fc_watch *w;
	struct stat st;
	uint64_t i;

	if (!pm_hashtab__find_int(&c->wds, (uint32_t)wd, &i) || c->watches[i].wd < 0)
		return;
	w = &c->watches[i];
	/* chmod, touch: still the file. */
	if (!fstatat(AT_FDCWD, w->m.path, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) &&
	    map__is(&w->m, &st))
		return;
	inotify_rm_watch(c->ifd, wd);
	w->wd = -1;
	if (filecap__hold(c, &w->m, false) == PM_FILECAP_HELD)
		c->st.replaced++;
}

void pm_filecap__poll(struct pm_filecap *c)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	size_t off;

	if (c->ifd < 0 || !c->nr_watches)
		return;
	while ((n = read(c->ifd, buf, sizeof(buf))) > 0)
		for (off = 0; off + sizeof(*ev) <= (size_t)n; off += sizeof(*ev) + ev->len) {
			ev = (const void *)(buf + off);
			if (ev->mask & IN_ATTRIB)
				filecap__changed(c, ev->wd);
		}
}

/*
 * A record with a build id has no inode to compare: does the process's
 * path lead to the file that the path here names (a namespace over the
 * host's files)?
 */
static bool root__sees(const struct pm_filecap_map *m, const struct stat *here)
{
	int fd = open__in_root(m);
	struct stat st;
	bool same;

	if (fd < 0)
		return false;
	same = !fstat(fd, &st) && st.st_dev == here->st_dev && st.st_ino == here->st_ino;
	close(fd);
	return same;
}

enum pm_filecap_verdict pm_filecap__note(struct pm_filecap *c, const struct pm_filecap_map *m)
{
	bool here, foreign;
	struct stat st;

	if (m->build_id_len > PM_BUILD_ID_SIZE)
		return PM_FILECAP_GONE;
	here = !is_deleted(m->path) &&
	       !fstatat(AT_FDCWD, m->path, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT);
	/* Most files: the path here is the file (one fstat); the process is not asked. */
	if (here && m->ino && map__is(m, &st)) {
		filecap__watch(c, m);
		return PM_FILECAP_HERE;
	}
	foreign = !pm_proc__shares_mounts(m->pid);
	/*
	 * In pmrec's own view, the inode decides: the device of an overlayfs
	 * or btrfs path is not its inode's.  A record with a build id has no
	 * inode: the id decides at report.
	 */
	if (here && !foreign && (!m->ino || (uint64_t)st.st_ino == m->ino))
		return PM_FILECAP_HERE;
	if (here && !m->ino && foreign && root__sees(m, &st))
		return PM_FILECAP_HERE;
	return filecap__hold(c, m, foreign);
}

enum pm_filecap_verdict pm_filecap__late(struct pm_filecap *c, const struct pm_filecap_map *m)
{
	if (m->build_id_len > PM_BUILD_ID_SIZE)
		return PM_FILECAP_GONE;
	return filecap__hold(c, m, false);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The file being read: its id is the record's, if the record has one, and new. */
struct fc_check {
	struct pm_filecap *c;
	struct fc_file *f;
};

static int filecap__check(void *arg, const unsigned char *id, size_t len)
{
	struct fc_check *k = arg;
	struct fc_file *f = k->f;

	/* A record's id is the truth: a file with another one is not its file. */
	if (f->want_len && (len != f->want_len || memcmp(id, f->want, len)))
		return -ESTALE;
	memcpy(f->id, id, len);
	f->id_len = (uint8_t)len;
	if (pm_hashtab__find(&k->c->tables, id__hash(&k->c->tables, id, len), f, NULL))
		return -EEXIST;
	return k->c->payload.len > PM_FILECAP_MAX_BYTES ? -EFBIG : 0;
}

/* Reads f once: its build id and, the first time that id is seen, its symbols. */
static void filecap__read(struct pm_filecap *c, struct fc_file *f)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	size_t len;
	bool cut;
	int err, fd = f->fd;

	f->fd = -1;
	if (!c->payload.len && pm_symarchive__begin(&c->payload)) {
		close(fd);
		c->st.unread++;
		return;
	}
	err = pm_symarchive__add_elf(&c->payload, fd, f->path, PM_FILECAP_MAX_SYMS, filecap__check,
				     &(struct fc_check){ .c = c, .f = f }, id, &len, &cut);
	if (!err)
		err = pm_hashtab__insert(&c->tables, id__hash(&c->tables, f->id, f->id_len),
					 (uint64_t)(f - c->files));
	if (err == -ESTALE)
		f->id_len = 0;
	/* Kept by id already, or without symbols: the id still names the path in BUILD_ID. */
	c->st.same_id += err == -EEXIST;
	c->st.unread += err && err != -EEXIST;
	if (err)
		return;
	c->st.tables++;
	c->st.cut += cut;
}

int pm_filecap__finish(struct pm_filecap *c, pm_filecap_id_fn *fn, void *arg)
{
	uint64_t t0 = now_ns(), deadline = t0 + PM_FILECAP_FINISH_NSEC;
	size_t i;
	int err = 0;

	for (i = 0; i < c->nr; i++) {
		struct fc_file *f = &c->files[i];

		if (f->fd < 0)
			continue;
		if (now_ns() >= deadline) {
			close(f->fd);
			f->fd = -1;
			c->st.unread++;
			continue;
		}
		filecap__read(c, f);
	}
	c->st.finish_ns += now_ns() - t0;
	for (i = 0; i < c->nr && !err; i++)
		if (c->files[i].id_len)
			err = fn(arg, c->files[i].path, c->files[i].id, c->files[i].id_len);
	return err;
}

bool pm_filecap__any(const struct pm_filecap *c)
{
	return c->st.tables > 0;
}

int pm_filecap__encode(struct pm_filecap *c, struct pm_buf *out)
{
	if (!c->st.tables)
		return 0;
	/* The header is completed again at each copy: a rotation's next file may have more. */
	return pm_symarchive__end(&c->payload) ?:
	       (pm_buf__append(out, c->payload.data, c->payload.len) ? -ENOMEM : 0);
}

void pm_filecap__stats(const struct pm_filecap *c, struct pm_filecap_stats *st)
{
	*st = c->st;
	st->bytes = c->st.tables ? c->payload.len : 0;
}
