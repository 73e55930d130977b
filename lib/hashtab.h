/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_HASHTAB_H
#define PMREC_HASHTAB_H

/*
 * The one hash table of lib/: open addressing with linear probing, at most
 * half full, a 64-bit value per entry (an index into the caller's array, or
 * a pointer), keyed either by a 64-bit integer held in the slot or by a key
 * the caller holds (bytes, a struct), of which the slot keeps the 64-bit hash.
 *
 * The hostile-input rule, for every table: keys come from input files, so
 * they may be chosen to collide.  Every table hashes with a seed of its own,
 * random (getrandom) unless a test fixes it, so nobody can tell in advance
 * which keys share a slot; and no run of used slots (what a lookup may
 * walk) may grow past PM_HASHTAB_MAX_PROBE: an insert that would make one
 * longer first rebuilds the table, doubling it if it is at least a quarter
 * full, otherwise at the same size under a new seed.  A guessed seed thus buys one rebuild, not a quadratic
 * run.  After PM_HASHTAB_MAX_REBUILDS rebuilds in one insert (only a hash
 * that ignores the seed gets there) the entry goes in anyway: slower, never
 * wrong.
 *
 * Iteration runs in slot order, which depends on the seed: a caller whose
 * output follows its entries keeps them in an array of its own (insertion
 * order) and uses the table only to find them.
 *
 * No allocation per entry: one array of 16-byte slots, grown by doubling.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

#define PM_HASHTAB_MAX_PROBE 64
#define PM_HASHTAB_MAX_REBUILDS 4
/* The one value an entry cannot hold: it marks a free slot. */
#define PM_HASHTAB_FREE UINT64_MAX

struct pm_hashtab;

/*
 * For keys the caller holds (NULL ops: integer keys).  hash returns the
 * hash of the key of the entry holding val, computed as lookups compute it
 * (pm_hashtab__hash_*, under the table's current seed); it is called only
 * when the table re-seeds.  equal tells whether that entry's key is key.
 */
struct pm_hashtab_ops {
	uint64_t (*hash)(const struct pm_hashtab *t, uint64_t val, void *arg);
	bool (*equal)(uint64_t val, const void *key, void *arg);
};

struct pm_hashtab_slot {
	uint64_t key;		/* the integer key, or the hash of the caller's key */
	uint64_t val;		/* PM_HASHTAB_FREE: free */
};

struct pm_hashtab {
	struct pm_hashtab_slot *slot;
	size_t mask;		/* slots - 1; 0 before the first insert */
	size_t nr;
	uint64_t seed[2];
	bool fixed_seed;	/* re-seed deterministically (tests) */
	const struct pm_hashtab_ops *ops;
	void *arg;
	uint64_t nr_rebuilds;	/* for tests: how often the probe bound fired */
};

/*
 * A table with a random seed; ops NULL for integer keys, else with both
 * functions and their arg.  Allocates nothing until the first insert.
 */
void pm_hashtab__init(struct pm_hashtab *t, const struct pm_hashtab_ops *ops, void *arg);
/* The same with a fixed seed, for tests that need the same layout every run. */
void pm_hashtab__init_seeded(struct pm_hashtab *t, const struct pm_hashtab_ops *ops, void *arg,
			     uint64_t seed);
void pm_hashtab__exit(struct pm_hashtab *t);

/*
 * Hashes under the table's current seed (the slot is hash & mask).  The
 * word hashes are inline: keys of many words (call stacks) fold one per word.
 */
static inline uint64_t pm_hashtab__hash_u64(const struct pm_hashtab *t, uint64_t x)
{
	return pm_mix64(x ^ t->seed[0]);
}

/* Folds one more word into h, for keys made of several fields. */
static inline uint64_t pm_hashtab__hash_more(const struct pm_hashtab *t, uint64_t h, uint64_t x)
{
	return pm_mix64(h ^ x ^ t->seed[1]);
}

uint64_t pm_hashtab__hash_bytes(const struct pm_hashtab *t, const void *p, size_t n);

/*
 * Integer keys.  find tells whether key is there, and its value in *val
 * (val may be NULL).  insert adds an absent key: 0, -EEXIST, -EINVAL (val
 * PM_HASHTAB_FREE) or -ENOMEM.  delete: 0 or -ENOENT.
 */
bool pm_hashtab__find_int(const struct pm_hashtab *t, uint64_t key, uint64_t *val);
int pm_hashtab__insert_int(struct pm_hashtab *t, uint64_t key, uint64_t val);
int pm_hashtab__delete_int(struct pm_hashtab *t, uint64_t key);

/*
 * Caller-held keys: h is the key's hash from pm_hashtab__hash_*.  find as
 * above.  insert adds val, whose key must be absent (the caller has just
 * looked) and already reachable through ops->hash (a re-seed rehashes it):
 * 0, -EINVAL or -ENOMEM.  delete: 0 or -ENOENT.
 */
bool pm_hashtab__find(const struct pm_hashtab *t, uint64_t h, const void *key, uint64_t *val);
int pm_hashtab__insert(struct pm_hashtab *t, uint64_t h, uint64_t val);
int pm_hashtab__delete(struct pm_hashtab *t, uint64_t h, const void *key);

/*
 * Every entry in slot order (not insertion order): start with *pos = 0;
 * false at the end.  key gets the integer key, or the hash of the caller's.
 */
bool pm_hashtab__next(const struct pm_hashtab *t, size_t *pos, uint64_t *key, uint64_t *val);

static inline size_t pm_hashtab__count(const struct pm_hashtab *t)
{
	return t->nr;
}

#endif
