// SPDX-License-Identifier: GPL-2.0
/*
 * stallcat: a reader that stops reading, for recorders writing to a pipe.
 *
 *   stallcat [-d DELAY_MS] [-p PAUSE_MS] [-e EVERY_MS] [-n PAUSES] [-o FILE]
 *
 * Copies stdin to FILE (default: discards it) until end of file, and every
 * EVERY_MS ms (default 1000), starting DELAY_MS ms after the first byte
 * (default EVERY_MS - PAUSE_MS), stops reading for PAUSE_MS ms (default
 * 300), at most PAUSES times (default: no limit).  With -v, prints the bytes
 * copied and the pauses made on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long arg_ms(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 0) {
		fprintf(stderr, "stallcat: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long pause = 300, every = 1000, delay = -1, max = -1, pauses = 0;
	static char buf[1 << 16];
	unsigned long long copied = 0;
	int out = -1, c, verbose = 0;
	int64_t next = 0;
	ssize_t n;

	while ((c = getopt(argc, argv, "d:p:e:n:o:v")) != -1) {
		switch (c) {
		case 'd': delay = arg_ms(optarg); break;
		case 'p': pause = arg_ms(optarg); break;
		case 'e': every = arg_ms(optarg); break;
		case 'n': max = arg_ms(optarg); break;
		case 'o':
			out = open(optarg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (out < 0) {
				perror(optarg);
				return 1;
			}
			break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: stallcat [-d MS] [-p MS] [-e MS] [-n N] [-o FILE] [-v]\n");
			return 2;
		}
	}
	if (delay < 0)
		delay = every > pause ? every - pause : 0;
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("read");
			return 1;
		}
		if (!next)
			next = now_ms() + delay;
		if (out >= 0) {
			ssize_t w, off = 0;

			for (; off < n; off += w) {
				w = write(out, buf + off, n - off);
				if (w < 0) {
					perror("write");
					return 1;
				}
			}
		}
		copied += n;
		if ((max < 0 || pauses < max) && now_ms() >= next) {
			usleep(pause * 1000);
			pauses++;
			next += every;
		}
	}
	if (verbose)
		fprintf(stderr, "stallcat: copied=%llu pauses=%ld\n", copied, pauses);
	return 0;
}
