// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/ring.h"

static uint64_t load_head(const struct pm_ring *r)
{
	return __atomic_load_n(&r->ctl->data_head, __ATOMIC_ACQUIRE);
}

static void store_tail(struct pm_ring *r, uint64_t tail)
{
	__atomic_store_n(&r->ctl->data_tail, tail, __ATOMIC_RELEASE);
}

static void ring__init(struct pm_ring *r, void *base, uint64_t data_offset,
		       uint64_t data_size)
{
	r->ctl = base;
	r->data = (unsigned char *)base + data_offset;
	r->size = data_size;
	r->mask = data_size - 1;
	r->refcnt = 1;
	r->scratch = NULL;
	r->corrupt = 0;
}

int pm_ring__mmap(struct pm_ring *r, int fd, size_t data_pages, bool overwrite)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	void *base;
	uint64_t off, size;

	if (!data_pages || (data_pages & (data_pages - 1)))
		return -EINVAL;
	len = (data_pages + 1) * (size_t)page;
	/* A read-only mapping is what makes the kernel overwrite old data. */
	base = mmap(NULL, len, overwrite ? PROT_READ : PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	off = ((struct perf_event_mmap_page *)base)->data_offset;
	size = ((struct perf_event_mmap_page *)base)->data_size;
	/* Kernels before 4.1 leave these zero: the layout is then fixed. */
	if (!off || !size) {
		off = page;
		size = len - page;
	}
	if (off + size > len || (size & (size - 1))) {
		munmap(base, len);
		return -EPROTO;
	}
	memset(r, 0, sizeof(*r));
	ring__init(r, base, off, size);
	r->map = base;
	r->map_len = len;
	r->fd = fd;
	r->backward = overwrite;
	r->tail = r->ctl->data_tail;
	return 0;
}

void pm_ring__attach_mem(struct pm_ring *r, void *base, uint64_t data_offset,
			 uint64_t data_size)
{
	memset(r, 0, sizeof(*r));
	ring__init(r, base, data_offset, data_size);
	r->fd = -1;
	r->tail = r->ctl->data_tail;
}

void pm_ring__get(struct pm_ring *r)
{
	r->refcnt++;
}

int pm_ring__put(struct pm_ring *r)
{
	if (r->refcnt > 0)
		r->refcnt--;
	return r->refcnt;
}

void pm_ring__unmap(struct pm_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	free(r->scratch);
	r->map = NULL;
	r->ctl = NULL;
	r->data = NULL;
	r->scratch = NULL;
	r->fd = -1;
}

uint64_t pm_ring__peek(struct pm_ring *r, struct pm_span *s)
{
	uint64_t head = load_head(r);
	uint64_t len = head - r->tail;
	uint64_t off, first;

	if (len > r->size) {
		r->corrupt++;
		r->tail = head;
		len = 0;
	}
	s->start = r->tail;
	s->end = head;
	s->iovcnt = 0;
	if (!len)
		return 0;
	off = s->start & r->mask;
	first = r->size - off;
	if (first > len)
		first = len;
	s->iov[0].iov_base = r->data + off;
	s->iov[0].iov_len = first;
	s->iovcnt = 1;
	if (first < len) {
		s->iov[1].iov_base = r->data;
		s->iov[1].iov_len = len - first;
		s->iovcnt = 2;
	}
	return len;
}

void pm_ring__release(struct pm_ring *r, const struct pm_span *s)
{
	r->tail = s->end;
	store_tail(r, s->end);
}

/* Copies n bytes at ring position pos into dst, across the end if need be. */
static void ring__copy(const struct pm_ring *r, void *dst, uint64_t pos, size_t n)
{
	uint64_t off = pos & r->mask;
	size_t first = r->size - off;

	if (first >= n) {
		memcpy(dst, r->data + off, n);
		return;
	}
	memcpy(dst, r->data + off, first);
	memcpy((unsigned char *)dst + first, r->data, n - first);
}

