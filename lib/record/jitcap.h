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
 * recording).  Noting one costs a read of /proc/PID/status, once per
 * process; nothing is done per sample.  When is a map read: when its
 * process exits (its EXIT record, pid == tid: Java writes its map only
 * then, with -XX:+DumpPerfMapAtExit) and, for the others, at the end of
 * the recording (pm_jitcap__finish).  A map being appended to is read up
 * to its last whole line.
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
 *
 * Off the drain's path: the files are written by whoever runs the
 * program, and a file of 64 GB of holes took a minute to read, the rings
 * overflowing meanwhile.  So an EXIT record only hands the process's
 * files to a reader thread, through a queue of PM_JITCAP_QUEUE; the drain
 * never waits on it (a full queue leaves the files to the end), and the
 * thread reads while the drain drains.  Each file is bounded in bytes
 * (PM_PERFMAP_MAX_BYTES, PM_JITCODE_MAX_BYTES) and in time
 * (PM_JIT_READ_NSEC), a file mostly of holes is refused
 * (lib/symbols/jitbudget.h), the end reads what is left within
 * PM_JITCAP_FINISH_NSEC, and the copies keep PM_JITCAP_MAX_PAYLOAD bytes
 * each at most.  What was refused, cut or left unread is counted
 * (pm_jitcap_stats) and told as warnings, at the end, from the thread
 * that calls pm_jitcap__finish.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "base/warning.h"
#include "symbols/jitbudget.h"

/*
 * The containers' /tmp directories held open at most (by processes noted
 * and by files waiting to be read): fds the recorder counts among its own
 * when it raises RLIMIT_NOFILE.
 */
#define PM_JITCAP_MAX_HELD 256
/* Exited processes whose files wait for the reader thread at most. */
#define PM_JITCAP_QUEUE 256
/* The end's time for every file not read yet. */
#define PM_JITCAP_FINISH_NSEC (10ULL * 1000 * 1000 * 1000)
/* Bytes of names (feature 240), and of code loads (242), copied at most. */
#define PM_JITCAP_MAX_PAYLOAD (32u << 20)

struct pm_buf;
struct pm_jitcap;

/*
 * warn (may be NULL) hears of maps and jitdumps refused, malformed or
 * cut, at pm_jitcap__finish.  Starts the reader thread, every signal
 * blocked in it.  NULL with errno.
 */
struct pm_jitcap *pm_jitcap__new(pm_warn_fn *warn, void *warn_arg);
/* Stops the reader (files not read yet stay so) and frees c. */
void pm_jitcap__delete(struct pm_jitcap *c);
/* Limits for every file (tests: small bounds, a clock of their own); before any event. */
void pm_jitcap__limit(struct pm_jitcap *c, const struct pm_jit_limits *lim);

/* A record from the rings or synthesized: MMAP2 notes a process, EXIT hands its files on. */
void pm_jitcap__event(struct pm_jitcap *c, const struct perf_event_header *h);
/* pm_jitcap__event for each record of a buffer of whole records. */
void pm_jitcap__events(struct pm_jitcap *c, const void *buf, size_t len);
/*
 * After the last event: waits for the reader, reads the files of the
 * processes noted and not read at their exit, all within
 * PM_JITCAP_FINISH_NSEC, and tells the warnings.
 */
void pm_jitcap__finish(struct pm_jitcap *c);

struct pm_jitcap_stats {
	uint64_t processes;		/* noted: with anonymous executable memory */
	uint64_t maps;			/* maps read */
	uint64_t entries;		/* names kept */
	uint64_t jitdumps, loads;	/* jitdump files read, code loads and moves held */
	uint64_t refused;		/* files not read: mostly holes, a symlink, another owner... */
	uint64_t cut;			/* files read up to a bound: bytes, time, the copy's size */
	uint64_t deferred;		/* exits whose files waited for the end: the queue full */
	uint64_t skipped;		/* processes whose files were not read: the end's time out */
};
/* After pm_jitcap__finish (before, what the reader has done so far). */
void pm_jitcap__stats(struct pm_jitcap *c, struct pm_jitcap_stats *st);

/* Appends the names kept (lib/symbols/jitsym.h's payload); nothing when none. */
int pm_jitcap__encode(struct pm_jitcap *c, struct pm_buf *out);
/* True when any name was kept. */
bool pm_jitcap__any(struct pm_jitcap *c);
/* The jitdumps' loads held (lib/symbols/jitcode.h's payload); nothing to add when none. */
int pm_jitcap__encode_code(struct pm_jitcap *c, struct pm_buf *out);
bool pm_jitcap__any_code(struct pm_jitcap *c);

#endif
