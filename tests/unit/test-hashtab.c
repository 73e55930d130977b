// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the hash table (lib/base/hashtab.c): integer and byte keys,
 * growth, deletion, iteration, and keys chosen to collide.  Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cache.h"
#include "base/hashtab.h"
#include "tap.h"

#define SEED 42

/* The longest run of used slots (those iteration names): the most a lookup may walk. */
static size_t longest_run(const struct pm_hashtab *t)
{
	size_t nr_slots = t->slot ? t->mask + 1 : 0, pos = 0, i, run = 0, max = 0;
	bool *used = calloc(nr_slots + 1, sizeof(*used));
	uint64_t k, v;

	while (pm_hashtab__next(t, &pos, &k, &v))
		used[pos - 1] = true;
	/* Twice round, so that a run across the end of the array counts whole. */
	for (i = 0; i < 2 * nr_slots; i++) {
		run = used[i % nr_slots] ? run + 1 : 0;
		if (run > max)
			max = run;
	}
	free(used);
	return max;
}

/* Inserts key(i) -> i for i < n; true if all went in and all are found. */
static bool int_fill(struct pm_hashtab *t, uint64_t (*key)(size_t), size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pm_hashtab__insert_int(t, key(i), i))
			return false;
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (!pm_hashtab__find_int(t, key(i), &v) || v != i)
			return false;
	}
	return pm_hashtab__count(t) == n;
}

static uint64_t key_plain(size_t i) { return i * 7 + 3; }
static uint64_t key_64k(size_t i) { return (uint64_t)i << 16; }
static uint64_t key_high(size_t i) { return (uint64_t)i << 40; }
static uint64_t key_low_same(size_t i) { return 0xdeadbeef00000000ULL | i; }

static void test_int_basic(void)
{
	struct pm_hashtab t;
	size_t pos = 0, seen = 0, i;
	uint64_t k, v, sum = 0;
	unsigned char *hit = calloc(10000, 1);
	bool once = true;

	pm_hashtab__init_seeded(&t, NULL, NULL, SEED);
	tap_ok(!pm_hashtab__find_int(&t, 1, &v) && pm_hashtab__count(&t) == 0,
	       "an empty table finds nothing");
	tap_ok(int_fill(&t, key_plain, 10000), "10000 integer keys go in and are found");
	tap_ok(t.mask + 1 >= 20000, "the table grew to keep at most half full (%zu slots)", t.mask + 1);
	tap_ok(pm_hashtab__insert_int(&t, key_plain(5), 1) == -EEXIST &&
	       pm_hashtab__find_int(&t, key_plain(5), &v) && v == 5, "a second insert of a key is refused");
	tap_ok(pm_hashtab__insert_int(&t, 1, PM_HASHTAB_FREE) == -EINVAL,
	       "the free marker is refused as a value");
	tap_ok(!pm_hashtab__find_int(&t, 1, NULL) && !pm_hashtab__find_int(&t, 70003, NULL),
	       "absent keys are not found");
	while (pm_hashtab__next(&t, &pos, &k, &v)) {
		if (v >= 10000 || k != key_plain(v) || hit[v]++)
			once = false;
		seen++;
		sum += v;
	}
	tap_ok(once && seen == 10000 && sum == 10000ULL * 9999 / 2,
	       "iteration visits every entry once with its key");
	for (i = 0; i < 10000; i += 2)
		if (pm_hashtab__delete_int(&t, key_plain(i)))
			break;
	tap_ok(i == 10000 && pm_hashtab__count(&t) == 5000, "half the keys are deleted");
	for (i = 0; i < 10000; i++) {
		bool there = pm_hashtab__find_int(&t, key_plain(i), &v);

		if (i % 2 ? !there || v != i : there)
			break;
	}
	tap_ok(i == 10000, "after deletion the others are still found, the deleted are not");
	tap_ok(pm_hashtab__delete_int(&t, key_plain(0)) == -ENOENT, "deleting an absent key: -ENOENT");
	for (i = 0; i < 10000; i += 2)
		if (pm_hashtab__insert_int(&t, key_plain(i), i + 1))
			break;
	tap_ok(i == 10000 && pm_hashtab__count(&t) == 10000 &&
	       pm_hashtab__find_int(&t, key_plain(4), &v) && v == 5, "deleted keys can be inserted again");
	tap_ok(pm_hashtab__insert_int(&t, 0, 77) == 0 && pm_hashtab__find_int(&t, 0, &v) && v == 77,
	       "key 0 is a key like any other");
	pm_hashtab__exit(&t);
	tap_ok(!t.slot && !pm_hashtab__count(&t) && !pm_hashtab__find_int(&t, 3, NULL),
	       "exit empties the table");
	free(hit);
}

