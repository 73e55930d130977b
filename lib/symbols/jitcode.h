/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITCODE_H
#define PMREC_JITCODE_H

/*
 * The code that jitdump files (lib/symbols/jitdump.h) describe, fed into the JIT
 * names of a recording (lib/symbols/jitsym.h) at the time it was loaded, as perf
 * inject --jit puts an MMAP2 of each piece of code at its load time.
 *
 * A JIT reuses the memory of code it threw away, and moves code: an
 * address names different functions over a run.  When the file's times
 * and the samples' are one clock (the jitdump's are CLOCK_MONOTONIC unless
 * its header says it used the CPU's counter, the recording's with record
 * -k mono), a load or move is added to the table only once the records
 * read reach its time (pm_jitcode__advance, called in time order), and
 * the table's rule "the range added last wins" then names each sample by
 * the code that was there when it ran.  Otherwise (untimed) every load is
 * added at once, in file order: the last code at an address names it.
 *
 * A CODE_LOAD's source is the file and line its CODE_DEBUG_INFO gives for
 * the code's first address.  Bounded: the file is read one record at a
 * time, none over PM_JITCODE_MAX_RECORD bytes (a larger one is a fault),
 * PM_JITSYM_MAX_ENTRIES loads are held at most, and the reading stops
 * at PM_JITCODE_MAX_BYTES or PM_JIT_READ_NSEC (lib/symbols/jitbudget.h):
 * the bound is charged with the header's page and each record with its
 * prefix, the clock looked at before each, so a file costs at most the
 * bytes' bound and one record prefix more.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/jitbudget.h"
#include "symbols/jitdump.h"
#include "symbols/jitsym.h"

#define PM_JITCODE_MAX_RECORD (16u << 20)
#define PM_JITCODE_MAX_BYTES (1ULL << 30)

struct pm_jitcode;

/* What one file held. */
struct pm_jitcode_stats {
	uint64_t loads, moves, lines, unwinding, skipped;
	bool bad;			/* err says where and why the reading stopped */
	struct pm_jitdump_error err;
	bool truncated;			/* more loads than the bound, or cut */
	bool arch_time;			/* times of the CPU's counter: untimed */
	uint64_t bytes;			/* charged: the header's page, records with their prefixes */
	int cut;			/* -EFBIG, -ETIME: the bytes' or the time's bound stopped it */
};

/* Loads into t (not owned), which must outlive it.  NULL with errno. */
struct pm_jitcode *pm_jitcode__new(struct pm_jitsyms *t);
void pm_jitcode__delete(struct pm_jitcode *c);

/*
 * Reads the jitdump on fd as process pid's code, named dso in outputs (a
 * string that must outlive c: the file's path).  timed: the samples' clock
 * is CLOCK_MONOTONIC (a file whose header says otherwise is read untimed).
 * 0 with st filled (the loads before a fault are kept: st->bad), or a
 * negative errno (-ENOMEM, a read error).
 */
int pm_jitcode__read(struct pm_jitcode *c, int fd, int32_t pid, const char *dso, bool timed,
		     struct pm_jitcode_stats *st);
/* pm_jitcode__read within lim (NULL: PM_JITCODE_MAX_BYTES and PM_JIT_READ_NSEC). */
int pm_jitcode__read_within(struct pm_jitcode *c, int fd, int32_t pid, const char *dso, bool timed,
			    const struct pm_jit_limits *lim, struct pm_jitcode_stats *st);
/*
 * Adds to the table every load and move of the timed files up to time,
 * in time order.  0, or what pm_jitsyms__add returned (-E2BIG: the
 * table's bound; the loads left are dropped).
 */
int pm_jitcode__advance(struct pm_jitcode *c, uint64_t time);

