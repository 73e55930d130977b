// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader: header, attrs, features and the record stream.  File
 * and pipe mode share pm_reader__next(); the file header only decides where
 * the records start and end and where the metadata comes from.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "reader/reader_int.h"

/*
 * Input buffer: one read(2) fills it, a record must fit.  tests/fuzz/run
 * builds a smaller one, so that its inputs also cross the buffer's end.
 */
#ifndef PM_READ_BUF_SIZE
#define PM_READ_BUF_SIZE (1u << 20)
#endif
_Static_assert(PM_READ_BUF_SIZE >= PM_RECORD_MAX, "a record must fit in the input buffer");
/* Metadata a reader keeps in memory; real ones are far smaller. */
#define TRACING_DATA_MAX (256u << 20)
#define PREFIX_MAX (64u << 20)
#define FEATURE_MAX (64u << 20)
#define FILE_HEADER_V1_SIZE 72

static void error__set(struct pm_reader_error *e, uint64_t offset, int err,
		       const char *fmt, va_list ap)
{
	e->offset = offset;
	e->err = err;
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
}

int reader_error__set(struct pm_reader_error *e, uint64_t offset, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error__set(e, offset, err, fmt, ap);
	va_end(ap);
	return err;
}

void pm_reader__set_error(struct pm_reader *r, const struct pm_reader_error *e)
{
	r->err = *e;
	r->status = e->err;
}

int pm_reader__fault(struct pm_reader *r, const struct pm_reader_error *e)
{
	if (!r->status)
		pm_reader__set_error(r, e);
	return r->status;
}

int reader__fail(struct pm_reader *r, uint64_t offset, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->status)
		return r->status;
	va_start(ap, fmt);
	error__set(&r->err, offset, err, fmt, ap);
	va_end(ap);
	r->status = err;
	return err;
}

void reader__defer(struct pm_reader *r, uint64_t offset, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->deferred_status)
		return;
	va_start(ap, fmt);
	error__set(&r->deferred, offset, err, fmt, ap);
	va_end(ap);
	r->deferred_status = err;
}

