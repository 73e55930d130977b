/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITCODE_INT_H
#define PMREC_JITCODE_INT_H

/*
 * Internals of the jitdump loads table (jitcode.c) shared with the
 * recorder's copy, its on-disk format (jitcode_file.c); not for cmd/.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "symbols/jitcode.h"
#include "symbols/jitdump.h"
#include "symbols/symname.h"

/* What of a name or source is kept: the table cuts longer ones there, "..." marking the cut. */
#define NAME_KEEP (PM_SYM_NAME_MAX + 1)

/* A load or a move, until it is added; strings are offsets in c->strings. */
struct jit_load {
	uint64_t time, seq;		/* seq: file order among equal times */
	uint64_t start, size;
	int32_t pid;
	uint32_t line;
	size_t name_off, name_len, src_off, src_len, dso_off;
	size_t ref;			/* a move's load, an index in loads (held loads only) */
	bool has_src, move;
};

/* A file whose loads are held (pm_jitcode__hold): loads [first, first + nr). */
struct jit_file {
	int32_t pid, hdr_pid;
	uint32_t flags;
	uint64_t stamp, size;
	size_t dso_off, dso_len, first, nr;
};

struct pm_jitcode {
	struct pm_jitsyms *t;
	struct jit_load *loads;		/* [next, nr): timed, not added yet */
	size_t nr, cap, next;
	bool unsorted;			/* loads appended since the last sort */
	uint64_t seq, now;		/* the time advanced to */
	struct pm_buf strings;
	bool hold;			/* the recorder's copy: loads held, none added */
	struct jit_file *files;
	size_t nr_files, cap_files;
};

/* n bytes of p kept in c->strings, at *off.  0, -E2BIG (held: the table's bound) or -ENOMEM. */
int jitcode__string(struct pm_jitcode *c, const void *p, size_t n, size_t *off);
/* A new pending load, zeroed but for its seq; NULL: no memory. */
struct jit_load *jitcode__push(struct pm_jitcode *c);
/*
 * The loads appended since first (strings since strings) once a file is
 * read (err: how its reading ended): pending until their time when timed,
 * else added now, in file order.
 */
int jitcode__settle(struct pm_jitcode *c, size_t first, size_t strings, bool timed, int err);
/* The header, from the first bytes of the file (at most a page, page's size). */
int jitcode__header(int fd, uint64_t size, struct pm_jitdump *j, unsigned char *page);

#endif