int pm_ring__next(struct pm_ring *r, const struct pm_span *s, uint64_t *pos,
		  const struct perf_event_header **ev)
{
	uint64_t left = s->end - *pos;
	uint64_t off = *pos & r->mask;
	const struct perf_event_header *h;

	if (!left)
		return 0;
	/* Headers are 8-aligned in a power-of-two area: never split. */
	if (left < sizeof(*h) || (off & 7))
		return -EBADMSG;
	h = (const struct perf_event_header *)(r->data + off);
	if (h->size < sizeof(*h) || (h->size & 7) || h->size > left)
		return -EBADMSG;
	if (off + h->size > r->size) {
		if (!r->scratch) {
			r->scratch = malloc(PM_RING_MAX_RECORD);
			if (!r->scratch)
				return -ENOMEM;
		}
		ring__copy(r, r->scratch, *pos, h->size);
		h = (const struct perf_event_header *)r->scratch;
	}
	*pos += h->size;
	*ev = h;
	return 1;
}

int pm_ring__read_backward(struct pm_ring *r, struct pm_buf *out)
{
	uint64_t head = load_head(r);
	uint64_t pos = head;
	uint64_t *sizes = NULL;
	size_t nr = 0, cap = 0, i;
	unsigned char *dst;
	int err = 0;

	for (;;) {
		const struct perf_event_header *h =
			(const void *)(r->data + (pos & r->mask));
		uint64_t used = pos - head;

		if (!h->size || (h->size & 7) || h->size < sizeof(*h) ||
		    used + h->size > r->size)
			break;
		if (nr == cap) {
			uint64_t *n;

			cap = cap ? cap * 2 : 256;
			n = realloc(sizes, cap * sizeof(*sizes));
			if (!n) {
				err = -ENOMEM;
				goto out;
			}
			sizes = n;
		}
		sizes[nr++] = h->size;
		pos += h->size;
	}
	/* The walk went newest to oldest; files want time order. */
	for (i = nr; i > 0; i--) {
		pos -= sizes[i - 1];
		dst = pm_buf__alloc(out, sizes[i - 1]);
		if (!dst) {
			err = -ENOMEM;
			goto out;
		}
		ring__copy(r, dst, pos, sizes[i - 1]);
	}
out:
	free(sizes);
	return err;
}

static uint64_t ring__u64(const struct pm_ring *r, uint64_t pos)
{
	uint64_t v;

	/* 8-aligned u64s never straddle a power-of-two area. */
	memcpy(&v, r->data + (pos & r->mask), sizeof(v));
	return v;
}

uint64_t pm_ring__head(const struct pm_ring *r)
{
	return load_head(r);
}

bool pm_ring_window__holds(const struct pm_ring_window *w, uint64_t pos)
{
	return pos - w->from < (1ULL << 63) && (!w->ended || w->to - pos - 1 < (1ULL << 63));
}

int pm_ring__scan(const struct pm_ring *r, const struct pm_span *s, size_t time_off,
		  const struct pm_ring_window *w, struct pm_ring_scan *sc)
{
	uint64_t pos = s->start;

	memset(sc, 0, sizeof(*sc));
	while (pos != s->end) {
		const struct perf_event_header *h =
			(const void *)(r->data + (pos & r->mask));
		uint64_t left = s->end - pos;

		if (left < sizeof(*h) || h->size < sizeof(*h) || (h->size & 7) || h->size > left)
			return -EBADMSG;
		if (h->type == PERF_RECORD_SAMPLE && !pm_ring_window__holds(w, pos)) {
			sc->outside++;
		} else if (h->type == PERF_RECORD_SAMPLE) {
			sc->samples++;
			if (time_off && time_off + 8 <= h->size) {
				uint64_t t = ring__u64(r, pos + time_off);

				if (!sc->first_time)
					sc->first_time = t;
				if (t > sc->last_time)
					sc->last_time = t;
			}
		} else if (h->type == PERF_RECORD_LOST && h->size >= 24) {
			sc->lost += ring__u64(r, pos + 16);
		} else if (h->type == PERF_RECORD_MMAP2) {
			sc->mmap2++;
			if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
				sc->mmap2_build_id++;
		} else if (h->type == PERF_RECORD_EXIT) {
			sc->exits++;
		}
		pos += h->size;
		sc->valid = pos - s->start;
	}
	return 0;
}
