// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"

int pm_units__parse_size(const char *s, uint64_t *bytes, bool *suffixed)
{
	unsigned long long v;
	unsigned int shift;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case '\0': shift = 0; break;
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	default: return -EINVAL;
	}
	if (shift && end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))
		return -EINVAL;
	if (v > (1ULL << 62) >> shift)
		return -EINVAL;
	*bytes = (uint64_t)v << shift;
	*suffixed = shift != 0;
	return 0;
}
