/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_DRAIN_INT_H
#define PMREC_DRAIN_INT_H

/*
 * The drain engine's insides, for its files (drain.c, drain_pass.c,
 * drain_snapshot.c), the event set that opens fds into it (evset.c) and
 * the unit tests that look at its rings; cmd/ sees drain.h only.
 */
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <linux/perf_event.h>

#include "base/buf.h"
#include "record/drain.h"
#include "record/perf_ops.h"
#include "record/ring.h"
#include "record/snapshot.h"

struct pm_stage;

enum pm_drain_state {
	PM_DRAIN_ACTIVE,		/* some fd still writes into the ring */
	PM_DRAIN_DRAINING,		/* every fd hung up; data may remain */
	PM_DRAIN_RETIRED,		/* emptied, fds closed, unmapped */
};

struct pm_drain_ring {
	struct pm_ring ring;		/* ring.refcnt: its fds not hung up */
	int cpu;
	enum pm_drain_state state;
	uint64_t lost;			/* from PERF_RECORD_LOST */
	struct pm_span span;		/* peeked in the current pass */
	struct pm_buf copy;		/* the span, when its records need fixing or leaving out */
	struct pm_ring_window window;	/* where its samples count (pm_drain__open_window) */
};

struct pm_drain_fd {
	int fd;				/* -1 once closed */
	size_t ring;
	size_t event;
	bool dead;			/* hung up or closed: out of the poll set */
	bool lost_read;
	uint64_t id;
	uint64_t lost;			/* PERF_FORMAT_LOST, read before close */
};

/* Where the engine's thread is held while it works on one CPU's events (drain_pin.c). */
struct pm_drain_pin {
	cpu_set_t *home;		/* the thread's own affinity, saved at the first move */
	cpu_set_t *one;			/* the mask of the CPU it moves to */
	size_t size;			/* of both masks, in bytes */
	int cpu;			/* the CPU it is held on, or -1 */
	bool off;			/* too few rings, or no affinity to read: it never moves */
	size_t per_mover;		/* rings a mover takes in a round */
};

struct pm_drain {
	/* From pm_drain_config and pm_drain_events, set once. */
	const struct pm_perf_ops *ops;
	struct pm_drain_sink sink;
	int watch_fd;			/* the caller's fd polled with the rings, or -1 */
	bool overwrite;			/* backward rings: copied by snapshots only */
	bool lost_format;		/* the fds count PERF_FORMAT_LOST */
	bool build_id_mmap;		/* attr.build_id: MMAP2 build ids are ours */
	size_t time_off;		/* of a SAMPLE's time (pm_evlist__sample_time_offset) */
	size_t id_time_end;		/* pm_drain_events.id_time_end */
	struct pm_build_ids *build_ids;	/* files named by MMAP2 are noted here; or NULL */
	struct pm_jitcap *jitcap;	/* MMAP2 and EXIT records are shown to it; or NULL */
	size_t stage_size;
	bool stage_writer;
	/* State. */
	struct pm_drain_ring *rings;
	size_t nr_rings;
	struct pm_drain_fd *fds;
	size_t nr_fds;
	struct pollfd *pfds;		/* watch_fd, the stage's room_fd, the live fds */
	size_t *pfd_fd;			/* pfds[i] watches fds[pfd_fd[i]] */
	size_t nr_pfds;
	size_t nr_fixed;		/* pfds before the live fds */
	struct iovec *iov;
	enum pm_snapshot_state snap;
	struct pm_drain_stats stats;
	struct pm_stage *stage;		/* NULL: passes write to the sink themselves */
	bool blocked;			/* the last pass found no room in the stage */
	bool windowed;			/* pm_drain__open_window: the stop closes the windows */
	pid_t task;			/* pm_drain__window_task's command, or 0 */
	unsigned task_looks;		/* passes left to look for its exec in */
	uint64_t exec_time;		/* of its exec, once found */
	bool exit_bounded;		/* its end found ended (a pass or the stop): no more asking */
	struct pm_drain_stats staged;	/* the stage's counts already in stats */
	struct pm_drain_pin pin;
};

/* drain.c */
/* The poll set: the fixed fds, then every fd not hung up. */
int drain__build_pollfds(struct pm_drain *d);
void drain__hang_up(struct pm_drain *d, struct pm_drain_fd *f);
/* Ring idx retired: its fds' lost counts read, the fds closed, the ring unmapped. */
void drain__retire(struct pm_drain *d, size_t idx);
/* Every ring not retired yet (which[ring], if which) retired, each from its CPU. */
void drain__retire_all(struct pm_drain *d, const bool *which);

/* drain_pass.c */
void mmap2__repair(struct perf_event_header *h, bool build_ids_asked);
void drain__note_times(struct pm_drain_stats *st, uint64_t first, uint64_t last);
void drain__sync_stage(struct pm_drain *d);

/* drain_pin.c */
/* The thread onto cpu: the calls on that CPU's events that follow are local. */
void drain__pin(struct pm_drain *d, int cpu);
/* The thread back to its own affinity. */
void drain__unpin(struct pm_drain *d);
/*
 * fn for every ring (which[ring], if which), each from the ring's CPU; with
 * many rings split among movers that run at once, so fn must touch only
 * that ring and its fds.
 */
void drain__each_ring(struct pm_drain *d, const bool *which,
		      void (*fn)(struct pm_drain *d, size_t ring, void *ctx), void *ctx);
/* How many movers drain__each_ring would split a round of that many rings among. */
size_t drain__movers(struct pm_drain *d, size_t rings);
void drain__pin_exit(struct pm_drain *d);

#endif
