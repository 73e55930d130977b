/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_FILECAP_H
#define PMREC_FILECAP_H

/*
 * The mapped files that their recorded path will not find again, kept in
 * the recording while their processes live: a container's (another mount
 * namespace or root: the path is its, the host has another file there or
 * none), a deleted one, one replaced since it was mapped.  After the
 * process is gone, and on another machine, report names their frames from
 * what is kept: the file's build id (BUILD_ID feature) and its function
 * symbols (HEADER_PMREC_SYMBOLS, as `pmrec archive` stores them).
 *
 * When: at the first MMAP2 record of each file (device, inode), as the
 * drain passes over it (every 100 ms at least), which costs one fstat of
 * the path here; only a file that the path does not hold costs more: the
 * file is opened through the process and the fd held, and it is read
 * when the recording stops.  Through the process's root for a process
 * that does not share pmrec's mounts (openat2 RESOLVE_IN_ROOT: its
 * absolute symlinks lead inside it, never to the host's file of that
 * name), else, or when that is another file by now, through its mapping,
 * /proc/PID/map_files/START-END (a deleted or replaced file).  What is
 * opened must be the record's file: its device and inode (or, for a
 * record that carries a build id, that id).  A file still found at its
 * path when mapped but not at the end is asked for again then, through
 * the mapping of the last process seen with it, if that process still
 * runs; and a file here is watched (inotify: its link count falls when it
 * is replaced or deleted), so that the recorder's loop
 * (pm_filecap__poll) holds it through its first process's mapping as
 * soon as that happens, before that process exits.
 *
 * Bounded: PM_FILECAP_MAX_HELD files held, each read once and kept once
 * per build id, PM_FILECAP_MAX_SYMS symbols a file, PM_FILECAP_MAX_BYTES
 * for all, and the reads at the end within PM_FILECAP_FINISH_NSEC.  A
 * process that maps a file and is gone before the next drain pass (under
 * 100 ms) is not found: its file is not kept.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/perf_data.h"

/* Files held open at most: the recorder counts them among its fds. */
#define PM_FILECAP_MAX_HELD 256
/* Files at their paths watched for being replaced (inotify watches) at most. */
#define PM_FILECAP_MAX_WATCHED 2048
#define PM_FILECAP_MAX_SYMS (256u << 10)
#define PM_FILECAP_MAX_BYTES (32u << 20)
#define PM_FILECAP_FINISH_NSEC (5ULL * 1000 * 1000 * 1000)

struct pm_buf;
struct pm_filecap;

/* What an MMAP2 record says of a file mapped executable. */
struct pm_filecap_map {
	int32_t pid;
	uint64_t start, len;
	const char *path;		/* as recorded: the process's view */
	uint64_t dev, ino;		/* ino 0: the record carries a build id instead */
	const unsigned char *build_id;
	size_t build_id_len;
};

enum pm_filecap_verdict {
	PM_FILECAP_HERE,		/* the path here holds the file: read it there */
	PM_FILECAP_HELD,		/* opened through the process, read at the end */
	PM_FILECAP_GONE,		/* not here, not held: leave it (nothing else to read) */
};

struct pm_filecap *pm_filecap__new(void);
/* Closes what is held. */
void pm_filecap__delete(struct pm_filecap *c);

/* At a file's first MMAP2 record: is it here, or is it held? */
enum pm_filecap_verdict pm_filecap__note(struct pm_filecap *c, const struct pm_filecap_map *m);
/*
 * The recorder's loop, after each drain pass: the files at their paths
 * that were replaced or deleted since are held through their mappings
 * now, while their processes (most likely) run.  One read when nothing
 * happened.
 */
void pm_filecap__poll(struct pm_filecap *c);
/*
 * At the end, for a file that was here when mapped and is not any more
 * (replaced): held through m's mapping if its process still runs.
 */
enum pm_filecap_verdict pm_filecap__late(struct pm_filecap *c, const struct pm_filecap_map *m);

/*
 * Reads what is held and not read yet (each file once, within
 * PM_FILECAP_FINISH_NSEC), then calls fn with each file's recorded path
 * and the build id read from it.  fn's error stops the walk.
 */
typedef int pm_filecap_id_fn(void *arg, const char *path, const unsigned char *id, size_t len);
int pm_filecap__finish(struct pm_filecap *c, pm_filecap_id_fn *fn, void *arg);
/* The HEADER_PMREC_SYMBOLS payload of the files read; false (nothing added) when none. */
bool pm_filecap__any(const struct pm_filecap *c);
int pm_filecap__encode(struct pm_filecap *c, struct pm_buf *out);

struct pm_filecap_stats {
	uint64_t through_root;		/* held through the process's root */
	uint64_t through_map;		/* held through its mapping (map_files) */
	uint64_t gone;			/* not held: the process or mapping gone, another file */
	uint64_t over;			/* not held: PM_FILECAP_MAX_HELD reached */
	uint64_t watched;		/* files at their paths watched */
	uint64_t replaced;		/* of them, held once replaced or deleted */
	uint64_t tables;		/* files whose symbols were kept */
	uint64_t same_id;		/* files read whose build id was kept already */
	uint64_t unread;		/* held files not read: no build id, not ELF, a bound */
	uint64_t cut;			/* tables cut at PM_FILECAP_MAX_SYMS */
	uint64_t bytes;			/* of the payload */
	uint64_t finish_ns;		/* the time pm_filecap__finish took */
};
void pm_filecap__stats(const struct pm_filecap *c, struct pm_filecap_stats *st);

/*
 * Does process pid see files as pmrec does: the same root directory and
 * the same mount namespace?  False when it cannot be told (the process
 * gone).
 */
bool pm_proc__shares_mounts(pid_t pid);

#endif
