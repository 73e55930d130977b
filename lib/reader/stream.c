// SPDX-License-Identifier: GPL-2.0
/*
 * The record stream: one record at a time, checked and 8-aligned, with
 * the data that follows some records outside their size; COMPRESSED
 * records give the records they hold.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader/reader_int.h"

void pm_reader__set_sync(struct pm_reader *r, void (*fn)(void *arg), void *arg)
{
	r->sync = fn;
	r->sync_arg = arg;
}

static void reader__sync(struct pm_reader *r)
{
	if (r->sync)
		r->sync(r->sync_arg);
}

/* State carried by perf's own record types. */
int reader__process(struct pm_reader *r, const struct pm_record *rec)
{
	const unsigned char *p = rec->data;
	size_t len = rec->header->size;
	uint32_t attr_size;
	uint64_t feat, id;

	switch (rec->header->type) {
	case PERF_RECORD_HEADER_ATTR:
		reader__sync(r);
		memcpy(&attr_size, p + 12, sizeof(attr_size));
		if (!attr_size)
			attr_size = PERF_ATTR_SIZE_VER0;
		if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > len - 8)
			return reader__fail(r, rec->offset + 12, -EBADMSG,
					    "HEADER_ATTR: attr size %u does not fit the record (%zu bytes)",
					    attr_size, len);
		if (reader__room_for_evsel(r, (len - 8 - attr_size) / 8, rec->offset))
			return r->status;
		if (!reader__add_evsel(r, p + 8, attr_size, p + 8 + attr_size,
				       (len - 8 - attr_size) / 8))
			return reader__fail(r, rec->offset, -ENOMEM, "out of memory");
		return 0;
	case PERF_RECORD_HEADER_FEATURE:
		reader__sync(r);
		memcpy(&feat, p + 8, sizeof(feat));
		reader__store_feature(r, feat, p + 16, len - 16, rec->offset + 16);
		if (feat == HEADER_EVENT_DESC)
			return reader__apply_event_desc(r, p + 16, len - 16, rec->offset + 16);
		if (feat == HEADER_TRACING_DATA)
			return reader__set_tracing(r, p + 16, len - 16, rec->offset + 16);
		return 0;
	case PERF_RECORD_EVENT_UPDATE:
		reader__sync(r);
		memcpy(&feat, p + 8, sizeof(feat));
		memcpy(&id, p + 16, sizeof(id));
		if (feat == PERF_EVENT_UPDATE__NAME && pm_reader__evsel_by_id(r, id) &&
		    reader__set_name(pm_reader__evsel_by_id(r, id), (const char *)p + 24,
				     strnlen((const char *)p + 24, len - 24)))
			return reader__fail(r, rec->offset, -ENOMEM, "out of memory");
		return 0;
	default:
		return 0;
	}
}

/*
 * HEADER_TRACING_DATA: the blob follows the record, outside its size,
 * where the record ends (12 bytes from perfs before its padding, 16 after).
 */
static int reader__read_tracing_blob(struct pm_reader *r, struct pm_record *rec)
{
	uint32_t size;
	uint64_t off = rec->offset + rec->header->size;
	unsigned char *blob;
	ssize_t got;
	int err;

	memcpy(&size, (const unsigned char *)rec->data + 8, sizeof(size));
	rec->extra_size = size;
	if (!r->pipe && !r->unfinished && size > r->data_end - off)
		return reader__fail(r, rec->offset + 8, -EBADMSG,
				    "tracing data of %u bytes crosses the end of the data section", size);
	if (size > TRACING_DATA_MAX)
		return reader__fail(r, rec->offset + 8, -EFBIG, "tracing data too large (%u bytes)",
				    size);
	got = reader__read_alloc(r, size, &blob);
	if (got == -ENOMEM)
		return reader__fail(r, rec->offset, -ENOMEM, "out of memory");
	if (got < 0)
		return reader__fail(r, off, (int)got, "read error: %s", strerror((int)-got));
	if ((uint32_t)got < size)
		err = reader__fail(r, off + (uint64_t)got, -EBADMSG,
				   "tracing data truncated (%zd of %u bytes)", got, size);
	else
		err = reader__set_tracing(r, blob, size, off);
	free(blob);
	return err;
}

/* AUXTRACE: size bytes of trace data follow the record. */
static int reader__skip_auxtrace(struct pm_reader *r, struct pm_record *rec)
{
	uint64_t size, done;
	uint64_t off = rec->offset + rec->header->size;
	int err;

	memcpy(&size, (const unsigned char *)rec->data + 8, sizeof(size));
	rec->extra_size = size;
	if (!r->pipe && !r->unfinished && size > r->data_end - off)
		return reader__fail(r, rec->offset + 8, -EBADMSG,
				    "AUXTRACE data of %llu bytes crosses the end of the data section",
				    (unsigned long long)size);
	err = pm_input__skip(&r->in, size, &done);
	if (err)
		return reader__fail(r, off, err, "read error: %s", strerror(-err));
	if (done < size)
		return reader__fail(r, off + done, -EBADMSG,
				    "AUXTRACE data truncated (%llu of %llu bytes)",
				    (unsigned long long)done, (unsigned long long)size);
	return 0;
}

