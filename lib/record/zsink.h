/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_ZSINK_H
#define PMREC_ZSINK_H

/*
 * zstd compression of the data section into PERF_RECORD_COMPRESSED
 * records, as perf 6.1 writes them with -z: a record is an 8-byte header
 * followed by zstd stream bytes (no padding), at most 65535 bytes long.
 * One zstd stream runs through a file, never ended: every call flushes it,
 * so the records written so far always decompress, a killed file included.
 *
 * perf decompresses one record into a buffer of the COMPRESSED feature's
 * mmap_len bytes (plus what the previous record left): the input is cut in
 * chunks of at most that size, each flushed into records of its own.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "base/buf.h"

/* perf's max_record_size: PERF_SAMPLE_MAX_SIZE - sizeof(header) - 1. */
#define PM_ZSINK_MAX_PAYLOAD (65536 - 8 - 1)
/* Within the u32 of the feature and pmrec's reader's bound (PM_UNZ_MAX). */
#define PM_ZSINK_MMAP_LEN_MAX (64u << 20)
#define PM_ZSINK_LEVEL_MIN 1
#define PM_ZSINK_LEVEL_MAX 22
/* perf 6.1 never sets env.comp_ver: its files say 0. */
#define PM_COMP_VER 0
#define PM_COMP_ZSTD 1

struct pm_zsink {
	void *cctx;			/* ZSTD_CCtx */
	int level;
	size_t chunk;			/* input bytes decoded from one record, at most */
	uint64_t mmap_len;		/* for the COMPRESSED feature */
	uint64_t bytes_in;		/* of this file */
	uint64_t bytes_out;
	int broken;			/* a failed call: the stream cannot go on */
	struct pm_buf out;		/* the records of the last call */
};

/* mmap_len: the bytes of one ring with its control page, as perf states it. */
int pm_zsink__init(struct pm_zsink *z, int level, uint64_t mmap_len);
/* A new file: a new stream, counts restarted. */
void pm_zsink__reset(struct pm_zsink *z);
/* z->out := the COMPRESSED records of the iovecs' bytes, flushed. */
int pm_zsink__compress(struct pm_zsink *z, const struct iovec *iov, int iovcnt);
/* The HEADER_COMPRESSED payload: u32 version, type, level, ratio, mmap_len (20 bytes). */
int pm_zsink__feature(const struct pm_zsink *z, struct pm_buf *out);
/* "libzstd X.Y.Z" */
const char *pm_zsink__lib_version(void);
void pm_zsink__exit(struct pm_zsink *z);

#endif
