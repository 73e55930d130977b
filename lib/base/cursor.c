// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "base/cursor.h"

int pm_cursor__bytes(struct pm_cursor *c, size_t n, const void **p)
{
	if (n > pm_cursor__left(c))
		return -EBADMSG;
	*p = c->p + c->pos;
	c->pos += n;
	return 0;
}

/* Fixed-size getters copy, as feature payloads are often unaligned. */
static int cursor__copy(struct pm_cursor *c, void *dst, size_t n)
{
	const void *p;
	int err = pm_cursor__bytes(c, n, &p);

	if (!err)
		memcpy(dst, p, n);
	return err;
}

int pm_cursor__u8(struct pm_cursor *c, uint8_t *v)
{
	return cursor__copy(c, v, sizeof(*v));
}

int pm_cursor__u16(struct pm_cursor *c, uint16_t *v)
{
	return cursor__copy(c, v, sizeof(*v));
}

int pm_cursor__u32(struct pm_cursor *c, uint32_t *v)
{
	return cursor__copy(c, v, sizeof(*v));
}

int pm_cursor__u64(struct pm_cursor *c, uint64_t *v)
{
	return cursor__copy(c, v, sizeof(*v));
}

int pm_cursor__perf_string(struct pm_cursor *c, const char **s, size_t *slen)
{
	size_t start = c->pos;
	uint32_t len;
	const void *p;

	if (pm_cursor__u32(c, &len) || pm_cursor__bytes(c, len, &p)) {
		c->pos = start;
		return -EBADMSG;
	}
	*s = p;
	*slen = strnlen(p, len);
	return 0;
}

int pm_cursor__cstring(struct pm_cursor *c, const char **s, size_t *slen)
{
	const unsigned char *start, *nul;

	if (!pm_cursor__left(c))
		return -EBADMSG;
	start = c->p + c->pos;
	nul = memchr(start, '\0', pm_cursor__left(c));
	if (!nul)
		return -EBADMSG;
	*s = (const char *)start;
	*slen = (size_t)(nul - start);
	c->pos += *slen + 1;
	return 0;
}
