// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/output.h"
#include "export/uploader_spool.h"

#define SPOOL_BLOCK 4096
#define SPOOL_PREFIX "pmrec-agent-"
#define SPOOL_TMP ".tmp"	/* pm_output__create's: NAME.tmpXXXXXX */

struct spool_entry {
	int64_t from, until;
	uint64_t bytes;			/* on disk: the file in whole blocks */
};

struct pm_spool {
	char *dir;
	int dfd;			/* the directory, locked while the spool is open */
	uid_t uid;
	uint64_t max, used;
	struct spool_entry *e;		/* oldest first */
	size_t nr, alloc;
	bool taken;			/* e[0] is being sent */
};

static uint64_t spool__blocks(uint64_t len)
{
	return (len + SPOOL_BLOCK - 1) / SPOOL_BLOCK * SPOOL_BLOCK;
}

static int spool__path(const struct pm_spool *s, int64_t from, int64_t until, char *buf)
{
	int n = snprintf(buf, PATH_MAX, "%s/" SPOOL_PREFIX "%" PRId64 "-%" PRId64 ".pb.gz",
			 s->dir, from, until);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/*
 * A name of the spool's pattern, written as the spool writes it (no
 * leading zeros, no sign): its window, and 1, or 2 for the temporary file
 * of a write cut short; 0 for any other name.
 */
static int spool__parse(const char *name, int64_t *from, int64_t *until)
{
	char again[64];
	int n = -1;

	if (sscanf(name, SPOOL_PREFIX "%" SCNd64 "-%" SCNd64 ".pb.gz%n", from, until, &n) != 2 ||
	    n < 0 || *from < 0 || *until <= *from)
		return 0;
	snprintf(again, sizeof(again), SPOOL_PREFIX "%" PRId64 "-%" PRId64 ".pb.gz", *from, *until);
	if (strncmp(name, again, (size_t)n) || (size_t)n != strlen(again))
		return 0;
	if (!name[n])
		return 1;
	return !strncmp(name + n, SPOOL_TMP, strlen(SPOOL_TMP)) &&
	       strlen(name + n) == strlen(SPOOL_TMP) + 6 ? 2 : 0;
}

/* The file is the spool's own: regular, one link, the agent user's. */
static bool spool__own(const struct pm_spool *s, const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1 && st->st_uid == s->uid;
}

/* Removes path if it is the spool's own (checked again: never another's file). */
static void spool__unlink(const struct pm_spool *s, const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && spool__own(s, &st))
		pm_output__remove_own(path);
}

/* e[i] leaves the count and the disk. */
static void spool__drop(struct pm_spool *s, size_t i)
{
	char path[PATH_MAX];

	if (!spool__path(s, s->e[i].from, s->e[i].until, path))
		spool__unlink(s, path);
	s->used -= s->e[i].bytes;
	memmove(&s->e[i], &s->e[i + 1], (s->nr - i - 1) * sizeof(*s->e));
	s->nr--;
}

/* Inserts in FROM order (locked).  0 or -ENOMEM. */
static int spool__insert(struct pm_spool *s, const struct spool_entry *ne)
{
	size_t i = s->nr;

	if (s->nr == s->alloc) {
		size_t n = s->alloc ? s->alloc * 2 : 16;
		struct spool_entry *e = realloc(s->e, n * sizeof(*e));

		if (!e)
			return -ENOMEM;
		s->e = e;
		s->alloc = n;
	}
	while (i > (s->taken ? 1u : 0u) && s->e[i - 1].from > ne->from)
		i--;
	memmove(&s->e[i + 1], &s->e[i], (s->nr - i) * sizeof(*s->e));
	s->e[i] = *ne;
	s->nr++;
	s->used += ne->bytes;
	return 0;
}

/* Drops the oldest (not taken) until need more bytes fit.  false when they cannot. */
static bool spool__room(struct pm_spool *s, uint64_t need, uint64_t *dropped)
{
	size_t first = s->taken ? 1 : 0;

	while (s->used + need > s->max && s->nr > first) {
		spool__drop(s, first);
		(*dropped)++;
	}
	return s->used + need <= s->max;
}

/* One entry of the directory at the start: counted, or a write cut short removed. */
static int spool__found(struct pm_spool *s, int dfd, const char *name)
{
	struct spool_entry ne;
	struct stat st;
	char path[PATH_MAX];
	int kind = spool__parse(name, &ne.from, &ne.until);

	if (!kind || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !spool__own(s, &st))
		return 0;
	if (kind == 2) {
		if (snprintf(path, sizeof(path), "%s/%s", s->dir, name) < PATH_MAX)
			spool__unlink(s, path);
		return 0;
	}
	ne.bytes = spool__blocks((uint64_t)st.st_size);
	return spool__insert(s, &ne);
}

