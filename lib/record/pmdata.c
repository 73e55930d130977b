// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "record/pmdata.h"

struct pm_buf *pm_features__add(struct pm_features *f, int id)
{
	f->mask[id / 64] |= 1ULL << (id % 64);
	return &f->payload[id];
}

void pm_features__exit(struct pm_features *f)
{
	int i;

	for (i = 0; i < HEADER_FEAT_BITS; i++)
		pm_buf__exit(&f->payload[i]);
	memset(f->mask, 0, sizeof(f->mask));
}

/* The attr as perf 6.1 reads it: truncated to VER7 (128 bytes). */
static void file_attr(const struct perf_event_attr *in, unsigned char out[PM_FILE_ATTR_SIZE])
{
	struct perf_event_attr a = *in;

	a.size = PM_FILE_ATTR_SIZE;
	memcpy(out, &a, PM_FILE_ATTR_SIZE);
}

static int start_file(struct pmdata *d, const struct pm_evlist *l)
{
	struct pm_buf b = { 0 };
	uint64_t ids_off = PERF_FILE_HEADER_SIZE, attrs_off;
	size_t i, nr_ids = 0;
	int err = -ENOMEM;

	for (i = 0; i < l->nr; i++)
		nr_ids += l->events[i].nr_ids;
	attrs_off = ids_off + nr_ids * sizeof(uint64_t);
	if (!pm_buf__alloc(&b, PERF_FILE_HEADER_SIZE))
		goto out;
	for (i = 0; i < l->nr; i++)
		if (pm_buf__append(&b, l->events[i].ids, l->events[i].nr_ids * sizeof(uint64_t)))
			goto out;
	for (i = 0; i < l->nr; i++) {
		unsigned char *p = pm_buf__alloc(&b, PM_FILE_ATTR_SIZE + sizeof(struct perf_file_section));
		struct perf_file_section ids = {
			.offset = l->events[i].nr_ids ? ids_off : 0,
			.size = l->events[i].nr_ids * sizeof(uint64_t),
		};

		if (!p)
			goto out;
		file_attr(&l->events[i].attr, p);
		memcpy(p + PM_FILE_ATTR_SIZE, &ids, sizeof(ids));
		ids_off += ids.size;
	}
	if (pm_buf__pad(&b, 8))
		goto out;
	d->data_offset = b.len;
	d->header = (struct perf_file_header){
		.magic = PERF_MAGIC2,
		.size = PERF_FILE_HEADER_SIZE,
		.attr_size = PM_FILE_ATTR_SIZE + sizeof(struct perf_file_section),
		.attrs = { .offset = attrs_off,
			   .size = l->nr * (PM_FILE_ATTR_SIZE + sizeof(struct perf_file_section)) },
		.data = { .offset = d->data_offset, .size = 0 },
	};
	memcpy(b.data, &d->header, sizeof(d->header));
	err = pm_write_all(d->fd, b.data, b.len);
out:
	pm_buf__exit(&b);
	return err;
}

/* HEADER_ATTR records; ids are split so no record exceeds the u16 size. */
static int start_pipe(struct pmdata *d, const struct pm_evlist *l)
{
	const size_t fixed = sizeof(struct perf_event_header) + PM_FILE_ATTR_SIZE;
	const size_t max_ids = (65535 - fixed) / sizeof(uint64_t);
	struct perf_pipe_file_header ph = { .magic = PERF_MAGIC2, .size = PERF_PIPE_HEADER_SIZE };
	struct pm_buf b = { 0 };
	size_t i, done;
	int err = -ENOMEM;

	if (pm_buf__append(&b, &ph, sizeof(ph)))
		goto out;
	for (i = 0; i < l->nr; i++) {
		const struct pm_event *ev = &l->events[i];

		done = 0;
		do {
			size_t n = ev->nr_ids - done < max_ids ? ev->nr_ids - done : max_ids;
			struct perf_event_header h = {
				.type = PERF_RECORD_HEADER_ATTR,
				.size = (uint16_t)(fixed + n * sizeof(uint64_t)),
			};
			unsigned char *p = pm_buf__alloc(&b, h.size);

			if (!p)
				goto out;
			memcpy(p, &h, sizeof(h));
			file_attr(&ev->attr, p + sizeof(h));
			memcpy(p + fixed, ev->ids + done, n * sizeof(uint64_t));
			done += n;
		} while (done < ev->nr_ids);
	}
	err = pm_write_all(d->fd, b.data, b.len);
out:
	pm_buf__exit(&b);
	return err;
}