struct pm_reader *pm_reader__new(void)
{
	struct pm_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = -1;
	r->id_pos = r->is_pos = -1;
	reader__init_ids(r);
	r->rec = aligned_alloc(8, PM_RECORD_MAX);
	if (!r->rec) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void pm_reader__delete(struct pm_reader *r)
{
	size_t i;

	if (!r)
		return;
	pm_input__exit(&r->in);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	reader__delete_evsels(r);
	for (i = 0; i < HEADER_FEAT_BITS; i++)
		free(r->feat[i].data);
	pm_tp_data__exit(&r->tp);
	reader__exit_unpack(r);
	free(r->prefix);
	free(r->rec);
	free(r);
}

const struct pm_reader_error *pm_reader__error(const struct pm_reader *r)
{
	return r->status ? &r->err : NULL;
}

bool pm_reader__is_pipe(const struct pm_reader *r)
{
	return r->pipe;
}

bool pm_reader__seekable(const struct pm_reader *r)
{
	return !r->pipe && r->in.seekable;
}

bool pm_reader__sample_id_all(const struct pm_reader *r)
{
	return r->sample_id_all;
}

bool pm_reader__is_unfinished(const struct pm_reader *r)
{
	return r->unfinished;
}

size_t pm_reader__unflushed(const struct pm_reader *r, uint64_t *offset)
{
	*offset = r->unz_off;
	return r->unz_unflushed;
}

bool pm_reader__features_skipped(const struct pm_reader *r)
{
	return r->features_skipped;
}

const struct perf_file_header *pm_reader__header(const struct pm_reader *r)
{
	return &r->header;
}

const struct pm_tp_data *pm_reader__tracing(const struct pm_reader *r)
{
	return r->has_tp ? &r->tp : NULL;
}

/* Random access to file-mode metadata, from the file or the saved prefix. */
static int reader__pread(struct pm_reader *r, void *dst, uint64_t len, uint64_t off,
			 const char *what)
{
	int err;

	if (off > UINT64_MAX - len)
		return reader__fail(r, off, -EBADMSG, "%s: offset and size overflow", what);
	if (r->in.seekable) {
		if (len > SIZE_MAX)
			return reader__fail(r, off, -EFBIG, "%s: too large", what);
		err = pm_input__pread(&r->in, dst, (size_t)len, off);
		if (err == -ENODATA)
			return reader__fail(r, off, -EBADMSG,
					    "%s of %llu bytes extends past the end of the file (%llu bytes)",
					    what, (unsigned long long)len,
					    (unsigned long long)r->in.file_size);
		if (err)
			return reader__fail(r, off, err, "%s: read error: %s", what, strerror(-err));
		return 0;
	}
	if (off < r->prefix_off || off + len > r->prefix_off + r->prefix_len)
		return reader__fail(r, off, -ESPIPE,
				    "%s is not before the data section and cannot be read from a pipe",
				    what);
	memcpy(dst, r->prefix + (off - r->prefix_off), (size_t)len);
	return 0;
}

static int reader__read_ids(struct pm_reader *r, const struct perf_file_section *s,
			    uint64_t **ids, size_t *nr)
{
	*ids = NULL;
	*nr = 0;
	if (!s->size)
		return 0;
	if (s->size % sizeof(uint64_t))
		return reader__fail(r, s->offset, -EBADMSG, "bad size %llu of an attr's id array",
				    (unsigned long long)s->size);
	/* Before reading: attrs can all name one huge id section. */
	if (reader__room_for_evsel(r, s->size / sizeof(uint64_t), s->offset))
		return r->status;
	*ids = malloc(s->size);
	if (!*ids)
		return reader__fail(r, s->offset, -ENOMEM, "out of memory");
	if (reader__pread(r, *ids, s->size, s->offset, "id array")) {
		free(*ids);
		*ids = NULL;
		return r->status;
	}
	*nr = s->size / sizeof(uint64_t);
	return 0;
}

static int reader__read_attr(struct pm_reader *r, uint64_t off, uint64_t end, uint64_t *next)
{
	unsigned char buf[sizeof(struct perf_event_attr) + 256];
	struct perf_file_section ids_sec;
	uint32_t attr_size;
	uint64_t *ids;
	size_t nr_ids;
	struct pm_evsel *e;

	if (off + 8 > end)
		return reader__fail(r, off, -EBADMSG, "attr entry crosses the end of the attr section");
	if (reader__pread(r, buf, 8, off, "attr"))
		return r->status;
	memcpy(&attr_size, buf + 4, sizeof(attr_size));
	if (!attr_size)
		attr_size = PERF_ATTR_SIZE_VER0;
	if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > sizeof(buf))
		return reader__fail(r, off + 4, -EBADMSG, "unsupported attr size %u", attr_size);
	if (off + attr_size + sizeof(ids_sec) > end)
		return reader__fail(r, off, -EBADMSG, "attr entry crosses the end of the attr section");
	if (reader__pread(r, buf, attr_size, off, "attr") ||
	    reader__pread(r, &ids_sec, sizeof(ids_sec), off + attr_size, "attr id section") ||
	    reader__read_ids(r, &ids_sec, &ids, &nr_ids))
		return r->status;
	e = reader__add_evsel(r, buf, attr_size, ids, nr_ids);
	free(ids);
	if (!e)
		return reader__fail(r, off, -ENOMEM, "out of memory");
	*next = off + attr_size + sizeof(ids_sec);
	return 0;
}

static int reader__read_attrs(struct pm_reader *r)
{
	const struct perf_file_header *h = &r->header;
	uint64_t nr, i, off = h->attrs.offset, end;

	if (!h->attr_size)
		return reader__fail(r, 16, -EBADMSG,
				    "attr_size is 0 (the recording was not properly terminated?)");
	nr = h->attrs.size / h->attr_size;
	if (nr > PM_ATTRS_MAX)
		return reader__fail(r, 32, -EBADMSG, "too many attrs (%llu)",
				    (unsigned long long)nr);
	if (off > UINT64_MAX - h->attrs.size)
		return reader__fail(r, 24, -EBADMSG, "attr section offset overflows");
	end = off + h->attrs.size;
	for (i = 0; i < nr; i++)
		if (reader__read_attr(r, off, end, &off))
			return r->status;
	return 0;
}