static int spool__scan(struct pm_spool *s, struct pm_spool_found *found)
{
	int dfd = fcntl(s->dfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *de;
	int err = 0;

	if (!d) {
		err = -errno;
		if (dfd >= 0)
			close(dfd);
		return err;
	}
	while (!err && (de = readdir(d)))
		err = spool__found(s, dirfd(d), de->d_name);
	closedir(d);
	if (err)
		return err;
	spool__room(s, 0, &found->dropped);
	found->windows = s->nr;
	found->bytes = s->used;
	return 0;
}

/*
 * The directory, made if absent: a directory, the agent user's, others
 * kept out, and no other agent's (locked).
 */
static int spool__open_dir(const char *dir, uid_t uid)
{
	struct stat st;
	int fd = pm_file__open(dir, O_RDONLY, PM_FILE_DIR, 0, &st);

	if (fd == -ENOENT) {
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
		fd = pm_file__open(dir, O_RDONLY, PM_FILE_DIR, 0, &st);
	}
	if (fd == -EINVAL)
		return -ENOTDIR;
	if (fd >= 0 && (st.st_uid != uid || (st.st_mode & 022))) {
		close(fd);
		return -EPERM;
	}
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		return err;
	}
	return fd;
}

int pm_spool__open(struct pm_spool **sp, const char *dir, uint64_t max_bytes,
		   struct pm_spool_found *found)
{
	struct pm_spool *s = calloc(1, sizeof(*s));
	int err;

	memset(found, 0, sizeof(*found));
	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		return -ENOMEM;
	}
	s->uid = geteuid();
	s->max = max_bytes;
	s->dfd = spool__open_dir(dir, s->uid);
	err = s->dfd < 0 ? s->dfd : spool__scan(s, found);
	if (err) {
		pm_spool__delete(s);
		return err;
	}
	*sp = s;
	return 0;
}

void pm_spool__delete(struct pm_spool *s)
{
	if (!s)
		return;
	if (s->dfd >= 0)
		close(s->dfd);
	free(s->e);
	free(s->dir);
	free(s);
}

size_t pm_spool__nr(const struct pm_spool *s)
{
	return s->nr;
}

int64_t pm_spool__head_from(const struct pm_spool *s)
{
	return s->e[0].from;
}

/* w's file, written whole under a temporary name and renamed into place. */
static int spool__write(const char *path, const struct pm_pyroscope_window *w)
{
	struct pm_output o;
	int err = pm_output__create(&o, path);

	if (err)
		return err;
	err = pm_write_all(o.fd, w->data, w->len);
	if (close(o.fd) && !err)
		err = -errno;
	if (!err && renameat2(AT_FDCWD, o.tmp, AT_FDCWD, path, RENAME_NOREPLACE))
		err = -errno;
	if (!err) {
		free(o.tmp);
		o.tmp = NULL;
	}
	pm_output__discard(&o);
	return err;
}

int pm_spool__put(struct pm_spool *s, const struct pm_pyroscope_window *w, uint64_t *dropped)
{
	struct spool_entry ne = { .from = w->from, .until = w->until,
				  .bytes = spool__blocks(w->len) };
	char path[PATH_MAX];
	int err;

	if (ne.bytes > s->max || !spool__room(s, ne.bytes, dropped))
		return -EFBIG;
	err = spool__path(s, w->from, w->until, path);
	if (!err)
		err = spool__write(path, w);
	if (!err)
		err = spool__insert(s, &ne);
	if (err == -ENOMEM)
		spool__unlink(s, path);
	return err;
}

int pm_spool__take(struct pm_spool *s, struct pm_pyroscope_window *w)
{
	char path[PATH_MAX];
	struct stat st;
	char *data;
	size_t len;
	int fd, err;

	err = spool__path(s, s->e[0].from, s->e[0].until, path);
	fd = err ? err : pm_file__open(path, O_RDONLY, 0, s->max, &st);
	if (fd >= 0 && !spool__own(s, &st)) {
		close(fd);
		fd = -EPERM;
	}
	err = fd < 0 ? fd : pm_file__read_all(fd, (size_t)s->max, &data, &len);
	if (fd >= 0)
		close(fd);
	if (err) {
		/* Removed only if it is still the spool's own (spool__unlink checks). */
		spool__drop(s, 0);
		return err;
	}
	*w = (struct pm_pyroscope_window){
		.from = s->e[0].from, .until = s->e[0].until, .data = data, .len = len,
	};
	s->taken = true;
	return 0;
}

void pm_spool__done(struct pm_spool *s)
{
	s->taken = false;
	spool__drop(s, 0);
}

void pm_spool__untake(struct pm_spool *s)
{
	s->taken = false;
}
