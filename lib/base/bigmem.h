/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_BIGMEM_H
#define PMREC_BIGMEM_H

/*
 * Memory for the large tables and arrays that a report walks at random
 * (hash slots, a profile's nodes and rows): from 512 KiB up, mapped on its
 * own in 2 MiB steps and offered transparent huge pages (where the system
 * leaves them to madvise), so that it faults in 2 MiB at a time, not 4 KiB,
 * grows within its step without moving, and a random access misses the
 * TLB less.  Smaller blocks are malloc's.  The caller keeps each block's
 * size: it says which kind the block is.
 */
#include <stddef.h>

/* bytes of zeroes, or NULL (ENOMEM). */
void *pm_bigmem__alloc(size_t bytes);
/* The block p of old bytes as one of bytes, its first old bytes kept; NULL: p unchanged. */
void *pm_bigmem__resize(void *p, size_t old, size_t bytes);
/*
 * Faults the pages of p (bytes) in at once, where they are all about to be
 * written: one system call, not a trap per 4 KiB page (traps are dear in a
 * virtual machine: report on 48 MB took 4,000 of them).  Blocks under
 * 64 KiB, and kernels before 5.14 (no MADV_POPULATE_WRITE), fault as
 * before; the contents do not change.
 */
void pm_bigmem__populate(void *p, size_t bytes);
/*
 * For a block written from its start on, as far as it is used (a ring's
 * first lap, a chunk carved in turn): the pages of p up to byte upto
 * faulted in, a 64 KiB step at a time, from *done (0 at first), which it
 * moves on.  A small input that uses a few KiB of a 1 MiB buffer no
 * longer pays for the whole of it (7 us a page in a virtual machine).
 */
void pm_bigmem__populate_to(void *p, size_t bytes, size_t *done, size_t upto);
/* p of bytes (NULL: nothing). */
void pm_bigmem__free(void *p, size_t bytes);
/* pm_array__grow's rule (buf.h) over pm_bigmem: element nr of *arr made room for.  0 or -ENOMEM. */
int pm_bigmem__grow(void **arr, size_t *cap, size_t nr, size_t size);

#endif
