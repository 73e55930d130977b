/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITBUDGET_H
#define PMREC_JITBUDGET_H

/*
 * What reading one JIT file may cost.  Perf maps and jitdumps lie in
 * world-writable /tmp, written by whoever runs the program, and root's
 * recorder reads them: a file of 64 GB made of holes (ftruncate, lseek)
 * reads back as zeros at about a GB a second, and a record bound alone
 * does not stop a file of many records.  So every read is bounded in
 * bytes (the reader's own bound: PM_PERFMAP_MAX_BYTES,
 * PM_JITCODE_MAX_BYTES) and in time (PM_JIT_READ_NSEC), checked before
 * each piece is read, and a file mostly of holes is refused at its open
 * (pm_jit__sparse).  A real runtime never comes near: node writes a few
 * MB of jitdump a minute, a JVM's perf map is tens of MB.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* The time one file may take to read. */
#define PM_JIT_READ_NSEC (5ULL * 1000 * 1000 * 1000)
/* Below this size a file is read even if sparse: it costs nothing. */
#define PM_JIT_SPARSE_MIN (16ULL << 20)
/* Sparse: fewer than 1/PM_JIT_SPARSE_RATIO of its bytes stored (compression stays above). */
#define PM_JIT_SPARSE_RATIO 32

struct pm_jit_limits {
	uint64_t max_bytes;		/* 0: the reader's bound */
	uint64_t max_nsec;		/* 0: PM_JIT_READ_NSEC */
	uint64_t deadline;		/* an end for every file, in clock's time; 0: none */
	uint64_t (*clock)(void *arg);	/* NULL: CLOCK_MONOTONIC in ns */
	void *clock_arg;
};

/* One file's reading. */
struct pm_jit_budget {
	struct pm_jit_limits lim;
	uint64_t end;			/* clock time past which nothing more is read */
	uint64_t bytes;			/* charged so far */
};

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t pm_jit__now(void);
/* The time by lim's clock (NULL, or no clock: pm_jit__now). */
uint64_t pm_jit_limits__now(const struct pm_jit_limits *lim);
/* Starts a file's reading under lim (NULL: the defaults), max_bytes the reader's bound. */
void pm_jit_budget__start(struct pm_jit_budget *b, const struct pm_jit_limits *lim,
			  uint64_t max_bytes);
/* Bytes that may still be read. */
uint64_t pm_jit_budget__left(const struct pm_jit_budget *b);
/*
 * Before reading n more bytes: 0 (charged), -EFBIG (past the bytes) or
 * -ETIME (past the time); nothing is charged then.
 */
int pm_jit_budget__charge(struct pm_jit_budget *b, uint64_t n);
/* True when the file st describes is mostly holes (checked on the opened fd's fstat). */
bool pm_jit__sparse(const struct stat *st);

#endif
