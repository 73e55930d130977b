/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PERFMAP_H
#define PMREC_PERFMAP_H

/*
 * Perf map files: what JIT runtimes (Node.js --perf-basic-prof, Java's
 * -XX:+DumpPerfMapAtExit, Python -X perf, LuaJIT, .NET...) write to
 * /tmp/perf-PID.map to name their generated code.  One line per piece of
 * code, appended as it is made:
 *
 *     START SIZE NAME
 *
 * START and SIZE in hexadecimal (an optional "0x"; blanks before them, one
 * after each, as perf's strtoull-based reading takes them), NAME the rest
 * of the line.  As perf reads them, a later line wins where
 * two ranges overlap (a JIT reuses the memory of code it threw away).
 *
 * The file lies in world-writable /tmp and pmrec runs as root: it is opened
 * through pm_file__open (no symlink followed, never blocking, regular files
 * only) and read only when owned by root or by the process's user (perf
 * reads maps owned by root or by whoever runs it), and refused when it is
 * mostly holes (lib/symbols/jitbudget.h).  What is read is bounded
 * (bytes, lines, entries: PM_PERFMAP_MAX_*, the jitsym table's own
 * bounds, and the time: PM_JIT_READ_NSEC), and a line that does not
 * parse is skipped and counted.  Only the parsed entries go anywhere (a
 * recording stores those, never the file's bytes).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/hashtab.h"
#include "symbols/jitbudget.h"
#include "symbols/jitsym.h"

#define PM_PERFMAP_MAX_BYTES (256ULL << 20)
#define PM_PERFMAP_MAX_LINES (4u << 20)

/* What one file held. */
struct pm_perfmap_stats {
	uint64_t lines, malformed, added;
	uint64_t bytes;			/* read */
	bool truncated;			/* a bound stopped the reading early */
	int cut;			/* -EFBIG, -ETIME: the bytes' or the time's bound did */
};

/*
 * Parses one line (without its newline) as perf does.  0 with the fields
 * set (name points into line), or -EINVAL.
 */
int pm_perfmap__parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
			   const char **name, size_t *name_len);

/*
 * Opens the perf map at path for reading: a regular file, not a symlink,
 * owned by root, uid or uid2.  root_fd -1: path as it is; else a
 * directory fd (another root, its /tmp) that path resolves in, no symlink followed
 * at all (pm_file__open_in_root).  The fd, or -errno: -ENOENT, -ELOOP (a
 * symlink), -EINVAL (not a regular file), -EPERM (another owner), -EFBIG
 * (mostly holes: pm_jit__sparse).
 */
int pm_perfmap__open(int root_fd, const char *path, uid_t uid, uid_t uid2);

/*
 * Reads the perf map on fd into t as process pid's code, in "file" dso
 * (NULL: none) with dso_short its short name (see pm_jitsym_add), within
 * lim (NULL: PM_PERFMAP_MAX_BYTES and PM_JIT_READ_NSEC).  Returns 0 or a
 * negative errno (-ENOMEM, read errors); st says what was read.
 */
int pm_perfmap__read(int fd, struct pm_jitsyms *t, int32_t pid, const char *dso,
		     const char *dso_short, const struct pm_jit_limits *lim,
		     struct pm_perfmap_stats *st);

/*
 * The pids of the perf maps in /tmp (perf-PID.map), as integer keys of
 * pids: a recording of thousands of processes asks for thousands of maps,
 * and most do not exist.  0, or a negative errno (/tmp not listed, no
 * memory: every pid must then be tried).
 */
int pm_perfmap__list_tmp(struct pm_hashtab *pids);

#endif
