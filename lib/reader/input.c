// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bigmem.h"
#include "base/file.h"
#include "reader/input.h"

/*
 * Where nothing was asked for (the start, or after a seek), the caller
 * reads this much itself rather than wait for a whole chunk: the header,
 * then a seek to the records, took two chunks the reader never used.  The
 * first such read asks for nothing after it: a seek comes next in a file.
 */
#define INPUT_COLD_READ (64u << 10)

struct pm_input_ahead {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int fd;
	bool want;		/* the chunk at off is asked for, not in yet */
	bool ready;		/* it is in: len, err */
	bool stop;
	bool started;		/* a cold read was made */
	uint64_t gen;		/* of the ask: a pread of an older one is dropped */
	unsigned char *spare;	/* the thread reads into spare + cap */
	unsigned char *first;	/* the caller's buffer at the start */
	size_t cap;
	uint64_t off;
	size_t len;
	int err;
};

static void *ahead__run(void *arg)
{
	struct pm_input_ahead *a = arg;

	/* Where the preads go: both buffers, in turn. */
	pm_bigmem__populate(a->spare + a->cap, a->cap);
	pm_bigmem__populate(a->first + a->cap, a->cap);
	pthread_mutex_lock(&a->lock);
	for (;;) {
		uint64_t gen, off;
		ssize_t n;

		while (!a->stop && !a->want)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->stop)
			break;
		gen = a->gen;
		off = a->off;
		pthread_mutex_unlock(&a->lock);
		n = pm_file__pread(a->fd, a->spare + a->cap, a->cap, off);
		pthread_mutex_lock(&a->lock);
		if (gen != a->gen)
			continue;
		a->err = n < 0 ? (int)n : 0;
		a->len = n < 0 ? 0 : (size_t)n;
		a->ready = true;
		a->want = false;
		pthread_cond_broadcast(&a->cond);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* Asks for the cap bytes at off; the lock is held and the spare is not given out. */
static void ahead__ask(struct pm_input_ahead *a, uint64_t off)
{
	a->off = off;
	a->gen++;
	a->want = true;
	a->ready = false;
	pthread_cond_broadcast(&a->cond);
}

static void ahead__delete(struct pm_input_ahead *a)
{
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->cond);
	if (a->fd >= 0)
		close(a->fd);
	free(a->spare);
	free(a);
}

/* The read-ahead of a regular file; NULL if it cannot be had: plain reads then. */
static struct pm_input_ahead *ahead__new(int fd, size_t cap, unsigned char *first)
{
	struct pm_input_ahead *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (pthread_mutex_init(&a->lock, NULL)) {
		free(a);
		return NULL;
	}
	if (pthread_cond_init(&a->cond, NULL)) {
		pthread_mutex_destroy(&a->lock);
		free(a);
		return NULL;
	}
	/* Its own fd: the caller may close the one it gave before the reader goes. */
	a->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	a->cap = cap;
	a->first = first;
	a->spare = malloc(2 * cap);
	if (a->fd < 0 || !a->spare || pthread_create(&a->thread, NULL, ahead__run, a)) {
		ahead__delete(a);
		return NULL;
	}
	return a;
}

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
		/*
		 * No larger than the file (in steps of a cold read): the
		 * buffers are faulted in whole, and a 45 KB file paid for 4 MiB
		 * of them.  A file that grows meanwhile is read in more chunks;
		 * a chunk still holds the largest record (64 KiB).
		 */
		if (cap > INPUT_COLD_READ && in->file_size < cap - INPUT_COLD_READ)
			in->cap = cap = (in->file_size + INPUT_COLD_READ) & ~(size_t)(INPUT_COLD_READ - 1);
		/* Headroom, then a chunk, as the read-ahead's buffers are. */
		in->buf = malloc(2 * cap);
		if (!in->buf)
			return -ENOMEM;
		in->ahead = ahead__new(fd, cap, in->buf);
		return 0;
	}
	in->buf = malloc(cap);
	return in->buf ? 0 : -ENOMEM;
}

