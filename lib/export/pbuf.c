// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/pbuf.h"

int pm_pb__varint(struct pm_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return pm_buf__append(b, tmp, n);
}

static int pb__key(struct pm_buf *b, uint32_t field, unsigned wire)
{
	return pm_pb__varint(b, (uint64_t)field << 3 | wire);
}

int pm_pb__uint(struct pm_buf *b, uint32_t field, uint64_t v)
{
	if (!v)
		return 0;
	return pb__key(b, field, PM_PB_VARINT) ?: pm_pb__varint(b, v);
}

int pm_pb__int(struct pm_buf *b, uint32_t field, int64_t v)
{
	return pm_pb__uint(b, field, (uint64_t)v);
}

int pm_pb__bool(struct pm_buf *b, uint32_t field, bool v)
{
	return pm_pb__uint(b, field, v);
}

int pm_pb__bytes(struct pm_buf *b, uint32_t field, const void *p, size_t n)
{
	return pb__key(b, field, PM_PB_LEN) ?: pm_pb__varint(b, n) ?: pm_buf__append(b, p, n);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

int pm_pb__packed(struct pm_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t i, len = 0;
	int err;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		len += varint_len(v[i]);
	err = pb__key(b, field, PM_PB_LEN) ?: pm_pb__varint(b, len);
	for (i = 0; i < n && !err; i++)
		err = pm_pb__varint(b, v[i]);
	return err;
}
