// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "format/perf_data.h"
#include "record/zsink.h"

int pm_zsink__init(struct pm_zsink *z, int level, uint64_t mmap_len)
{
	memset(z, 0, sizeof(*z));
	if (level < PM_ZSINK_LEVEL_MIN || level > PM_ZSINK_LEVEL_MAX || mmap_len < 8192)
		return -EINVAL;
	z->cctx = ZSTD_createCCtx();
	if (!z->cctx)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level))) {
		ZSTD_freeCCtx(z->cctx);
		z->cctx = NULL;
		return -EINVAL;
	}
	z->level = level;
	/* Readers allocate it per record: a huge ring need not make them. */
	z->mmap_len = mmap_len < PM_ZSINK_MMAP_LEN_MAX ? mmap_len : PM_ZSINK_MMAP_LEN_MAX;
	/* A ring's worth, as perf pushes one ring at a time. */
	z->chunk = z->mmap_len - 4096;
	return 0;
}

void pm_zsink__reset(struct pm_zsink *z)
{
	ZSTD_CCtx_reset(z->cctx, ZSTD_reset_session_only);
	z->bytes_in = z->bytes_out = 0;
	z->broken = 0;
}

/* Closes the open record at *rec (its header at that offset), dropping it if empty. */
static void zsink__close(struct pm_zsink *z, size_t *rec)
{
	struct perf_event_header h = { .type = PERF_RECORD_COMPRESSED };

	if (*rec == SIZE_MAX)
		return;
	if (z->out.len == *rec + sizeof(h)) {
		z->out.len = *rec;
	} else {
		h.size = (uint16_t)(z->out.len - *rec);
		memcpy(z->out.data + *rec, &h, sizeof(h));
		z->bytes_out += h.size;
	}
	*rec = SIZE_MAX;
}

/*
 * One call of the compressor into the open record (a new one if none),
 * which closes once full.  Returns zstd's hint (0: flushed) or -errno.
 */
static ssize_t zsink__step(struct pm_zsink *z, size_t *rec, ZSTD_inBuffer *in,
			   ZSTD_EndDirective mode)
{
	ZSTD_outBuffer out;
	size_t used, ret;

	if (*rec == SIZE_MAX) {
		if (pm_buf__reserve(&z->out, sizeof(struct perf_event_header) + PM_ZSINK_MAX_PAYLOAD))
			return -ENOMEM;
		*rec = z->out.len;
		z->out.len += sizeof(struct perf_event_header);
	} else if (pm_buf__reserve(&z->out, PM_ZSINK_MAX_PAYLOAD)) {
		return -ENOMEM;
	}
	used = z->out.len - *rec - sizeof(struct perf_event_header);
	out = (ZSTD_outBuffer){ z->out.data + z->out.len, PM_ZSINK_MAX_PAYLOAD - used, 0 };
	ret = ZSTD_compressStream2(z->cctx, &out, in, mode);
	if (ZSTD_isError(ret))
		return -EIO;
	z->out.len += out.pos;
	if (used + out.pos == PM_ZSINK_MAX_PAYLOAD)
		zsink__close(z, rec);
	return (ssize_t)ret;
}

/* Flushes the chunk into records of its own: each decodes to chunk bytes at most. */
static int zsink__flush(struct pm_zsink *z, size_t *rec)
{
	ZSTD_inBuffer none = { NULL, 0, 0 };
	ssize_t left;

	do {
		left = zsink__step(z, rec, &none, ZSTD_e_flush);
	} while (left > 0);
	zsink__close(z, rec);
	return left < 0 ? (int)left : 0;
}

int pm_zsink__compress(struct pm_zsink *z, const struct iovec *iov, int iovcnt)
{
	size_t rec = SIZE_MAX, fed = 0;
	ssize_t err = z->broken;
	int i;

	pm_buf__reset(&z->out);
	for (i = 0; i < iovcnt && !err; i++) {
		const char *p = iov[i].iov_base;
		size_t left = iov[i].iov_len;

		while (left && !err) {
			size_t n = left < z->chunk - fed ? left : z->chunk - fed;
			ZSTD_inBuffer in = { p, n, 0 };

			while (in.pos < in.size && err >= 0)
				err = zsink__step(z, &rec, &in, ZSTD_e_continue);
			if (err > 0)
				err = 0;
			p += n;
			left -= n;
			fed += n;
			z->bytes_in += n;
			if (!err && fed == z->chunk) {
				err = zsink__flush(z, &rec);
				fed = 0;
			}
		}
	}
	if (!err && fed)
		err = zsink__flush(z, &rec);
	if (err) {
		z->broken = (int)err;
		pm_buf__reset(&z->out);
	}
	return (int)err;
}

int pm_zsink__feature(const struct pm_zsink *z, struct pm_buf *out)
{
	uint32_t ratio = z->bytes_out ? (uint32_t)((double)z->bytes_in / z->bytes_out + 0.5) : 0;

	if (pm_buf__append_u32(out, PM_COMP_VER) || pm_buf__append_u32(out, PM_COMP_ZSTD) ||
	    pm_buf__append_u32(out, (uint32_t)z->level) || pm_buf__append_u32(out, ratio) ||
	    pm_buf__append_u32(out, (uint32_t)z->mmap_len))
		return -ENOMEM;
	return 0;
}

const char *pm_zsink__lib_version(void)
{
	static char v[32];

	snprintf(v, sizeof(v), "libzstd %s", ZSTD_versionString());
	return v;
}

void pm_zsink__exit(struct pm_zsink *z)
{
	ZSTD_freeCCtx(z->cctx);
	z->cctx = NULL;
	pm_buf__exit(&z->out);
}
