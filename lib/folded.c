// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "folded.h"

struct folded_node {
	struct pm_folded_entry e;
	uint64_t hash;
};

struct pm_folded {
	struct folded_node *nodes;
	size_t nr, cap;
	uint32_t *slot;			/* index + 1, 0 free; at most half full */
	size_t mask;
	uint64_t seed;
	struct pm_folded_entry *sorted;
};

int pm_folded__append_name(struct pm_buf *stack, const char *name, size_t n)
{
	bool cut = n > PM_FOLDED_NAME_MAX;
	unsigned char *p;
	size_t i;

	if (cut)
		n = PM_FOLDED_NAME_MAX;
	p = pm_buf__alloc(stack, n);
	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		p[i] = c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : c;
	}
	if (cut)
		memcpy(p + n - 3, "...", 3);
	return 0;
}

/*
 * FNV-1a from a random start: the stacks come from the input, which must
 * not be able to choose colliding ones.
 */
static uint64_t hash_bytes(uint64_t seed, const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

struct pm_folded *pm_folded__new(void)
{
	struct pm_folded *f = calloc(1, sizeof(struct pm_folded));

	if (f && getrandom(&f->seed, sizeof(f->seed), GRND_NONBLOCK) != sizeof(f->seed))
		f->seed = (uint64_t)(uintptr_t)f ^ (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
	return f;
}

void pm_folded__delete(struct pm_folded *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++)
		free((char *)f->nodes[i].e.stack);
	free(f->nodes);
	free(f->slot);
	free(f->sorted);
	free(f);
}

static int folded__rehash(struct pm_folded *f)
{
	size_t cap = f->slot ? (f->mask + 1) * 2 : 1024, i, s;
	uint32_t *slot;

	if (f->nr >= UINT32_MAX / 2)
		return -ENOMEM;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (i = 0; i < f->nr; i++) {
		for (s = f->nodes[i].hash & (cap - 1); slot[s]; s = (s + 1) & (cap - 1))
			;
		slot[s] = (uint32_t)(i + 1);
	}
	free(f->slot);
	f->slot = slot;
	f->mask = cap - 1;
	return 0;
}

int pm_folded__add(struct pm_folded *f, const char *stack, size_t len, uint64_t weight)
{
	uint64_t h = hash_bytes(f->seed, stack, len);
	struct folded_node *n;
	char *copy;
	size_t s;

	if (!f->slot || (f->nr + 1) * 2 > f->mask + 1) {
		if (folded__rehash(f))
			return -ENOMEM;
	}
	for (s = h & f->mask; f->slot[s]; s = (s + 1) & f->mask) {
		n = &f->nodes[f->slot[s] - 1];
		if (n->hash == h && n->e.len == len && !memcmp(n->e.stack, stack, len)) {
			n->e.weight += weight;
			return 0;
		}
	}
	if (f->nr == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 256;

		n = realloc(f->nodes, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		f->nodes = n;
		f->cap = cap;
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, stack, len);
	f->nodes[f->nr] = (struct folded_node){ .e = { copy, len, weight }, .hash = h };
	f->slot[s] = (uint32_t)++f->nr;
	return 0;
}

static int entry__cmp(const void *a, const void *b)
{
	const struct pm_folded_entry *x = a, *y = b;
	int c = memcmp(x->stack, y->stack, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

size_t pm_folded__sorted(struct pm_folded *f, const struct pm_folded_entry **out)
{
	size_t i;

	free(f->sorted);
	f->sorted = malloc((f->nr ? f->nr : 1) * sizeof(*f->sorted));
	*out = f->sorted;
	if (!f->sorted)
		return 0;
	for (i = 0; i < f->nr; i++)
		f->sorted[i] = f->nodes[i].e;
	qsort(f->sorted, f->nr, sizeof(*f->sorted), entry__cmp);
	return f->nr;
}
