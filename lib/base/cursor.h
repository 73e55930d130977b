/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_READER_CURSOR_H
#define PMREC_READER_CURSOR_H

/*
 * Bounds-checked sequential reads over a byte range that came from a file
 * (feature payloads, tracing data).  Every getter returns 0 or -EBADMSG and
 * never reads past len; pm_cursor__offset() tells where a fault happened.
 * Values may be unaligned.
 */
#include <stddef.h>
#include <stdint.h>

struct pm_cursor {
	const unsigned char *p;
	size_t len;
	size_t pos;
	uint64_t base;		/* file offset of p[0] */
};

static inline void pm_cursor__init(struct pm_cursor *c, const void *p, size_t len,
				   uint64_t base)
{
	*c = (struct pm_cursor){ .p = p, .len = len, .base = base };
}

static inline size_t pm_cursor__left(const struct pm_cursor *c)
{
	return c->len - c->pos;
}

static inline uint64_t pm_cursor__offset(const struct pm_cursor *c)
{
	return c->base + c->pos;
}

int pm_cursor__bytes(struct pm_cursor *c, size_t n, const void **p);
int pm_cursor__u8(struct pm_cursor *c, uint8_t *v);
int pm_cursor__u16(struct pm_cursor *c, uint16_t *v);
int pm_cursor__u32(struct pm_cursor *c, uint32_t *v);
int pm_cursor__u64(struct pm_cursor *c, uint64_t *v);
/*
 * perf header string: u32 len + len bytes.  *s points at the bytes and
 * *slen is the length up to the first NUL (not terminated if none).
 */
int pm_cursor__perf_string(struct pm_cursor *c, const char **s, size_t *slen);
/* NUL-terminated string; *slen excludes the NUL, which is consumed. */
int pm_cursor__cstring(struct pm_cursor *c, const char **s, size_t *slen);

#endif