static void adversarial_int(const char *what, uint64_t (*key)(size_t))
{
	struct pm_hashtab t;

	bool ok;

	pm_hashtab__init(&t, NULL, NULL);
	ok = int_fill(&t, key, 32000);
	tap_ok(ok && longest_run(&t) <= PM_HASHTAB_MAX_PROBE,
	       "32000 %s: all found, longest run %zu", what, longest_run(&t));
	pm_hashtab__exit(&t);
}

static void test_int_deterministic(void)
{
	struct pm_hashtab a, b, c;
	size_t pa = 0, pb = 0;
	uint64_t ka, kb, v;
	bool same = true;

	pm_hashtab__init_seeded(&a, NULL, NULL, SEED);
	pm_hashtab__init_seeded(&b, NULL, NULL, SEED);
	pm_hashtab__init(&c, NULL, NULL);
	int_fill(&a, key_plain, 1000);
	int_fill(&b, key_plain, 1000);
	while (pm_hashtab__next(&a, &pa, &ka, &v))
		if (!pm_hashtab__next(&b, &pb, &kb, &v) || ka != kb)
			same = false;
	tap_ok(same && !pm_hashtab__next(&b, &pb, &kb, &v), "a fixed seed gives the same layout");
	tap_ok(pm_hashtab__hash_u64(&a, 1) != pm_hashtab__hash_u64(&c, 1),
	       "a random seed hashes differently from the fixed one");
	pm_hashtab__exit(&a);
	pm_hashtab__exit(&b);
}

/*
 * Keys that share their home slot in a table of up to 1 << 16 slots under
 * the fixed seed: what an attacker who knew the seed would send.
 */
static void test_probe_bound(void)
{
	struct pm_hashtab t, probe;
	uint64_t keys[200], x, seed0;
	size_t n = 0, i;
	bool found = true;

	pm_hashtab__init_seeded(&probe, NULL, NULL, SEED);
	for (x = 1; n < 200; x++)
		if ((pm_hashtab__hash_u64(&probe, x) & 0xffff) == 0x1234)
			keys[n++] = x;
	pm_hashtab__init_seeded(&t, NULL, NULL, SEED);
	seed0 = t.seed[0];
	for (i = 0; i < n; i++)
		if (pm_hashtab__insert_int(&t, keys[i], i))
			break;
	for (i = 0; i < n; i++)
		if (!pm_hashtab__find_int(&t, keys[i], &x) || x != i)
			found = false;
	tap_ok(found && t.nr_rebuilds >= 1 && t.seed[0] != seed0,
	       "colliding keys trip the probe bound: %llu rebuilds, a new seed, all found",
	       (unsigned long long)t.nr_rebuilds);
	tap_ok(longest_run(&t) <= PM_HASHTAB_MAX_PROBE,
	       "after the rebuild no run passes the bound (%zu)", longest_run(&t));
	tap_ok(t.mask + 1 <= 1024, "the rebuild did not blow the table up (%zu slots)", t.mask + 1);
	pm_hashtab__exit(&t);
}

/* ---- byte keys: the caller's array of strings, the table holds indexes ---- */