static int reader__load_feature(struct pm_reader *r, int feat)
{
	struct pm_feat_slot *f = &r->feat[feat];

	if (f->data || !f->size)
		return 0;
	if (f->size > FEATURE_MAX)
		return reader__fail(r, f->offset, -EFBIG, "feature %d too large (%llu bytes)",
				    feat, (unsigned long long)f->size);
	/*
	 * Sections do not overlap in a file pmrec or perf wrote; 256 crafted
	 * ones could each load the whole file.
	 */
	if (f->size > r->in.file_size - r->feat_bytes)
		return reader__fail(r, f->offset, -EBADMSG,
				    "feature %d: feature sections overlap (more bytes than the file)",
				    feat);
	f->data = malloc(f->size);
	if (!f->data)
		return reader__fail(r, f->offset, -ENOMEM, "out of memory");
	if (reader__pread(r, f->data, f->size, f->offset, "feature section")) {
		free(f->data);
		f->data = NULL;
		return r->status;
	}
	r->feat_bytes += f->size;
	return 0;
}

/*
 * Metadata faults in file mode do not stop the records from being shown:
 * they are turned into a deferred error, reported after the last record.
 */
static void reader__defer_status(struct pm_reader *r)
{
	if (!r->status)
		return;
	reader__defer(r, r->err.offset, r->err.err, "%s", r->err.reason);
	r->status = 0;
}

