/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_NAMING_H
#define PMREC_NAMING_H

/*
 * Names for the addresses of a recording: the address spaces rebuilt from
 * its records (pm_machine), the build ids it saw (BUILD_ID feature and
 * records), and the running kernel's kallsyms, loaded on the first kernel
 * address and only if the recording was made on this kernel.  Frames are
 * named as perf does ("sym"; "file+0xoffset" in a file no symbol covers,
 * "[file]" in other memory, "[unknown]" without a map), and samples fold
 * into FlameGraph stacks.
 *
 * What the namer has to say (another kernel, no kallsyms, a file refused)
 * goes to the warn callback, once per cause.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "symbols/machine.h"
#include "reader/reader.h"
#include "format/record_body.h"
#include "base/warning.h"

struct pm_namer;

struct pm_namer *pm_namer__new(struct pm_reader *r, pm_warn_fn *warn, void *warn_arg);
void pm_namer__delete(struct pm_namer *n);

/*
 * Takes in the BUILD_ID feature of the input, and the symbols it carries
 * (HEADER_PMREC_SYMBOLS: a malformed section is a warning with its offset,
 * and is not used); without a vDSO build id, a recording of this kernel
 * is taken to have mapped its vDSO.  0 or -ENOMEM.
 */
int pm_namer__read_build_ids(struct pm_namer *n);
/*
 * Takes in a record that shapes the address spaces (MMAP, MMAP2, COMM,
 * FORK, HEADER_BUILD_ID; others are ignored).  body_len excludes the
 * sample_id trailer.  0 or -ENOMEM.
 */
int pm_namer__track(struct pm_namer *n, const struct pm_record *rec, size_t body_len);
/*
 * The time of the record just tracked, when it has one: JIT code of
 * jitdump files (an MMAP of jit-PID.dump is their marker) loaded up to
 * then names addresses from now on.  Records come in time order.
 */
void pm_namer__time(struct pm_namer *n, uint64_t time);
/*
 * Starts reading /proc/kallsyms on a thread, when the input's events may
 * sample the kernel and it was recorded on this kernel: the first kernel
 * frame then waits only for what is left of the read (the kernel takes
 * tens of milliseconds to list its symbols).  Nothing if it cannot start.
 */
void pm_namer__prefetch_kallsyms(struct pm_namer *n);
/*
 * True while that read goes on: naming a kernel address now would wait
 * for it.  Kernel addresses are named alike whenever they are named.
 */
bool pm_namer__kernel_pending(const struct pm_namer *n);
/* Names ip of process pid in cpumode (see pm_machine__resolve). */
void pm_namer__resolve(struct pm_namer *n, int32_t pid, uint16_t cpumode, uint64_t ip,
		       struct pm_frame *f);
/*
 * How samples are named.  By default user stacks recorded with
 * --call-graph dwarf are unwound (lib/unwind), inlined functions are
 * frames, and C++ and Rust names are demangled.  verbose: say where each
 * file's names come from (PM_WARN_SYMBOL_SOURCE).  kallsyms: the kernel's
 * symbols are read from this file, taken to be the recorded kernel's (as
 * perf's --kallsyms), instead of /proc/kallsyms.
 *
 * Where names come from: a mapped file whose build id is the recorded one
 * (else, if the recording carries symbols of that build id, those); the
 * kernel's kallsyms if this is the recorded kernel (else the recording's).
 */
struct pm_namer_opts {
	bool no_unwind, no_inline, no_demangle, verbose;
	const char *kallsyms;
	/* Where the running kernel's symbols are cached (pm_kallsyms__load_running); NULL: not. */
	const char *kallsyms_cache;
	/* Where the recorded files are looked for: lib/symbols/locate.h. */
	const char *symfs, *buildid_dir;
};
/* 0 or -ENOMEM. */
int pm_namer__set_opts(struct pm_namer *n, const struct pm_namer_opts *o);

/* DWARF unwinding so far: samples unwound, and of those stopped early. */
struct pm_unwind_stats {
	uint64_t unwound, partial;
};
void pm_namer__unwind_stats(const struct pm_namer *n, struct pm_unwind_stats *st);
/* Where it finds the recorded files (lib/symbols/locate.h); NULL before pm_namer__set_opts. */
struct pm_locator *pm_namer__locator(struct pm_namer *n);
/*
 * Unwinds s (when it has a user stack copy) for the stats alone, naming
 * nothing.  0 or -ENOMEM.
 */
int pm_namer__count_unwind(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s);

/*
 * The mapping of a frame named f (by pm_namer__resolve of the same pid,
 * cpumode and ip), for pprof: see pm_machine__mapping.  Kernel frames are
 * in "[kernel.kallsyms]" with the recorded kernel's build id, or in their
 * module ("[name]", no range known).  0 or -ENOENT.
 */
int pm_namer__mapping(struct pm_namer *n, int32_t pid, uint16_t cpumode, uint64_t ip,
		      const struct pm_frame *f, struct pm_mapping *out);
/*
 * The names of the recording's JIT code (lib/symbols/jitsym.h), for loaders that
 * add to it (perf maps are loaded by the namer itself: the recording's
 * copy, else /tmp/perf-PID.map, on the first address of a process that
 * no file names).
 */
