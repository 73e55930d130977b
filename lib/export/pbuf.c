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

/* ---- key table ---- */

/* What a lookup compares with the stored keys. */
struct pb_key {
	const void *p;
	size_t n;
};

static uint64_t keys__hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	size_t n;
	const void *p = pm_pb_keys__key(arg, id, &n);

	return pm_hashtab__hash_bytes(t, p, n);
}

static bool keys__equal(uint64_t id, const void *key, void *arg)
{
	const struct pb_key *k = key;
	size_t n;
	const void *p = pm_pb_keys__key(arg, id, &n);

	return n == k->n && !memcmp(p, k->p, n);
}

static const struct pm_hashtab_ops keys_ops = { .hash = keys__hash, .equal = keys__equal };

void pm_pb_keys__init(struct pm_pb_keys *k)
{
	*k = (struct pm_pb_keys){ 0 };
	pm_hashtab__init(&k->tab, &keys_ops, k);
}

void pm_pb_keys__exit(struct pm_pb_keys *k)
{
	pm_buf__exit(&k->bytes);
	free(k->off);
	pm_hashtab__exit(&k->tab);
	*k = (struct pm_pb_keys){ 0 };
}

const void *pm_pb_keys__key(const struct pm_pb_keys *k, uint64_t id, size_t *n)
{
	*n = k->off[id + 1] - k->off[id];
	/* An empty first key leaves no buffer behind it. */
	return k->bytes.data ? k->bytes.data + k->off[id] : (const void *)"";
}

int pm_pb_keys__intern(struct pm_pb_keys *k, const void *p, size_t n, uint64_t *id, bool *added)
{
	uint64_t h;

	*added = false;
	/* An empty key may come as NULL (an empty pm_buf): no pointer for memcmp to see. */
	if (!n)
		p = "";
	if (k->nr >= UINT32_MAX / 2)
		return -ENOMEM;
	h = pm_hashtab__hash_bytes(&k->tab, p, n);
	if (pm_hashtab__find(&k->tab, h, &(struct pb_key){ .p = p, .n = n }, id))
		return 0;
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
	if (pm_hashtab__insert(&k->tab, h, k->nr)) {
		k->bytes.len = k->off[k->nr];
		return -ENOMEM;
	}
	*id = k->nr++;
	*added = true;
	return 0;
}
