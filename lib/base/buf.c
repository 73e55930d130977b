// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

int pm_buf__reserve(struct pm_buf *b, size_t extra)
{
	size_t need, cap;
	unsigned char *p;

	if (extra > SIZE_MAX - b->len)
		return -ENOMEM;
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

void *pm_buf__alloc(struct pm_buf *b, size_t n)
{
	void *p;

	/*
	 * At least one byte: an empty buffer has no data pointer, and NULL
	 * means ENOMEM (nor may memset or pointer arithmetic see NULL).
	 */
	if (pm_buf__reserve(b, n ? n : 1)) {
		errno = ENOMEM;
		return NULL;
	}
	p = b->data + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

int pm_buf__append(struct pm_buf *b, const void *p, size_t n)
{
	void *dst = pm_buf__alloc(b, n);

	if (!dst)
		return -ENOMEM;
	if (n)
		memcpy(dst, p, n);
	return 0;
}

int pm_buf__append_u32(struct pm_buf *b, uint32_t v)
{
	return pm_buf__append(b, &v, sizeof(v));
}

int pm_buf__append_u64(struct pm_buf *b, uint64_t v)
{
	return pm_buf__append(b, &v, sizeof(v));
}

int pm_buf__pad(struct pm_buf *b, size_t align)
{
	size_t rem = b->len & (align - 1);

	if (!rem)
		return 0;
	return pm_buf__alloc(b, align - rem) ? 0 : -ENOMEM;
}

int pm_buf__append_perf_string(struct pm_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t len = (uint32_t)((n + 63) & ~(size_t)63);
	unsigned char *p;

	if (pm_buf__append_u32(b, len))
		return -ENOMEM;
	p = pm_buf__alloc(b, len);
	if (!p)
		return -ENOMEM;
	memcpy(p, s, n);
	return 0;
}

void pm_buf__reset(struct pm_buf *b)
{
	b->len = 0;
}

void pm_buf__exit(struct pm_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int pm_array__grow_by(void **arr, size_t *cap, size_t nr, size_t size, pm_resize_fn *resize)
{
	size_t ncap;
	void *n;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	n = resize(*arr, *cap * size, ncap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

static void *array__realloc(void *p, size_t old, size_t bytes)
{
	(void)old;
	return realloc(p, bytes);
}

int pm_array__grow(void **arr, size_t *cap, size_t nr, size_t size)
{
	return pm_array__grow_by(arr, cap, nr, size, array__realloc);
}