void pm_input__exit(struct pm_input *in)
{
	struct pm_input_ahead *a = in->ahead;

	if (a) {
		pthread_mutex_lock(&a->lock);
		a->stop = true;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
		ahead__delete(a);
		in->ahead = NULL;
	}
	free(in->buf);
	in->buf = NULL;
}

/*
 * Nothing asked for: reads INPUT_COLD_READ bytes here, behind the
 * unconsumed ones, and asks for the chunk after them.
 */
static int input__fill_cold(struct pm_input *in)
{
	struct pm_input_ahead *a = in->ahead;
	size_t left = in->end - in->start;
	ssize_t n;

	memmove(in->buf + in->cap - left, in->buf + in->start, left);
	in->start = in->cap - left;
	in->end = in->cap;
	n = pm_file__pread(in->fd, in->buf + in->cap,
			   in->cap < INPUT_COLD_READ ? in->cap : INPUT_COLD_READ, in->next);
	if (n < 0)
		return (int)n;
	if (!n) {
		in->eof = true;
		return 0;
	}
	in->end += (size_t)n;
	in->next += (uint64_t)n;
	if (!a->started) {
		a->started = true;
		return 0;
	}
	pthread_mutex_lock(&a->lock);
	ahead__ask(a, in->next);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

/*
 * Takes the chunk read ahead, puts the unconsumed bytes in front of it and
 * asks for the next chunk, into the buffer given back.
 */
static int input__fill_ahead(struct pm_input *in)
{
	struct pm_input_ahead *a = in->ahead;
	size_t left = in->end - in->start, len;
	unsigned char *chunk;
	int err;

	pthread_mutex_lock(&a->lock);
	if (!a->want && !a->ready) {
		pthread_mutex_unlock(&a->lock);
		return input__fill_cold(in);
	}
	while (a->want)
		pthread_cond_wait(&a->cond, &a->lock);
	a->ready = false;
	err = a->err;
	len = a->len;
	chunk = a->spare;
	pthread_mutex_unlock(&a->lock);
	if (err)
		return err;
	if (!len) {
		in->eof = true;
		return 0;
	}
	memcpy(chunk + in->cap - left, in->buf + in->start, left);
	pthread_mutex_lock(&a->lock);
	a->spare = in->buf;
	ahead__ask(a, in->next + len);
	pthread_mutex_unlock(&a->lock);
	in->buf = chunk;
	in->start = in->cap - left;
	in->end = in->cap + len;
	in->next += len;
	return 0;
}

static int input__fill(struct pm_input *in)
{
	ssize_t n;

	if (in->ahead)
		return input__fill_ahead(in);
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

/* pm_input__peek when the bytes are not all in the buffer. */
ssize_t pm_input__peek_more(struct pm_input *in, size_t n, const unsigned char **p)
{
	int err;

	if (n > in->cap)
		return -EINVAL;
	while (in->end - in->start < n && !in->eof) {
		if (!in->ahead && in->start + n > in->cap) {
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
	if (in->ahead) {
		/* The chunk read ahead, or being read, is of the old place: dropped. */
		pthread_mutex_lock(&in->ahead->lock);
		in->ahead->gen++;
		in->ahead->want = false;
		in->ahead->ready = false;
		pthread_mutex_unlock(&in->ahead->lock);
		in->next = off;
	} else if (lseek(in->fd, (off_t)off, SEEK_SET) < 0) {
		return -errno;
	}
	in->start = in->end = 0;
	in->pos = off;
	in->eof = false;
	return 0;
}

int pm_input__pread(struct pm_input *in, void *dst, size_t n, uint64_t off)
{
	int err;

	if (!in->seekable)
		return -ESPIPE;
	if (off > in->file_size || n > in->file_size - off)
		return -ENODATA;
	err = pm_file__pread_all(in->fd, dst, n, off);
	/* Within the size it had, so the file shrank: as if it had been short. */
	return err == -EIO ? -ENODATA : err;
}
