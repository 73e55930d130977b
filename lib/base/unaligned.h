/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_UNALIGNED_H
#define PMREC_UNALIGNED_H

/*
 * Fields of a record body at any byte offset: bodies from a file may be
 * misaligned for their fields (memcpy, not a cast: UBSan and strict CPUs).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t rd16(const unsigned char *p, size_t off)
{
	uint16_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint32_t rd32(const unsigned char *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint64_t rd64(const unsigned char *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

#endif
