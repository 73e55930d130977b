/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_WARNING_H
#define PMREC_WARNING_H

/*
 * What the dump side has to say about its input while it goes on: lib/
 * hands each warning as data to a callback of cmd/, which words it.
 */
#include <stdint.h>

enum pm_warning_kind {
	PM_WARN_OTHER_KERNEL,	/* recorded on another kernel: kernel addresses unnamed */
	PM_WARN_UNKNOWN_KERNEL,	/* the file does not say its kernel: this one's names used */
	PM_WARN_NO_KALLSYMS,	/* err: errno of reading dso (NULL: /proc/kallsyms) */
	PM_WARN_DSO_REFUSED,	/* dso not used for symbols, because of why */
	PM_WARN_OVERLOADED,	/* too many mappings: later addresses unnamed */
	PM_WARN_QUEUE_FULL,	/* over size bytes between two rounds, at offset */
	PM_WARN_UNFLUSHED,	/* the compressed data ended inside a record: size bytes at offset */
	PM_WARN_JIT_MAP_REFUSED,	/* perf map dso not read: err (ELOOP, EPERM, EINVAL...) */
	PM_WARN_JIT_MAP_MALFORMED,	/* size lines of perf map dso skipped */
	/*
	 * perf map dso read up to a bound: size entries kept; err 0 (entries,
	 * lines), EFBIG (bytes), ETIME (time), E2BIG (the recording's copy full:
	 * none kept).  The same errs for PM_WARN_JITDUMP_TRUNCATED.
	 */
	PM_WARN_JIT_MAP_TRUNCATED,
	PM_WARN_JIT_COPY_BAD,		/* the recording's JIT names unreadable: err, at offset */
	/*
	 * Information (--verbose): size JIT names taken from dso, or from the
	 * recording if NULL; from the recording's copy of dso if why (why not dso).
	 */
	PM_WARN_JIT_NAMES,
	PM_WARN_JITDUMP_REFUSED,	/* jitdump dso not read: err (ENOENT, ELOOP, EPERM, EFBIG: sparse...) */
	PM_WARN_JITDUMP_BAD,		/* jitdump dso malformed at offset: why; size loads before */
	PM_WARN_JITDUMP_TRUNCATED,	/* jitdump dso over the loads' bound: size loads kept */
	PM_WARN_JITDUMP_UNTIMED,	/* jitdump dso named by the last load: err 1 if arch times */
	PM_WARN_JITDUMP_FULL,		/* the JIT names' bound reached: later code unnamed */
	PM_WARN_JIT_SKIPPED,		/* the JIT files of size processes not read: the end's time out */
	PM_WARN_BAD_SYMBOLS,	/* the embedded symbols are not used: why, at offset */
	PM_WARN_SYMBOL_SOURCE,	/* verbose: where dso's names come from (why), once per file */
	PM_WARN_NOT_ARCHIVED,	/* pmrec archive leaves dso out, because of why */
	PM_WARN_DEBUGINFOD,	/* what debuginfod fetched: data, a struct pm_debuginfod_stats */
};

struct pm_warning {
	enum pm_warning_kind kind;
	int err;
	const char *dso, *why;
	uint64_t size, offset;
	const void *data;	/* of the kinds that say so */
};

typedef void pm_warn_fn(void *arg, const struct pm_warning *w);

#endif
