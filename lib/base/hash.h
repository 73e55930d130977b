/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_HASH_H
#define PMREC_HASH_H

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

#endif
