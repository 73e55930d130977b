// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "hash.h"
#include "pbuf.h"

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

/* ---- key table ---- */

static uint64_t keys__hash(const struct pm_pb_keys *k, const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = k->seed ^ (n * 0x9e3779b97f4a7c15ULL), w;

	for (; n >= 8; c += 8, n -= 8) {
		memcpy(&w, c, 8);
		h = pm_mix64(h ^ w);
	}
	w = 0;
	memcpy(&w, c, n);
	return pm_mix64(h ^ w ^ k->seed);
}

void pm_pb_keys__init(struct pm_pb_keys *k)
{
	struct timespec ts;

	*k = (struct pm_pb_keys){ 0 };
	if (getrandom(&k->seed, sizeof(k->seed), GRND_NONBLOCK) == sizeof(k->seed))
		return;
	/* No entropy yet (early boot): the clock still varies per run. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	k->seed = pm_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32));
}

void pm_pb_keys__exit(struct pm_pb_keys *k)
{
	pm_buf__exit(&k->bytes);
	free(k->off);
	free(k->slot);
	*k = (struct pm_pb_keys){ 0 };
}

const void *pm_pb_keys__key(const struct pm_pb_keys *k, uint64_t id, size_t *n)
{
	*n = k->off[id + 1] - k->off[id];
	/* An empty first key leaves no buffer behind it. */
	return k->bytes.data ? k->bytes.data + k->off[id] : (const void *)"";
}

static int keys__grow(struct pm_pb_keys *k)
{
	size_t cap = k->slot ? (k->mask + 1) * 2 : 256, i, s, n;
	uint32_t *slot = calloc(cap, sizeof(*slot));
	const void *p;

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < k->nr; i++) {
		p = pm_pb_keys__key(k, i, &n);
		for (s = keys__hash(k, p, n) & (cap - 1); slot[s]; s = (s + 1) & (cap - 1))
			;
		slot[s] = (uint32_t)i + 1;
	}
	free(k->slot);
	k->slot = slot;
	k->mask = cap - 1;
	return 0;
}

int pm_pb_keys__intern(struct pm_pb_keys *k, const void *p, size_t n, uint64_t *id, bool *added)
{
	size_t s, len;
	const void *e;

	*added = false;
	/* An empty key may come as NULL (an empty pm_buf): no pointer for memcmp to see. */
	if (!n)
		p = "";
	if (k->nr >= UINT32_MAX / 2)
		return -ENOMEM;
	if ((k->nr + 1) * 2 > (k->slot ? k->mask + 1 : 0) && keys__grow(k))
		return -ENOMEM;
	for (s = keys__hash(k, p, n) & k->mask; k->slot[s]; s = (s + 1) & k->mask) {
		e = pm_pb_keys__key(k, k->slot[s] - 1, &len);
		if (len == n && !memcmp(e, p, n)) {
			*id = k->slot[s] - 1;
			return 0;
		}
	}
	/* off has nr + 2 entries: the new key's start and end. */
	if (k->nr + 2 > k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 256;
		size_t *off = realloc(k->off, cap * sizeof(*off));

		if (!off)
			return -ENOMEM;
		k->off = off;
		k->cap = cap;
	}
	if (pm_buf__append(&k->bytes, p, n))
		return -ENOMEM;
	if (!k->nr)
		k->off[0] = 0;
	k->off[k->nr + 1] = k->bytes.len;
	k->slot[s] = (uint32_t)k->nr + 1;
	*id = k->nr++;
	*added = true;
	return 0;
}
