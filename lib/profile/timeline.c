// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "base/sat.h"
#include "profile/timeline.h"

/* Past this, every time of 64 bits falls in one column: no doubling helps. */
#define MAX_SHIFT 62

struct pm_timeline {
	uint32_t max_columns;
	bool any;
	uint64_t origin;		/* the first sample's time */
	unsigned int shift;		/* columns are 1 << shift ns */
	int64_t lo, hi;			/* the columns samples fell in */
	struct pm_timeline_entry *e;
	size_t nr, cap;
	struct pm_hashtab tab;		/* (column, node) -> index in e */
	int err;
};

struct key {
	int64_t column;
	uint32_t node;
};

static uint64_t key_hash(const struct pm_hashtab *t, int64_t column, uint32_t node)
{
	return pm_hashtab__hash_more(t, pm_hashtab__hash_u64(t, (uint64_t)column), node);
}

static uint64_t entry_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	const struct pm_timeline *tl = arg;

	return key_hash(t, tl->e[val].column, tl->e[val].node);
}

static bool entry_equal(uint64_t val, const void *key, void *arg)
{
	const struct pm_timeline *tl = arg;
	const struct key *k = key;

	return tl->e[val].column == k->column && tl->e[val].node == k->node;
}

static const struct pm_hashtab_ops entry_ops = { .hash = entry_hash, .equal = entry_equal };

struct pm_timeline *pm_timeline__new(uint32_t max_columns)
{
	struct pm_timeline *t;

	if (max_columns < PM_TIMELINE_COLUMNS_MIN || max_columns > PM_TIMELINE_COLUMNS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->max_columns = max_columns;
	pm_hashtab__init(&t->tab, &entry_ops, t);
	return t;
}

void pm_timeline__delete(struct pm_timeline *t)
{
	if (!t)
		return;
	pm_hashtab__exit(&t->tab);
	free(t->e);
	free(t);
}

/* floor(d / 2^shift), for negative d too. */
static int64_t floor_shift(int64_t d, unsigned int shift)
{
	return d >= 0 ? d >> shift : -(int64_t)((uint64_t)(-(d + 1)) >> shift) - 1;
}

static int64_t column_of(const struct pm_timeline *t, uint64_t time)
{
	/* Times within 2^63 ns of each other: a difference of two's complement. */
	return floor_shift((int64_t)(time - t->origin), t->shift);
}

/* The entry of (column, node), made empty if new; NULL on ENOMEM. */
static struct pm_timeline_entry *timeline__slot(struct pm_timeline *t, int64_t column,
						uint32_t node)
{
	uint64_t h = key_hash(&t->tab, column, node), found;

	if (pm_hashtab__find(&t->tab, h, &(struct key){ .column = column, .node = node }, &found))
		return &t->e[found];
	if (t->nr >= UINT32_MAX - 1 || pm_array__grow((void **)&t->e, &t->cap, t->nr, sizeof(*t->e)))
		return NULL;
	t->e[t->nr] = (struct pm_timeline_entry){ .column = column, .node = node };
	if (pm_hashtab__insert(&t->tab, h, t->nr))
		return NULL;
	return &t->e[t->nr++];
}

/* Columns twice as wide: each pair of entries of one node merged into one. */
static int timeline__double(struct pm_timeline *t)
{
	struct pm_timeline_entry *old = t->e, *e;
	size_t nr = t->nr, i;

	t->shift++;
	t->lo = floor_shift(t->lo, 1);
	t->hi = floor_shift(t->hi, 1);
	t->e = NULL;
	t->nr = t->cap = 0;
	pm_hashtab__exit(&t->tab);
	pm_hashtab__init(&t->tab, &entry_ops, t);
	for (i = 0; i < nr; i++) {
		e = timeline__slot(t, floor_shift(old[i].column, 1), old[i].node);
		if (!e) {
			free(old);
			return -ENOMEM;
		}
		pm_add_sat(&e->samples, old[i].samples);
		pm_add_sat(&e->period, old[i].period);
	}
	free(old);
	return 0;
}

void pm_timeline__observe(void *arg, uint32_t node, uint64_t time, uint64_t samples,
			  uint64_t period)
{
	struct pm_timeline *t = arg;
	struct pm_timeline_entry *e;
	int64_t c;

	if (t->err)
		return;
	if (!t->any) {
		t->any = true;
		t->origin = time;
	}
	c = column_of(t, time);
	while (t->shift < MAX_SHIFT &&
	       (c > t->hi ? c : t->hi) - (c < t->lo ? c : t->lo) >= (int64_t)t->max_columns) {
		if ((t->err = timeline__double(t)))
			return;
		c = column_of(t, time);
	}
	t->lo = c < t->lo ? c : t->lo;
	t->hi = c > t->hi ? c : t->hi;
	e = timeline__slot(t, c, node);
	if (!e) {
		t->err = -ENOMEM;
		return;
	}
	pm_add_sat(&e->samples, samples);
	pm_add_sat(&e->period, period);
}

int pm_timeline__error(const struct pm_timeline *t)
{
	return t->err;
}

size_t pm_timeline__nr_entries(const struct pm_timeline *t)
{
	return t->nr;
}

void pm_timeline__entry(const struct pm_timeline *t, size_t i, struct pm_timeline_entry *e)
{
	*e = t->e[i];
}

uint64_t pm_timeline__column_width(const struct pm_timeline *t)
{
	return 1ULL << t->shift;
}

uint64_t pm_timeline__column_start(const struct pm_timeline *t, int64_t column)
{
	/* Modular: a negative column lies before the origin. */
	return t->origin + ((uint64_t)column << t->shift);
}
