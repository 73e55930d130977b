/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_FILE_H
#define PMREC_FILE_H

/*
 * The one opener of files that a recording, /tmp or another user can name:
 * mapped files, debug files, build-id paths, tracefs and sysfs paths made
 * from user input, control fifos, input files.  pmrec runs as root, so such
 * a path must not make it follow a planted symlink, block forever in
 * open() on a FIFO nobody writes, arm a device by opening it, or read a
 * file without end.
 *
 * Every open adds O_CLOEXEC and O_NOCTTY, O_NOFOLLOW unless PM_FILE_FOLLOW,
 * and O_NONBLOCK unless PM_FILE_STREAM; the opened fd (never the path) is
 * then checked with fstat().
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

enum pm_file_accept {
	/* 0: a regular file, opened without blocking. */
	PM_FILE_FIFO = 1 << 0,		/* a FIFO only (control channels) */
	PM_FILE_STREAM = 1 << 1,	/* also a FIFO, socket or tty the user named; may block */
	PM_FILE_FOLLOW = 1 << 2,	/* the last component may be a symlink */
	PM_FILE_DIR = 1 << 3,		/* a directory only (O_DIRECTORY): a cgroup */
};

/*
 * Opens path with oflags (O_RDONLY, O_RDWR...) under the rules above.
 * Returns the fd, or -errno: -ELOOP for a symlink, -EINVAL for a file of
 * a type the caller does not accept, -EFBIG for a regular file larger than
 * max_size (0: no bound).  st, when not NULL, receives the fd's fstat.
 */
int pm_file__open(const char *path, int oflags, unsigned accept, uint64_t max_size,
		  struct stat *st);

/*
 * pm_file__open as user uid of group gid would: for the open, the calling
 * thread's filesystem ids and groups become theirs (uid, gid, and gid as
 * the one supplementary group), so the kernel checks every component of
 * the path (a 0700 directory, a symlinked directory, "../") as it would
 * for them; the thread's own ids come back before it returns.  For root
 * reading what another user's file names (annotate's source files, named
 * by a binary's debug info): it must not show what that user could not
 * read.  Without CAP_SETUID (not root) it is pm_file__open: the caller can
 * read no more than it could anyway.  -EACCES when they could not open it.
 */
int pm_file__open_as(const char *path, int oflags, unsigned accept, uint64_t max_size,
		     struct stat *st, uid_t uid, gid_t gid);

/*
 * The same for a regular file at path under another root (root_fd: an
 * O_PATH or directory fd of /proc/PID/root, a container's, or of a tree
 * the user named): the path resolves inside it.  No component may be a
 * symlink, unless accept has PM_FILE_FOLLOW: then every symlink resolves
 * inside the root too, so none leads out of it.  accept: 0, PM_FILE_DIR,
 * PM_FILE_FOLLOW.
 * -ELOOP for a symlink, -ENOSYS before Linux 5.6 (openat2).
 */
int pm_file__open_in_root(int root_fd, const char *path, int oflags, unsigned accept,
			  uint64_t max_size, struct stat *st);

/*
 * Reads all of fd (procfs and sysfs files have no size) up to max bytes,
 * followed by a NUL that len does not count, so text can be parsed as a
 * string.
 */
int pm_file__read_all(int fd, size_t max, char **buf, size_t *len);

/*
 * Reads exactly n bytes at off, through short reads and EINTR: for files
 * whose st_size bounds nothing (/proc/kcore says the size of the address
 * space), the caller bounds n and off.  0, -errno, or -EIO when the file
 * ends first.
 */
int pm_file__pread_all(int fd, void *buf, size_t n, uint64_t off);

/* One pread through EINTR: the bytes read (0 at the end), or -errno. */
ssize_t pm_file__pread(int fd, void *buf, size_t n, uint64_t off);

/*
 * Writes all n bytes at off, through short writes and EINTR: the one
 * pwrite loop.  0, -errno, -EIO when the kernel writes nothing and says
 * no error (retrying would not end), -EINVAL for an offset past off_t.
 */
int pm_file__pwrite_all(int fd, const void *buf, size_t n, uint64_t off);

/*
 * The writers' output callback (flame graphs, gzip, pprof, named outputs):
 * writes all n bytes, 0 or a negative errno that stops the writer.
 */
typedef int pm_write_fn(void *arg, const void *p, size_t n);

/* Writes all of buf to fd, through short writes and EINTR.  0, -errno, or -EIO for a 0 written. */
int pm_write_all(int fd, const void *buf, size_t n);

/* The last component of path ("libc.so.6"), or path itself when it ends in '/'. */
const char *pm_path__base(const char *path);
/* The length of path's directory (before its last slash), or -1 when it has none. */
int pm_path__dir_len(const char *path);

#endif
