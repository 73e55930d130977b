// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "hash.h"
#include "hashtab.h"

#define MIN_SLOTS 16
#define K0 0x9e3779b97f4a7c15ULL
#define K1 0xbf58476d1ce4e5b9ULL
#define K2 0x94d049bb133111ebULL

static void seed__random(uint64_t seed[2])
{
	struct timespec ts;

	if (getrandom(seed, 2 * sizeof(*seed), GRND_NONBLOCK) == 2 * sizeof(*seed))
		return;
	/* No entropy yet (early boot): the clock and the heap layout still vary per run. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed[0] = pm_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uintptr_t)seed);
	seed[1] = pm_mix64(seed[0] ^ (uintptr_t)&ts);
}

static void hashtab__seed(struct pm_hashtab *t)
{
	if (t->fixed_seed) {
		/* The next seed follows from this one: a test sees the same rebuilds every run. */
		t->seed[0] = pm_mix64(t->seed[0] + K0);
		t->seed[1] = pm_mix64(t->seed[1] + K1);
	} else {
		seed__random(t->seed);
	}
}

void pm_hashtab__init(struct pm_hashtab *t, const struct pm_hashtab_ops *ops, void *arg)
{
	*t = (struct pm_hashtab){ .ops = ops, .arg = arg };
	seed__random(t->seed);
}

void pm_hashtab__init_seeded(struct pm_hashtab *t, const struct pm_hashtab_ops *ops, void *arg,
			     uint64_t seed)
{
	*t = (struct pm_hashtab){ .ops = ops, .arg = arg, .fixed_seed = true };
	t->seed[0] = pm_mix64(seed ^ K2);
	t->seed[1] = pm_mix64(t->seed[0] + K0);
}

void pm_hashtab__exit(struct pm_hashtab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->mask = 0;
	t->nr = 0;
}

/* ---- hashing ---- */

