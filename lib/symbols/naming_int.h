/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_NAMING_INT_H
#define PMREC_NAMING_INT_H

/*
 * The namer's insides, shared by its files: naming.c (the namer, fed by
 * the records and build ids), naming_kernel.c (kallsyms), naming_jit.c
 * (the names of JIT code) and naming_frames.c (a sample's frames, named
 * and folded).  Not for cmd/.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "base/warning.h"
#include "dwarf/unwind.h"
#include "format/perf_data.h"
#include "symbols/demangle.h"
#include "symbols/jitcode.h"
#include "symbols/jitsym.h"
#include "symbols/kallsyms.h"
#include "symbols/machine.h"
#include "symbols/naming.h"
#include "symbols/symarchive.h"

struct pm_namer {
	struct pm_reader *r;
	struct pm_machine *machine;
	struct pm_jitsyms *jit;		/* names of JIT code, filled by the loaders */
	bool jit_copy_read;		/* the recording's copy of the perf maps taken in */
	struct pm_jitcode *jitcode;	/* jitdump files met (marker mappings), NULL before */
	bool jitcode_full;		/* the table's bound reached: said once */
	bool jitcode_copy_bad;		/* the recording's copy of the jitdumps unreadable: said */
	struct pm_hashtab jitdump_pids;	/* processes whose jitdump was read: once each */
	struct pm_hashtab map_pids;	/* the pids of the perf maps in /tmp */
	int map_pids_listed;		/* 0: not yet; 1: listed; -1: /tmp unlisted, try each */
	pm_warn_fn *warn;
	void *warn_arg;
	int kernel_syms;		/* 0: not decided yet, 1: loaded, -1: none */
	unsigned char kernel_id[PM_BUILD_ID_SIZE];
	size_t kernel_id_len;		/* the recorded kernel's, 0 if unknown */
	bool vdso_id;			/* the recording says its vDSO's build id */
	struct pm_symarchive *archive;	/* the recording's symbols, until the machine takes them */
	bool archive_kernel;		/* they include the kernel's */
	struct pm_buf stack;		/* the folded stack being built */
	struct pm_buf label;		/* one frame's label, before escaping */
	/*
	 * Per-process generations (pm_namer__generation_of): the machine's
	 * generation steps that records of one process made (record_steps in
	 * all), and each process's count of them (pid -> count).
	 */
	uint64_t record_steps;
	struct pm_hashtab pid_steps;
	/* The last answer, asked per frame: valid for its pid while the generation holds. */
	struct {
		int32_t pid;
		uint64_t gen, of;	/* gen 0: none */
	} gen_of;
	struct pm_named_frame *chain;	/* the frames of the last sample asked for */
	size_t nr_chain;
	struct pm_namer_opts opts;
	struct pm_locator *locator;	/* where the recorded files are found */
	struct pm_demangler *dm;	/* NULL: names as recorded */
	struct pm_unwinder *uw;		/* made on the first dwarf sample */
	struct pm_unwind_frame uf[PM_UNWIND_MAX_FRAMES];
	struct pm_unwind_stats ustats;
	/* /proc/kallsyms read on a thread of its own while records are read. */
	struct {
		pthread_t thread;
		bool started;
		struct pm_kallsyms *ks;
		int err;		/* errno when ks is NULL */
		bool done;		/* set by the thread, atomically, as it ends */
	} prefetch;
};

/* naming.c */
void namer__warn(struct pm_namer *n, struct pm_warning w);
/* Where a file's names come from, said with --verbose only. */
void namer__source(struct pm_namer *n, const char *dso, const char *why);

/* naming_kernel.c */
/* The prefetched kallsyms, waited for, else read now; NULL with *err (an errno) if none. */
struct pm_kallsyms *namer__take_kallsyms(struct pm_namer *n, int *err);
/* The kernel's symbols, decided once: n->kernel_syms is 1 or -1 after. */
void namer__load_kallsyms(struct pm_namer *n);
/*
 * A recording of this kernel that does not say its vDSO's build id (made
 * before pmrec wrote it, or a stream that says it at its end, or top's)
 * mapped this kernel's vDSO: "[vdso]" is expected to be it.  0 or -ENOMEM.
 */
int namer__expect_running_vdso(struct pm_namer *n);

/* naming_jit.c */
/* The loader of perf maps (pm_jitsym_load_fn), arg the namer. */
void namer__load_jit(void *arg, struct pm_jitsyms *t, int32_t pid);
/* An MMAP or MMAP2 record: a jitdump marker's file is read. */
void namer__jitdump(struct pm_namer *n, const struct perf_event_header *h, size_t body_len);

#endif
