/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_BUF_H
#define PMREC_BUF_H

#include <stddef.h>
#include <stdint.h>

/*
 * A growable byte buffer.  Writers build records and feature payloads in one
 * and hand the bytes to the output in a single write.
 */
struct pm_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
};

int pm_buf__reserve(struct pm_buf *b, size_t extra);
/* Appends n zero bytes and returns a pointer to them, or NULL (ENOMEM). */
void *pm_buf__alloc(struct pm_buf *b, size_t n);
int pm_buf__append(struct pm_buf *b, const void *p, size_t n);
int pm_buf__append_u32(struct pm_buf *b, uint32_t v);
int pm_buf__append_u64(struct pm_buf *b, uint64_t v);
/* Zero-pads len up to a multiple of align (a power of two). */
int pm_buf__pad(struct pm_buf *b, size_t align);
/* perf's header string: u32 len, then s NUL-terminated, zero-padded to 64. */
int pm_buf__append_perf_string(struct pm_buf *b, const char *s);
void pm_buf__reset(struct pm_buf *b);
void pm_buf__exit(struct pm_buf *b);
/*
 * Makes room for element nr of a realloc'd array of elements of size
 * bytes, doubling *cap.  0 or -ENOMEM.
 */
int pm_array__grow(void **arr, size_t *cap, size_t nr, size_t size);
/* The block p of old bytes as one of bytes, its first old bytes kept; NULL: p unchanged. */
typedef void *pm_resize_fn(void *p, size_t old, size_t bytes);
/* pm_array__grow over another allocator's resize. */
int pm_array__grow_by(void **arr, size_t *cap, size_t nr, size_t size, pm_resize_fn *resize);

#endif
