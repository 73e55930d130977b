/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DRAIN_H
#define PMREC_DRAIN_H

/*
 * The drain engine: one ring per CPU, the fds that write into it (the first
 * owns the mapping, the rest are redirected with SET_OUTPUT), the poll set,
 * the hang-up count and the drain pass.  What it relies on from the kernel
 * (POLLIN cleared by each poll, POLLHUP, SET_OUTPUT, PAUSE_OUTPUT, LOST
 * records and PERF_FORMAT_LOST) is in lib/README.md, "the kernel's ring
 * buffer", from kernel/events/core.c and kernel/events/ring_buffer.c.
 *
 * A ring's count of live writers is its pm_ring.refcnt, and only this engine
 * moves it: one reference per fd, dropped when the fd hangs up or is closed.
 * A ring whose count reaches zero drains until a pass finds it empty, then
 * retires: every fd's PERF_FORMAT_LOST is read, the redirected fds are
 * closed, and only then the owner is unmapped and closed (an owner unmapped
 * under live writers drops their records silently).
 *
 * Records leave through a sink (pmdata in pmrec, a buffer in the tests) and
 * the kernel is reached through a struct pm_perf_ops, so every path here runs
 * against fake rings in plain memory.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "base/buf.h"
#include "record/perf_ops.h"

struct pm_build_ids;
struct pm_jitcap;
struct pm_drain;
struct pm_drain_fd;
struct pm_stage_stats;

struct pm_drain_sink {
	/* Writes whole records; on failure none of them counts as written. */
	int (*writev)(void *arg, const struct iovec *iov, int iovcnt);
	/* Makes what was written so far readable (pmdata: data.size). */
	int (*commit)(void *arg);
	void *arg;
};

struct pm_drain_stats {
	uint64_t samples;		/* written */
	uint64_t lost;			/* announced by LOST records or while paused */
	uint64_t first_time;		/* of the samples of the current file */
	uint64_t last_time;
	uint64_t corrupt;		/* passes that met an invalid header */
	uint64_t dropped_samples;	/* read from the rings but not written */
	uint64_t dropped_bytes;
	uint64_t skipped_bytes;		/* left in the rings when the stop was cut */
	uint64_t outside;		/* samples outside the window (pm_drain__open_window) */
};

/* Everything the engine is told, once, before the events are opened into it. */
struct pm_drain_config {
	const struct pm_perf_ops *ops;	/* NULL: the kernel's */
	const int *cpus;		/* one ring each */
	size_t nr_cpus;
	bool overwrite;			/* backward rings: copied by snapshots only */
	struct pm_drain_sink sink;	/* where passes go (the stage's writer too) */
	int watch_fd;			/* the caller's fd polled with the rings; -1: none */
	struct pm_build_ids *build_ids;	/* files named by MMAP2 are noted here; or NULL */
	/* Processes with JIT code (MMAP2) and their exits (EXIT) go here; or NULL. */
	struct pm_jitcap *jitcap;
	/*
	 * Non-zero: passes copy into a staging buffer of this many bytes (at
	 * least the rings' total) that stage_writer's thread empties into the
	 * sink; see stage.h.  A pass that does not fit leaves the rings as they
	 * are and the loop waits for room instead of polling the rings.
	 * Without the writer (the unit tests), only pm_stage__write() empties
	 * the stage.
	 */
	size_t stage_size;
	bool stage_writer;
	/*
	 * With more rings than this, each CPU's opens, enables, disables and
	 * closes are made from that CPU (drain_pin.c); with as many or fewer,
	 * from wherever the thread runs.  0: PM_DRAIN_PIN_RINGS.
	 */
	size_t pin_rings;
	/* Above pin_rings, a mover per this many rings (drain_pin.c).  0: PM_DRAIN_RINGS_PER_MOVER. */
	size_t rings_per_mover;
};

