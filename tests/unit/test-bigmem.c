// SPDX-License-Identifier: GPL-2.0
/*
 * base/bigmem: blocks from 512 KiB up start on a huge page and come zeroed,
 * and a block keeps its bytes as it grows, within one kind and across
 * the two (malloc's below 512 KiB, mapped above, in place within its
 * 2 MiB step); populating faults pages
 * in, at once or a step at a time.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/bigmem.h"
#include "tap.h"

#define MIB ((size_t)1 << 20)

static int all_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The byte at i of a block filled by fill(). */
static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 12));
}

static void fill(unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = pattern(i);
}

static int kept(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != pattern(i))
			return 0;
	return 1;
}

static void test_alloc(void)
{
	unsigned char *small = pm_bigmem__alloc(1000), *big = pm_bigmem__alloc(3 * MIB);
	unsigned char *mid = pm_bigmem__alloc(600 << 10);

	tap_ok(small && all_zero(small, 1000), "a small block comes zeroed");
	tap_ok(big && all_zero(big, 3 * MIB), "a large block comes zeroed");
	tap_ok(big && (uintptr_t)big % (2 * MIB) == 0, "a large block starts on a huge page");
	tap_ok(mid && all_zero(mid, 600 << 10) && (uintptr_t)mid % (2 * MIB) == 0,
	       "a block of 600 KiB comes zeroed, on a huge page");
	pm_bigmem__free(small, 1000);
	pm_bigmem__free(big, 3 * MIB);
	pm_bigmem__free(mid, 600 << 10);
	pm_bigmem__free(NULL, 3 * MIB);
}

static void test_resize(void)
{
	static const size_t sizes[] = { 4096, 600 << 10, MIB, 2 * MIB, 5 * MIB, 16 * MIB };
	unsigned char *p = pm_bigmem__alloc(sizes[0]), *n;
	size_t i, ok = 1, stayed = 0;

	fill(p, sizes[0]);
	for (i = 1; p && i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = pm_bigmem__resize(p, sizes[i - 1], sizes[i]);
		if (!n) {
			ok = 0;
			break;
		}
		/* 600 KiB to 1 MiB and to 2 MiB: one 2 MiB step. */
		stayed += (i == 2 || i == 3) && n == p;
		p = n;
		ok &= kept(p, sizes[i - 1]);
		fill(p, sizes[i]);
	}
	tap_ok(p && ok, "grown from 4 KiB to 16 MiB, across the 512 KiB line, every byte kept");
	tap_ok(stayed == 2, "grown within its 2 MiB step, a block stays where it is");
	tap_ok(p && (uintptr_t)p % (2 * MIB) == 0, "a large block moved stays on a huge page");
	n = p ? pm_bigmem__resize(p, 16 * MIB, 3 * MIB) : NULL;
	tap_ok(n && kept(n, 3 * MIB), "shrunk from 16 MiB to 3 MiB, every byte kept: %s",
	       n ? "" : strerror(errno));
	pm_bigmem__free(n ? n : p, n ? 3 * MIB : 16 * MIB);
}

static void test_grow(void)
{
	uint64_t *a = NULL;
	size_t cap = 0, i, ok = 1;

	for (i = 0; i < 1000000; i++) {
		if (pm_bigmem__grow((void **)&a, &cap, i, sizeof(*a))) {
			ok = 0;
			break;
		}
		a[i] = i * 7;
	}
	for (i = 0; ok && i < 1000000; i++)
		ok = a[i] == i * 7;
	tap_ok(ok && cap >= 1000000, "an array of a million elements grown one at a time keeps them");
	pm_bigmem__free(a, cap * sizeof(*a));
}

/* Populating faults a block's whole pages in at once and keeps its bytes. */
static void test_populate(void)
{
	size_t n = MIB + 100, i, pages, resident = 0;
	unsigned char *map, *p, *vec;
	uintptr_t start, end;

	/* Mapped here, not malloc'ed: its pages are surely not faulted in yet. */
	map = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		tap_ok(0, "populate: no memory");
		return;
	}
	p = map + 100;
	fill(p, 4096);
	pm_bigmem__populate(p, n);
	start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	end = ((uintptr_t)p + n) & ~(uintptr_t)4095;
	pages = (end - start) / 4096;
	vec = malloc(pages);
	if (vec && !mincore((void *)start, end - start, vec))
		for (i = 0; i < pages; i++)
			resident += vec[i] & 1;
	tap_ok(kept(p, 4096) && resident == pages,
	       "populate: the bytes kept, %zu of %zu pages resident", resident, pages);
	free(vec);
	munmap(map, 2 * MIB);
}

/* How many of the pages of [from, to) (page-aligned) are resident. */
static size_t resident_pages(uintptr_t from, uintptr_t to)
{
	size_t i, n = 0, pages = (to - from) / 4096;
	unsigned char *vec = malloc(pages ? pages : 1);

	if (vec && pages && !mincore((void *)from, to - from, vec))
		for (i = 0; i < pages; i++)
			n += vec[i] & 1;
	free(vec);
	return n;
}

/*
 * populate_to faults a block in a 64 KiB step at a time, ahead of where it
 * is written: up to the step boundary past upto, never again what is done,
 * never past the block, its bytes kept.
 */
static void test_populate_to(void)
{
	size_t n = MIB, done = 0, first;
	unsigned char *map, *p;
	uintptr_t start;

	map = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		tap_ok(0, "populate_to: no memory");
		return;
	}
	/* A block that starts 4 KiB past a 64 KiB boundary. */
	p = (unsigned char *)((((uintptr_t)map + 0xffff) & ~(uintptr_t)0xffff) + 4096);
	start = (uintptr_t)p;
	p[0] = 42;
	pm_bigmem__populate_to(p, n, &done, 1);
	first = done;
	tap_ok(first == 60 << 10 && resident_pages(start, start + first) == 15 &&
	       resident_pages(start + first, start + n) == 0 && p[0] == 42,
	       "populate_to: the first step ends at the boundary, nothing past it (%zu)", first);
	pm_bigmem__populate_to(p, n, &done, first);
	pm_bigmem__populate_to(p, n, &done, (60 << 10) + 1);
	tap_ok(done == (124 << 10) && resident_pages(start, start + done) == 31 &&
	       resident_pages(start + done, start + n) == 0,
	       "populate_to: asked again for what is done, nothing; the next step is 64 KiB (%zu)", done);
	pm_bigmem__populate_to(p, n, &done, n);
	tap_ok(done == n && resident_pages(start, start + n) == n / 4096 &&
	       resident_pages(start + n, start + n + (60 << 10)) == 0,
	       "populate_to: to the block's end, not past it");
	munmap(map, 2 * MIB);
}

int main(void)
{
	test_alloc();
	test_resize();
	test_grow();
	test_populate();
	test_populate_to();
	return tap_done();
}
