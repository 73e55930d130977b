/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_BUILDID_H
#define PMREC_BUILDID_H

/*
 * The build ids of every file mapped during a recording, for the BUILD_ID
 * feature.  Ids come from two places: the kernel's MMAP2 records, which carry
 * the id when attr.build_id is set (5.12+), and the files behind synthesized
 * MMAP2 records, identified by (dev, inode) and read with libelf only when
 * the section is written, once per file.  A file that changed since it was
 * mapped gets no entry: perf refuses a binary whose id differs from the
 * recorded one, so no id is better than a guess.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "base/buf.h"

struct pm_build_ids;
struct pm_filecap;

struct pm_build_ids *pm_build_ids__new(void);
void pm_build_ids__delete(struct pm_build_ids *b);
/*
 * The files that their recorded path will not find again are kept with
 * cap (record/filecap.h), which b shows every mapped file's first MMAP2
 * record and, at the write, each file replaced since: their ids come from
 * what cap read, never from the path here.  cap outlives b's writes.
 */
void pm_build_ids__keep_files(struct pm_build_ids *b, struct pm_filecap *cap);

/* A known id.  cpumode is PERF_RECORD_MISC_KERNEL or _USER. */
int pm_build_ids__add(struct pm_build_ids *b, uint16_t cpumode, const char *path,
		      const unsigned char *id, size_t len);
/* A mapped file whose id is read when the entries are written. */
int pm_build_ids__add_file(struct pm_build_ids *b, const char *path, uint64_t dev,
			   uint64_t ino);
/*
 * Takes what an MMAP2 record says of its file (other records are ignored).
 * h->size bytes must be readable.  Mappings without a file (anonymous
 * memory) have no id; "[vdso]" gets the running kernel's vDSO's (vdso.h),
 * as perf gives it, so that report can name its frames.
 */
int pm_build_ids__add_event(struct pm_build_ids *b, const struct perf_event_header *h);
/* pm_build_ids__add_event for each record of a buffer of whole records. */
int pm_build_ids__add_events(struct pm_build_ids *b, const void *buf, size_t len);

/*
 * Appends one build-id entry per distinct (file, id): the BUILD_ID feature
 * payload with type 0, PERF_RECORD_HEADER_BUILD_ID records with type 67.
 * Reads the ids of the files added with pm_build_ids__add_file, and the
 * files kept (pm_filecap__finish).
 */
int pm_build_ids__write(struct pm_build_ids *b, struct pm_buf *out, uint32_t type);
/*
 * After a write: the files kept that got no entry, their path having
 * another id too (a container's file at a path the host has, or another
 * container's): report finds a mapping's id by its path, and would name
 * one file's frames with the other's symbols.
 */
uint64_t pm_build_ids__ambiguous(const struct pm_build_ids *b);
/* After a write: the symbols of the files kept, the HEADER_PMREC_SYMBOLS payload. */
bool pm_build_ids__any_symbols(const struct pm_build_ids *b);
int pm_build_ids__encode_symbols(struct pm_build_ids *b, struct pm_buf *out);

#endif