struct strs {
	char **s;
	size_t nr;
	bool ignore_seed;	/* a broken hash: every key in one slot */
};

static uint64_t strs_hash_key(const struct pm_hashtab *t, const struct strs *ss, const char *s)
{
	return ss->ignore_seed ? 12345 : pm_hashtab__hash_bytes(t, s, strlen(s));
}

static uint64_t strs_hash(const struct pm_hashtab *t, uint64_t val, void *arg)
{
	struct strs *ss = arg;

	return strs_hash_key(t, ss, ss->s[val]);
}

static bool strs_equal(uint64_t val, const void *key, void *arg)
{
	struct strs *ss = arg;

	return !strcmp(ss->s[val], key);
}

static const struct pm_hashtab_ops strs_ops = { .hash = strs_hash, .equal = strs_equal };

/* Interns s: its index, new or old. */
static long strs_intern(struct pm_hashtab *t, struct strs *ss, const char *s)
{
	uint64_t h = strs_hash_key(t, ss, s), v;

	if (pm_hashtab__find(t, h, s, &v))
		return (long)v;
	ss->s[ss->nr] = strdup(s);
	if (pm_hashtab__insert(t, h, ss->nr))
		return -1;
	return (long)ss->nr++;
}

static bool strs_fill(struct pm_hashtab *t, struct strs *ss, const char *fmt, size_t n)
{
	char buf[512];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), fmt, i);
		if (strs_intern(t, ss, buf) != (long)i)
			return false;
	}
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), fmt, i);
		if (strs_intern(t, ss, buf) != (long)i)
			return false;
	}
	return pm_hashtab__count(t) == n && ss->nr == n;
}

static void strs_free(struct strs *ss)
{
	size_t i;

	for (i = 0; i < ss->nr; i++)
		free(ss->s[i]);
	free(ss->s);
}

static void test_bytes(void)
{
	struct strs ss = { .s = calloc(40000, sizeof(char *)) };
	struct pm_hashtab t;
	char prefix[300];
	size_t i, pos = 0, seen = 0;
	uint64_t k, v;
	bool ok;

	pm_hashtab__init(&t, &strs_ops, &ss);
	tap_ok(strs_fill(&t, &ss, "sym_%zu", 20000), "20000 short byte keys: each interned once");
	tap_ok(longest_run(&t) <= PM_HASHTAB_MAX_PROBE, "short keys: longest run %zu",
	       longest_run(&t));
	while (pm_hashtab__next(&t, &pos, &k, &v))
		seen += v < 20000 &&
			k == (uint32_t)pm_hashtab__hash_bytes(&t, ss.s[v], strlen(ss.s[v]));
	tap_ok(seen == 20000, "iteration gives every entry with 32 bits of the hash of its key");
	for (i = 0; i < 20000; i += 3)
		if (pm_hashtab__delete(&t, pm_hashtab__hash_bytes(&t, ss.s[i], strlen(ss.s[i])), ss.s[i]))
			break;
	for (i = 0; i < 20000; i++) {
		bool there = pm_hashtab__find(&t, pm_hashtab__hash_bytes(&t, ss.s[i], strlen(ss.s[i])),
					      ss.s[i], &v);

		if (i % 3 ? !there || v != i : there)
			break;
	}
	tap_ok(i == 20000, "deleted byte keys are gone, the others found");
	pm_hashtab__exit(&t);
	strs_free(&ss);

	/* Keys that differ only after a long common prefix, and only in their last bytes. */
	ss = (struct strs){ .s = calloc(40000, sizeof(char *)) };
	memset(prefix, 'a', 256);
	strcpy(prefix + 256, "%zu");
	pm_hashtab__init(&t, &strs_ops, &ss);
	ok = strs_fill(&t, &ss, prefix, 20000);
	tap_ok(ok && longest_run(&t) <= PM_HASHTAB_MAX_PROBE,
	       "20000 keys with a 256-byte common prefix: longest run %zu", longest_run(&t));
	pm_hashtab__exit(&t);
	strs_free(&ss);

	ss = (struct strs){ .s = calloc(40000, sizeof(char *)) };
	pm_hashtab__init(&t, &strs_ops, &ss);
	ok = strs_fill(&t, &ss, "%zu_std::vector<int>::operator[](unsigned long)", 20000);
	tap_ok(ok && longest_run(&t) <= PM_HASHTAB_MAX_PROBE,
	       "20000 keys with a common suffix: longest run %zu", longest_run(&t));
	pm_hashtab__exit(&t);
	strs_free(&ss);
}

