// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/output.h"

int pm_output__check(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return -EINVAL;
	return 0;
}

int pm_output__create(struct pm_output *o, const char *path)
{
	/* Callers' structs start on the stack: nothing pinned until told. */
	*o = (struct pm_output){ .fd = -1 };
	if (asprintf(&o->tmp, "%s.tmpXXXXXX", path) < 0) {
		o->tmp = NULL;
		return -ENOMEM;
	}
	/* mkostemp creates with O_EXCL and mode 0600. */
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		int err = -errno;

		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	return 0;
}

int pm_output__publish(struct pm_output *o, const char *final)
{
	struct stat st;
	char *old;
	int err;

	if (!o->tmp)
		return 0;
	if (!lstat(final, &st)) {
		if (asprintf(&old, "%s.old", final) < 0)
			return -ENOMEM;
		/*
		 * The events already run: nothing here may take long.  A
		 * rename() over old would free old's blocks and make ext4
		 * flush final's delayed allocations (auto_da_alloc), each half
		 * a second for a few hundred MB.  So old is unlinked first,
		 * while an O_PATH fd (which opens nothing) keeps its blocks
		 * until discard, or until exit if pmrec is killed.
		 */
		if (!o->pinned) {
			o->pin = open(old, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			o->pinned = o->pin >= 0;
		}
		if (unlink(old) && errno != ENOENT) {
			free(old);
			return -errno;
		}
		err = rename(final, old) ? -errno : 0;
		free(old);
		if (err)
			return err;
	}
	if (rename(o->tmp, final))
		return -errno;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

int pm_output__rename_unique(const char *from, const char *to, char *used, size_t len)
{
	int n, w;

	w = snprintf(used, len, "%s", to);
	for (n = 1; w >= 0 && (size_t)w < len && n < 1000; n++) {
		if (!renameat2(AT_FDCWD, from, AT_FDCWD, used, RENAME_NOREPLACE))
			return 0;
		if (errno != EEXIST)
			return -errno;
		w = snprintf(used, len, "%s.%d", to, n);
	}
	return -ENAMETOOLONG;
}

int pm_output__remove_own(const char *path)
{
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

void pm_output__discard(struct pm_output *o)
{
	if (o->pinned) {
		close(o->pin);
		o->pinned = false;
	}
	if (!o->tmp)
		return;
	unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

int pm_output__lock(int fd)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (!fcntl(fd, F_OFD_SETLK, &l))
		return 0;
	return errno == EAGAIN || errno == EACCES ? -EBUSY : -errno;
}

int pm_output__timestamp_name(char *buf, size_t len, const char *path, const struct timespec *t)
{
	struct tm tm;
	char stamp[32];
	int n;

	if (!localtime_r(&t->tv_sec, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm))
		return -EINVAL;
	n = snprintf(buf, len, "%s.%s%02ld", path, stamp, t->tv_nsec / 10000000);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * The mode a newly created file would get: 0666 less the umask.  Read from
 * /proc/self/status: setting it to read it back would, for that moment,
 * give files another thread creates no umask at all (the kallsyms cache is
 * written on its own thread).
 */
static mode_t default_mode(void)
{
	int fd = pm_file__open("/proc/self/status", O_RDONLY, 0, 0, NULL);
	const char *line;
	unsigned mask;
	mode_t old;
	size_t len;
	char *buf;

	if (fd >= 0 && !pm_file__read_all(fd, 1 << 16, &buf, &len)) {
		line = strstr(buf, "\nUmask:");
		if (line && sscanf(line, "\nUmask: %o", &mask) == 1) {
			free(buf);
			close(fd);
			return 0666 & ~(mode_t)mask;
		}
		free(buf);
	}
	if (fd >= 0)
		close(fd);
	old = umask(0);
	umask(old);
	return 0666 & ~old;
}

int pm_outfile__open(struct pm_outfile *f, const char *path)
{
	struct stat st, target;
	int err;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (!strcmp(path, "-")) {
		f->fd = STDOUT_FILENO;
		f->borrowed = true;
		return 0;
	}
	f->mode = default_mode();
	if (!lstat(path, &st) && S_ISREG(st.st_mode)) {
		f->mode = st.st_mode & 07777;
	} else if (!stat(path, &target) && !S_ISREG(target.st_mode)) {
		/* A device or a FIFO: written in place, never created or removed. */
		f->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (f->fd < 0)
			return -errno;
		if (fstat(f->fd, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
			close(f->fd);
			f->fd = -1;
			return -EINVAL;
		}
		return 0;
	}
	err = pm_output__create(&f->tmp, path);
	if (!err)
		f->fd = f->tmp.fd;
	return err;
}

int pm_outfile__close(struct pm_outfile *f, const char *path, int err)
{
	if (f->fd < 0 || f->borrowed)
		return err;
	if (!err && f->tmp.tmp && fchmod(f->fd, f->mode))
		err = -errno;
	if (close(f->fd) && !err)
		err = -errno;
	f->fd = -1;
	if (!f->tmp.tmp)
		return err;
	if (!err && rename(f->tmp.tmp, path))
		err = -errno;
	if (!err) {
		free(f->tmp.tmp);
		f->tmp.tmp = NULL;
	}
	pm_output__discard(&f->tmp);
	return err;
}

int pm_outfile__write(void *arg, const void *buf, size_t n)
{
	const struct pm_outfile *f = arg;

	return pm_write_all(f->fd, buf, n);
}
