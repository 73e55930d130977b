/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_HASH_H
#define PMREC_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A 64-bit finalizer (every input bit moves every output bit), for hash tables. */
static inline uint64_t pm_mix64(uint64_t x)
{
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	return x;
}

/*
 * A hash that is the same in every run (FNV-1a, then mixed), for values
 * that must not change between runs (a flame graph's colour of a name, so
 * that two graphs compare), never for a table: keys chosen to collide
 * would make it slow (tables are pm_hashtab's, seeded).
 */
static inline uint64_t pm_hash__stable(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return pm_mix64(h);
}

#endif