/* The two halves of a 64x64 -> 128-bit product, folded: every input bit reaches the middle. */
static inline uint64_t mul_fold(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	return pm_mix64(a ^ pm_mix64(b));
#endif
}

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static inline uint64_t load32(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/*
 * 16 bytes per multiply, both factors masked by the seed so that nobody
 * who lacks it can steer a factor to zero.  The last 1..16 bytes are read
 * as two (possibly overlapping) words; the length is folded in first, so
 * keys that differ only in trailing zero bytes differ.
 */
uint64_t pm_hashtab__hash_bytes(const struct pm_hashtab *t, const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = t->seed[0] ^ (n * K0), a = 0, b = 0;

	for (; n > 16; c += 16, n -= 16)
		h = mul_fold(load64(c) ^ t->seed[1] ^ K1, load64(c + 8) ^ h);
	if (n >= 8) {
		a = load64(c);
		b = load64(c + n - 8);
	} else if (n >= 4) {
		a = load32(c);
		b = load32(c + n - 4);
	} else if (n) {
		a = (uint64_t)c[0] << 16 | (uint64_t)c[n / 2] << 8 | c[n - 1];
	}
	h = mul_fold(a ^ t->seed[1] ^ K2, b ^ h);
	return pm_mix64(h);
}

/* ---- slots ---- */

/* What a slot holds as key: the integer, or the hash of the caller's key. */
static inline uint64_t slot__hash(const struct pm_hashtab *t, const struct pm_hashtab_slot *s)
{
	return t->ops ? s->key : pm_hashtab__hash_u64(t, s->key);
}

/* The first free slot from h's home on. */
static inline size_t slot__free(const struct pm_hashtab *t, uint64_t h)
{
	size_t i;

	for (i = h & t->mask; t->slot[i].val != PM_HASHTAB_FREE; i = (i + 1) & t->mask)
		;
	return i;
}

/* Moves every entry into nr_slots new slots, under a new seed if reseed. */
static int hashtab__rebuild(struct pm_hashtab *t, size_t nr_slots, bool reseed)
{
	struct pm_hashtab_slot *old = t->slot, *s;
	size_t old_slots = old ? t->mask + 1 : 0, i;

	s = malloc(nr_slots * sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* All bits set: every val is PM_HASHTAB_FREE. */
	memset(s, 0xff, nr_slots * sizeof(*s));
	if (reseed)
		hashtab__seed(t);
	t->slot = s;
	t->mask = nr_slots - 1;
	for (i = 0; i < old_slots; i++) {
		struct pm_hashtab_slot e = old[i];
		uint64_t h;

		if (e.val == PM_HASHTAB_FREE)
			continue;
		if (reseed && t->ops)
			e.key = t->ops->hash(t, e.val, t->arg);
		h = slot__hash(t, &e);
		t->slot[slot__free(t, h)] = e;
	}
	free(old);
	return 0;
}

static const struct pm_hashtab_slot *hashtab__lookup(const struct pm_hashtab *t, uint64_t key,
						     uint64_t h, const void *ext)
{
	const struct pm_hashtab_slot *s;
	size_t i;

	if (!t->slot)
		return NULL;
	for (i = h & t->mask; (s = &t->slot[i])->val != PM_HASHTAB_FREE; i = (i + 1) & t->mask) {
		if (s->key == key && (!t->ops || t->ops->equal(s->val, ext, t->arg)))
			return s;
	}
	return NULL;
}

/* The length of the run of used slots that slot i, free, would join. */
static size_t hashtab__run(const struct pm_hashtab *t, size_t i)
{
	size_t n = 1, j;

	for (j = (i - 1) & t->mask; j != i && t->slot[j].val != PM_HASHTAB_FREE; j = (j - 1) & t->mask)
		n++;
	for (j = (i + 1) & t->mask; j != i && t->slot[j].val != PM_HASHTAB_FREE; j = (j + 1) & t->mask)
		n++;
	return n;
}

/*
 * Places an absent entry, rebuilding first when the table would pass half
 * full or a run of used slots its bound (the hostile-input rule of
 * hashtab.h).  Bounding runs, not just this insert's probe, bounds every
 * lookup: none walks past the end of its run.
 */
static int hashtab__add(struct pm_hashtab *t, uint64_t key, uint64_t val)
{
	size_t slots = t->slot ? t->mask + 1 : 0, i;
	int tries, err;

	if (val == PM_HASHTAB_FREE)
		return -EINVAL;
	if ((t->nr + 1) * 2 > slots) {
		err = hashtab__rebuild(t, slots ? slots * 2 : MIN_SLOTS, false);
		if (err)
			return err;
	}
	for (tries = 0;; tries++) {
		struct pm_hashtab_slot e = { .key = key, .val = val };

		i = slot__free(t, slot__hash(t, &e));
		if (hashtab__run(t, i) <= PM_HASHTAB_MAX_PROBE || tries == PM_HASHTAB_MAX_REBUILDS)
			break;
		slots = t->mask + 1;
		err = t->nr >= slots / 4 ? hashtab__rebuild(t, slots * 2, false) :
					   hashtab__rebuild(t, slots, true);
		if (err)
			return err;
		t->nr_rebuilds++;
		if (t->ops)
			key = t->ops->hash(t, val, t->arg);
	}
	t->slot[i] = (struct pm_hashtab_slot){ .key = key, .val = val };
	t->nr++;
	return 0;
}

/* Backward-shift deletion: the entries after s move up so no probe meets a hole. */
static void hashtab__remove(struct pm_hashtab *t, const struct pm_hashtab_slot *s)
{
	size_t i = (size_t)(s - t->slot), j = i;

	for (;;) {
		j = (j + 1) & t->mask;
		if (t->slot[j].val == PM_HASHTAB_FREE)
			break;
		/* The entry at j may fill the hole at i unless its home lies in (i, j]. */
		if (((j - (slot__hash(t, &t->slot[j]) & t->mask)) & t->mask) >= ((j - i) & t->mask)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	t->slot[i].val = PM_HASHTAB_FREE;
	t->nr--;
}

/* ---- integer keys ---- */

bool pm_hashtab__find_int(const struct pm_hashtab *t, uint64_t key, uint64_t *val)
{
	const struct pm_hashtab_slot *s = hashtab__lookup(t, key, pm_hashtab__hash_u64(t, key), NULL);

	if (s && val)
		*val = s->val;
	return s;
}

int pm_hashtab__insert_int(struct pm_hashtab *t, uint64_t key, uint64_t val)
{
	if (pm_hashtab__find_int(t, key, NULL))
		return -EEXIST;
	return hashtab__add(t, key, val);
}

int pm_hashtab__delete_int(struct pm_hashtab *t, uint64_t key)
{
	const struct pm_hashtab_slot *s = hashtab__lookup(t, key, pm_hashtab__hash_u64(t, key), NULL);

	if (!s)
		return -ENOENT;
	hashtab__remove(t, s);
	return 0;
}

/* ---- caller-held keys ---- */

bool pm_hashtab__find(const struct pm_hashtab *t, uint64_t h, const void *key, uint64_t *val)
{
	const struct pm_hashtab_slot *s = hashtab__lookup(t, h, h, key);

	if (s && val)
		*val = s->val;
	return s;
}

int pm_hashtab__insert(struct pm_hashtab *t, uint64_t h, uint64_t val)
{
	return hashtab__add(t, h, val);
}

int pm_hashtab__delete(struct pm_hashtab *t, uint64_t h, const void *key)
{
	const struct pm_hashtab_slot *s = hashtab__lookup(t, h, h, key);

	if (!s)
		return -ENOENT;
	hashtab__remove(t, s);
	return 0;
}

bool pm_hashtab__next(const struct pm_hashtab *t, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; t->slot && *pos <= t->mask; (*pos)++) {
		const struct pm_hashtab_slot *s = &t->slot[*pos];

		if (s->val == PM_HASHTAB_FREE)
			continue;
		*key = s->key;
		*val = s->val;
		(*pos)++;
		return true;
	}
	return false;
}
