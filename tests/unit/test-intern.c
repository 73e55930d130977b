// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the string interner (lib/base/intern.c): ids in first-seen
 * order, keys kept once, bytes that neither move nor lose their NUL through
 * growth, keys with NULs inside.  Prints TAP.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "tap.h"

#define NR_KEYS 20000

static void test_order(void)
{
	struct pm_intern in;
	uint32_t a, b, a2, e, id;
	bool added;

	pm_intern__init(&in);
	tap_ok(!pm_intern__id(&in, NULL, 0, &e, &added) && e == 0 && added,
	       "the empty key (NULL) is the first id");
	tap_ok(!pm_intern__id(&in, "", 0, &id, &added) && id == 0 && !added,
	       "an empty key as \"\" is the same key");
	pm_intern__id(&in, "alpha", 5, &a, &added);
	pm_intern__id(&in, "beta", 4, &b, NULL);
	tap_ok(!pm_intern__id(&in, "alpha", 5, &a2, &added) && a2 == a && !added && a == 1 &&
	       b == 2, "a key seen before keeps its id");
	tap_ok(!pm_intern__id(&in, "alph", 4, &id, &added) && added && id == 3,
	       "a prefix is another key");
	tap_ok(!pm_intern__id(&in, "a\0b", 3, &id, &added) && added && id == 4 &&
	       !pm_intern__id(&in, "a\0c", 3, &id, &added) && added && id == 5,
	       "keys differing after a NUL are two keys");
	tap_ok(pm_intern__nr(&in) == 6, "six keys");
	tap_ok(!((uintptr_t)pm_intern__key(&in, 2, NULL) & 7) &&
	       !((uintptr_t)pm_intern__key(&in, 5, NULL) & 7), "keys of any length start 8-aligned");
	pm_intern__exit(&in);
}

static void test_growth(void)
{
	const char *first[NR_KEYS];
	struct pm_intern in;
	bool added, all = true, same = true;
	char key[32];
	uint32_t id;
	size_t n;
	int i;

	pm_intern__init(&in);
	for (i = 0; i < NR_KEYS; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		if (pm_intern__id(&in, key, strlen(key), &id, &added) || !added || id != (uint32_t)i)
			all = false;
		first[i] = pm_intern__str(&in, id);
	}
	for (i = 0; i < NR_KEYS; i++) {
		const char *got;

		snprintf(key, sizeof(key), "k%d", i);
		got = pm_intern__key(&in, (uint32_t)i, &n);
		if (pm_intern__id(&in, key, strlen(key), &id, &added) || added || id != (uint32_t)i ||
		    n != strlen(key) || strcmp(got, key))
			all = false;
		if (got != first[i])
			same = false;
	}
	tap_ok(all && pm_intern__nr(&in) == NR_KEYS,
	       "%d keys through table growth keep their ids and bytes, NUL-terminated", NR_KEYS);
	tap_ok(same, "a key's bytes never move");
	pm_intern__exit(&in);
}

static void test_long(void)
{
	size_t big = 200000, n;
	char *k = malloc(big);
	struct pm_intern in;
	const char *small, *got;
	uint32_t id, id2;

	memset(k, 'x', big);
	pm_intern__init(&in);
	pm_intern__id(&in, "before", 6, &id, NULL);
	small = pm_intern__str(&in, id);
	tap_ok(!pm_intern__id(&in, k, big, &id2, NULL) && id2 == 1,
	       "a key longer than a block goes in");
	got = pm_intern__key(&in, id2, &n);
	tap_ok(n == big && !memcmp(got, k, big) && got[big] == '\0' &&
	       !strcmp(small, "before"), "it keeps its bytes, and the keys before it theirs");
	tap_ok(!pm_intern__id(&in, "after", 5, &id, NULL) && id == 2 &&
	       !strcmp(pm_intern__str(&in, 2), "after"), "keys after it go on");
	pm_intern__exit(&in);
	free(k);
}

int main(void)
{
	test_order();
	test_growth();
	test_long();
	return tap_done();
}
