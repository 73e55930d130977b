/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_MACHINE_INT_H
#define PMREC_MACHINE_INT_H
/*
 * Internals of the machine (machine.c: address spaces and naming) shared
 * with machine_source.c (which file names a mapping); not for cmd/.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashtab.h"
#include "format/perf_data.h"
#include "symbols/machine.h"

/* MAP_EMBEDDED: named by the recording's own symbols of its build id (emb). */
enum map_state { MAP_UNCHECKED, MAP_OK, MAP_REFUSED, MAP_EMBEDDED };

struct pm_map {
	uint64_t start, end, pgoff;
	struct pm_dso *dso;
	const struct pm_symtab *emb;
	uint8_t state;
	uint8_t id_len;			/* build id of the MMAP2 record, if any */
	unsigned char id[PM_BUILD_ID_SIZE];
};

struct pm_proc {
	int32_t pid;
	uint32_t nr, cap;
	struct pm_map *maps;		/* sorted by start, never overlapping */
};

struct pm_comm {
	int32_t tid;
	char comm[16];
};

struct pm_expect {
	char *path;
	uint8_t len;
	unsigned char id[PM_BUILD_ID_SIZE];
};

/* "[name]" for a module name of the kallsyms table, which owns key. */
struct pm_module {
	const char *key;
	char *name;
};

struct pm_machine {
	struct pm_dso_cache *dsos;
	struct pm_kallsyms *ks;
	struct pm_proc *procs;
	size_t nr_procs, cap_procs;
	struct pm_hashtab proc_idx;	/* pid -> index in procs */
	struct pm_comm *comms;
	size_t nr_comms, cap_comms;
	struct pm_hashtab comm_idx;	/* tid -> index in comms */
	struct pm_expect *expects;	/* sorted by path once complete */
	size_t nr_expects, cap_expects;
	bool expects_sorted;
	struct pm_dso **reported;	/* refused files already named to the caller */
	size_t nr_reported, cap_reported;
	struct pm_symarchive *archive;	/* NULL: the recording carries no symbols */
	struct pm_hashtab noted;	/* DSOs whose source was told (pointer keys) */
	char **notes;			/* the notes told, kept for the callers */
	size_t nr_notes, cap_notes;
	struct pm_module *modules;
	size_t nr_modules, cap_modules;
	/*
	 * Addresses named, by (pid, mode, ip): hot code is named over and over,
	 * and a call graph names each caller again per sample.  An entry is
	 * valid while gen is the machine's: anything that can change a name
	 * (a mapping, a fork, kallsyms, a refused file) starts a generation.
	 */
	struct pm_resolved *resolved;	/* RESOLVE_SLOTS */
	uint64_t gen;
	/* The kernel's text, from its MMAP record; end 0: none seen. */
	struct {
		uint64_t start, end, pgoff;
	} ktext;
	/* Names of JIT code (not owned): see pm_machine__set_jitsyms. */
	struct pm_jitsyms *jit;
	/* Bytes moved for mappings, against what the input paid for. */
	uint64_t work, allowance;
	bool overloaded;
};

/* The build id the recording saw for the file at path (a BUILD_ID entry), or NULL. */
const struct pm_expect *machine__expected(struct pm_machine *m, const char *path);
/* map's file is not used (why), said once per path through f. */
void machine__refuse(struct pm_machine *m, struct pm_map *map, const char *why,
		     struct pm_frame *f);
/* Decides which file (or the recording's symbols) names map, once. */
void machine__check(struct pm_machine *m, struct pm_map *map, struct pm_frame *f);

#endif
