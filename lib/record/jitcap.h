/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITCAP_H
#define PMREC_JITCAP_H

/*
 * The recorder's copy of the perf maps of the processes it records, so that
 * a recording names their JIT code after the maps are gone (/tmp cleaned,
 * another machine, a container's /tmp).
 *
 * Which processes: those that map anonymous executable memory (an MMAP2
 * record from the rings, or synthesized for a process running before the
 * recording).  Noting one costs a read of /proc/PID/status; nothing is
 * done per sample.  When is a map read: when its process exits (its EXIT
 * record, pid == tid: Java writes its map only then, with
 * -XX:+DumpPerfMapAtExit) and, for the others, at the end of the
 * recording (pm_jitcap__finish).  A map being appended to is read up to
 * its last whole line.
 *
 * Where: /tmp/perf-NSPID.map under the process's own root, NSPID its pid
 * in its own pid namespace (the last NSpid of /proc/PID/status).  A
 * process whose root or mounts are not pmrec's (a container) has its /tmp
 * held open from the moment it is noted (its mount namespace can be gone
 * by its EXIT record); that /tmp and the map in it are opened inside the
 * process's root, no symlink followed.  The
 * map must be a regular file owned by root or by the process's real or
 * effective user (lib/symbols/perfmap.h), and only its parsed entries are kept.
 *
 * jitdump files (node --perf-prof, the JVM's and .NET's agents): a process
 * that maps a file named jit-PID.dump executable (the runtime's marker,
 * as perf inject --jit finds it) has that file read at the same moments,
 * at the path the marker names and under the same rules, and its code
 * loads and moves held with their times (lib/symbols/jitcode.h): feature 242.
 * Only in pmrec's own root: a container's jitdump is not copied.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "base/warning.h"

/*
 * The containers' /tmp directories held open at most: fds the recorder
 * counts among its own when it raises RLIMIT_NOFILE.
 */
#define PM_JITCAP_MAX_HELD 256

struct pm_buf;
struct pm_jitcap;

/* warn (may be NULL) hears of maps refused, malformed or cut (PM_WARN_JIT_MAP_*). */
struct pm_jitcap *pm_jitcap__new(pm_warn_fn *warn, void *warn_arg);
void pm_jitcap__delete(struct pm_jitcap *c);

/* A record from the rings or synthesized: MMAP2 notes a process, EXIT reads its map. */
void pm_jitcap__event(struct pm_jitcap *c, const struct perf_event_header *h);
/* pm_jitcap__event for each record of a buffer of whole records. */
void pm_jitcap__events(struct pm_jitcap *c, const void *buf, size_t len);
/* Reads the maps of the processes noted and not read at their exit. */
void pm_jitcap__finish(struct pm_jitcap *c);

struct pm_jitcap_stats {
	uint64_t processes;		/* noted: with anonymous executable memory */
	uint64_t maps;			/* maps read */
	uint64_t entries;		/* names kept */
	uint64_t jitdumps, loads;	/* jitdump files read, code loads and moves held */
};
void pm_jitcap__stats(const struct pm_jitcap *c, struct pm_jitcap_stats *st);

/*
 * The names kept, encoded (lib/symbols/jitsym.h) from *pos on, at most max bytes
 * (SIZE_MAX: all); see pm_jitsyms__encode.  Nothing to add when empty.
 */
int pm_jitcap__encode(const struct pm_jitcap *c, size_t *pos, size_t max, struct pm_buf *out);
/* True when any name was kept. */
bool pm_jitcap__any(const struct pm_jitcap *c);
/* The jitdumps' loads held (lib/symbols/jitcode.h's payload); nothing to add when none. */
int pm_jitcap__encode_code(const struct pm_jitcap *c, struct pm_buf *out);
bool pm_jitcap__any_code(const struct pm_jitcap *c);

#endif
