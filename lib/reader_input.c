// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader_input.h"

int pm_input__init(struct pm_input *in, int fd, size_t cap)
{
	struct stat st;

	*in = (struct pm_input){ .fd = fd, .cap = cap };
	if (fstat(fd, &st))
		return -errno;
	/* Offsets are from the start of the file even if fd was not there. */
	if (S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_SET) == 0) {
		in->seekable = true;
		in->file_size = (uint64_t)st.st_size;
	}
	in->buf = malloc(cap);
	return in->buf ? 0 : -ENOMEM;
}

void pm_input__exit(struct pm_input *in)
{
	free(in->buf);
	in->buf = NULL;
}

static int input__fill(struct pm_input *in)
{
	ssize_t n;

	do
		n = read(in->fd, in->buf + in->end, in->cap - in->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!n)
		in->eof = true;
	in->end += (size_t)n;
	return 0;
}

ssize_t pm_input__peek(struct pm_input *in, size_t n, const unsigned char **p)
{
	int err;

	if (n > in->cap)
		return -EINVAL;
	while (in->end - in->start < n && !in->eof) {
		if (in->start + n > in->cap) {
			memmove(in->buf, in->buf + in->start, in->end - in->start);
			in->end -= in->start;
			in->start = 0;
		}
		err = input__fill(in);
		if (err)
			return err;
	}
	*p = in->buf + in->start;
	return (ssize_t)(in->end - in->start < n ? in->end - in->start : n);
}

void pm_input__consume(struct pm_input *in, size_t n)
{
	in->start += n;
	in->pos += n;
	if (in->start == in->end)
		in->start = in->end = 0;
}

ssize_t pm_input__read(struct pm_input *in, void *dst, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t chunk = n - done < in->cap ? n - done : in->cap;
		const unsigned char *p;
		ssize_t got = pm_input__peek(in, chunk, &p);

		if (got < 0)
			return got;
		if (!got)
			break;
		memcpy((unsigned char *)dst + done, p, (size_t)got);
		pm_input__consume(in, (size_t)got);
		done += (size_t)got;
	}
	return (ssize_t)done;
}

int pm_input__skip(struct pm_input *in, uint64_t n, uint64_t *done)
{
	uint64_t left = n;

	*done = 0;
	if (in->seekable) {
		uint64_t avail = in->pos <= in->file_size ? in->file_size - in->pos : 0;
		uint64_t target = in->pos + (n < avail ? n : avail);
		int err = pm_input__seek(in, target);

		if (!err)
			*done = n < avail ? n : avail;
		return err;
	}
	while (left) {
		size_t chunk = left < in->cap ? (size_t)left : in->cap;
		const unsigned char *p;
		ssize_t got = pm_input__peek(in, chunk, &p);

		if (got < 0)
			return (int)got;
		if (!got)
			break;
		pm_input__consume(in, (size_t)got);
		left -= (uint64_t)got;
	}
	*done = n - left;
	return 0;
}

int pm_input__seek(struct pm_input *in, uint64_t off)
{
	if (!in->seekable)
		return -ESPIPE;
	if (off > INT64_MAX)
		return -EINVAL;
	if (lseek(in->fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	in->start = in->end = 0;
	in->pos = off;
	in->eof = false;
	return 0;
}

int pm_input__pread(struct pm_input *in, void *dst, size_t n, uint64_t off)
{
	size_t done = 0;

	if (!in->seekable)
		return -ESPIPE;
	if (off > in->file_size || n > in->file_size - off)
		return -ENODATA;
	while (done < n) {
		ssize_t got = pread(in->fd, (unsigned char *)dst + done, n - done,
				    (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (!got)
			return -ENODATA;
		done += (size_t)got;
	}
	return 0;
}
