// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/folded.h"
#include "base/hashtab.h"
#include "base/utf8.h"

/* Stacks in the order first seen; the table finds them by their bytes. */
struct pm_folded {
	struct pm_folded_entry *nodes;
	size_t nr, cap;
	struct pm_hashtab tab;		/* stack -> index in nodes */
	struct pm_folded_entry *sorted;
};

int pm_folded__append_name(struct pm_buf *stack, const char *name, size_t n)
{
	bool cut = n > PM_FOLDED_NAME_MAX;
	size_t keep = cut ? PM_FOLDED_NAME_MAX - 3 : n, i, j, k, run, bad;
	unsigned char *p = pm_buf__alloc(stack, cut ? PM_FOLDED_NAME_MAX : n);

	if (!p)
		return -ENOMEM;
	/* Each unsafe sequence becomes one '?': the name may only shrink. */
	for (i = 0, j = 0; i < keep; i += run + bad) {
		run = pm_utf8__safe_run(name + i, keep - i, false, &bad);
		for (k = 0; k < run; k++)
			p[j++] = name[i + k] == ';' ? ':' : name[i + k];
		if (bad)
			p[j++] = '?';
	}
	if (cut) {
		memcpy(p + j, "...", 3);
		j += 3;
	}
	stack->len -= (cut ? PM_FOLDED_NAME_MAX : n) - j;
	return 0;
}

static uint64_t node_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct pm_folded_entry *e = &((struct pm_folded *)arg)->nodes[val];

	return pm_hashtab__hash_bytes(t, e->stack, e->len);
}

/* key: a pm_folded_entry whose stack and len are set. */
static bool node_equal(uint64_t val, const void *key, void *arg)
{
	const struct pm_folded_entry *e = &((struct pm_folded *)arg)->nodes[val], *k = key;

	return e->len == k->len && !memcmp(e->stack, k->stack, k->len);
}

static const struct pm_hashtab_ops node_ops = { .hash = node_hash, .equal = node_equal };

struct pm_folded *pm_folded__new(void)
{
	struct pm_folded *f = calloc(1, sizeof(struct pm_folded));

	if (f)
		pm_hashtab__init(&f->tab, &node_ops, f);
	return f;
}

void pm_folded__delete(struct pm_folded *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++)
		free((char *)f->nodes[i].stack);
	free(f->nodes);
	pm_hashtab__exit(&f->tab);
	free(f->sorted);
	free(f);
}

int pm_folded__add(struct pm_folded *f, const char *stack, size_t len, uint64_t weight)
{
	struct pm_folded_entry key = { .stack = stack, .len = len }, *n;
	uint64_t h = pm_hashtab__hash_bytes(&f->tab, stack, len), id;
	char *copy;
	int err;

	if (pm_hashtab__find(&f->tab, h, &key, &id)) {
		f->nodes[id].weight += weight;
		return 0;
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
	f->nodes[f->nr] = (struct pm_folded_entry){ copy, len, weight };
	err = pm_hashtab__insert(&f->tab, h, f->nr);
	if (err) {
		free(copy);
		return err;
	}
	f->nr++;
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
	free(f->sorted);
	f->sorted = malloc((f->nr ? f->nr : 1) * sizeof(*f->sorted));
	*out = f->sorted;
	if (!f->sorted)
		return 0;
	/* No stack yet: no nodes array either (NULL, which memcpy may not take). */
	if (f->nr)
		memcpy(f->sorted, f->nodes, f->nr * sizeof(*f->sorted));
	qsort(f->sorted, f->nr, sizeof(*f->sorted), entry__cmp);
	return f->nr;
}