/*
 * The recorder's copy of the jitdump files (pmrec record, lib/record/jitcap.c):
 * a pm_jitcode that holds reads every file's loads and moves, with their
 * times, in file order, and adds none to its table; its encoding is the
 * HEADER_PMREC_JIT_CODE feature (lib/format/perf_data.h), which report reads
 * back as it reads the file (pm_jitcode__read_copy): the same loads at
 * the same times, so a sample is named alike from the file or the copy.
 * Beside feature 240's ranges (lib/symbols/jitsym.h), whose entries have no time.
 *
 * The payload, native-endian as the rest of perf.data, every part 8-aligned:
 *
 *     u64 version (1)
 *     then files, each:
 *       u32 pid (as recorded); u32 flags; u32 hdr_pid; u32 dso_len;
 *       u64 stamp; u64 size; u64 nr;
 *       dso bytes (the file's path, no NUL), zeros to 8
 *       then nr entries, each:
 *         u64 time; u64 start; u64 size; u32 line; u32 flags;
 *         u16 name_len, src_len; u32 load;
 *         name, source bytes (no NULs), zeros to 8
 *
 * A file's hdr_pid and stamp are its jitdump header's pid and timestamp,
 * size the bytes read: a file at the path with that header and at least
 * that size is the one copied (a runtime only appends).  File flags:
 * PM_JITCODE_F_ARCH_TIME (the file's times are the CPU's counter).  Entry
 * flags: PM_JITCODE_F_SRC (a source is given, line applies),
 * PM_JITCODE_F_MOVE (a CODE_MOVE: no strings, line 0; it names the code
 * that load, the index of an earlier CODE_LOAD entry of its file, named).
 * Names and sources are kept up to PM_SYM_NAME_MAX + 1 bytes (the table
 * cuts them there), and PM_JITSYM_MAX_BYTES of them in all, as the table
 * keeps: a file past that is copied up to it (st->truncated).
 */
#define PM_JITCODE_FORMAT 1
#define PM_JITCODE_F_ARCH_TIME 1u
#define PM_JITCODE_F_SRC 1u
#define PM_JITCODE_F_MOVE 2u

struct pm_buf;

/* From now on, reads hold their loads (timed or not): for the recorder's copy. */
void pm_jitcode__hold(struct pm_jitcode *c);
/* Files and loads held. */
void pm_jitcode__held(const struct pm_jitcode *c, uint64_t *files, uint64_t *loads);
/* Appends the payload of the files held (nothing when none).  0 or -ENOMEM. */
int pm_jitcode__encode(const struct pm_jitcode *c, struct pm_buf *out);

/* One file of a payload; pointers are into it. */
struct pm_jitcode_copy {
	int32_t pid, hdr_pid;
	uint32_t flags;
	uint64_t stamp, size, nr;
	const char *dso;		/* dso_len bytes, not NUL-terminated */
	size_t dso_len;
	const unsigned char *entries;	/* nr entries, entries_len bytes, checked when read */
	size_t entries_len;
};

/*
 * The file of process pid whose path is dso in the len bytes at p.  0,
 * -ENOENT (none), -EPROTO (another version), -EBADMSG (malformed before it).
 */
int pm_jitcode__copy_find(const void *p, size_t len, int32_t pid, const char *dso,
			  struct pm_jitcode_copy *out);
/* True when the jitdump on fd is the file cp copied (its header, and at least as long). */
bool pm_jitcode__copy_matches(const struct pm_jitcode_copy *cp, int fd);
/*
 * Reads the entries of cp as pm_jitcode__read reads a file, named dso (a
 * string that must outlive c).  st->loads and st->moves count them; a
 * malformed entry stops the reading (st->bad, err.offset: its offset in
 * the file's entries).  0 or a negative errno (-ENOMEM).
 */
int pm_jitcode__read_copy(struct pm_jitcode *c, const struct pm_jitcode_copy *cp, const char *dso,
			  bool timed, struct pm_jitcode_stats *st);
/*
 * Report's choice: the jitdump on fd (a negative errno: not opened, why)
 * when it is the file cp (NULL: no copy) was made of, else the copy; *why
 * is NULL when the file was read, else why the copy was (a static
 * string).  What the read returns (fd itself: no file and no copy).
 */
int pm_jitcode__read_either(struct pm_jitcode *c, int fd, const struct pm_jitcode_copy *cp,
			    int32_t pid, const char *path, bool timed, struct pm_jitcode_stats *st,
			    const char **why);

#endif