/*
 * The moves pay where a round of cross-CPU calls costs more than a round
 * of moves.  On 2 CPUs they cost a start and stop 13 to 38 ms of wall
 * (medians of 120 and 100 pairs, a loaded host), where a call to the other
 * CPU took 25 us more than a local one and a move 42 us: with an event
 * and the tracking dummy per CPU the moves break even near 12 rings when
 * the other CPUs are idle, sooner when they are busy.  In a 16-CPU guest,
 * all CPUs busy, the calls cost 11-11.5 s of system time and the moves
 * 1.9 s; at 64, the enables took 44.8 s by calls and 9.3 s by moves
 * (bench/RESULTS.md).  Between the size measured to lose and the one
 * measured to win, below the idle break-even:
 */
#define PM_DRAIN_PIN_RINGS 8

/*
 * With more rings than this, a round of moves is split among movers that
 * run at once, one per this many rings, at most PM_DRAIN_MAX_MOVERS
 * (drain_pin.c).  At 16 CPUs one thread's moves cost 1-2 s of a busy
 * emulated guest's start and stop (bench/RESULTS.md).  A build may set
 * them (bench variants).
 */
#ifndef PM_DRAIN_RINGS_PER_MOVER
#define PM_DRAIN_RINGS_PER_MOVER 16
#endif
#ifndef PM_DRAIN_MAX_MOVERS
#define PM_DRAIN_MAX_MOVERS 8
#endif

/* What the opening of the events settled (pm_evset.opened), given at the start. */
struct pm_drain_events {
	bool lost_format;		/* the fds count PERF_FORMAT_LOST */
	bool build_id_mmap;		/* attr.build_id: MMAP2 build ids are ours */
	size_t time_off;		/* of a SAMPLE's time (pm_evlist__sample_time_offset) */
	size_t id_time_end;		/* other records' time, this far before their end; 0: none */
};

/* One ring (unmapped yet) per CPU of cfg, which is copied.  NULL and errno on failure. */
struct pm_drain *pm_drain__new(const struct pm_drain_config *cfg);
/* Adds an opened fd of event into ring; it counts as a writer once mapped/redirected. */
struct pm_drain_fd *pm_drain__add_fd(struct pm_drain *d, size_t ring, int fd, size_t event);
/* First fd of a ring: maps the ring through it. */
int pm_drain__map(struct pm_drain *d, size_t ring, int fd, size_t pages);
/* Other fds: SET_OUTPUT into the ring's owner, one more reference. */
int pm_drain__redirect(struct pm_drain *d, size_t ring, int fd);
/* Every fd is open: the poll set, the pass's iovec and the stage, if any. */
int pm_drain__start(struct pm_drain *d, const struct pm_drain_events *ev);
/* Waits until the stage is written (no-op without one); the writer's error. */
int pm_drain__flush(struct pm_drain *d);
/* The same ioctl on every open fd (ENABLE, DISABLE). */
void pm_drain__ioctl_all(struct pm_drain *d, unsigned long req);

/*
 * Every CPU's events are enabled now: the samples already in the rings
 * were taken while the others were still being enabled, one CPU after the
 * other, and are left out (stats.outside); so are those after the start of
 * pm_drain__stop, taken while the CPUs are disabled one after the other.
 * The file then holds the time in which every CPU sampled, and nothing of
 * the rounds, which at 64 emulated CPUs took 10 s each (issue 43) and on
 * real ones take tens of microseconds a CPU.  Other records are all kept.
 */
void pm_drain__open_window(struct pm_drain *d);
/*
 * With a command, system-wide: the window also opens no sooner than its
 * exec and closes at its end, as its COMM (exec) and its last thread's
 * EXIT records time them.  The samples the other CPUs took while the command
 * was being started or reaped are left out (stats.outside) as those of the
 * rounds are: at 64 emulated CPUs the exec and the wake-up at the exit
 * took over a second each (issue 43).  The exec is looked for in the first
 * passes only (it is in the rings by the first, since pmrec waits for the
 * exec before it drains), and once found each later pass also leaves out
 * the samples timed before it that a ring published late.  Every pass
 * asks the kernel where the command is in its exit (pm_perf_ops'
 * task_state) before it writes: ended, its rings are peeked again and the
 * windows close at the last EXIT; exiting, the pass writes nothing (a
 * sample timed after the end may be in the rings before the EXIT), unless
 * a ring is half full.
 */
void pm_drain__window_task(struct pm_drain *d, pid_t pid);

