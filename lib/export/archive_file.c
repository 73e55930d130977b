// SPDX-License-Identifier: GPL-2.0
/*
 * The archived recording is a new file written beside the old one and
 * renamed over it: the old one is never written, so a failure (a full disk
 * included) leaves it as it was, and the sections it carried are copied
 * but for the one replaced, so archiving again does not grow it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/output.h"
#include "export/archive.h"
#include "format/perf_data.h"

#define COPY_CHUNK (1 << 20)

int pm_archive__open(const char *path)
{
	int fd = pm_file__open(path, O_RDWR, PM_FILE_FOLLOW, 0, NULL);
	int err;

	if (fd < 0)
		return fd;
	err = pm_output__lock(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static bool header__has(const struct perf_file_header *h, int feat)
{
	return h->adds_features[feat / 64] & (1ULL << (feat % 64));
}

static size_t header__nr_features(const struct perf_file_header *h)
{
	size_t nr = 0;
	int f;

	for (f = 0; f < HEADER_FEAT_BITS; f++)
		nr += header__has(h, f);
	return nr;
}

static bool section__within(uint64_t off, uint64_t size, uint64_t end)
{
	return off <= end && size <= end - off;
}

/*
 * The attrs and their id arrays must be in what is copied whole, before
 * the data's end: perf and pmrec put them there.  Walks the entries as the
 * reader did (it accepted them).
 */
static int archive__check_attrs(int fd, const struct perf_file_header *h, uint64_t data_end)
{
	uint64_t i, nr = h->attr_size ? h->attrs.size / h->attr_size : 0, off = h->attrs.offset;
	struct perf_file_section ids;
	uint32_t size;
	int err;

	if (!section__within(h->attrs.offset, h->attrs.size, data_end))
		return -EBADMSG;
	for (i = 0; i < nr; i++) {
		err = pm_file__pread_all(fd, &size, sizeof(size), off + 4);
		if (!size)
			size = PERF_ATTR_SIZE_VER0;
		if (!err)
			err = pm_file__pread_all(fd, &ids, sizeof(ids), off + size);
		if (err)
			return err;
		if (ids.size && !section__within(ids.offset, ids.size, data_end))
			return -EBADMSG;
		off += size + sizeof(ids);
	}
	return 0;
}

/* Through a buffer, where the kernel cannot copy between the two files. */
static int copy__buffered(int in, int out, uint64_t from, uint64_t to, uint64_t len)
{
	char *buf = malloc(COPY_CHUNK);
	ssize_t n = 0;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (len && !err) {
		n = pm_file__pread(in, buf, len < COPY_CHUNK ? len : COPY_CHUNK, from);
		if (n <= 0) {
			err = n ? (int)n : -EIO;	/* -EIO: the file ends first */
			break;
		}
		err = pm_file__pwrite_all(out, buf, n, to);
		from += n;
		to += n;
		len -= n;
	}
	free(buf);
	return err;
}

/* len bytes of in at from to out at to: in the kernel when it can (a reflink on some). */
static int copy__range(int in, int out, uint64_t from, uint64_t to, uint64_t len)
{
	loff_t i = (loff_t)from, o = (loff_t)to;
	ssize_t n;

	while (len) {
		n = copy_file_range(in, &i, out, &o, len < SSIZE_MAX ? len : SSIZE_MAX, 0);
		if (n > 0) {
			len -= n;
			continue;
		}
		if (!n)
			return -EIO;	/* the file ends first */
		if (errno == EINTR)
			continue;
		if (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)
			return copy__buffered(in, out, (uint64_t)i, (uint64_t)o, len);
		return -errno;
	}
	return 0;
}

/*
 * The old file's feature sections, in bit order: each must lie within the
 * file (a section past its end could not be copied).
 */
static int archive__old_table(int fd, const struct perf_file_header *h, uint64_t data_end,
			      uint64_t file_size, struct perf_file_section *t)
{
	size_t i, nr = header__nr_features(h);
	int err;

	err = pm_file__pread_all(fd, t, nr * sizeof(*t), data_end);
	for (i = 0; i < nr && !err; i++)
		if (!section__within(t[i].offset, t[i].size, file_size))
			err = -EBADMSG;
	return err;
}

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~7ULL;
}

