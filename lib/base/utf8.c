// SPDX-License-Identifier: GPL-2.0
#include "base/utf8.h"

size_t pm_utf8__len(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static bool utf8__unsafe(uint32_t c, bool tab)
{
	return (c < 0x20 && !(tab && c == '\t')) || (c >= 0x7f && c <= 0x9f) ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

size_t pm_utf8__safe_run(const char *s, size_t n, bool tab, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;
	uint32_t c;

	while (i < n) {
		/* Printable ASCII, the common case, without decoding. */
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			i++;
			continue;
		}
		len = pm_utf8__len(p + i, n - i, &c);
		if (!len || utf8__unsafe(c, tab)) {
			*bad = len ? len : 1;
			return i;
		}
		i += len;
	}
	*bad = 0;
	return i;
}
