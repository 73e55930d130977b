// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/intern.h"

/* Keys share blocks of this size; a longer one has a block of its own. */
#define INTERN_BLOCK 65536

static uint64_t intern__hash(const struct pm_hashtab *t, uint64_t id, void *arg)
{
	const struct pm_intern_key *k = &((const struct pm_intern *)arg)->keys[id];

	return pm_hashtab__hash_bytes(t, k->s, k->len);
}

static bool intern__equal(uint64_t id, const void *key, void *arg)
{
	const struct pm_intern_key *e = &((const struct pm_intern *)arg)->keys[id];
	const struct pm_intern_key *k = key;

	return e->len == k->len && !memcmp(e->s, k->s, k->len);
}

static const struct pm_hashtab_ops intern_ops = { .hash = intern__hash, .equal = intern__equal };

void pm_intern__init(struct pm_intern *in)
{
	*in = (struct pm_intern){ 0 };
	pm_hashtab__init(&in->tab, &intern_ops, in);
}

void pm_intern__exit(struct pm_intern *in)
{
	size_t i;

	for (i = 0; i < in->nr_blocks; i++)
		free(in->blocks[i]);
	free(in->blocks);
	free(in->keys);
	pm_hashtab__exit(&in->tab);
	*in = (struct pm_intern){ 0 };
}

/* Room for n bytes that will not move. */
static char *intern__alloc(struct pm_intern *in, size_t n)
{
	size_t size = n > INTERN_BLOCK ? n : INTERN_BLOCK;
	char *b;

	if (n <= in->left) {
		b = in->free;
		in->free += n;
		in->left -= n;
		return b;
	}
	if (pm_array__grow((void **)&in->blocks, &in->cap_blocks, in->nr_blocks,
			   sizeof(*in->blocks)))
		return NULL;
	b = malloc(size);
	if (!b)
		return NULL;
	in->blocks[in->nr_blocks++] = b;
	/* A key longer than a block leaves the last block's room as it was. */
	if (size > n) {
		in->free = b + n;
		in->left = size - n;
	}
	return b;
}

int pm_intern__id(struct pm_intern *in, const void *p, size_t n, uint32_t *id, bool *added)
{
	/* An empty key may come as NULL (an empty pm_buf): no pointer for memcmp to see. */
	struct pm_intern_key k = { .s = n ? p : "", .len = (uint32_t)n };
	uint64_t h, found;
	char *copy;

	if (added)
		*added = false;
	if (n >= UINT32_MAX || in->nr >= UINT32_MAX / 2)
		return -ENOMEM;
	h = pm_hashtab__hash_bytes(&in->tab, k.s, n);
	if (pm_hashtab__find(&in->tab, h, &k, &found)) {
		*id = (uint32_t)found;
		return 0;
	}
	if (pm_array__grow((void **)&in->keys, &in->cap, in->nr, sizeof(*in->keys)))
		return -ENOMEM;
	/* Each key starts 8-aligned: keys made of words (pprof's) are read back as words. */
	copy = intern__alloc(in, (n + 8) & ~(size_t)7);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, k.s, n);
	copy[n] = '\0';
	in->keys[in->nr] = (struct pm_intern_key){ .s = copy, .len = (uint32_t)n };
	/* The bytes copied stay unused if this fails: the next key goes after them. */
	if (pm_hashtab__insert(&in->tab, h, in->nr))
		return -ENOMEM;
	*id = (uint32_t)in->nr++;
	if (added)
		*added = true;
	return 0;
}
