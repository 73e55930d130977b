// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/bigmem.h"
#include "base/buf.h"

#define HUGE_PAGE ((size_t)2 << 20)

/*
 * Blocks from here up are mapped, on huge pages: a 4 KiB page costs a
 * fault of 5 to 13 us in a virtual machine (measured on two days), a
 * 2 MiB one a little more than one, and the arrays a report grows past
 * this size (its stack tree, its graphs) took 700 of its 1,900 faults.
 * Report on 12 and 48 MB: wall -7 to -8 %, 5 MB more resident.
 */
#define MAPPED_MIN ((size_t)512 << 10)

/* Blocks of more than this are refused: rounding them up, with a huge page more, must not wrap. */
#define BIGMEM_MAX (SIZE_MAX / 2)

static size_t huge__round(size_t bytes)
{
	return (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/*
 * bytes (a multiple of HUGE_PAGE) of fresh zero pages starting on a huge
 * page: mapped one huge page over, then trimmed.
 */
static void *huge__map(size_t bytes)
{
	char *p, *start;
	size_t head;

	p = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	start = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	head = (size_t)(start - p);
	if (head)
		munmap(p, head);
	munmap(start + bytes, HUGE_PAGE - head);
	madvise(start, bytes, MADV_HUGEPAGE);
	return start;
}

void *pm_bigmem__alloc(size_t bytes)
{
	if (bytes > BIGMEM_MAX)
		return NULL;
	return bytes < MAPPED_MIN ? calloc(1, bytes ? bytes : 1) : huge__map(huge__round(bytes));
}

void *pm_bigmem__resize(void *p, size_t old, size_t bytes)
{
	void *n;

	if (bytes > BIGMEM_MAX)
		return NULL;
	if (old < MAPPED_MIN && bytes < MAPPED_MIN) {
		n = realloc(p, bytes ? bytes : 1);
		/* Arrays grow to be filled: the new part is written next. */
		if (n && bytes > old)
			pm_bigmem__populate((char *)n + old, bytes - old);
		return n;
	}
	if (old >= MAPPED_MIN && bytes >= MAPPED_MIN) {
		if (huge__round(old) == huge__round(bytes))
			return p;
		/* The pages move, not their bytes: onto a huge page boundary reserved first. */
		n = huge__map(huge__round(bytes));
		if (n && mremap(p, huge__round(old), huge__round(bytes),
				MREMAP_MAYMOVE | MREMAP_FIXED, n) == MAP_FAILED) {
			munmap(n, huge__round(bytes));
			n = NULL;
		}
		return n;
	}
	n = pm_bigmem__alloc(bytes);
	if (n) {
		memcpy(n, p, old < bytes ? old : bytes);
		pm_bigmem__free(p, old);
	}
	return n;
}

#define POPULATE_MIN ((size_t)64 << 10)
#define PAGE ((uintptr_t)4096)

void pm_bigmem__populate(void *p, size_t bytes)
{
	/* The whole pages inside: the ends may be another block's. */
	uintptr_t start = ((uintptr_t)p + PAGE - 1) & ~(PAGE - 1);
	uintptr_t end = ((uintptr_t)p + bytes) & ~(PAGE - 1);

	if (bytes >= POPULATE_MIN && end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

void pm_bigmem__populate_to(void *p, size_t bytes, size_t *done, size_t upto)
{
	uintptr_t start = (uintptr_t)p, from, to;

	if (upto <= *done || *done >= bytes)
		return;
	/* Whole pages inside, to a step boundary of the address space: each page in one step. */
	from = (start + *done + PAGE - 1) & ~(PAGE - 1);
	to = (start + upto + POPULATE_MIN - 1) & ~(uintptr_t)(POPULATE_MIN - 1);
	if (to > start + bytes)
		to = (start + bytes) & ~(PAGE - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_POPULATE_WRITE);
	*done = to > start + *done ? to - start : bytes;
}

void pm_bigmem__free(void *p, size_t bytes)
{
	if (bytes < MAPPED_MIN)
		free(p);
	else if (p)
		munmap(p, huge__round(bytes));
}

int pm_bigmem__grow(void **arr, size_t *cap, size_t nr, size_t size)
{
	return pm_array__grow_by(arr, cap, nr, size, pm_bigmem__resize);
}
