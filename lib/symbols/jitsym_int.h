/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITSYM_INT_H
#define PMREC_JITSYM_INT_H

/*
 * Internals of the JIT symbol table (jitsym.c) shared with its on-disk
 * format (jitsym_file.c), which adds the entries a payload holds and reads
 * the lazy ones' names back from it; not for cmd/.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashtab.h"
#include "symbols/jitsym.h"

/*
 * Strings live in chunks that never move (names handed out stay valid);
 * a string is chunk << CHUNK_BITS | offset.  Every string fits a chunk:
 * names and sources are cut to PM_SYM_NAME_MAX, dso strings to PATH_MAX.
 */
#define CHUNK_BITS 20
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define NR_CHUNKS (PM_JITSYM_MAX_BYTES / CHUNK_SIZE + 1)
#define NO_STR UINT32_MAX
/* An entry's src when its name and source are still in the payload, at the offset its name holds. */
#define LAZY_STR (UINT32_MAX - 1)
#define DSO_MAX 4096

struct jit_ent {
	uint64_t start, end;
	uint32_t name, src, dso, line;
	uint32_t dso_short;
};

/* A disjoint piece of a process's code, named by entry ent. */
struct jit_run {
	uint64_t start, end;
	uint32_t ent;
};

struct jit_proc {
	int32_t pid;
	bool sorted;			/* runs match ents */
	struct jit_ent *ents;		/* in the order added: later wins */
	size_t nr_ents, cap_ents;
	struct jit_run *runs;		/* sorted by start, disjoint */
	size_t nr_runs;
};

struct pm_jitsyms {
	struct jit_proc *procs;
	size_t nr_procs, cap_procs;
	struct pm_hashtab proc_idx;	/* pid -> index in procs */
	struct pm_hashtab tried;	/* pids the loader ran for */
	char *chunk[NR_CHUNKS];
	uint32_t nr_chunks, chunk_used;	/* bytes used in the last chunk */
	size_t bytes, nr_ents;
	uint32_t last_dso[2];		/* the dso strings added last, reused while equal */
	size_t last_proc;		/* the process added to last */
	uint64_t gen;
	pm_jitsym_load_fn *load;
	void *load_arg;
	pm_jitsym_read_fn *lazy_read;	/* the payload of the lazy entries */
	void *lazy_arg;
};

/* A name or source, cut as symname.h cuts names: its handle in *out. */
int jitsyms__intern_name(struct pm_jitsyms *t, const char *p, size_t len, uint32_t *out);
/* The handles of an addition's dso strings (NO_STR when absent). */
int jitsyms__add_dsos(struct pm_jitsyms *t, const struct pm_jitsym_add *a, uint32_t *dso,
		      uint32_t *dso_short);
/*
 * Adds a range whose dso strings are interned already (dso, dso_short:
 * handles or NO_STR); lazy: the payload offset of its entry, whose name
 * and source are read at its first lookup (UINT64_MAX: a's, copied now).
 */
int jitsyms__add_ent(struct pm_jitsyms *t, const struct pm_jitsym_add *a, uint32_t dso,
		     uint32_t dso_short, uint64_t lazy);
/*
 * The name and source of a lazy entry, read from the payload at its
 * first lookup and kept from then on.  0, or why not (the entry stays
 * lazy: a lookup finds nothing there).
 */
int jitsyms__resolve(struct pm_jitsyms *t, struct jit_ent *e);

#endif
