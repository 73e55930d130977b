/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_GZOUT_H
#define PMREC_GZOUT_H

/*
 * gzip (RFC 1952) through zlib, written through the caller's callback:
 * pprof files are gzip-compressed protobuf.  The output goes out in
 * pieces of at most PM_GZOUT_CHUNK bytes as deflate produces them.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/file.h"

#define PM_GZOUT_CHUNK 65536

struct pm_gzout {
	void *zs;			/* z_stream */
	pm_write_fn *write;
	void *arg;
	unsigned char *chunk;
	int err;			/* the first failure: the stream cannot go on */
};

/* level: zlib's 1..9, or -1 for its default.  0, -EINVAL or -ENOMEM. */
int pm_gzout__init(struct pm_gzout *g, int level, pm_write_fn *write, void *arg);
/* A pm_write_fn (arg: the struct pm_gzout), for a pm_out that writes compressed. */
int pm_gzout__write(void *arg, const void *p, size_t n);
/* Ends the stream (the trailer with CRC-32 and length). */
int pm_gzout__finish(struct pm_gzout *g);
void pm_gzout__exit(struct pm_gzout *g);

#endif
