/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_UPLOADER_SPOOL_H
#define PMREC_UPLOADER_SPOOL_H

/*
 * The spool of `pmrec agent --spool-dir`: the windows the uploader's
 * memory has no room for, as files DIR/pmrec-agent-FROM-UNTIL.pb.gz, each
 * the gzipped pprof as it would be sent.  The directory is one agent's and
 * root's: it must belong to the agent's user and be writable by no one
 * else (it is made 0700 when absent), so no one can swap a file between
 * the checks and the uses below.
 *
 * Files are created 0600 with O_EXCL under a temporary name and renamed
 * into place (never over another file); only files of that name pattern
 * that are regular, single-linked and the agent user's are counted, read
 * or removed.  The spool's size on disk (4 KiB blocks) stays within its
 * bound: a window that would cross it makes room by dropping the oldest
 * files first.  Files a previous run left are the oldest windows: they are
 * found at the start (the oldest dropped past the bound), and sent first.
 *
 * Not thread-safe: the uploader calls it under its lock.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/pyroscope.h"

struct pm_spool;

/* What the start found in the directory. */
struct pm_spool_found {
	uint64_t windows;		/* left by a previous run, kept */
	uint64_t dropped;		/* left by a previous run, over the bound */
	uint64_t bytes;			/* on disk, kept */
};

/*
 * Opens (or makes, 0700) dir for a spool of at most max_bytes.  0, or:
 * -EPERM when dir is not the agent user's or others may write to it,
 * -EBUSY when another agent has it open, -ENOTDIR, -ELOOP (a symlink), or
 * the -errno of making or reading it.
 */
int pm_spool__open(struct pm_spool **sp, const char *dir, uint64_t max_bytes,
		   struct pm_spool_found *found);
void pm_spool__delete(struct pm_spool *s);

/* Windows in the spool. */
size_t pm_spool__nr(const struct pm_spool *s);
/* The FROM of the oldest (the spool is not empty). */
int64_t pm_spool__head_from(const struct pm_spool *s);

/*
 * Writes w into the spool (w->data stays the caller's), after dropping the
 * oldest windows its room needs: *dropped counts them.  The oldest is not
 * dropped while taken (pm_spool__take).  0, -EFBIG when w alone is over
 * the bound or the room cannot be made, or the -errno of the write.
 */
int pm_spool__put(struct pm_spool *s, const struct pm_pyroscope_window *w, uint64_t *dropped);

/*
 * Reads the oldest window into w (w->data malloc'ed, the caller's) and
 * keeps it from being dropped until pm_spool__done or pm_spool__untake.
 * A file that cannot be read is dropped: -errno, and the next call reads
 * the next.
 */
int pm_spool__take(struct pm_spool *s, struct pm_pyroscope_window *w);
/* The window taken is sent (or refused for good): its file is removed. */
void pm_spool__done(struct pm_spool *s);
/* The window taken stays, to be tried again. */
void pm_spool__untake(struct pm_spool *s);

#endif