static void test_bytes_hash(void)
{
	struct pm_hashtab t;
	static const char z[17];

	pm_hashtab__init_seeded(&t, NULL, NULL, SEED);
	tap_ok(pm_hashtab__hash_bytes(&t, "a", 1) != pm_hashtab__hash_bytes(&t, "a\0", 2) &&
	       pm_hashtab__hash_bytes(&t, z, 16) != pm_hashtab__hash_bytes(&t, z, 17) &&
	       pm_hashtab__hash_bytes(&t, z, 0) != pm_hashtab__hash_bytes(&t, z, 1),
	       "keys that differ by trailing zero bytes hash differently");
	tap_ok(pm_hashtab__hash_bytes(&t, "abcdefgh12345678x", 17) !=
	       pm_hashtab__hash_bytes(&t, "abcdefgh12345678y", 17), "the 17th byte counts");
}

/* A hash that ignores the seed: rebuilds cannot help, the table degrades but stays right. */
static void test_broken_hash(void)
{
	struct strs ss = { .s = calloc(400, sizeof(char *)), .ignore_seed = true };
	struct pm_hashtab t;
	bool ok;

	pm_hashtab__init_seeded(&t, &strs_ops, &ss, SEED);
	ok = strs_fill(&t, &ss, "k%zu", 200);
	tap_ok(ok && t.nr_rebuilds > 0 && t.mask + 1 <= 4096,
	       "200 keys of one hash: found, %llu rebuilds, %zu slots",
	       (unsigned long long)t.nr_rebuilds, t.mask + 1);
	pm_hashtab__exit(&t);
	strs_free(&ss);
}

/*
 * pm_cache__hash_words: one word changed anywhere, two swapped, or a zero
 * word more gives another hash (a chain cache would take one chain for
 * another only to compare it whole, but every collision costs a naming).
 */
static void test_cache_words(void)
{
	uint64_t w[9] = { 0x401000, 0x401234, 0x7f0000001000, 0xffffffff81000000, 0x5 }, v[9];
	uint64_t h = pm_cache__hash_words(w, 5, 0x1000);
	size_t i, same = 0;

	for (i = 0; i < 5; i++) {
		memcpy(v, w, sizeof(w));
		v[i] ^= 8;
		same += pm_cache__hash_words(v, 5, 0x1000) == h;
	}
	memcpy(v, w, sizeof(w));
	v[1] = w[2], v[2] = w[1];
	same += pm_cache__hash_words(v, 5, 0x1000) == h;
	same += pm_cache__hash_words(w, 6, 0x1000) == h;	/* w[5] is 0 */
	same += pm_cache__hash_words(w, 5, 0x1008) == h;
	same += pm_cache__hash_words(w, 5, 0x1000) != h;
	tap_ok(!same, "cache words: a word changed, two swapped, a zero more or another seed "
		      "change the hash (%zu did not)", same);
}

int main(void)
{
	test_cache_words();
	test_int_basic();
	test_int_deterministic();
	adversarial_int("multiples of 65536", key_64k);
	adversarial_int("keys equal in their low 40 bits", key_high);
	adversarial_int("keys equal in their high 32 bits", key_low_same);
	test_probe_bound();
	test_bytes();
	test_bytes_hash();
	test_broken_hash();
	return tap_done();
}
