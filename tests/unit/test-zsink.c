// SPDX-License-Identifier: GPL-2.0
/*
 * The compressing sink's records, decoded back with libzstd as perf does;
 * the control channel's words and replies.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "record/control.h"
#include "format/perf_data.h"
#include "tap.h"
#include "record/zsink.h"

struct decoded {
	unsigned char *data;
	size_t len;
	size_t records;
	size_t max_record_out;	/* most bytes one record gave */
	int bad;		/* a record of the wrong type or size, or a zstd error */
};

/* Decodes z->out record by record through one stream, as perf's session does. */
static void decode(ZSTD_DStream *ds, const struct pm_zsink *z, struct decoded *d)
{
	size_t off = 0;

	while (off < z->out.len) {
		struct perf_event_header h;
		ZSTD_inBuffer in;
		size_t before = d->len;

		memcpy(&h, z->out.data + off, sizeof(h));
		/* A u16 size: at most 8 + PM_ZSINK_MAX_PAYLOAD by construction. */
		if (h.type != PERF_RECORD_COMPRESSED || h.size <= sizeof(h) ||
		    off + h.size > z->out.len) {
			d->bad = 1;
			return;
		}
		in = (ZSTD_inBuffer){ z->out.data + off + sizeof(h), h.size - sizeof(h), 0 };
		while (in.pos < in.size) {
			ZSTD_outBuffer out;
			size_t ret;

			d->data = realloc(d->data, d->len + (1 << 20));
			out = (ZSTD_outBuffer){ d->data + d->len, 1 << 20, 0 };
			ret = ZSTD_decompressStream(ds, &out, &in);
			if (ZSTD_isError(ret)) {
				d->bad = 1;
				return;
			}
			d->len += out.pos;
		}
		if (d->len - before > d->max_record_out)
			d->max_record_out = d->len - before;
		d->records++;
		off += h.size;
	}
}

static void test_roundtrip(void)
{
	const size_t n = 3 << 20;
	unsigned char *src = malloc(n);
	struct iovec iov[3];
	struct pm_zsink z;
	struct decoded d = { 0 };
	ZSTD_DStream *ds = ZSTD_createDStream();
	uint64_t x = 88172645463325252ULL;
	size_t i;

	ZSTD_initDStream(ds);
	/* Half compressible text, half random: records fill up to their limit. */
	for (i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		src[i] = i < n / 2 ? (unsigned char)("perf record -z "[i % 15]) : (unsigned char)x;
	}
	iov[0] = (struct iovec){ src, 1000 };
	iov[1] = (struct iovec){ src + 1000, n / 2 };
	iov[2] = (struct iovec){ src + 1000 + n / 2, n - 1000 - n / 2 };
	tap_ok(pm_zsink__init(&z, 3, 65536 + 4096) == 0, "init: level 3, a 64 KiB ring");
	tap_ok(pm_zsink__compress(&z, iov, 3) == 0, "3 MiB in three iovecs compressed");
	decode(ds, &z, &d);
	tap_ok(!d.bad, "every record is a COMPRESSED record of at most 65535 bytes that decodes");
	tap_ok(d.len == n && !memcmp(d.data, src, n), "the stream gives the input back");
	tap_ok(d.max_record_out <= z.chunk, "no record gives more than a ring (%zu <= %zu)",
	       d.max_record_out, z.chunk);
	tap_ok(z.bytes_in == n && z.bytes_out == z.out.len, "counts: %llu in, %llu out",
	       (unsigned long long)z.bytes_in, (unsigned long long)z.bytes_out);
	/* The next pass continues the same stream. */
	iov[0] = (struct iovec){ src, 4096 };
	d.len = 0;
	tap_ok(pm_zsink__compress(&z, iov, 1) == 0, "a second pass");
	decode(ds, &z, &d);
	tap_ok(!d.bad && d.len == 4096 && !memcmp(d.data, src, 4096),
	       "it decodes on the same stream");
	/* A new file: a new stream, which a fresh decoder reads. */
	pm_zsink__reset(&z);
	ZSTD_freeDStream(ds);
	ds = ZSTD_createDStream();
	ZSTD_initDStream(ds);
	d.len = 0;
	tap_ok(pm_zsink__compress(&z, iov, 1) == 0 && (decode(ds, &z, &d), !d.bad) &&
	       d.len == 4096, "after reset, a fresh decoder reads the new stream");
	tap_ok(pm_zsink__compress(&z, iov, 0) == 0 && z.out.len == 0, "nothing in, no record");
	pm_zsink__exit(&z);
	ZSTD_freeDStream(ds);
	free(d.data);
	free(src);
}

