/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_UNITS_H
#define PMREC_UNITS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A byte size as options take it: decimal digits, optionally followed by
 * K, M or G (powers of 1024, either case) and then "B" or "iB".  A bare
 * number is *bytes with *suffixed false, so that callers can give it their
 * own unit (pages for -m).  0 or -EINVAL (no digits, a sign, junk, or more
 * than 2^62 bytes).
 */
int pm_units__parse_size(const char *s, uint64_t *bytes, bool *suffixed);

#endif