void pmdata__exit(struct pmdata *d)
{
	pm_features__exit(&d->live);
}

int pmdata__start(struct pmdata *d, int fd, bool pipe, const struct pm_evlist *l)
{
	struct pm_features live = d->live;	/* buffers reused by the next file */
	int id;

	memset(d, 0, sizeof(*d));
	for (id = 0; id < HEADER_FEAT_BITS; id++)
		pm_buf__reset(&live.payload[id]);
	memset(live.mask, 0, sizeof(live.mask));
	d->live = live;
	d->fd = fd;
	d->pipe = pipe;
	return pipe ? start_pipe(d, l) : start_file(d, l);
}

int pmdata__writev(struct pmdata *d, const struct iovec *iov, int iovcnt)
{
	struct iovec local[IOV_MAX];
	uint64_t total = 0;

	while (iovcnt > 0) {
		int n = iovcnt < IOV_MAX ? iovcnt : IOV_MAX;
		int idx = 0;

		memcpy(local, iov, n * sizeof(*iov));
		while (idx < n) {
			ssize_t w = writev(d->fd, local + idx, n - idx);

			if (w < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			total += w;
			/* Skip what was written, possibly ending inside an iovec. */
			while (idx < n && (size_t)w >= local[idx].iov_len)
				w -= local[idx++].iov_len;
			if (idx < n) {
				local[idx].iov_base = (char *)local[idx].iov_base + w;
				local[idx].iov_len -= w;
			}
		}
		iov += n;
		iovcnt -= n;
	}
	d->data_size += total;
	return 0;
}

int pmdata__write(struct pmdata *d, const void *buf, size_t len)
{
	int err = pm_write_all(d->fd, buf, len);

	if (!err)
		d->data_size += len;
	return err;
}

int pmdata__finished_round(struct pmdata *d)
{
	struct perf_event_header h = { .type = PERF_RECORD_FINISHED_ROUND, .size = sizeof(h) };

	return pmdata__write(d, &h, sizeof(h));
}

/*
 * The feature table of f for data ending at file offset off (it has no
 * pointer of its own: it must start at the data's end), then the payloads.
 */
static int features__layout(const struct pm_features *f, uint64_t off, struct pm_buf *b)
{
	uint64_t payload_off;
	int id, nr = 0;

	for (id = 0; id < HEADER_FEAT_BITS; id++)
		nr += pm_features__has(f, id);
	payload_off = off + nr * sizeof(struct perf_file_section);
	for (id = 0; id < HEADER_FEAT_BITS; id++) {
		struct perf_file_section s;

		if (!pm_features__has(f, id))
			continue;
		s.offset = payload_off;
		s.size = f->payload[id].len;
		payload_off += s.size;
		if (pm_buf__append(b, &s, sizeof(s)))
			return -ENOMEM;
	}
	for (id = 0; id < HEADER_FEAT_BITS; id++)
		if (pm_features__has(f, id) &&
		    pm_buf__append(b, f->payload[id].data, f->payload[id].len))
			return -ENOMEM;
	return 0;
}

/* The kept features for data ending at end, padded so that a filler can cover them. */
static int live_tail(const struct pmdata *d, uint64_t end, struct pm_buf *b)
{
	if (features__layout(&d->live, d->data_offset + end, b) || pm_buf__pad(b, 8))
		return -ENOMEM;
	return 0;
}

/*
 * Records that cover len bytes (a multiple of 8) and that readers skip:
 * FINISHED_ROUNDs of at most 64 KiB - 8 each, their payload zeros.
 */
static int filler__build(struct pm_buf *b, uint64_t len)
{
	while (len) {
		uint64_t n = len < 65528 ? len : 65528;
		struct perf_event_header h = { .type = PERF_RECORD_FINISHED_ROUND };
		unsigned char *p;

		h.size = (uint16_t)n;
		p = pm_buf__alloc(b, n);
		if (!p)
			return -ENOMEM;
		memcpy(p, &h, sizeof(h));
		memset(p + sizeof(h), 0, n - sizeof(h));
		len -= n;
	}
	return 0;
}

static int commit_with_tail(struct pmdata *d);

int pmdata__keep_feature(struct pmdata *d, int id, const struct pm_buf *payload)
{
	struct pm_buf *kept, b = { 0 };
	int err;

	if (d->pipe)
		return 0;
	kept = pm_features__add(&d->live, id);
	pm_buf__reset(kept);
	if (pm_buf__append(kept, payload->data, payload->len))
		return -ENOMEM;
	memcpy(d->header.adds_features, d->live.mask, sizeof(d->live.mask));
	/* A tail in place: the next one, with this feature, goes after it. */
	if (d->tail)
		return commit_with_tail(d);
	err = live_tail(d, d->data_size, &b);
	if (!err)
		err = pm_write_all(d->fd, b.data, b.len);
	if (!err) {
		d->tail = b.len;
		d->data_size += b.len;
		err = pm_file__pwrite_all(d->fd, &d->header, sizeof(d->header), 0);
	}
	pm_buf__exit(&b);
	return err;
}

/*
 * The new copy of the kept feature goes after the new data, and only then
 * the filler over the old copy, so a kill between two writes leaves the
 * committed size with its copy intact (but for the instant between the
 * filler and the header).
 */
static int commit_with_tail(struct pmdata *d)
{
	struct pm_buf b = { 0 }, fill = { 0 };
	int err;

	err = live_tail(d, d->data_size, &b);
	if (!err)
		err = filler__build(&fill, d->tail);
	if (!err)
		err = pm_file__pwrite_all(d->fd, b.data, b.len, d->data_offset + d->data_size);
	if (!err)
		err = pm_file__pwrite_all(d->fd, fill.data, fill.len, d->data_offset + d->committed);
	if (!err) {
		d->header.data.size = d->data_size;
		err = pm_file__pwrite_all(d->fd, &d->header, sizeof(d->header), 0);
	}
	if (!err) {
		d->committed = d->data_size;
		d->tail = b.len;
		d->data_size += d->tail;
		if (lseek(d->fd, d->data_offset + d->data_size, SEEK_SET) < 0)
			err = -errno;
	}
	pm_buf__exit(&b);
	pm_buf__exit(&fill);
	return err;
}

int pmdata__commit(struct pmdata *d)
{
	int err;

	if (d->pipe || d->committed + d->tail == d->data_size)
		return 0;
	if (d->tail)
		return commit_with_tail(d);
	d->header.data.size = d->data_size;
	err = pm_file__pwrite_all(d->fd, &d->data_size, sizeof(d->data_size),
				  offsetof(struct perf_file_header, data.size));
	if (!err)
		d->committed = d->data_size;
	return err;
}

int pmdata__rollback(struct pmdata *d)
{
	if (d->pipe)
		return 0;
	d->data_size = d->committed + d->tail;
	if (ftruncate(d->fd, d->data_offset + d->data_size) < 0)
		return -errno;
	if (lseek(d->fd, d->data_offset + d->data_size, SEEK_SET) < 0)
		return -errno;
	return 0;
}

int pmdata__pipe_features(struct pmdata *d, const struct pm_features *f)
{
	struct pm_buf b = { 0 };
	int id, err = -ENOMEM;

	for (id = 1; id < HEADER_LAST_FEATURE; id++) {
		const struct pm_buf *p = &f->payload[id];
		struct perf_event_header h = { .type = PERF_RECORD_HEADER_FEATURE };
		uint64_t feat = id;

		/* Build-ids and tracing data travel in records of their own. */
		if (!pm_features__has(f, id) || id == HEADER_TRACING_DATA || id == HEADER_BUILD_ID)
			continue;
		if (sizeof(h) + sizeof(feat) + p->len > 65535)
			continue;
		h.size = (uint16_t)(sizeof(h) + sizeof(feat) + p->len);
		if (pm_buf__append(&b, &h, sizeof(h)) || pm_buf__append_u64(&b, feat) ||
		    pm_buf__append(&b, p->data, p->len))
			goto out;
	}
	err = pm_write_all(d->fd, b.data, b.len);
out:
	pm_buf__exit(&b);
	return err;
}

int pm_tracing_record(struct pm_buf *out, const struct pm_buf *blob)
{
	struct {
		struct perf_event_header h;
		uint32_t size;
		uint32_t pad;
	} rec = {
		.h = { .type = PERF_RECORD_HEADER_TRACING_DATA, .size = sizeof(rec) },
		.size = (uint32_t)((blob->len + 7) & ~(size_t)7),
	};

	if (pm_buf__append(out, &rec, sizeof(rec)) || pm_buf__append(out, blob->data, blob->len) ||
	    pm_buf__pad(out, 8))
		return -ENOMEM;
	return 0;
}

int pmdata__pipe_tracing(struct pmdata *d, const struct pm_buf *blob)
{
	struct pm_buf b = { 0 };
	int err = pm_tracing_record(&b, blob);

	if (!err)
		err = pm_write_all(d->fd, b.data, b.len);
	pm_buf__exit(&b);
	return err;
}

int pmdata__pipe_event_names(struct pmdata *d, const struct pm_evlist *l)
{
	struct pm_buf b = { 0 };
	size_t i;
	int err = -ENOMEM;

	for (i = 0; i < l->nr; i++) {
		const struct pm_event *ev = &l->events[i];
		size_t start = b.len, namelen = strlen(ev->name) + 1;
		struct perf_event_header *h;

		if (!ev->nr_ids)
			continue;
		if (!pm_buf__alloc(&b, sizeof(*h)) ||
		    pm_buf__append_u64(&b, PERF_EVENT_UPDATE__NAME) ||
		    pm_buf__append_u64(&b, ev->ids[0]) ||
		    pm_buf__append(&b, ev->name, namelen) || pm_buf__pad(&b, 8))
			goto out;
		h = (struct perf_event_header *)(b.data + start);
		h->type = PERF_RECORD_EVENT_UPDATE;
		h->size = (uint16_t)(b.len - start);
	}
	err = pmdata__write(d, b.data, b.len);
out:
	pm_buf__exit(&b);
	return err;
}

int pmdata__finish(struct pmdata *d, const struct pm_features *f)
{
	struct pm_buf b = { 0 };
	uint64_t off;
	int err;

	if (d->pipe)
		return 0;
	/* The kept features' placeholder: the feature section takes its place. */
	d->data_size -= d->tail;
	d->tail = 0;
	off = d->data_offset + d->data_size;
	err = features__layout(f, off, &b);
	if (!err)
		err = pm_file__pwrite_all(d->fd, b.data, b.len, off);
	if (!err) {
		d->header.data.size = d->data_size;
		memcpy(d->header.adds_features, f->mask, sizeof(f->mask));
		err = pm_file__pwrite_all(d->fd, &d->header, sizeof(d->header), 0);
	}
	if (!err)
		d->committed = d->data_size;
	pm_buf__exit(&b);
	return err;
}

int pm_features__event_desc(struct pm_buf *out, const struct pm_evlist *l)
{
	size_t i;

	if (pm_buf__append_u32(out, (uint32_t)l->nr) || pm_buf__append_u32(out, PM_FILE_ATTR_SIZE))
		return -ENOMEM;
	for (i = 0; i < l->nr; i++) {
		const struct pm_event *ev = &l->events[i];
		unsigned char *p = pm_buf__alloc(out, PM_FILE_ATTR_SIZE);

		if (!p)
			return -ENOMEM;
		file_attr(&ev->attr, p);
		if (pm_buf__append_u32(out, (uint32_t)ev->nr_ids) ||
		    pm_buf__append_perf_string(out, ev->name) ||
		    pm_buf__append(out, ev->ids, ev->nr_ids * sizeof(uint64_t)))
			return -ENOMEM;
	}
	return 0;
}
