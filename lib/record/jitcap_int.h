/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITCAP_INT_H
#define PMREC_JITCAP_INT_H

/* Inside jitcap: the processes noted (jitcap.c) and the reader of their files (jitcap_read.c). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "base/warning.h"
#include "record/jitcap.h"
#include "symbols/jitbudget.h"

/* A process's files to read: what the reader needs of its note, owned by whoever holds it. */
struct jc_job {
	int32_t pid, nspid;
	uid_t ruid, euid;		/* (uid_t)-1: unknown, root's files only */
	int tmp_fd;			/* its /tmp, when not pmrec's; else -1 */
	char *jitdump;			/* the path of its jitdump marker, NULL if none */
};

struct jc_proc {
	struct jc_job job;
	bool read;			/* its files were handed on at its exit */
};

/* A warning of the reader's, told at the end; dso is its own copy. */
struct jc_note {
	struct pm_warning w;
	char *dso;
};

/* The reader thread and what it hands back; all under lock but the thread's own. */
struct jc_reader {
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct jc_job queue[PM_JITCAP_QUEUE];
	size_t head, nr;
	bool stop, abandon;		/* no more jobs; files not read yet stay so */
	uint64_t deadline;		/* after stop: the end for every file (the clock's time) */
	struct pm_buf syms, code;	/* the payloads' entries, without their version words */
	struct jc_note *notes;
	size_t nr_notes, cap_notes;
	struct pm_jitcap_stats stats;	/* the reader's counts */
	uint64_t told_skipped;		/* of stats.skipped, in a note already */
};

struct pm_jitcap {
	struct jc_proc *procs;
	size_t nr_procs, cap_procs;
	int nr_tmp_fds;			/* held: by notes and jobs (atomic: the reader closes) */
	struct pm_hashtab idx;		/* pid -> index in procs */
	uint64_t processes, deferred;
	struct pm_jit_limits lim;
	pm_warn_fn *warn;
	void *warn_arg;
	struct jc_reader r;
};

/* The job's fd closed and path freed. */
void jc_job__exit(struct pm_jitcap *c, struct jc_job *job);

int jc_reader__start(struct pm_jitcap *c);
/* Hands job to the thread: 0, or -EAGAIN (the queue full: job stays the caller's). */
int jc_reader__push(struct pm_jitcap *c, struct jc_job *job);
/* No more jobs: the thread reads the queue's within deadline (0: abandons them), then ends. */
void jc_reader__stop(struct pm_jitcap *c, uint64_t deadline);
/* Reads job's files (any thread), within deadline (0: none); the job is ended. */
void jc_reader__read(struct pm_jitcap *c, struct jc_job *job, uint64_t deadline);
/* Tells the notes kept to c->warn, and forgets them. */
void jc_reader__tell(struct pm_jitcap *c);
void jc_reader__exit(struct pm_jitcap *c);

#endif
