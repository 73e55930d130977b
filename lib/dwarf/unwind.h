/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_UNWIND_H
#define PMREC_UNWIND_H

/*
 * DWARF unwinding of the user stacks that `--call-graph dwarf` samples
 * carry (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER), with libdw: the
 * sampled registers are the innermost frame, each mapped file's CFI
 * (.eh_frame, .debug_frame, or a separate debug file found by build id)
 * says how to step to its caller, and memory reads are served from the
 * stack copy.
 *
 * One libdw session (Dwfl) per address space, reused across its samples:
 * files are reported as the unwinding reaches them, from the mappings the
 * machine model tracks.  The CFI rule of each pc met is kept in its simple
 * x86-64 forms, and later samples step through it by arithmetic, as libdw
 * would; a pc with another form goes to libdw's unwinder.  Hostile input ends an unwinding early, never
 * makes it loop: at most PM_UNWIND_MAX_FRAMES frames, and the stack
 * pointer must move outwards from one frame to the next.
 *
 * x86-64 only (the registers are in perf's x86 order).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/machine.h"
#include "reader/reader.h"

#define PM_UNWIND_MAX_FRAMES 256

struct pm_unwinder;

/* m names the mappings and must outlive the unwinder.  NULL on ENOMEM. */
struct pm_unwinder *pm_unwinder__new(struct pm_machine *m);
void pm_unwinder__delete(struct pm_unwinder *u);

/* Can s be unwound: user registers of a 64-bit task and a stack copy? */
bool pm_unwind__possible(const struct pm_sample *s);

/* Process pid exec'ed, or its mappings were replaced: its session goes. */
void pm_unwinder__forget(struct pm_unwinder *u, int32_t pid);

struct pm_unwind_frame {
	uint64_t ip;		/* the sampled ip, then return addresses */
	uint64_t lookup;	/* the address to name: a return address one byte back */
};

/*
 * Unwinds the user stack of sample s into frames (room for
 * PM_UNWIND_MAX_FRAMES), innermost first.  *nr is at least 1 (the sampled
 * ip) when pm_unwind__possible(s).  *partial: the unwinding stopped before
 * the outermost frame (no CFI, a read outside the stack copy, a loop, the
 * frame cap).  Returns 0 or -ENOMEM.
 */
int pm_unwinder__unwind(struct pm_unwinder *u, const struct pm_sample *s,
			struct pm_unwind_frame *frames, size_t *nr, bool *partial);

/* Inlined names demangled (pm_demangle__str) from now on; off by default. */
void pm_unwinder__set_demangle(struct pm_unwinder *u, bool demangle);

/*
 * The functions inlined at address lookup of process pid (a frame's lookup
 * address after pm_unwinder__unwind reached it), innermost first, as
 * names (demangled if asked); the function they are inlined into is not among
 * them.  Cached per (file, address).  *names stays valid for the next
 * 1 << 20 addresses looked up at least (the frames of one sample).
 * Returns 0 (with *nr 0 when there is no inlining or no DWARF) or -ENOMEM.
 */
int pm_unwinder__inlined(struct pm_unwinder *u, int32_t pid, uint64_t lookup,
			 const char *const **names, size_t *nr);

#endif
