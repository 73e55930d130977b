/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_OUTPUT_H
#define PMREC_OUTPUT_H

/*
 * Output files: created 0600 with O_EXCL under a temporary name beside the
 * final one and renamed into place once readable, so a failed start leaves
 * nothing behind and a symlink planted at the output path is replaced, never
 * followed.  Also the timestamped names of --switch-output and snapshots.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct pm_output {
	char *tmp;		/* the temporary name until published */
	int fd;
	bool pinned;		/* pin holds the file that publishing displaced */
	int pin;
};

/* 0 when path may be (re)placed: absent, a regular file or a symlink. */
int pm_output__check(const char *path);
/* Creates path.tmpXXXXXX; the fd stays open for writing. */
int pm_output__create(struct pm_output *o, const char *path);
/*
 * Renames the temporary file to final; an existing final becomes final.old.
 * The final.old that this replaces is freed only by pm_output__discard():
 * freeing a large file takes long, and publishing happens while the rings
 * fill.
 */
int pm_output__publish(struct pm_output *o, const char *final);
/*
 * Renames from to `to`, or to `to`.1, .2 ... when that exists: timestamped
 * names must never replace an earlier file.  The name used goes to used.
 */
int pm_output__rename_unique(const char *from, const char *to, char *used, size_t len);
/*
 * Removes a file this run created and published (a rotation past
 * --switch-max-files; the empty "not found" mark libdebuginfod leaves for
 * a query pmrec gave up: symbols/debuginfod.c): the only unlink of a
 * published name.  0 when it is gone (or was already), else -errno.
 */
int pm_output__remove_own(const char *path);
/* Removes an unpublished temporary file; frees the file publishing displaced. */
void pm_output__discard(struct pm_output *o);
/*
 * The lock of a file being written: an OFD write lock on all of the file
 * fd is open on, taken without waiting.  The recorder holds it on each
 * output from its creation to its last write; archive takes it before it
 * reads a file it will replace, so it never replaces a recording that is
 * still being written.  The lock belongs to the open file description:
 * renames keep it, and it ends when the last fd of that description
 * closes, at exit or a kill too.  0, -EBUSY when another open of the file
 * holds it, or -errno (-ENOLCK: the file system keeps no locks).
 */
int pm_output__lock(int fd);
/*
 * An output a command writes start to end (a flame graph, a pprof file).
 * A new or regular file, or a symlink to one, is written under a temporary
 * name beside it and renamed into place only once complete: a failed
 * write leaves what was there as it was, and a planted symlink is
 * replaced, never written through.  A device, FIFO or socket (also behind
 * a symlink, as /dev/stdout is) is written in place and never removed;
 * so is "-", standard output, which is not closed either.
 */
struct pm_outfile {
	int fd;
	bool borrowed;		/* standard output */
	mode_t mode;		/* of the file replaced, or the default */
	struct pm_output tmp;	/* tmp.tmp set: write there, rename on success */
};

/* Opens path for writing as above.  0 or -errno. */
int pm_outfile__open(struct pm_outfile *f, const char *path);
/*
 * Ends the output: with err 0, makes it durable and visible (renames the
 * temporary file to path); with an error, removes only the temporary file.
 * Returns err, or the first error of closing or renaming.
 */
int pm_outfile__close(struct pm_outfile *f, const char *path, int err);
/* The write callback of the writers (pm_write_fn): arg is the pm_outfile. */
int pm_outfile__write(void *arg, const void *buf, size_t n);

/* "path.YYYYmmddHHMMSScc" for t (centiseconds), as perf names its rotations. */
int pm_output__timestamp_name(char *buf, size_t len, const char *path, const struct timespec *t);

#endif
