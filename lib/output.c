// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

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
	o->fd = -1;
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