static int reader__end(struct pm_reader *r)
{
	if (r->deferred_status) {
		r->err = r->deferred;
		r->status = r->deferred_status;
		return r->status;
	}
	return 0;
}

static bool reader__bounded(const struct pm_reader *r)
{
	return !r->pipe && !r->unfinished;
}

static int reader__next_raw(struct pm_reader *r, struct pm_record *rec)
{
	/* A copy: the record may start off 8-alignment (see below). */
	struct perf_event_header hdr, *h = &hdr;
	const unsigned char *p;
	uint64_t off = r->in.pos;
	ssize_t got;

	if (r->status)
		return r->status;
	if (!r->opened)
		return -EINVAL;
	if (reader__bounded(r) && off >= r->data_end)
		return reader__end(r);
	got = pm_input__peek(&r->in, sizeof(*h), &p);
	if (got < 0)
		return reader__fail(r, off, (int)got, "read error: %s", strerror((int)-got));
	if (!got && !reader__bounded(r))
		return reader__end(r);
	if ((size_t)got < sizeof(*h))
		return reader__fail(r, off, -EBADMSG,
				    reader__bounded(r) ?
				    "unexpected end of file inside the data section (record header)" :
				    "truncated record header (%zd of 8 bytes)", got);
	memcpy(h, p, sizeof(*h));
	if (h->size < sizeof(*h))
		return reader__fail(r, off, -EBADMSG,
				    "record size %u is smaller than its header (type %u)",
				    h->size, h->type);
	if (reader__bounded(r) && h->size > r->data_end - off)
		return reader__fail(r, off, -EBADMSG,
				    "record (type %u, size %u) crosses the end of the data section at 0x%llx",
				    h->type, h->size, (unsigned long long)r->data_end);
	got = pm_input__peek(&r->in, h->size, &p);
	if (got < 0)
		return reader__fail(r, off, (int)got, "read error: %s", strerror((int)-got));
	if (got < h->size)
		return reader__fail(r, off, -EBADMSG,
				    "truncated record (type %u, size %u, %zd bytes left)",
				    h->type, h->size, got);
	/*
	 * Records are unaligned after pipe-mode HEADER_FEATUREs, and in a file
	 * whose data section starts at an odd offset.
	 */
	if ((uintptr_t)p & 7) {
		memcpy(r->rec, p, h->size);
		p = (const unsigned char *)r->rec;
	}
	*rec = (struct pm_record){ .offset = off, .header = (const void *)p, .data = p };
	pm_input__consume(&r->in, rec->header->size);
	/* p stays valid: consume never moves the buffer, only peek does. */
	if (reader__check_record(r, rec))
		return r->status;
	if (rec->header->type == PERF_RECORD_HEADER_TRACING_DATA) {
		reader__sync(r);
		/* Reading the blob refills the buffer: keep the record apart. */
		if (p != (const unsigned char *)r->rec) {
			memcpy(r->rec, p, rec->header->size);
			rec->header = rec->data = r->rec;
		}
		if (reader__read_tracing_blob(r, rec))
			return r->status;
	} else if (rec->header->type == PERF_RECORD_AUXTRACE) {
		if (p != (const unsigned char *)r->rec) {
			memcpy(r->rec, p, rec->header->size);
			rec->header = rec->data = r->rec;
		}
		if (reader__skip_auxtrace(r, rec))
			return r->status;
	}
	/* Only perf's own records tell the reader something. */
	if (rec->header->type >= PERF_RECORD_USER_TYPE_START && reader__process(r, rec))
		return r->status;
	return 1;
}

/* COMPRESSED records never come out: the records they hold do. */
int pm_reader__next(struct pm_reader *r, struct pm_record *rec)
{
	int ret;

	/*
	 * A fault is the answer from then on: records a COMPRESSED record
	 * had already unpacked when its zstd data went bad are not handed
	 * out after it (the fuzzer found a stream doing that).
	 */
	if (r->status)
		return r->status;
	for (;;) {
		ret = reader__next_unpacked(r, rec);
		if (ret)
			return ret;
		ret = reader__next_raw(r, rec);
		if (ret < 0)
			return ret;
		/*
		 * The end: a record cut where the writer stopped is left out
		 * (said once, as perf does), and the end stays the answer;
		 * else a zstd block cut short is the fault.
		 */
		if (!ret && r->unz_end > r->unz_start) {
			r->unz_unflushed = r->unz_end - r->unz_start;
			r->unz_start = r->unz_end = 0;
		} else if (!ret && !r->unz_unflushed && reader__unpack_missing(r)) {
			return reader__fail(r, r->unz_off, -EBADMSG,
					    "the compressed data ends inside a zstd block that lacks "
					    "%zu bytes: the records in it cannot be decoded",
					    reader__unpack_missing(r));
		}
		/*
		 * The compressed data is one stream: perf flushes what one
		 * drain compressed into COMPRESSED records of at most 64 KiB,
		 * and what zstd still holds comes out in the next drain's,
		 * after a FINISHED_ROUND.  A record cut there waits for it.
		 */
		if (!ret || rec->header->type != PERF_RECORD_COMPRESSED)
			return ret;
		ret = reader__unpack(r, rec);
		if (ret)
			return ret;
	}
}
