/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITSYM_H
#define PMREC_JITSYM_H

/*
 * Names of code generated at run time (JIT compilers: Node.js, Java,
 * LuaJIT...), per process: ranges of addresses -> a function name and,
 * when the source says it, a source file and line.
 *
 * Loaders fill it: lib/symbols/perfmap.c from perf map files (/tmp/perf-PID.map,
 * or the copies a recording carries), a jitdump reader from jitdump code
 * load records.  The namer (lib/symbols/naming.c, through lib/symbols/machine.c) asks it
 * for user addresses that no mapped file names: in an anonymous
 * executable mapping, or in no mapping at all.
 *
 * Where ranges of one process overlap, the one added last wins, as perf
 * names perf maps: a JIT reuses the memory of code it threw away and
 * appends the new code's line.  Additions are cheap (appended); the
 * first lookup after them sorts the process's ranges once (a merge of the
 * runs already in address order when they are few, else a radix sort:
 * no comparison calls) into disjoint runs that a lookup finds by binary
 * search.
 *
 * Bounded: at most PM_JITSYM_MAX_ENTRIES ranges and PM_JITSYM_MAX_BYTES
 * bytes of names and sources over all processes; an addition beyond that
 * returns -E2BIG and adds nothing (the caller warns, once).  Names and
 * sources longer than PM_SYM_NAME_MAX are cut as symname.h cuts them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PM_JITSYM_MAX_ENTRIES (1u << 18)
#define PM_JITSYM_MAX_BYTES (16u << 20)

struct pm_jitsyms;

/*
 * True for the name of a mapping that no file backs, where JIT compilers
 * put their code: the names perf gives such mappings (its map__new:
 * anonymous memory, /dev/zero, huge pages, the stack, the heap, SysV
 * shared memory) and named anonymous memory ("[anon:NAME]").
 */
bool pm_jitsym__anon_mapping(const char *name);

/* One range to add; fields may be added (designated initializers only). */
struct pm_jitsym_add {
	int32_t pid;
	uint64_t start, size;		/* [start, start + size); size 0 is ignored */
	const char *name;		/* name_len bytes, need not be NUL-terminated */
	size_t name_len;
	const char *src;		/* NULL: no source; else src_len bytes */
	size_t src_len;
	uint32_t line;			/* 0: unknown */
	/*
	 * What names the code's "file" in outputs (a report's dso column,
	 * pprof's mapping): e.g. "/tmp/perf-1234.map".  NUL-terminated,
	 * copied once per distinct string; NULL keeps the mapping's own.
	 */
	const char *dso;
	/* Its short form for report's dso column (perf's "[JIT] tid 1234"); NULL: dso's base name. */
	const char *dso_short;
};

/* A range found.  Its strings stay valid until the table is deleted. */
struct pm_jitsym {
	uint64_t start, size;
	const char *name;
	const char *src;		/* NULL: no source */
	uint32_t line;
	const char *dso;		/* NULL: none given */
	const char *dso_short;		/* NULL: none given */
};

struct pm_jitsyms *pm_jitsyms__new(void);
void pm_jitsyms__delete(struct pm_jitsyms *t);

/* Adds a range.  0, -EINVAL (size 0 or wrapping), -E2BIG (bound), -ENOMEM. */
int pm_jitsyms__add(struct pm_jitsyms *t, const struct pm_jitsym_add *a);

/*
 * The range of process pid that names addr, last added first.  0, or
 * -ENOENT.  Not const: the first lookup after additions sorts.
 */
int pm_jitsyms__find(struct pm_jitsyms *t, int32_t pid, uint64_t addr, struct pm_jitsym *out);

/*
 * A loader for processes not met yet: the first lookup of a pid calls it
 * once (it may add ranges for that pid, or nothing), so files that name
 * a process's code are read only for processes whose JIT code is sampled.
 */
typedef void pm_jitsym_load_fn(void *arg, struct pm_jitsyms *t, int32_t pid);
void pm_jitsyms__set_loader(struct pm_jitsyms *t, pm_jitsym_load_fn *fn, void *arg);

/* True when ranges were ever added for pid. */
bool pm_jitsyms__has_pid(const struct pm_jitsyms *t, int32_t pid);
/* Ranges held in all (for --verbose and the bounds' tests). */
size_t pm_jitsyms__count(const struct pm_jitsyms *t);
/* Changes whenever an addition may change a name (see pm_namer__generation). */
uint64_t pm_jitsyms__generation(const struct pm_jitsyms *t);

/*
 * Iterates over the ranges added, process by process (in the order each
 * was first met) and in the order they were added within a process: what
 * a recording stores, so that the later still wins when read back.
 * *pos starts at 0.  Returns false at the end.
 */
bool pm_jitsyms__next(const struct pm_jitsyms *t, size_t *pos, int32_t *pid,
		      struct pm_jitsym *out);

/*
 * How a recording carries the ranges (pmrec's HEADER_PMREC_JIT_SYMBOLS
 * feature, lib/format/perf_data.h), native-endian as the rest of perf.data:
 *
 *     u64 version (1)
 *     then entries, each 8-aligned:
 *       u32 pid; u32 line; u64 start; u64 size;
 *       u16 name_len, src_len, dso_len, dso_short_len; u32 flags, reserved;
 *       name, source, dso, dso_short bytes (no NULs), zeros to 8
 *
 * flags: PM_JITSYM_F_SRC (a source is given, line applies),
 * PM_JITSYM_F_SAME_DSO (the dsos of the entry before; their lengths 0).
 * Entries go in pm_jitsyms__next's order, so the later still wins.
 */
#define PM_JITSYM_FORMAT 1
#define PM_JITSYM_F_SRC 1u
#define PM_JITSYM_F_SAME_DSO 2u

struct pm_buf;
/*
 * Appends the version word, then entries from *pos (a pm_jitsyms__next
 * position, 0 at first) while the payload stays within max bytes
 * (SIZE_MAX: all); *pos is left at the first entry not appended.
 * 0 or -ENOMEM.
 */
int pm_jitsyms__encode(const struct pm_jitsyms *t, size_t *pos, size_t max, struct pm_buf *out);
/*
 * Adds the entries of one payload.  0, -EBADMSG (a malformed payload:
 * the entries before the fault stay), -EPROTO (another version), or what
 * pm_jitsyms__add returns (-E2BIG: the bound reached).
 */
int pm_jitsyms__decode(struct pm_jitsyms *t, const void *p, size_t len);
/*
 * pm_jitsyms__decode of a payload of size bytes read in pieces (half a
 * megabyte at a time, never whole in memory) by read: 0 or a negative
 * errno, len bytes of the payload from byte off into buf.  Returns as
 * pm_jitsyms__decode does, or read's error.
 */
typedef int pm_jitsym_read_fn(void *arg, uint64_t off, void *buf, size_t len);
int pm_jitsyms__decode_from(struct pm_jitsyms *t, uint64_t size, pm_jitsym_read_fn *read,
			    void *arg);
/*
 * pm_jitsyms__decode_from, the names and sources left in the payload:
 * each is read (by read, which must keep working while the table lives)
 * at the first lookup that finds its range.  A copy of 100k names is
 * looked up in a few hundred: the rest are never copied.  Once per
 * table (-EBUSY after).
 */
int pm_jitsyms__decode_lazy(struct pm_jitsyms *t, uint64_t size, pm_jitsym_read_fn *read,
			    void *arg);

#endif