static void test_feature(void)
{
	struct pm_buf b = { 0 };
	struct pm_zsink z;
	uint32_t v[5];

	tap_ok(pm_zsink__init(&z, 0, 1 << 20) == -EINVAL, "level 0 refused");
	tap_ok(pm_zsink__init(&z, 23, 1 << 20) == -EINVAL, "level 23 refused");
	tap_ok(pm_zsink__init(&z, 22, 1ULL << 40) == 0 && z.mmap_len == PM_ZSINK_MMAP_LEN_MAX,
	       "a huge ring is stated as 64 MiB");
	z.bytes_in = 1000, z.bytes_out = 150;
	tap_ok(!pm_zsink__feature(&z, &b) && b.len == 20, "COMPRESSED payload: 20 bytes");
	memcpy(v, b.data, sizeof(v));
	tap_ok(v[0] == 0 && v[1] == 1 && v[2] == 22 && v[3] == 7 && v[4] == 64u << 20,
	       "version 0, zstd, level 22, ratio 7 (rounded), mmap_len");
	pm_buf__exit(&b);
	pm_zsink__exit(&z);
}

static int cmd_of(struct pm_control *c, enum pm_control_cmd *cmd)
{
	return pm_control__next(c, cmd);
}

static void test_control(void)
{
	struct pm_control c;
	struct pm_control_error e;
	enum pm_control_cmd cmd;
	int p[2], a[2];
	char spec[64], ack[64];
	ssize_t n;
	char big[300];

	tap_ok(pm_control__check_spec("fifo:ctl,ack") == 0 && pm_control__check_spec("fd:3") == 0,
	       "good specs");
	tap_ok(pm_control__check_spec("fifo:") && pm_control__check_spec("fd:x") &&
	       pm_control__check_spec("fd:3,") && pm_control__check_spec("fd:3,4,5") &&
	       pm_control__check_spec("pipe:3") && pm_control__check_spec("fifo:,a"),
	       "bad specs refused");
	tap_ok(pm_control__open(&c, "fifo:/nonexistent/ctl", &e) == -ENOENT &&
	       !strcmp(e.what, "control fifo"), "a missing fifo: -ENOENT, named");
	tap_ok(pipe(p) == 0 && pipe(a) == 0, "pipes");
	snprintf(spec, sizeof(spec), "fd:%d,999", p[0]);
	tap_ok(pm_control__open(&c, spec, &e) == -EBADF && !strcmp(e.what, "ack fd"),
	       "a closed ack fd: -EBADF");
	snprintf(spec, sizeof(spec), "fd:%d,%d", p[0], a[1]);
	tap_ok(pm_control__open(&c, spec, &e) == 0, "fd:CTL,ACK opened");
	tap_ok(cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_NONE, "nothing yet");
	n = write(p[1], "enable\ndisa", 11);
	tap_ok(n == 11 && cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_ENABLE, "enable");
	tap_ok(cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_NONE, "half a word waits");
	n = write(p[1], "ble\n\nsnapshot\0stop \r\nping\nfoo\n", 30);
	tap_ok(cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_DISABLE, "disable, across two reads");
	tap_ok(cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_SNAPSHOT,
	       "an empty line skipped; snapshot ended by a NUL");
	tap_ok(cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_STOP, "stop, trailing blanks ignored");
	tap_ok(cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_PING, "ping");
	tap_ok(cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_UNKNOWN && !strcmp(c.word, "foo"),
	       "an unknown word is kept for the error line");
	memset(big, 'x', sizeof(big));
	n = write(p[1], big, sizeof(big));
	n = write(p[1], "\nping\n", 6);
	tap_ok(cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_UNKNOWN, "a 300-byte line: unknown");
	while (cmd_of(&c, &cmd) == 0 && cmd == PM_CONTROL_UNKNOWN)
		;
	tap_ok(cmd == PM_CONTROL_PING, "then the next word is read");
	tap_ok(pm_control__reply(&c, NULL) == 0 && pm_control__reply(&c, "unknown command") == 0,
	       "replies written");
	n = read(a[0], ack, sizeof(ack) - 1);
	ack[n > 0 ? n : 0] = '\0';
	tap_ok(!strcmp(ack, "ack\nerror: unknown command\n"), "ack, then the error line");
	close(a[0]);
	tap_ok(pm_control__reply(&c, NULL) == -EPIPE, "a reader gone: -EPIPE");
	pm_control__exit(&c);
	close(p[0]);
	close(p[1]);
	close(a[1]);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_roundtrip();
	test_feature();
	test_control();
	return tap_done();
}
