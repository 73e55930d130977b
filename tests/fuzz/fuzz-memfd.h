/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_FUZZ_MEMFD_H
#define PMREC_FUZZ_MEMFD_H

/*
 * What every harness does around its input: the bytes go into a memfd,
 * because pmrec reads files (seekable, mappable, opened by path), not
 * buffers; and the plain replay driver reads its inputs from files.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_memfd__new(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0) {
		perror("fuzz: memfd_create");
		abort();
	}
	return fd;
}

/* The memfd holds data alone, its offset at 0. */
static inline void fuzz_memfd__fill(int fd, const uint8_t *data, size_t size)
{
	size_t done = 0;

	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET)) {
		perror("fuzz: truncating the memfd");
		abort();
	}
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			perror("fuzz: writing the memfd");
			abort();
		}
		done += (size_t)n;
	}
}

/* The whole of path in *buf (malloc'd) and *len.  0 or -errno. */
static inline int fuzz_file__slurp(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n;
	int err = 0;

	*buf = NULL;
	*len = 0;
	if (!f)
		return -errno;
	do {
		if (*len == cap) {
			cap = cap ? cap * 2 : 65536;
			*buf = realloc(*buf, cap);
			if (!*buf)
				abort();
		}
		n = fread(*buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	if (ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}

/*
 * The replay driver of a one-mode harness: each file through
 * LLVMFuzzerTestOneInput, then a line from say (may be NULL) after its
 * name.  1 if a file could not be read.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline int fuzz_replay__files(const char *name, int argc, char **argv,
				     void (*say)(size_t len))
{
	int i, bad = 0;

	for (i = 1; i < argc; i++) {
		uint8_t *buf;
		size_t len;
		int err = fuzz_file__slurp(argv[i], &buf, &len);

		if (err) {
			fprintf(stderr, "%s: cannot read '%s': %s\n", name, argv[i], strerror(-err));
			free(buf);
			bad = 1;
			continue;
		}
		LLVMFuzzerTestOneInput(buf, len);
		printf("%s: %zu bytes", argv[i], len);
		if (say)
			say(len);
		putchar('\n');
		free(buf);
	}
	return bad;
}

#endif
