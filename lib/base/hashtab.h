/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_HASHTAB_H
#define PMREC_HASHTAB_H

/*
 * The one hash table of lib/: open addressing with linear probing, at most
 * half full.  Two kinds of table:
 *  - integer keys: a 64-bit key and a 64-bit value (an index or a pointer)
 *    in each 16-byte slot, so a lookup touches nothing else;
 *  - keys the caller holds (bytes, a struct) in an array of its own: each
 *    8-byte slot keeps 32 bits of the key's hash and the entry's 32-bit
 *    index, and a lookup asks the caller to compare keys only when those
 *    32 bits match.
 *
 * The hostile-input rule, for every table: keys come from input files, so
 * they may be chosen to collide.  Every table hashes with a seed of its own,
 * random (getrandom) unless a test fixes it, so nobody can tell in advance
 * which keys share a slot; and no run of used slots (what a lookup may
 * walk) may grow past PM_HASHTAB_MAX_PROBE: an insert that would make one
 * longer first rebuilds the table, doubling it if it is at least a quarter
 * full, otherwise at the same size under a new seed.  A guessed seed thus
 * buys one rebuild, not a quadratic run.  After PM_HASHTAB_MAX_REBUILDS
 * rebuilds in one insert (only a hash that ignores the seed gets there)
 * the entry goes in anyway: slower, never wrong.
 *
 * Iteration runs in slot order, which depends on the seed: a caller whose
 * output follows its entries keeps them in an array of its own (insertion
 * order) and uses the table only to find them.
 *
 * No allocation per entry: one array of slots, grown by doubling.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"

/*
 * Random keys at half load make runs of about 5 ln(entries) slots at the
 * longest (under 100 at 100 million entries): the bound fires for keys
 * chosen to collide, not for large tables.
 */
#define PM_HASHTAB_MAX_PROBE 128
#define PM_HASHTAB_MAX_REBUILDS 4
/*
 * The one value an integer-keyed entry cannot hold (a slot keeps value + 1,
 * and 0 is free); with caller-held keys, values are below UINT32_MAX.
 */
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

/* Value + 1, 0 for a free slot: calloc'd slots are free. */
struct pm_hashtab_slot {
	uint64_t key;
	uint64_t val1;
};

struct pm_hashtab_hslot {
	uint32_t hash;		/* the low 32 bits of the key's hash */
	uint32_t val1;
};

struct pm_hashtab {
	union {
		struct pm_hashtab_slot *slot;	/* integer keys */
		struct pm_hashtab_hslot *hslot;	/* caller-held keys */
	};
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
 * above.  insert adds val (below UINT32_MAX), whose key must be absent (the
 * caller has just looked) and already reachable through ops->hash (a
 * re-seed rehashes it): 0, -EINVAL or -ENOMEM.  delete: 0 or -ENOENT.
 */
bool pm_hashtab__find(const struct pm_hashtab *t, uint64_t h, const void *key, uint64_t *val);
int pm_hashtab__insert(struct pm_hashtab *t, uint64_t h, uint64_t val);
int pm_hashtab__delete(struct pm_hashtab *t, uint64_t h, const void *key);

/*
 * Every entry in slot order (not insertion order): start with *pos = 0;
 * false at the end; the entry was in slot *pos - 1.  key gets the integer
 * key, or 32 bits of the hash of the caller's.
 */
bool pm_hashtab__next(const struct pm_hashtab *t, size_t *pos, uint64_t *key, uint64_t *val);

static inline size_t pm_hashtab__count(const struct pm_hashtab *t)
{
	return t->nr;
}

#endif
