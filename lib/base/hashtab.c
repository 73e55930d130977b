// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/bigmem.h"
#include "base/hash.h"
#include "base/hashtab.h"

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

/*
 * The two layouts behind a few accessors.  A slot's hash is what its home
 * follows: the integer key's hash, or the 32 bits kept of the caller's.
 */
static inline bool slot__used(const struct pm_hashtab *t, size_t i)
{
	return t->ops ? t->hslot[i].val1 : t->slot[i].val1;
}

static inline uint64_t slot__hash(const struct pm_hashtab *t, size_t i)
{
	return t->ops ? t->hslot[i].hash : pm_hashtab__hash_u64(t, t->slot[i].key);
}

static inline uint64_t slot__val(const struct pm_hashtab *t, size_t i)
{
	return t->ops ? t->hslot[i].val1 - 1 : t->slot[i].val1 - 1;
}

/* key: the integer key, or the hash of the caller's. */
static inline void slot__set(struct pm_hashtab *t, size_t i, uint64_t key, uint64_t val)
{
	if (t->ops)
		t->hslot[i] = (struct pm_hashtab_hslot){ .hash = (uint32_t)key, .val1 = (uint32_t)val + 1 };
	else
		t->slot[i] = (struct pm_hashtab_slot){ .key = key, .val1 = val + 1 };
}

static inline void slot__move(struct pm_hashtab *t, size_t to, size_t from)
{
	if (t->ops)
		t->hslot[to] = t->hslot[from];
	else
		t->slot[to] = t->slot[from];
}

static inline void slot__clear(struct pm_hashtab *t, size_t i)
{
	if (t->ops)
		t->hslot[i].val1 = 0;
	else
		t->slot[i].val1 = 0;
}

static inline size_t slot__size(const struct pm_hashtab *t)
{
	return t->ops ? sizeof(*t->hslot) : sizeof(*t->slot);
}

/* The first free slot from h's home on. */
static inline size_t slot__free(const struct pm_hashtab *t, uint64_t h)
{
	size_t i;

	for (i = h & t->mask; slot__used(t, i); i = (i + 1) & t->mask)
		;
	return i;
}

void pm_hashtab__exit(struct pm_hashtab *t)
{
	pm_bigmem__free(t->slot, (t->mask + 1) * slot__size(t));
	t->slot = NULL;
	t->mask = 0;
	t->nr = 0;
}

/* Moves every entry into nr_slots new slots, under a new seed if reseed. */
static int hashtab__rebuild(struct pm_hashtab *t, size_t nr_slots, bool reseed)
{
	struct pm_hashtab old = *t;
	size_t i;
	void *s;

	/* Zeroed pages come from the kernel as they are touched: no pass to clear them. */
	s = pm_bigmem__alloc(nr_slots * slot__size(t));
	if (!s)
		return -ENOMEM;
	/* Entries go everywhere: every page is written. */
	if (old.slot)
		pm_bigmem__populate(s, nr_slots * slot__size(t));
	if (reseed)
		hashtab__seed(t);
	t->slot = s;
	t->mask = nr_slots - 1;
	for (i = 0; old.slot && i <= old.mask; i++) {
		uint64_t val, key;

		if (!slot__used(&old, i))
			continue;
		val = slot__val(&old, i);
		if (!t->ops)
			key = old.slot[i].key;
		else if (reseed)
			key = t->ops->hash(t, val, t->arg);
		else
			key = old.hslot[i].hash;
		slot__set(t, slot__free(t, t->ops ? key : pm_hashtab__hash_u64(t, key)), key, val);
	}
	pm_bigmem__free(old.slot, (old.mask + 1) * slot__size(&old));
	return 0;
}

/* The slot of the entry with this key (the integer, or the caller's key and its hash h). */
static bool hashtab__lookup(const struct pm_hashtab *t, uint64_t key, uint64_t h,
			    const void *ext, size_t *at)
{
	size_t i;

	if (!t->slot)
		return false;
	if (!t->ops) {
		for (i = h & t->mask; t->slot[i].val1; i = (i + 1) & t->mask) {
			if (t->slot[i].key == key) {
				*at = i;
				return true;
			}
		}
		return false;
	}
	for (i = h & t->mask; t->hslot[i].val1; i = (i + 1) & t->mask) {
		if (t->hslot[i].hash == (uint32_t)h &&
		    t->ops->equal(t->hslot[i].val1 - 1, ext, t->arg)) {
			*at = i;
			return true;
		}
	}
	return false;
}

