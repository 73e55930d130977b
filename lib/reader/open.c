// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a perf.data input: the pipe or file header, the attrs and their
 * ids, the feature table; a pipe's bytes before the data are kept.
 */
#include <errno.h>
#include <fcntl.h>
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

#define FILE_HEADER_V1_SIZE 72

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

int reader__load_feature(struct pm_reader *r, int feat)
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
ssize_t reader__read_alloc(struct pm_reader *r, size_t n, unsigned char **out)
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
