// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "base/file.h"

static int file__check(const struct stat *st, unsigned accept, uint64_t max_size)
{
	if (accept & PM_FILE_DIR)
		return S_ISDIR(st->st_mode) ? 0 : -ENOTDIR;
	if (S_ISREG(st->st_mode))
		return max_size && (uint64_t)st->st_size > max_size ? -EFBIG : 0;
	if (S_ISFIFO(st->st_mode))
		return accept & (PM_FILE_FIFO | PM_FILE_STREAM) ? 0 : -EINVAL;
	if (S_ISSOCK(st->st_mode) || S_ISCHR(st->st_mode))
		return accept & PM_FILE_STREAM ? 0 : -EINVAL;
	if (S_ISDIR(st->st_mode))
		return accept & PM_FILE_DIR ? 0 : -EISDIR;
	return -EINVAL;
}

int pm_file__open(const char *path, int oflags, unsigned accept, uint64_t max_size,
		  struct stat *stp)
{
	struct stat st;
	int fd, err;

	oflags |= O_CLOEXEC | O_NOCTTY;
	if (!(accept & PM_FILE_FOLLOW))
		oflags |= O_NOFOLLOW;
	/*
	 * A FIFO opened for reading waits for a writer, and opening a device
	 * can act (a watchdog arms): only a stream the user named may block.
	 */
	if (!(accept & PM_FILE_STREAM))
		oflags |= O_NONBLOCK;
	if (accept & PM_FILE_DIR)
		oflags |= O_DIRECTORY;
	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	/* A FIFO-only caller must not be handed a regular file either. */
	if ((accept & PM_FILE_FIFO) && !(accept & PM_FILE_STREAM) && !S_ISFIFO(st.st_mode)) {
		err = -EINVAL;
		goto out_close;
	}
	err = file__check(&st, accept, max_size);
	if (err)
		goto out_close;
	if (stp)
		*stp = st;
	return fd;

out_close:
	close(fd);
	return err;
}

/*
 * The thread's credentials, not the process's: the raw system calls (glibc
 * would apply setgroups to every thread), and setfsuid/setfsgid, which
 * only ever change the calling thread's.
 */
struct file_ids {
	gid_t groups[64];
	int nr_groups;
	uid_t fsuid;
	gid_t fsgid;
};

static int file_ids__become(struct file_ids *saved, uid_t uid, gid_t gid)
{
	saved->nr_groups = getgroups(64, saved->groups);
	if (saved->nr_groups < 0)
		return -errno;
	if (syscall(SYS_setgroups, 1, &gid))
		return -errno;
	saved->fsgid = (gid_t)setfsgid(gid);
	saved->fsuid = (uid_t)setfsuid(uid);
	return 0;
}

static void file_ids__restore(const struct file_ids *saved)
{
	setfsuid(saved->fsuid);
	setfsgid(saved->fsgid);
	syscall(SYS_setgroups, saved->nr_groups, saved->groups);
}

int pm_file__open_as(const char *path, int oflags, unsigned accept, uint64_t max_size,
		     struct stat *st, uid_t uid, gid_t gid)
{
	struct file_ids saved;
	int fd, err;

	if (geteuid() != 0 || uid == 0)
		return pm_file__open(path, oflags, accept, max_size, st);
	err = file_ids__become(&saved, uid, gid);
	if (err)
		return err;
	fd = pm_file__open(path, oflags, accept, max_size, st);
	file_ids__restore(&saved);
	return fd;
}

int pm_file__open_in_root(int root_fd, const char *path, int oflags, unsigned accept,
			  uint64_t max_size, struct stat *stp)
{
	struct open_how how = {
		.flags = (uint64_t)(oflags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd, err;

	if (accept & (PM_FILE_STREAM | PM_FILE_FIFO))
		return -EINVAL;
	/*
	 * Without PM_FILE_FOLLOW no symlink at all, for roots another user
	 * owns.  With it, symlinks resolve inside the root (an absolute one
	 * from the root, ".." stops there): a tree the user gave, or perf's
	 * build-id cache of relative links, is read as its own filesystem.
	 */
	if (!(accept & PM_FILE_FOLLOW)) {
		how.flags |= O_NOFOLLOW;
		how.resolve |= RESOLVE_NO_SYMLINKS;
	}
	if (accept & PM_FILE_DIR)
		how.flags |= O_DIRECTORY;
	fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : file__check(&st, accept, max_size);
	if (err) {
		close(fd);
		return err;
	}
	if (stp)
		*stp = st;
	return fd;
}

int pm_file__read_all(int fd, size_t max, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *p;
	ssize_t n;

	for (;;) {
		if (len == cap) {
			if (cap >= max) {
				free(buf);
				return -EFBIG;
			}
			cap += cap ? cap : 4096;
			cap = cap < max ? cap : max;
			p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

int pm_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (!w)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

const char *pm_path__base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

int pm_path__dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	return slash && n <= INT_MAX ? (int)n : -1;
}

ssize_t pm_file__pread(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r;

	if (off > (uint64_t)INT64_MAX)
		return -EINVAL;
	do
		r = pread(fd, buf, n, (off_t)off);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

int pm_file__pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	ssize_t r;

	if (off > (uint64_t)INT64_MAX || n > (uint64_t)INT64_MAX - off)
		return -EINVAL;
	while (got < n) {
		r = pm_file__pread(fd, (char *)buf + got, n - got, off + got);
		if (r < 0)
			return (int)r;
		if (!r)
			return -EIO;
		got += (size_t)r;
	}
	return 0;
}

int pm_file__pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
	const char *p = buf;
	ssize_t w;

	if (off > (uint64_t)INT64_MAX || n > (uint64_t)INT64_MAX - off)
		return -EINVAL;
	while (n) {
		w = pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		/* Nothing written and no error: trying again would loop for ever. */
		if (!w)
			return -EIO;
		p += w;
		off += (uint64_t)w;
		n -= (size_t)w;
	}
	return 0;
}
