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
 *	a = pm_archive__new(namer, warn, arg);
 *	(the pipeline feeds pm_archive__consume every sample, in time order)
 *	pm_archive__build(a, &payload, &stats);
 *	pm_archive__write_feature(r, fd, HEADER_PMREC_SYMBOLS, payload.data, payload.len);
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
 * Writes p as feature feat of the perf.data file that r reads from fd
 * (opened for reading and writing), replacing that feature if present.
 * The data are not touched.  Each step leaves a file perf reads: sections
 * the longer feature table would cover move to the end of the file, the
 * payload goes after them, then the table is rewritten, then the header's
 * bitmap.  The old copies stay behind as unused bytes.  0, -EINVAL for a
 * pipe-mode or unfinished input, or -errno.
 */
int pm_archive__write_feature(struct pm_reader *r, int fd, int feat, const void *p, size_t len);

#endif