/* The length of the run of used slots that slot i, free, would join. */
static size_t hashtab__run(const struct pm_hashtab *t, size_t i)
{
	size_t n = 1, j;

	for (j = (i - 1) & t->mask; j != i && slot__used(t, j); j = (j - 1) & t->mask)
		n++;
	for (j = (i + 1) & t->mask; j != i && slot__used(t, j); j = (j + 1) & t->mask)
		n++;
	return n;
}

/*
 * Places an entry, rebuilding first when the table would pass half full
 * or a run of used slots its bound (the hostile-input rule of hashtab.h).
 * Bounding runs, not just this insert's probe, bounds every lookup: none
 * walks past the end of its run.  Integer keys are checked on the way
 * (-EEXIST); a caller-held key is known to be absent.
 */
static int hashtab__add(struct pm_hashtab *t, uint64_t key, uint64_t val)
{
	size_t slots = t->slot ? t->mask + 1 : 0, i;
	int tries, err;

	if (val == PM_HASHTAB_FREE || (t->ops && val >= UINT32_MAX))
		return -EINVAL;
	if ((t->nr + 1) * 2 > slots) {
		if (t->ops && slots > UINT32_MAX)
			return -ENOMEM;
		err = hashtab__rebuild(t, slots ? slots * 2 : MIN_SLOTS, false);
		if (err)
			return err;
	}
	for (tries = 0;; tries++) {
		uint64_t h = t->ops ? (uint32_t)key : pm_hashtab__hash_u64(t, key);

		for (i = h & t->mask; slot__used(t, i); i = (i + 1) & t->mask)
			if (!t->ops && t->slot[i].key == key)
				return -EEXIST;
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
	slot__set(t, i, key, val);
	t->nr++;
	return 0;
}

/* Backward-shift deletion: the entries after slot i move up so no probe meets a hole. */
static void hashtab__remove(struct pm_hashtab *t, size_t i)
{
	size_t j = i;

	for (;;) {
		j = (j + 1) & t->mask;
		if (!slot__used(t, j))
			break;
		/* The entry at j may fill the hole at i unless its home lies in (i, j]. */
		if (((j - (slot__hash(t, j) & t->mask)) & t->mask) >= ((j - i) & t->mask)) {
			slot__move(t, i, j);
			i = j;
		}
	}
	slot__clear(t, i);
	t->nr--;
}

/* ---- integer keys ---- */

bool pm_hashtab__find_int(const struct pm_hashtab *t, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!hashtab__lookup(t, key, pm_hashtab__hash_u64(t, key), NULL, &i))
		return false;
	if (val)
		*val = t->slot[i].val1 - 1;
	return true;
}

int pm_hashtab__insert_int(struct pm_hashtab *t, uint64_t key, uint64_t val)
{
	return hashtab__add(t, key, val);
}

int pm_hashtab__delete_int(struct pm_hashtab *t, uint64_t key)
{
	size_t i;

	if (!hashtab__lookup(t, key, pm_hashtab__hash_u64(t, key), NULL, &i))
		return -ENOENT;
	hashtab__remove(t, i);
	return 0;
}

/* ---- caller-held keys ---- */

bool pm_hashtab__find(const struct pm_hashtab *t, uint64_t h, const void *key, uint64_t *val)
{
	size_t i;

	if (!hashtab__lookup(t, h, h, key, &i))
		return false;
	if (val)
		*val = t->hslot[i].val1 - 1;
	return true;
}

int pm_hashtab__insert(struct pm_hashtab *t, uint64_t h, uint64_t val)
{
	return hashtab__add(t, h, val);
}

int pm_hashtab__delete(struct pm_hashtab *t, uint64_t h, const void *key)
{
	size_t i;

	if (!hashtab__lookup(t, h, h, key, &i))
		return -ENOENT;
	hashtab__remove(t, i);
	return 0;
}

bool pm_hashtab__next(const struct pm_hashtab *t, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; t->slot && *pos <= t->mask; (*pos)++) {
		if (!slot__used(t, *pos))
			continue;
		*key = t->ops ? t->hslot[*pos].hash : t->slot[*pos].key;
		*val = slot__val(t, *pos);
		(*pos)++;
		return true;
	}
	return false;
}
