/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_READER_INPUT_H
#define PMREC_READER_INPUT_H

/*
 * Buffered forward reader over a file or a pipe: large reads into one
 * buffer, records are handed out in place.  pos is the input offset of the
 * first unconsumed byte.
 *
 * A regular file is read ahead: a thread preads the next cap bytes while
 * the caller works on the current ones, so that the kernel's copy (a tenth
 * of a report's time) runs on the other CPU.  Each of its two buffers holds
 * cap bytes of headroom before the cap it reads into: what is left of a
 * record at the end of one buffer goes in front of the next, and the
 * chunks themselves are never copied.  Where nothing is read ahead (the
 * start, a seek) the caller reads a little itself, and the thread goes on
 * from there: waiting for a whole chunk to read a header cost milliseconds.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pm_input_ahead;

struct pm_input {
	int fd;
	bool seekable;		/* regular file: pread/lseek work */
	bool eof;
	uint64_t file_size;	/* valid if seekable */
	unsigned char *buf;
	size_t cap;
	size_t start, end;	/* unconsumed bytes are buf[start..end) */
	uint64_t pos;
	uint64_t next;		/* file offset of buf[end], when read ahead */
	struct pm_input_ahead *ahead;	/* NULL: read here, with read(2) */
};

int pm_input__init(struct pm_input *in, int fd, size_t cap);
void pm_input__exit(struct pm_input *in);
ssize_t pm_input__peek_more(struct pm_input *in, size_t n, const unsigned char **p);

/*
 * Makes n (<= cap) bytes at pos contiguous at *p.  Returns how many are
 * there: n, or fewer only at end of input; or -errno.  Inline: the reader
 * peeks twice per record, and the bytes are mostly there already.
 */
static inline ssize_t pm_input__peek(struct pm_input *in, size_t n, const unsigned char **p)
{
	if (in->end - in->start < n)
		return pm_input__peek_more(in, n, p);
	*p = in->buf + in->start;
	return (ssize_t)n;
}

static inline void pm_input__consume(struct pm_input *in, size_t n)
{
	in->start += n;
	in->pos += n;
	if (in->start == in->end)
		in->start = in->end = 0;
}
/* Copies up to n bytes; returns the number copied (< n at end) or -errno. */
ssize_t pm_input__read(struct pm_input *in, void *dst, size_t n);
/* Skips n bytes; *done says how many were there (< n at end). */
int pm_input__skip(struct pm_input *in, uint64_t n, uint64_t *done);
/* Seekable input only: continues at offset off. */
int pm_input__seek(struct pm_input *in, uint64_t off);
/* Seekable input only: n bytes at off, -ENODATA if the file is shorter. */
int pm_input__pread(struct pm_input *in, void *dst, size_t n, uint64_t off);

#endif
