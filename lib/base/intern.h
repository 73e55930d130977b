/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_INTERN_H
#define PMREC_INTERN_H

/*
 * The one string interner of lib/: byte strings to ids 0, 1, 2... in the
 * order they were first seen, each kept once.  Outputs number their strings,
 * frames or keys by these ids (speedscope's frames, pprof's string table and
 * keys, a flame graph's names), so first-seen order is what keeps them the
 * same run after run, whatever the table's seed.
 *
 * A key is copied into blocks that never move, with a NUL after it: its
 * bytes stay where they are until pm_intern__exit, and one without a NUL
 * inside reads as a C string.  Keys may hold any bytes.
 *
 * The table is a pm_hashtab under the hostile-input rule (hashtab.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashtab.h"

struct pm_intern_key {
	const char *s;			/* in a block; NUL after its len bytes */
	uint32_t len;
};

struct pm_intern {
	struct pm_intern_key *keys;	/* by id */
	size_t nr, cap;
	char **blocks;
	size_t nr_blocks, cap_blocks;
	char *free;			/* the room left in the last block */
	size_t left;
	struct pm_hashtab tab;		/* key -> id */
};

/* in must stay where it is until pm_intern__exit (its table points to it). */
void pm_intern__init(struct pm_intern *in);
void pm_intern__exit(struct pm_intern *in);

/*
 * The id of p[0..n) (p may be NULL when n is 0), added if new; added (may
 * be NULL) says which.  0 or -ENOMEM (also past UINT32_MAX / 2 ids or a
 * key of UINT32_MAX bytes).
 */
int pm_intern__id(struct pm_intern *in, const void *p, size_t n, uint32_t *id, bool *added);

/* Key id's bytes (8-aligned: a key of words reads as words) and length (len may be NULL). */
static inline const void *pm_intern__key(const struct pm_intern *in, uint32_t id, size_t *len)
{
	if (len)
		*len = in->keys[id].len;
	return in->keys[id].s;
}

/* Key id as a C string (its NUL follows its bytes). */
static inline const char *pm_intern__str(const struct pm_intern *in, uint32_t id)
{
	return in->keys[id].s;
}

static inline size_t pm_intern__nr(const struct pm_intern *in)
{
	return in->nr;
}

#endif
