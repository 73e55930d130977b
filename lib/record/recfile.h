/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_RECFILE_H
#define PMREC_RECFILE_H

/*
 * The output of a recording through its life: created under a temporary
 * name (or a pipe for "-"), a prologue (header, pipe features, tracepoint
 * formats, the synthesized kernel map and tasks) committed in chunks,
 * published, committed after every drain pass, finished with its features,
 * and for --switch-output and --overwrite renamed to timestamped names, of
 * which only the newest max_files are kept.
 *
 * What cmd/ says about it comes through note(): lib/ never prints.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "format/clock.h"
#include "record/drain.h"
#include "record/event.h"
#include "base/output.h"
#include "record/pmdata.h"
#include "record/target.h"
#include "record/zsink.h"

struct pm_build_ids;
struct pm_jitcap;

enum pm_recfile_synth {
	PM_RECFILE_SYNTH_ALL,		/* COMMs and executable maps of running tasks */
	PM_RECFILE_SYNTH_TASK,		/* COMMs only */
	PM_RECFILE_SYNTH_NO,
};

enum pm_recfile_note {
	PM_RECFILE_CREATE_FAILED,	/* path, err (-ENOTTY: "-" is a terminal) */
	PM_RECFILE_STAMP_FAILED,	/* path: the file that kept its name, err */
	PM_RECFILE_KEPT,		/* path: a timestamped file written */
	PM_RECFILE_UNLINK_FAILED,	/* path: an old file beyond max_files, err */
	PM_RECFILE_NO_KERNEL_MAP,	/* err: kernel symbols will not resolve */
	PM_RECFILE_MAPS_DENIED,		/* path: a target's maps, unreadable: no user symbols */
};

struct pm_recfile {
	/* Set by the caller. */
	const char *path;		/* final name; "-" for a stream to pipe_fd */
	int pipe_fd;			/* never a terminal: binary data */
	const struct pm_evlist *evlist;
	const struct pm_target *targets;
	bool workload;			/* a command is recorded: nothing to synthesize */
	enum pm_recfile_synth synth;
	struct pm_build_ids *build_ids;	/* BUILD_ID feature; NULL for none */
	/*
	 * Copies of the perf maps (HEADER_PMREC_JIT_SYMBOLS, files only); NULL
	 * for none.  Synthesized tasks are shown to it.
	 */
	struct pm_jitcap *jitcap;
	struct pm_drain_stats *stats;	/* first/last sample time (SAMPLE_TIME) */
	const struct pm_clock_ref *clock; /* -k: CLOCKID and CLOCK_DATA; NULL for none */
	int argc;			/* pmrec's command line, for CMDLINE */
	char **argv;
	bool sync;			/* fdatasync at most once a second */
	struct pm_zsink *zsink;		/* -z: the data compressed; NULL for none */
	unsigned int max_files;		/* timestamped files kept; 0: all */
	void (*note)(void *arg, enum pm_recfile_note what, const char *path, int err);
	void *note_arg;
	/* Its state. */
	struct pmdata out;		/* out.fd: the output, pipe_fd for "-" */
	bool owned;			/* out.fd is ours to close: not pipe_fd */
	struct pm_output file;		/* the temporary name (its fd moved to out) */
	int64_t last_sync;		/* CLOCK_MONOTONIC ns */
	unsigned int nr_files;		/* timestamped files written */
	char **kept;			/* the newest of them */
	size_t nr_kept;
};

/*
 * A new output with its prologue, committed.  *created is false when the
 * creation itself failed (and was noted).
 */
int pm_recfile__start(struct pm_recfile *f, bool *created);
/* Renames the temporary file to path: a killed recording leaves it readable. */
int pm_recfile__publish(struct pm_recfile *f);
/* Drain sink callbacks (arg: the pm_recfile). */
int pm_recfile__writev(void *arg, const struct iovec *iov, int iovcnt);
int pm_recfile__commit(void *arg);
/* Trailing records (tail may be NULL), features and the final header. */
int pm_recfile__finalize(struct pm_recfile *f, const struct pm_buf *tail);
/* Moves from to PATH.<timestamp>, never replacing an earlier one; prunes old ones. */
int pm_recfile__stamp(struct pm_recfile *f, const char *from);
/*
 * Between two drain passes: finishes the file, gives it its timestamped
 * name and starts the next, so no record is lost or written twice.
 */
int pm_recfile__rotate(struct pm_recfile *f);
/*
 * Overwrite mode: a standalone timestamped file of recs (whole records)
 * with the tasks alive now synthesized first, and a LOST_SAMPLES record
 * of dropped if any.
 */
int pm_recfile__snapshot(struct pm_recfile *f, const struct pm_buf *recs, uint64_t dropped);
/*
 * The output failed: the file is cut back to what was last committed
 * (which perf reads).  0 or a negative errno.
 */
int pm_recfile__rollback(struct pm_recfile *f);
/*
 * Closes the output (never pipe_fd, which is borrowed), removes an
 * unpublished file, forgets the kept names.
 */
void pm_recfile__exit(struct pm_recfile *f);

#endif
