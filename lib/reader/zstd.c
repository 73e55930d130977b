// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_COMPRESSED, as perf 6.1 reads it: the payloads of a file's
 * COMPRESSED records are one zstd stream (frames may follow each other),
 * each record giving whole records or the start of one the next completes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "reader/reader_int.h"

/* A zstd block header: 3 bytes (RFC 8878, 3.1.1.2). */
#define BLOCK_HEADER 3

void reader__exit_unpack(struct pm_reader *r)
{
	ZSTD_freeDStream(r->dstream);
	r->dstream = NULL;
	free(r->unz);
	r->unz = NULL;
	r->unz_cap = r->unz_start = r->unz_end = 0;
}

/* Room for more output: what is left moves to the front, then the buffer doubles. */
static int unpack__grow(struct pm_reader *r, const struct pm_record *rec)
{
	size_t cap = r->unz_cap ? r->unz_cap * 2 : 1u << 20;
	unsigned char *p;

	if (r->unz_start) {
		memmove(r->unz, r->unz + r->unz_start, r->unz_end - r->unz_start);
		r->unz_end -= r->unz_start;
		r->unz_start = 0;
		if (r->unz_end < r->unz_cap)
			return 0;
	}
	if (r->unz_cap >= PM_UNZ_MAX)
		return reader__fail(r, rec->offset, -EFBIG,
				    "COMPRESSED record of %u bytes expands beyond %u MiB",
				    rec->header->size, PM_UNZ_MAX >> 20);
	p = realloc(r->unz, cap);
	if (!p)
		return reader__fail(r, rec->offset, -ENOMEM, "out of memory");
	r->unz = p;
	r->unz_cap = cap;
	return 0;
}

int reader__unpack(struct pm_reader *r, const struct pm_record *rec)
{
	ZSTD_inBuffer in = { (const char *)rec->data + sizeof(struct perf_event_header),
			     rec->header->size - sizeof(struct perf_event_header), 0 };
	ZSTD_outBuffer out;
	size_t ret;

	if (!r->dstream) {
		r->dstream = ZSTD_createDStream();
		if (!r->dstream || ZSTD_isError(ZSTD_initDStream(r->dstream)) ||
		    ZSTD_isError(ZSTD_DCtx_setParameter(r->dstream, ZSTD_d_windowLogMax,
							PM_ZSTD_WINDOW_LOG_MAX)))
			return reader__fail(r, rec->offset, -ENOMEM, "out of memory");
	}
	if (r->unz_start == r->unz_end)
		r->unz_start = r->unz_end = 0;
	r->unz_off = rec->offset;
	do {
		if (r->unz_end == r->unz_cap && unpack__grow(r, rec))
			return r->status;
		out = (ZSTD_outBuffer){ r->unz + r->unz_end, r->unz_cap - r->unz_end, 0 };
		ret = ZSTD_decompressStream(r->dstream, &out, &in);
		if (ZSTD_isError(ret))
			return reader__fail(r, rec->offset + sizeof(struct perf_event_header) + in.pos,
					    -EBADMSG, "corrupt zstd data in a COMPRESSED record: %s",
					    ZSTD_getErrorName(ret));
		r->unz_end += out.pos;
	} while (in.pos < in.size || out.pos == out.size);
	r->unz_hint = ret;
	return 0;
}

/*
 * What zstd's last hint says of where the stream stopped.  It is the input
 * the decoder wants next plus, inside a frame, the next block's 3-byte
 * header, less what it holds already: 0 after a whole frame, 3 between
 * blocks of a flushed frame (perf flushes each drain), more inside a
 * frame header or a block.  Only a raw block gives out part of itself, so
 * a cut compressed block holds records that nothing will decode.
 */
size_t reader__unpack_missing(const struct pm_reader *r)
{
	return r->dstream && r->unz_hint > BLOCK_HEADER ? r->unz_hint - BLOCK_HEADER : 0;
}

int reader__next_unpacked(struct pm_reader *r, struct pm_record *rec)
{
	size_t left = r->unz_end - r->unz_start;
	struct perf_event_header h;
	unsigned char *p;

	/* Before the first COMPRESSED record there is no buffer at all (NULL + 0 is UB). */
	if (left < sizeof(h))
		return 0;
	p = r->unz + r->unz_start;
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h))
		return reader__fail(r, r->unz_off, -EBADMSG,
				    "record size %u in compressed data is smaller than its header (type %u)",
				    h.size, h.type);
	if (left < h.size)
		return 0;
	if (h.type == PERF_RECORD_COMPRESSED || h.type == PERF_RECORD_HEADER_TRACING_DATA ||
	    h.type == PERF_RECORD_AUXTRACE)
		return reader__fail(r, r->unz_off, -EBADMSG,
				    "record type %u cannot be inside compressed data", h.type);
	if ((uintptr_t)p & 7) {
		memcpy(r->rec, p, h.size);
		p = (unsigned char *)r->rec;
	}
	r->unz_start += h.size;
	*rec = (struct pm_record){ .offset = r->unz_off, .header = (const void *)p, .data = p };
	if (reader__check_record(r, rec) || reader__process(r, rec))
		return r->status;
	return 1;
}