static void reader__read_feature_table(struct pm_reader *r)
{
	const struct perf_file_header *h = &r->header;
	struct perf_file_section sec;
	uint64_t off = r->data_end;
	int feat;

	if (h->size < PERF_FILE_HEADER_SIZE)
		return;
	for (feat = 0; feat < HEADER_FEAT_BITS; feat++) {
		if (!(h->adds_features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		if (reader__pread(r, &sec, sizeof(sec), off, "feature table")) {
			reader__defer_status(r);
			return;
		}
		if (sec.offset > r->in.file_size || sec.size > r->in.file_size - sec.offset) {
			reader__defer(r, off, -EBADMSG,
				      "feature %d section (offset 0x%llx, size %llu) extends past the end of the file",
				      feat, (unsigned long long)sec.offset,
				      (unsigned long long)sec.size);
			return;
		}
		r->feat[feat] = (struct pm_feat_slot){
			.offset = sec.offset,
			.size = sec.size,
			.present = true,
		};
		off += sizeof(sec);
	}
}

static void reader__load_file_features(struct pm_reader *r)
{
	struct pm_feat_slot *f;

	reader__read_feature_table(r);
	f = &r->feat[HEADER_TRACING_DATA];
	if (f->present) {
		if (!reader__load_feature(r, HEADER_TRACING_DATA))
			reader__set_tracing(r, f->data, f->size, f->offset);
		reader__defer_status(r);
	}
	f = &r->feat[HEADER_EVENT_DESC];
	if (f->present) {
		if (!reader__load_feature(r, HEADER_EVENT_DESC))
			reader__apply_event_desc(r, f->data, f->size, f->offset);
		reader__defer_status(r);
	}
}

/*
 * Reads n bytes the input announced into *out (malloc'ed), grown as they
 * come: an input that announces more than it holds costs what it holds.
 * Returns how many were there (fewer than n at the end) or -errno.
 */
static ssize_t reader__read_alloc(struct pm_reader *r, size_t n, unsigned char **out)
{
	size_t cap = 0, done = 0, want;
	unsigned char *buf = NULL, *p;
	ssize_t got;

	do {
		/* 64 KiB first, then doubling, up to n. */
		want = cap ? (cap < n / 2 ? cap * 2 : n) : (n < 65536 ? n : 65536);
		p = realloc(buf, want ? want : 1);
		if (!p) {
			free(buf);
			return -ENOMEM;
		}
		buf = p;
		cap = want;
		got = pm_input__read(&r->in, buf + done, cap - done);
		if (got < 0) {
			free(buf);
			return got;
		}
		done += (size_t)got;
	} while (done == cap && done < n);
	*out = buf;
	return (ssize_t)done;
}

/* A pipe delivers the attrs and ids before the data; keep those bytes. */
static int reader__save_prefix(struct pm_reader *r)
{
	uint64_t len = r->header.data.offset - r->in.pos;
	ssize_t got;

	if (r->header.data.offset < r->in.pos)
		return reader__fail(r, 40, -EBADMSG, "data section starts inside the file header");
	if (len > PREFIX_MAX)
		return reader__fail(r, r->in.pos, -EFBIG,
				    "%llu bytes of attrs before the data are too many to read from a pipe",
				    (unsigned long long)len);
	r->prefix_off = r->in.pos;
	got = reader__read_alloc(r, (size_t)len, &r->prefix);
	if (got == -ENOMEM)
		return reader__fail(r, r->in.pos, -ENOMEM, "out of memory");
	if (got < 0)
		return reader__fail(r, r->in.pos, (int)got, "read error: %s", strerror((int)-got));
	if ((uint64_t)got < len)
		return reader__fail(r, r->in.pos, -EBADMSG,
				    "unexpected end of input before the data section at 0x%llx",
				    (unsigned long long)r->header.data.offset);
	r->prefix_len = (size_t)len;
	return 0;
}

static int reader__open_file(struct pm_reader *r, size_t hdr_size)
{
	struct perf_file_header *h = &r->header;
	const unsigned char *p;
	ssize_t got = pm_input__peek(&r->in, hdr_size, &p);

	if (got < 0)
		return reader__fail(r, 0, (int)got, "read error: %s", strerror((int)-got));
	if ((size_t)got < hdr_size)
		return reader__fail(r, (uint64_t)got, -EBADMSG,
				    "file header truncated (%zd of %zu bytes)", got, hdr_size);
	memcpy(h, p, hdr_size);
	pm_input__consume(&r->in, hdr_size);
	if (h->data.offset > UINT64_MAX - h->data.size)
		return reader__fail(r, 40, -EBADMSG, "data section offset and size overflow");
	r->data_end = h->data.offset + h->data.size;
	r->unfinished = h->data.size == 0;

	if (!r->in.seekable && reader__save_prefix(r))
		return r->status;
	if (reader__read_attrs(r))
		return r->status;
	if (!r->in.seekable) {
		/* The feature table follows the data: unreachable before it. */
		r->features_skipped = (h->adds_features[0] | h->adds_features[1] |
				       h->adds_features[2] | h->adds_features[3]) != 0;
		return 0;
	}
	if (!r->unfinished)
		reader__load_file_features(r);
	if (pm_input__seek(&r->in, h->data.offset))
		return reader__fail(r, 40, -EBADMSG, "cannot seek to the data section at 0x%llx",
				    (unsigned long long)h->data.offset);
	return 0;
}

int pm_reader__open_fd(struct pm_reader *r, int fd)
{
	const unsigned char *p;
	struct perf_pipe_file_header ph;
	ssize_t got;
	int err;

	if (r->opened)
		return -EBUSY;
	r->opened = true;
	r->fd = fd;
	err = pm_input__init(&r->in, fd, PM_READ_BUF_SIZE);
	if (err)
		return reader__fail(r, 0, err, "%s", strerror(-err));
	got = pm_input__peek(&r->in, sizeof(ph), &p);
	if (got < 0)
		return reader__fail(r, 0, (int)got, "read error: %s", strerror((int)-got));
	if (!got)
		return reader__fail(r, 0, -EBADMSG, "empty input, no perf.data header");
	if ((size_t)got < sizeof(ph))
		return reader__fail(r, 0, -EBADMSG, "perf.data header truncated (%zd of 16 bytes)",
				    got);
	memcpy(&ph, p, sizeof(ph));
	r->header.magic = ph.magic;
	r->header.size = ph.size;
	if (ph.magic == PERF_MAGIC2_SWAPPED)
		return reader__fail(r, 0, -EPROTONOSUPPORT,
				    "perf.data written with the other byte order is not supported");
	if (!memcmp(p, "PERFFILE", 8))
		return reader__fail(r, 0, -EPROTONOSUPPORT, "obsolete perf.data version 1 (PERFFILE)");
	if (ph.magic != PERF_MAGIC2)
		return reader__fail(r, 0, -EBADMSG, "not a perf.data file (bad magic)");
	if (ph.size == PERF_PIPE_HEADER_SIZE) {
		r->pipe = true;
		pm_input__consume(&r->in, sizeof(ph));
		return 0;
	}
	if (ph.size != PERF_FILE_HEADER_SIZE && ph.size != FILE_HEADER_V1_SIZE)
		return reader__fail(r, 8, -EBADMSG, "unsupported header size %llu",
				    (unsigned long long)ph.size);
	return reader__open_file(r, (size_t)ph.size);
}

int pm_reader__open(struct pm_reader *r, const char *path)
{
	int fd, err;

	if (!path || !strcmp(path, "-"))
		return pm_reader__open_fd(r, STDIN_FILENO);
	/* The user names the input: a link or a FIFO is theirs to give. */
	fd = pm_file__open(path, O_RDONLY, PM_FILE_STREAM | PM_FILE_FOLLOW, 0, NULL);
	if (fd < 0) {
		err = fd;
		r->opened = true;
		return reader__fail(r, 0, err, "%s", strerror(-err));
	}
	r->own_fd = true;
	return pm_reader__open_fd(r, fd);
}

int pm_reader__feature(struct pm_reader *r, int feat, struct pm_cursor *c)
{
	struct pm_feat_slot *f;
	int err;

	if (feat < 0 || feat >= HEADER_FEAT_BITS || !r->feat[feat].present)
		return -ENOENT;
	f = &r->feat[feat];
	if (!r->pipe && !f->data && f->size) {
		/*
		 * A bad feature is the caller's to report, not a fault; and it
		 * leaves an earlier fault of the reader as it was.
		 */
		struct pm_reader_error saved = r->err;
		int status = r->status;

		r->status = 0;
		err = reader__load_feature(r, feat);
		r->status = status;
		r->err = saved;
		if (err)
			return err;
	}
	pm_cursor__init(c, f->data, (size_t)f->size, f->offset);
	return 0;
}

int pm_reader__clock_data(struct pm_reader *r, struct pm_clock_ref *ref)
{
	struct pm_cursor c;
	uint32_t version, clockid;
	int err;

	*ref = (struct pm_clock_ref){ 0 };
	err = pm_reader__feature(r, HEADER_CLOCK_DATA, &c);
	if (err)
		return err;
	if (pm_cursor__u32(&c, &version) || version != 1 || pm_cursor__u32(&c, &clockid) ||
	    pm_cursor__u64(&c, &ref->wall_ns) || pm_cursor__u64(&c, &ref->clock_ns))
		return -EBADMSG;
	ref->clockid = (int32_t)clockid;
	if (!pm_reader__feature(r, HEADER_CLOCKID, &c) && pm_cursor__u64(&c, &ref->res_ns))
		ref->res_ns = 0;
	return 0;
}

void pm_reader__feature_drop(struct pm_reader *r, int feat)
{
	struct pm_feat_slot *f;

	if (r->pipe || feat < 0 || feat >= HEADER_FEAT_BITS)
		return;
	f = &r->feat[feat];
	if (!f->data)
		return;
	free(f->data);
	f->data = NULL;
	r->feat_bytes -= f->size;
}

int pm_reader__feature_size(struct pm_reader *r, int feat, uint64_t *size)
{
	if (feat < 0 || feat >= HEADER_FEAT_BITS || !r->feat[feat].present)
		return -ENOENT;
	*size = r->feat[feat].size;
	return 0;
}

int pm_reader__feature_read(struct pm_reader *r, int feat, uint64_t off, void *buf, size_t len)
{
	struct pm_feat_slot *f;
	struct pm_cursor c;
	int err;

	if (feat < 0 || feat >= HEADER_FEAT_BITS || !r->feat[feat].present)
		return -ENOENT;
	f = &r->feat[feat];
	if (off > f->size || len > f->size - off)
		return -EINVAL;
	if (f->offset > UINT64_MAX - f->size)
		return -EBADMSG;
	if (!len)
		return 0;
	if (!f->data && !r->pipe && r->in.seekable) {
		err = pm_input__pread(&r->in, buf, len, f->offset + off);
		return err == -ENODATA ? -EBADMSG : err;
	}
	if (!f->data && (err = pm_reader__feature(r, feat, &c)))
		return err;
	memcpy(buf, f->data + off, len);
	return 0;
}

static void reader__store_feature(struct pm_reader *r, uint64_t feat, const void *p,
				  size_t len, uint64_t offset)
{
	struct pm_feat_slot *f;
	unsigned char *copy;

	if (feat >= HEADER_FEAT_BITS)
		return;
	copy = malloc(len ? len : 1);
	if (!copy)
		return;
	memcpy(copy, p, len);
	f = &r->feat[feat];
	free(f->data);
	*f = (struct pm_feat_slot){ .offset = offset, .size = len, .data = copy, .present = true };
}

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

/* HEADER_TRACING_DATA: the blob follows the record, outside its size. */
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