/*
 * Waits for data, a hang-up or watch_fd.  Hung-up fds leave the poll set
 * at once (each would make every poll return immediately) and drop their
 * ring's reference.  Sets *watched when watch_fd is readable.
 */
int pm_drain__poll(struct pm_drain *d, int timeout_ms, bool *watched);
/*
 * One pass: one head load per ring, every pending byte of every ring in
 * one writev straight from the mappings plus a FINISHED_ROUND, then the
 * tails and a commit; then the emptied draining rings retire.  *busy: a
 * ring was more than half full, pass again before sleeping.  When the sink
 * fails, no tail moves and the pass counts as dropped.  With a stage, the
 * pass is copied there instead, whole or (no room: d->blocked) not at all.
 */
int pm_drain__pass(struct pm_drain *d, bool *busy);
/*
 * Disables every event and drains every ring to empty, then flushes the
 * stage.  cut() is asked before each pass; when it says so (a second
 * Ctrl-C), what the rings still hold is counted in skipped_bytes and left
 * out.
 */
int pm_drain__stop(struct pm_drain *d, bool (*cut)(void *arg), void *arg);

/* What the caller decides around the engine's loop (pmrec: signals, time, files). */
struct pm_drain_driver {
	/* True when the caller's deadline passed; else *timeout_ms is the longest wait. */
	bool (*expired)(void *arg, int *timeout_ms);
	/* watch_fd is readable: true ends the loop. */
	bool (*watched)(void *arg);
	/* After every wake-up (and pass): rotation, snapshots; an error ends the loop. */
	int (*tick)(void *arg);
	void *arg;
};

/*
 * Polls and drains until the caller's deadline, watched() or the end of
 * every writer: every ring retired, or in overwrite mode (whose rings only
 * snapshots read) every fd hung up.  A busy pass is followed by another
 * without sleeping.
 */
int pm_drain__loop(struct pm_drain *d, const struct pm_drain_driver *drv);
bool pm_drain__all_retired(const struct pm_drain *d);
bool pm_drain__all_hung_up(const struct pm_drain *d);
/* LOST_SAMPLES records of what each fd's PERF_FORMAT_LOST counted. */
int pm_drain__lost_samples(struct pm_drain *d, struct pm_buf *out, uint64_t *total);

/*
 * Overwrite mode: pauses every backward ring, copies its complete records
 * to out (oldest first), resumes.  Then counts the samples and their times
 * (first_time/last_time restart), repairs MMAP2 flags and drops the LOST
 * records the pauses caused: *dropped (from PERF_FORMAT_LOST) says how many.
 */
int pm_drain__snapshot(struct pm_drain *d, struct pm_buf *out, uint64_t *samples,
		       uint64_t *dropped);

/*
 * The one teardown path: disables and retires every ring (lost counts read,
 * redirected fds closed before the owner is unmapped), closes any fd left,
 * ends the stage's writer without flushing.
 */
void pm_drain__close(struct pm_drain *d);
/* pm_drain__close, then forgets the fds, for another attempt at opening. */
void pm_drain__reset(struct pm_drain *d);
void pm_drain__delete(struct pm_drain *d);

/*
 * What the passes wrote, dropped and lost: read-only but for the output
 * file (pm_recfile.stats), which restarts the time range with each file.
 */
struct pm_drain_stats *pm_drain__stats(struct pm_drain *d);
/* A snapshot's samples and drops, counted once its file is written. */
void pm_drain__count_snapshot(struct pm_drain *d, uint64_t samples, uint64_t dropped);
/* The events are enabled: the flight recorder runs, snapshots may be taken. */
void pm_drain__set_running(struct pm_drain *d);
size_t pm_drain__nr_rings(const struct pm_drain *d);
size_t pm_drain__nr_fds(const struct pm_drain *d);
/* Ring idx's CPU, and the samples its LOST records announced. */
uint64_t pm_drain__ring_lost(const struct pm_drain *d, size_t idx, int *cpu);
/* The stage's counts and size; false without a stage. */
bool pm_drain__stage_stats(struct pm_drain *d, struct pm_stage_stats *st, size_t *cap);

#endif
