/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_RECORD_BODY_H
#define PMREC_RECORD_BODY_H

/*
 * The bodies of the records that describe address spaces and losses (MMAP,
 * MMAP2, COMM, FORK/EXIT, LOST, LOST_SAMPLES) and build-id entries, decoded
 * in one place for the printers, the symbol tables (machine.c) and the
 * build-id list (buildid.c).  Layouts: perf-data-format.md, sections 3 and 5.
 *
 * A decoder takes the record (header first) and body_len, the payload
 * length without header and sample_id trailer; it returns -EBADMSG when the
 * fixed part does not fit.  Strings point into the record and are not
 * necessarily NUL-terminated: *_max bytes are readable.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "base/buf.h"
#include "base/cursor.h"

/* MMAP (v2 false) and MMAP2. */
struct pm_mmap_body {
	bool v2;
	int32_t pid, tid;
	uint64_t addr, len, pgoff;
	/* MMAP2: a build id (pm_mmap2__has_build_id) or the file's identity. */
	bool has_build_id;
	uint8_t build_id_len;		/* <= 20 */
	const unsigned char *build_id;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	const char *filename;
	size_t filename_max;
};

/* Fixed part of the MMAP and MMAP2 bodies: the file name follows. */
#define PM_MMAP_BODY_SIZE 32
#define PM_MMAP2_BODY_SIZE 64

int pm_mmap_body__decode(const struct perf_event_header *h, size_t body_len,
			 struct pm_mmap_body *m);

struct pm_comm_body {
	int32_t pid, tid;
	const char *comm;
	size_t comm_max;
};

int pm_comm_body__decode(const struct perf_event_header *h, size_t body_len,
			 struct pm_comm_body *c);

/* FORK and EXIT. */
struct pm_fork_body {
	int32_t pid, ppid, tid, ptid;
	uint64_t time;
};

int pm_fork_body__decode(const struct perf_event_header *h, size_t body_len,
			 struct pm_fork_body *f);

/* LOST (id and count) and LOST_SAMPLES (count only, id 0): samples lost. */
int pm_lost_body__decode(const struct perf_event_header *h, size_t body_len, uint64_t *id,
			 uint64_t *lost);

/*
 * A build-id entry: an element of the BUILD_ID feature (type 0) or a pipe
 * HEADER_BUILD_ID record (type 67), 36 bytes then the file name,
 * NUL-terminated and zero-padded to a multiple of 64.  An entry needs room
 * for the name's NUL: 37 bytes at least (perf writes 100 at least).
 */
#define PM_BUILD_ID_ENTRY_HEAD 36
#define PM_BUILD_ID_ENTRY_MIN 37
/* misc bit: the id length byte after the 20 id bytes is valid. */
#define PM_BUILD_ID_MISC_SIZE 0x8000

struct pm_build_id_entry {
	uint16_t misc;
	uint16_t cpumode;		/* misc & PERF_RECORD_MISC_CPUMODE_MASK */
	int32_t pid;
	const unsigned char *id;
	size_t id_len;			/* 20 unless misc says otherwise */
	const char *filename;
	size_t filename_max;
};

/*
 * The entry of size bytes at p (a record: its header->size), which may be
 * unaligned; -EBADMSG below PM_BUILD_ID_ENTRY_HEAD.  The name may be empty
 * (filename_max 0) or unterminated: users that need it check.
 */
int pm_build_id_entry__decode(const void *p, size_t size, struct pm_build_id_entry *e);
/*
 * The next entry of a BUILD_ID feature payload: 1 and *e, 0 at its end,
 * -EBADMSG at an entry that is cut or smaller than PM_BUILD_ID_ENTRY_MIN
 * (c stays at its start).
 */
int pm_build_id_entry__next(struct pm_cursor *c, struct pm_build_id_entry *e);
/*
 * Appends an entry of the given type, pid -1, name padded to 64 bytes.
 * An entry whose size would not fit 16 bits is skipped.  0 or -ENOMEM.
 */
int pm_build_id_entry__append(struct pm_buf *out, uint32_t type, uint16_t cpumode,
			      const unsigned char *id, size_t id_len, const char *path);

#endif
