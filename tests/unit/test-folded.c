// SPDX-License-Identifier: GPL-2.0
/* lib/folded: stacks merged by content, weights summed, output sorted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/folded.h"
#include "tap.h"

static int entry_is(const struct pm_folded_entry *e, const char *stack, uint64_t weight)
{
	return e->len == strlen(stack) && !memcmp(e->stack, stack, e->len) && e->weight == weight;
}

/* Names cannot forge frames or lines: a comm set with prctl(PR_SET_NAME). */
static void test_append_name(void)
{
	static const char comm[] = "a\nmain;pw 99999\r\t\x7f\x01\xc3\xa9 b";
	static const char want[] = "x;a?main:pw 99999????\xc3\xa9 b";
	struct pm_buf b = { 0 };
	int err;

	err = pm_buf__append(&b, "x;", 2) ?: pm_folded__append_name(&b, comm, sizeof(comm) - 1);
	tap_ok(!err && b.len == sizeof(want) - 1 && !memcmp(b.data, want, b.len),
	       "append_name: ';' -> ':', control bytes -> '?', the rest kept (%.*s)",
	       (int)b.len, (const char *)b.data);
	pm_buf__exit(&b);
	/* A name of megabytes (a crafted symbol table) is cut. */
	{
		size_t big = 3 * PM_FOLDED_NAME_MAX;
		char *name = malloc(big);

		memset(name, 'n', big);
		err = name ? pm_folded__append_name(&b, name, big) : -1;
		tap_ok(!err && b.len == PM_FOLDED_NAME_MAX && b.data[0] == 'n' &&
		       !memcmp(b.data + b.len - 3, "...", 3),
		       "append_name: a name longer than %d bytes is cut, ending in '...' (%zu)",
		       PM_FOLDED_NAME_MAX, b.len);
		free(name);
		pm_buf__exit(&b);
	}
	/* An empty name (an empty COMM) into an empty buffer appends nothing. */
	err = pm_folded__append_name(&b, "", 0);
	tap_ok(!err && b.len == 0 && b.data, "append_name: an empty name into an empty buffer");
	pm_buf__exit(&b);
}

/* pm_buf__alloc(0) on an empty buffer: no NULL pointer, no memset(NULL, 0, 0). */
static void test_buf_alloc_zero(void)
{
	struct pm_buf b = { 0 };
	void *p = pm_buf__alloc(&b, 0);

	tap_ok(p && b.len == 0 && b.data && !pm_buf__append(&b, "", 0) && b.len == 0,
	       "buf: a zero-byte alloc or append on an empty buffer succeeds");
	pm_buf__exit(&b);
}

int main(void)
{
	struct pm_folded *f = pm_folded__new();
	const struct pm_folded_entry *e;
	char buf[64];
	size_t n, i;
	int sorted = 1;

	pm_folded__add(f, "prog;main;b", 11, 2);
	pm_folded__add(f, "prog;main;a", 11, 1);
	pm_folded__add(f, "prog;main;b", 11, 3);
	/* A prefix is a stack of its own, not a partial match. */
	pm_folded__add(f, "prog;main;bb", 12, 1);
	pm_folded__add(f, "prog;main;b;x", 9, 7);
	n = pm_folded__sorted(f, &e);
	tap_ok(n == 4, "4 distinct stacks (%zu)", n);
	tap_ok(n == 4 && entry_is(&e[0], "prog;main", 7) && entry_is(&e[1], "prog;main;a", 1) &&
	       entry_is(&e[2], "prog;main;b", 5) && entry_is(&e[3], "prog;main;bb", 1),
	       "sorted by stack, weights summed, lengths respected");
	pm_folded__delete(f);

	f = pm_folded__new();
	for (i = 0; i < 100000; i++) {
		int len = snprintf(buf, sizeof(buf), "c;f%zu", i % 5000);

		pm_folded__add(f, buf, (size_t)len, 1);
	}
	n = pm_folded__sorted(f, &e);
	for (i = 1; i < n; i++)
		sorted &= memcmp(e[i - 1].stack, e[i].stack,
				 e[i - 1].len < e[i].len ? e[i - 1].len : e[i].len) <= 0;
	tap_ok(n == 5000 && sorted && e[0].weight == 20, "5000 stacks through rehashing");
	pm_folded__delete(f);

	test_append_name();
	test_buf_alloc_zero();
	return tap_done();
}
