/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CACHE_H
#define PMREC_CACHE_H

/*
 * Direct-mapped caches: an array of 1 << bits entries of the caller's type,
 * where a key may live in one slot only and a new key evicts the old one.
 * The caller keeps the whole key in its entry and compares it, so a
 * collision costs a recomputation, never a wrong answer, and no output
 * depends on what the cache kept.  A table that must keep every key is a
 * pm_hashtab (hashtab.h).
 *
 * The key's hash is the caller's fields mixed by pm_cache__mix; the slot is
 * the top bits of a multiplicative hash of it, which depend on every bit.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"

/* The hash of a key of two words (fold more by nesting calls). */
static inline uint64_t pm_cache__mix(uint64_t a, uint64_t b)
{
	return pm_mix64(a ^ pm_mix64(b));
}

/*
 * The hash of n words and a seed, for a key that is an array (a call
 * chain): two lanes of one multiply per word, mixed at the end.  A full
 * mix per word, each waiting for the last, cost report a tenth of its
 * consumers' thread.  Weak for a table, enough for a cache: a collision
 * costs a recomputation.
 */
static inline uint64_t pm_cache__hash_words(const uint64_t *w, size_t n, uint64_t seed)
{
	uint64_t a = seed, b = n;
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		a = (a ^ w[i]) * 0x9e3779b97f4a7c15ULL;
		b = (b ^ w[i + 1]) * 0xc2b2ae3d27d4eb4fULL;
		a ^= a >> 29;
		b ^= b >> 29;
	}
	if (i < n)
		a = (a ^ w[i]) * 0x9e3779b97f4a7c15ULL;
	return pm_cache__mix(a, b);
}

/* The slot of hash h in a cache of 1 << bits entries (0 < bits < 64). */
static inline size_t pm_cache__slot(uint64_t h, unsigned int bits)
{
	return (size_t)((h * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

#endif
