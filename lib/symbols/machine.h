/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_MACHINE_H
#define PMREC_MACHINE_H

/*
 * The address spaces of a recording, rebuilt from its MMAP, MMAP2, COMM and
 * FORK records in file order, so that sample and call-chain addresses can be
 * named: user addresses through the mapped files' symbols (lib/elf), kernel
 * addresses through kallsyms.
 *
 * A file whose build id differs from the one the recording saw (an MMAP2
 * record's, or the BUILD_ID feature's) is not used: its names would be
 * wrong.  The symbols embedded in the recording (symarchive.h) name it
 * instead, when they have its build id, as they name a file that is gone.  Work is bounded by the input: a hostile file with huge numbers of
 * overlapping mappings or forks stops the symbolization, not the reader.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "symbols/dso.h"
#include "symbols/elf.h"
#include "symbols/kallsyms.h"

struct pm_machine;

struct pm_machine *pm_machine__new(void);
void pm_machine__delete(struct pm_machine *m);

/* Kernel symbols (owned by m from now on); without them kernel addresses stay unnamed. */
void pm_machine__set_kallsyms(struct pm_machine *m, struct pm_kallsyms *ks);
struct pm_jitsyms;
/*
 * Names of JIT code (lib/symbols/jitsym.h; not owned, NULL: none): user addresses
 * in anonymous memory, or in no mapping, are named from it first.
 */
void pm_machine__set_jitsyms(struct pm_machine *m, struct pm_jitsyms *jit);
/*
 * The symbols the recording carries (owned by m from now on): they name
 * the mappings of a file whose recorded build id they have, when the file
 * at the path is missing or is another one (build id, replaced).
 */
struct pm_symarchive;
void pm_machine__set_archive(struct pm_machine *m, struct pm_symarchive *a);
/* Where the recorded files are found (not owned: it must outlive m). */
struct pm_locator;
void pm_machine__set_locator(struct pm_machine *m, struct pm_locator *l);
/* The build id the recording saw for the file at path (a BUILD_ID entry). */
int pm_machine__expect_build_id(struct pm_machine *m, const char *path,
				const unsigned char *id, size_t len);
/*
 * Takes MMAP, MMAP2, COMM and FORK records into account; others are
 * ignored.  body_len is the record's length without header and sample_id
 * trailer.  Returns 0 or -ENOMEM.
 */
int pm_machine__event(struct pm_machine *m, const struct perf_event_header *h,
		      size_t body_len);

struct pm_frame {
	const char *sym;	/* NULL when no symbol covers the address */
	uint64_t off;		/* from the symbol's start */
	const char *dso;	/* file path, "[kernel.kallsyms]", "[module]"; NULL: no map */
	/*
	 * in_file: the address is in a file's mapping (user space, not
	 * anonymous memory: see pm_jitsym__anon_mapping), at offset dsoff of
	 * the file, as perf computes it (address - map start + pgoff).  The
	 * number to look up in the file, the same in every process.
	 */
	bool in_file;
	uint64_t dsoff;
	/* JIT code: dso's short name in a report ("[JIT] tid 1234"); NULL: its base name. */
	const char *dso_short;
	bool jit;		/* named from JIT names (lib/symbols/jitsym.h) */
	/* The symbol as the file spells it, before demangling (set by pm_namer). */
	const char *linkage;
	/*
	 * Set, once per file, when the file at dso is not used: another build
	 * id than recorded, or replaced since; refusal says why.
	 */
	bool refused_now;
	const char *refusal;
	/*
	 * Set once per file, when its mappings are first named: where its
	 * names come from, or why it has none (for --verbose).
	 */
	bool source_now;
	const char *source;
};

/*
 * Names ip of process pid, in cpumode (PERF_RECORD_MISC_USER or _KERNEL;
 * other modes stay unnamed).  Never fails: what cannot be named is NULL.
 */
void pm_machine__resolve(struct pm_machine *m, int32_t pid, uint16_t cpumode, uint64_t ip,
			 struct pm_frame *f);
/* A file mapping of a process, as the unwinder needs it. */
struct pm_map_info {
	uint64_t start, end, pgoff;
	struct pm_dso *dso;
	const char *path;
};

/*
 * The file mapping of process pid that covers user address addr.  Returns
 * 0, or -ENOENT when there is none or its file was refused (another build
 * id than recorded).
 */
int pm_machine__map(struct pm_machine *m, int32_t pid, uint64_t addr, struct pm_map_info *mi);
/*
 * The mapping that covers ip of process pid in cpumode, as pprof describes
 * one: a user file's (refused ones too: the range stays true), or the
 * kernel's text, from its MMAP record ("[kernel.kallsyms]_text").  The
 * build id is the one recorded (MMAP2 record, else BUILD_ID feature), else
 * the file's own.  Kernel build ids are the caller's to add.  0, or -ENOENT
 * when there is none.
 */
struct pm_mapping {
	uint64_t start, end, pgoff;
	const char *path;		/* NULL for the kernel */
	struct pm_dso *dso;		/* the file's; NULL for the kernel */
	unsigned char build_id[PM_BUILD_ID_SIZE];
	size_t build_id_len;		/* 0: unknown */
};

int pm_machine__mapping(struct pm_machine *m, int32_t pid, uint16_t cpumode, uint64_t ip,
			struct pm_mapping *out);
/*
 * The file behind user address addr of process pid, whatever its state,
 * and the build id the recording saw for it (*len 0: none).  0 or -ENOENT.
 */
int pm_machine__file_at(struct pm_machine *m, int32_t pid, uint64_t addr, struct pm_dso **dso,
			unsigned char id[PM_BUILD_ID_SIZE], size_t *len);
/*
 * Calls fn for each file mapping of every process so far, with the file's
 * recorded build id as pm_machine__file_at gives it; stops at fn's first
 * non-zero return, which it returns.
 */
typedef int pm_file_fn(void *arg, struct pm_dso *dso, const unsigned char *id, size_t len);
int pm_machine__for_each_file(struct pm_machine *m, pm_file_fn *fn, void *arg);
/* The kernel symbols set, or NULL. */
const struct pm_kallsyms *pm_machine__kallsyms(const struct pm_machine *m);
/* The recording's own symbols set, or NULL. */
const struct pm_symarchive *pm_machine__archive(const struct pm_machine *m);
/* The last command name of thread tid ("swapper" for tid 0 by default, as perf), or NULL. */
const char *pm_machine__comm(const struct pm_machine *m, int32_t tid);
/* True once the input's mappings exceeded the work bound (symbols stopped). */
bool pm_machine__overloaded(const struct pm_machine *m);
/* Changes whenever a name may change: see pm_namer__generation. */
uint64_t pm_machine__generation(const struct pm_machine *m);

#endif
