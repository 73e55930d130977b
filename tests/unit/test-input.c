// SPDX-License-Identifier: GPL-2.0
/*
 * reader/input over a regular file, read ahead: every byte where it is,
 * read in steps across the chunks, after seeks (a chunk in flight is of
 * the old place), from the start (the caller reads a little itself), to
 * the end, and with a buffer smaller than the first read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/input.h"
#include "tap.h"

#define MIB ((size_t)1 << 20)
#define FILE_SIZE (5 * MIB + 12345)

static unsigned char byte_at(uint64_t off)
{
	return (unsigned char)(off * 2654435761u >> 13);
}

/* A file of FILE_SIZE pattern bytes, unlinked; its fd, or -1. */
static int pattern_file(void)
{
	char path[] = "/tmp/pmrec-test-input-XXXXXX";
	unsigned char *buf = malloc(FILE_SIZE);
	int fd = mkstemp(path);
	size_t i;

	if (fd >= 0)
		unlink(path);
	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (i = 0; i < FILE_SIZE; i++)
		buf[i] = byte_at(i);
	if (write(fd, buf, FILE_SIZE) != (ssize_t)FILE_SIZE) {
		close(fd);
		fd = -1;
	}
	free(buf);
	return fd;
}

/*
 * Reads n bytes at the current place in peeks of step bytes and checks
 * each: 1 if all are the file's, at their offsets.
 */
static int read_checked(struct pm_input *in, uint64_t n, size_t step)
{
	while (n) {
		size_t want = step < n ? step : (size_t)n, i;
		const unsigned char *p;
		ssize_t got = pm_input__peek(in, want, &p);

		if (got != (ssize_t)want)
			return 0;
		for (i = 0; i < want; i++)
			if (p[i] != byte_at(in->pos + i))
				return 0;
		pm_input__consume(in, want);
		n -= want;
	}
	return 1;
}

static void test_sequential(int fd)
{
	struct pm_input in;
	const unsigned char *p;
	int ok = !pm_input__init(&in, fd, MIB) && in.ahead;

	/* Steps that do not divide the chunk: records straddle its ends. */
	ok = ok && read_checked(&in, 104, 104) && read_checked(&in, 3 * MIB, 4099) &&
	     read_checked(&in, 65536, 65536) && read_checked(&in, FILE_SIZE - in.pos, 777);
	tap_ok(ok && in.pos == FILE_SIZE, "read ahead: every byte of 5 MiB in steps, at %llu",
	       (unsigned long long)in.pos);
	tap_ok(pm_input__peek(&in, 8, &p) == 0 && in.eof, "at the end: nothing, and eof");
	pm_input__exit(&in);
}

static void test_seeks(int fd)
{
	static const uint64_t places[] = { 424, 3 * MIB + 5, 100, FILE_SIZE - 3000, 0, 2 * MIB };
	struct pm_input in;
	const unsigned char *p;
	size_t i;
	int ok = !pm_input__init(&in, fd, MIB);

	/* The header first, as the reader does, then the records elsewhere. */
	ok = ok && read_checked(&in, 104, 104);
	for (i = 0; ok && i < sizeof(places) / sizeof(places[0]); i++) {
		uint64_t left = FILE_SIZE - places[i];

		ok = !pm_input__seek(&in, places[i]) &&
		     read_checked(&in, left < MIB + 4096 ? left : MIB + 4096, 1000);
		/* Leaves a chunk in flight for the next seek to drop. */
		ok = ok && (in.pos == FILE_SIZE || read_checked(&in, 1, 1));
	}
	tap_ok(ok, "seeks: the bytes at each place, a chunk in flight dropped (%zu of %zu)", i,
	       sizeof(places) / sizeof(places[0]));
	ok = !pm_input__seek(&in, FILE_SIZE - 10) && pm_input__peek(&in, 100, &p) == 10 &&
	     p[9] == byte_at(FILE_SIZE - 1);
	tap_ok(ok, "a peek past the end gets what is there");
	pm_input__exit(&in);
}

/* A buffer smaller than the caller's first read (the fuzzers build 64 KiB ones). */
static void test_small_buffer(int fd)
{
	struct pm_input in;
	int ok = !pm_input__init(&in, fd, 32768);

	ok = ok && read_checked(&in, 32768, 32768) && read_checked(&in, MIB, 333);
	ok = ok && !pm_input__seek(&in, 7) && read_checked(&in, 100000, 32768);
	tap_ok(ok, "a 32 KiB buffer: the bytes where they are");
	pm_input__exit(&in);
}

int main(void)
{
	int fd = pattern_file();

	if (!tap_ok(fd >= 0, "a 5 MiB file in /tmp"))
		return tap_done();
	test_sequential(fd);
	test_seeks(fd);
	test_small_buffer(fd);
	close(fd);
	return tap_done();
}
