// SPDX-License-Identifier: GPL-2.0
/*
 * Publishing an output file while the events already run: the file that
 * final.old held is unlinked, not freed (an O_PATH fd keeps it), so that no
 * rename() frees a large file or flushes one (ext4's auto_da_alloc); the
 * blocks go when pm_output__discard() closes the pin.  And the lock of a
 * file being written (pm_output__lock).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/output.h"
#include "tap.h"

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int content(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

/* pm_output__lock of another open of path: -EBUSY while someone holds it. */
static int lock_other(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = pm_output__lock(fd);
	close(fd);
	return err;
}

/* The lock goes with the open file, across a rename, until its last fd closes. */
static void test_lock(const char *dir)
{
	struct pm_output o = { .fd = -1 };
	char final[64];
	int dup_fd;

	snprintf(final, sizeof(final), "%s/locked.data", dir);
	tap_ok(!pm_output__create(&o, final) && !pm_output__lock(o.fd), "a new output is locked");
	tap_ok(lock_other(o.tmp) == -EBUSY, "another open of it is refused, without waiting");
	tap_ok(!pm_output__lock(o.fd), "the holder may lock again");
	tap_ok(!pm_output__publish(&o, final) && lock_other(final) == -EBUSY,
	       "published (renamed), it is still locked");
	dup_fd = dup(o.fd);
	close(o.fd);
	tap_ok(lock_other(final) == -EBUSY, "a dup of the fd keeps the lock");
	close(dup_fd);
	tap_ok(!lock_other(final), "the last fd closed, it is free");
	pm_output__discard(&o);
	unlink(final);
}

int main(void)
{
	char dir[] = "/tmp/pmrec-test-output.XXXXXX", final[64], old[64], buf[16];
	struct pm_output o = { .fd = -1 };
	struct stat st;

	if (!mkdtemp(dir))
		return 1;
	snprintf(final, sizeof(final), "%s/f.data", dir);
	snprintf(old, sizeof(old), "%s/f.data.old", dir);

	/* No earlier file: nothing to pin. */
	tap_ok(!pm_output__create(&o, final) && write(o.fd, "one", 3) == 3 &&
	       !pm_output__publish(&o, final) && !o.pinned, "a first file is published, no pin");
	close(o.fd);
	pm_output__discard(&o);

	/* final exists, final.old does not. */
	pm_output__create(&o, final);
	tap_ok(write(o.fd, "two", 3) == 3 && !pm_output__publish(&o, final) && !o.pinned &&
	       !content(old, buf, sizeof(buf)) && !strcmp(buf, "one"),
	       "the earlier file becomes final.old");
	close(o.fd);
	pm_output__discard(&o);

	/* Both exist: final.old's file is displaced, held by the pin. */
	pm_output__create(&o, final);
	tap_ok(write(o.fd, "three", 5) == 5 && !pm_output__publish(&o, final) && o.pinned,
	       "publishing over final.old pins the file it held");
	tap_ok(!content(final, buf, sizeof(buf)) && !strcmp(buf, "three") &&
	       !content(old, buf, sizeof(buf)) && !strcmp(buf, "two"), "names as before");
	tap_ok(!fstat(o.pin, &st) && st.st_nlink == 0 && st.st_size == 3,
	       "the displaced file is unlinked but not freed (its 3 bytes still there)");
	close(o.fd);
	pm_output__discard(&o);
	tap_ok(!o.pinned, "discard lets it go");

	/* A symlink at final.old is displaced the same way. */
	put(old, "x");
	unlink(old);
	if (symlink("/nonexistent", old))
		return 1;
	pm_output__create(&o, final);
	tap_ok(!pm_output__publish(&o, final) && !content(old, buf, sizeof(buf)) &&
	       !strcmp(buf, "three"), "a symlink at final.old is replaced, never followed");
	close(o.fd);
	pm_output__discard(&o);

	unlink(final);
	unlink(old);
	test_lock(dir);
	rmdir(dir);
	return tap_done();
}