struct pm_jitsyms *pm_namer__jitsyms(struct pm_namer *n);

/*
 * For pmrec archive: the file behind user address ip of process pid and
 * its recorded build id (see pm_machine__file_at); every file mapped so
 * far (pm_machine__for_each_file); the kernel symbols that
 * name kernel addresses, read as pm_namer__resolve reads them (NULL:
 * none); the recording's own symbols (NULL: none).
 */
int pm_namer__file_at(struct pm_namer *n, int32_t pid, uint64_t ip, struct pm_dso **dso,
		      unsigned char id[PM_BUILD_ID_SIZE], size_t *len);
int pm_namer__for_each_file(struct pm_namer *n, pm_file_fn *fn, void *arg);
const struct pm_kallsyms *pm_namer__kallsyms(struct pm_namer *n);
/* The recorded kernel's build id (HEADER_BUILD_ID); its length, 0: none recorded. */
size_t pm_namer__kernel_build_id(const struct pm_namer *n, const unsigned char **id);
const struct pm_symarchive *pm_namer__archive(const struct pm_namer *n);
/* True once the input had too many mappings to name everything. */
bool pm_namer__overloaded(const struct pm_namer *n);
/*
 * The command name of thread tid now: its last COMM, else its parent's at
 * its FORK (as perf names it), else NULL.
 */
const char *pm_namer__comm(const struct pm_namer *n, int32_t tid);
/* A frame of a sample, named. */
struct pm_named_frame {
	uint64_t ip;			/* as recorded */
	uint64_t lookup;		/* the address named: a return address one byte back */
	uint16_t cpumode;
	struct pm_frame f;
	bool unwound;			/* from the stack copy, not the call chain */
	bool inlined;			/* a function inlined into the next frame */
};

/*
 * The frames of a sample, innermost first, each named: its call chain, or
 * its ip alone; with a user stack copy (--call-graph dwarf), the kernel
 * part of the chain then the unwound user frames, with the functions
 * inlined at each.  A stack that cannot be unwound keeps its leaf.
 * cpumode is the record's.  *frames is valid until the next
 * call.  0 or -ENOMEM.
 */
int pm_namer__frames(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
		     const struct pm_named_frame **frames, size_t *nr);
/*
 * The same frames, not yet named (inlined ones have their name): a caller
 * that remembers names by address (see pm_namer__generation) names the
 * frames it has not met with pm_namer__name.  Valid until the next call.
 */
int pm_namer__chain(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
		    struct pm_named_frame **frames, size_t *nr);
/*
 * Whether s's frames come from its call chain and ip alone (no user stack
 * to unwind): two samples of one process, mode, ip and chain then have the
 * same frames while the process's naming generation holds.
 */
bool pm_namer__chain_only(const struct pm_namer *n, const struct pm_sample *s);
/* Names fr, a frame of pm_namer__chain, of process pid. */
void pm_namer__name(struct pm_namer *n, int32_t pid, struct pm_named_frame *fr);
/*
 * Changes whenever a name may change (a mapping, a fork, a file refused):
 * a frame not inlined named under one generation (same pid, cpumode, ip and
 * lookup) is named the same again under it.
 */
uint64_t pm_namer__generation(const struct pm_namer *n);
/*
 * The same for the names of process pid alone (its frames, its threads'
 * command names): changes with its own mappings, command names and fork,
 * and with whatever changes every name (a file refused, JIT names, the
 * kernel's symbols), not with other processes' records.  Never 0.
 */
uint64_t pm_namer__generation_of(struct pm_namer *n, int32_t pid);
/*
 * The folded stack of a sample, "comm;outer;...;inner", in *stack and
 * *len (valid until the next call).  cpumode is the record's.  0 or -ENOMEM.
 */
int pm_namer__fold(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
		   const char **stack, size_t *len);

/*
 * Appends a frame's label, the one rule of every output: its symbol; else,
 * in a file's mapping (in_file, see struct pm_frame), the file's base name
 * and the offset in it, "liblzma.so.5.4.1+0x15bc9" (perf's dsoff: the
 * number to look up in the file, one name in every process); else
 * "[file]" (the kernel, a module, anonymous memory: "[vdso]" as it is);
 * else "[unknown]".  0 or -ENOMEM.
 */
int pm_frame__label(struct pm_buf *b, const char *sym, const char *dso, bool in_file,
		    uint64_t dsoff);

/*
 * Walks a call chain: context markers switch between kernel and user; after
 * the first address of a context the entries are return addresses, looked
 * up one byte back (*lookup) so a call at the end of a function names that
 * function.
 */
struct pm_chain_walk {
	const uint64_t *ips;
	uint64_t nr, i;
	uint16_t cpumode;
	bool first;
};

void pm_chain_walk__init(struct pm_chain_walk *w, const struct pm_sample *s, uint16_t cpumode);
bool pm_chain_walk__next(struct pm_chain_walk *w, uint64_t *ip, uint64_t *lookup,
			 uint16_t *cpumode);

#endif
