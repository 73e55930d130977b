// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "export/gzout.h"

/* windowBits 15 plus 16: a gzip header and trailer instead of zlib's. */
#define GZIP_WBITS (15 + 16)

int pm_gzout__init(struct pm_gzout *g, int level, pm_write_fn *write, void *arg)
{
	z_stream *zs;

	*g = (struct pm_gzout){ .write = write, .arg = arg };
	if (level < -1 || level > 9)
		return -EINVAL;
	zs = calloc(1, sizeof(*zs));
	g->chunk = malloc(PM_GZOUT_CHUNK);
	if (!zs || !g->chunk) {
		free(zs);
		free(g->chunk);
		g->chunk = NULL;
		return -ENOMEM;
	}
	if (deflateInit2(zs, level, Z_DEFLATED, GZIP_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(zs);
		free(g->chunk);
		g->chunk = NULL;
		return -ENOMEM;
	}
	g->zs = zs;
	return 0;
}

/* Runs deflate with flush over the input set in zs, writing what comes out. */
static int gzout__run(struct pm_gzout *g, int flush)
{
	z_stream *zs = g->zs;
	int ret;

	do {
		zs->next_out = g->chunk;
		zs->avail_out = PM_GZOUT_CHUNK;
		ret = deflate(zs, flush);
		if (ret == Z_STREAM_ERROR)
			return g->err = -EINVAL;
		if (zs->avail_out < PM_GZOUT_CHUNK) {
			g->err = g->write(g->arg, g->chunk, PM_GZOUT_CHUNK - zs->avail_out);
			if (g->err)
				return g->err;
		}
	} while (zs->avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
	return 0;
}

int pm_gzout__write(void *arg, const void *p, size_t n)
{
	struct pm_gzout *g = arg;
	z_stream *zs = g->zs;
	const unsigned char *c = p;
	uInt part;
	int err;

	if (g->err)
		return g->err;
	while (n) {
		/* avail_in is a uInt. */
		part = n > UINT_MAX ? UINT_MAX : (uInt)n;
		zs->next_in = (unsigned char *)c;
		zs->avail_in = part;
		err = gzout__run(g, Z_NO_FLUSH);
		if (err)
			return err;
		c += part;
		n -= part;
	}
	return 0;
}

int pm_gzout__finish(struct pm_gzout *g)
{
	z_stream *zs = g->zs;

	if (g->err)
		return g->err;
	zs->next_in = NULL;
	zs->avail_in = 0;
	return gzout__run(g, Z_FINISH);
}

void pm_gzout__exit(struct pm_gzout *g)
{
	if (g->zs) {
		deflateEnd(g->zs);
		free(g->zs);
	}
	free(g->chunk);
	*g = (struct pm_gzout){ 0 };
}