/*
 * After the header, attrs and data (copied whole), the new feature table
 * and the sections: the old ones but feat's, in bit order, then p as feat.
 */
static int archive__copy(int in, int out, const struct perf_file_header *h, uint64_t file_size,
			 int feat, const void *p, size_t len)
{
	struct perf_file_section old[HEADER_FEAT_BITS], table[HEADER_FEAT_BITS];
	uint64_t data_end = h->data.offset + h->data.size, pos;
	struct perf_file_header nh = *h;
	size_t i = 0, j = 0, mine = 0;
	int f, err;

	nh.adds_features[feat / 64] |= 1ULL << (feat % 64);
	err = archive__old_table(in, h, data_end, file_size, old);
	if (!err)
		err = copy__range(in, out, 0, 0, data_end);
	pos = align8(data_end + header__nr_features(&nh) * sizeof(*table));
	for (f = 0; f < HEADER_FEAT_BITS && !err; f++) {
		if (!header__has(&nh, f))
			continue;
		if (f == feat) {
			mine = j++;
			i += header__has(h, f);
			continue;
		}
		table[j] = (struct perf_file_section){ .offset = pos, .size = old[i].size };
		err = copy__range(in, out, old[i++].offset, pos, table[j].size);
		pos = align8(pos + table[j++].size);
	}
	table[mine] = (struct perf_file_section){ .offset = pos, .size = len };
	if (!err)
		err = pm_file__pwrite_all(out, p, len, pos);
	if (!err)
		err = pm_file__pwrite_all(out, table, j * sizeof(*table), data_end);
	if (!err)
		err = pm_file__pwrite_all(out, nh.adds_features, sizeof(nh.adds_features),
					  offsetof(struct perf_file_header, adds_features));
	return err;
}

/* The checks before anything is written: what is copied whole is all there. */
static int archive__check(struct pm_reader *r, int fd, int feat, const struct stat *st)
{
	const struct perf_file_header *h = pm_reader__header(r);

	if (pm_reader__is_pipe(r) || pm_reader__is_unfinished(r) ||
	    h->size < PERF_FILE_HEADER_SIZE || feat <= 0 || feat >= HEADER_FEAT_BITS)
		return -EINVAL;
	if (!S_ISREG(st->st_mode) ||
	    !section__within(h->data.offset, h->data.size, (uint64_t)st->st_size) ||
	    h->data.offset < sizeof(*h))
		return -EBADMSG;
	return archive__check_attrs(fd, h, h->data.offset + h->data.size);
}

/*
 * Gives fd the owner and group of the file replaced: root can, another
 * user only the group, if it is one of theirs.  0 or -errno.
 */
static int archive__own(int fd, const struct stat *st)
{
	if (fchown(fd, st->st_uid, st->st_gid) && fchown(fd, (uid_t)-1, st->st_gid))
		return -errno;
	return 0;
}

/* Still the file read: not replaced by another archive or a new recording since. */
static int archive__same(const char *path, const struct stat *st)
{
	struct stat now;

	if (stat(path, &now))
		return -errno;
	return now.st_dev == st->st_dev && now.st_ino == st->st_ino ? 0 : -EBUSY;
}

int pm_archive__replace(struct pm_reader *r, int fd, const char *path, int feat, const void *p,
			size_t len)
{
	struct pm_outfile out;
	char *real = NULL;
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return -errno;
	err = archive__check(r, fd, feat, &st);
	/* A link is followed: the file it names is replaced, beside itself. */
	if (!err && !(real = realpath(path, NULL)))
		err = -errno;
	if (!err)
		err = archive__same(real, &st) ?: pm_outfile__open(&out, real);
	if (err) {
		free(real);
		return err;
	}
	/* Where it cannot, the file is the caller's, as any file it creates. */
	archive__own(out.fd, &st);
	err = archive__copy(fd, out.fd, pm_reader__header(r), (uint64_t)st.st_size, feat, p, len);
	if (!err && fdatasync(out.fd))
		err = -errno;
	if (!err)
		err = archive__same(real, &st);
	err = pm_outfile__close(&out, real, err);
	free(real);
	return err;
}
