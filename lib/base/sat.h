/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SAT_H
#define PMREC_SAT_H

#include <stdint.h>

/* Periods and weights add up saturated: hostile ones must not wrap to small sums. */
static inline void pm_add_sat(uint64_t *a, uint64_t b)
{
	if (__builtin_add_overflow(*a, b, a))
		*a = UINT64_MAX;
}

#endif
