/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_ARCHIVE_H
#define PMREC_ARCHIVE_H

/*
 * `pmrec archive`: puts into a recording the symbols that name its samples
 * on another machine (symarchive.h): the function symbols of every file a
 * sample's frames fall in, keyed by the recorded build id, and the
 * kallsyms entries of the sampled kernel addresses.  A post-pass on the
 * machine of the recording: only after reading the samples is it known
 * which files and kernel functions they touch, and the recorder does not
 * decode samples.
 *
 *	fd = pm_archive__open(path);		// -EBUSY: still being recorded
 *	pm_reader__open_fd(r, fd);
 *	a = pm_archive__new(namer, warn, arg);
 *	(the pipeline feeds pm_archive__consume every sample, in time order)
 *	pm_archive__build(a, &payload, &stats);
 *	pm_archive__replace(r, fd, path, HEADER_PMREC_SYMBOLS, payload.data, payload.len);
 *	close(fd);
 */
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "symbols/naming.h"
#include "reader/rec_info.h"
#include "reader/reader.h"
#include "base/warning.h"

struct pm_archive;

/* What is archived: files and symbols; what is not: files left out. */
struct pm_archive_stats {
	uint64_t files, file_syms, kernel_syms, bytes;
	uint64_t files_missed;	/* no build id, or not the recorded file any more */
};

/* Collects through n, which must name the input; says what it leaves out through warn. */
struct pm_archive *pm_archive__new(struct pm_namer *n, pm_warn_fn *warn, void *warn_arg);
void pm_archive__delete(struct pm_archive *a);
/* A pm_consume_fn: notes the files and kernel addresses of a sample's frames. */
int pm_archive__consume(void *ctx, const struct pm_record *rec, const struct pm_rec_info *in);
/*
 * Takes every file mapped in the input so far, and all of the kernel's
 * symbols, sampled or not: what a recorder that does not decode samples
 * would have to embed.  0 or -ENOMEM.
 */
int pm_archive__add_all(struct pm_archive *a);
/*
 * The HEADER_PMREC_SYMBOLS payload of what was collected, in an empty out:
 * each file from itself when its build id is the recorded one, else from
 * the symbols the input already carries; the kernel's from the kallsyms
 * the namer uses.  0, -EFBIG (more than the layout holds) or -ENOMEM.
 */
int pm_archive__build(struct pm_archive *a, struct pm_buf *out, struct pm_archive_stats *st);

/*
 * Opens path (a link followed), a regular file to replace, for reading,
 * and takes its lock (pm_output__lock) for as long as the fd is open: a
 * recording still being written, or being archived, is refused.  The fd,
 * or -errno: -EBUSY for a file locked, -EINVAL for one not regular.
 */
int pm_archive__open(const char *path);
/*
 * Replaces the file at path (pm_archive__open's fd, read by r) by a copy
 * with p as feature feat: the header, attrs and data whole, then every
 * feature section but feat's, then p.  The copy is written beside the file
 * and renamed over it once complete and synced: on any failure the file
 * is as it was, and archiving again does not grow it.  The copy keeps the
 * file's mode, and its owner and group where the caller may give them.
 * 0, -EINVAL for a pipe-mode or unfinished input, -EBADMSG for attrs or
 * sections where no copy could keep them, -EBUSY when path names another
 * file by now (replaced by a recorder or an archive), or -errno.
 */
int pm_archive__replace(struct pm_reader *r, int fd, const char *path, int feat, const void *p,
			size_t len);

#endif
