// SPDX-License-Identifier: GPL-2.0
/*
 * The features of the input: a file's read when first asked for (and
 * dropped when asked to), a pipe's stored as their records come.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "format/clock.h"
#include "reader/reader_int.h"

int pm_reader__feature(struct pm_reader *r, int feat, struct pm_cursor *c)
{
	struct pm_feat_slot *f;
	int err;

	if (feat < 0 || feat >= HEADER_FEAT_BITS || !r->feat[feat].present)
		return -ENOENT;
	f = &r->feat[feat];
	if (!r->pipe && !f->data && f->size) {
		/*
		 * A bad feature is the caller's to report, not a fault; and it
		 * leaves an earlier fault of the reader as it was.
		 */
		struct pm_reader_error saved = r->err;
		int status = r->status;

		r->status = 0;
		err = reader__load_feature(r, feat);
		r->status = status;
		r->err = saved;
		if (err)
			return err;
	}
	pm_cursor__init(c, f->data, (size_t)f->size, f->offset);
	return 0;
}

int pm_reader__clock_data(struct pm_reader *r, struct pm_clock_ref *ref)
{
	struct pm_cursor c;
	uint32_t version, clockid;
	int err;

	*ref = (struct pm_clock_ref){ 0 };
	err = pm_reader__feature(r, HEADER_CLOCK_DATA, &c);
	if (err)
		return err;
	if (pm_cursor__u32(&c, &version) || version != 1 || pm_cursor__u32(&c, &clockid) ||
	    pm_cursor__u64(&c, &ref->wall_ns) || pm_cursor__u64(&c, &ref->clock_ns))
		return -EBADMSG;
	ref->clockid = (int32_t)clockid;
	if (!pm_reader__feature(r, HEADER_CLOCKID, &c) && pm_cursor__u64(&c, &ref->res_ns))
		ref->res_ns = 0;
	return 0;
}

void pm_reader__feature_drop(struct pm_reader *r, int feat)
{
	struct pm_feat_slot *f;

	if (r->pipe || feat < 0 || feat >= HEADER_FEAT_BITS)
		return;
	f = &r->feat[feat];
	if (!f->data)
		return;
	free(f->data);
	f->data = NULL;
	r->feat_bytes -= f->size;
}

int pm_reader__feature_size(struct pm_reader *r, int feat, uint64_t *size)
{
	if (feat < 0 || feat >= HEADER_FEAT_BITS || !r->feat[feat].present)
		return -ENOENT;
	*size = r->feat[feat].size;
	return 0;
}

int pm_reader__feature_read(struct pm_reader *r, int feat, uint64_t off, void *buf, size_t len)
{
	struct pm_feat_slot *f;
	struct pm_cursor c;
	int err;

	if (feat < 0 || feat >= HEADER_FEAT_BITS || !r->feat[feat].present)
		return -ENOENT;
	f = &r->feat[feat];
	if (off > f->size || len > f->size - off)
		return -EINVAL;
	if (f->offset > UINT64_MAX - f->size)
		return -EBADMSG;
	if (!len)
		return 0;
	if (!f->data && !r->pipe && r->in.seekable) {
		err = pm_input__pread(&r->in, buf, len, f->offset + off);
		return err == -ENODATA ? -EBADMSG : err;
	}
	if (!f->data && (err = pm_reader__feature(r, feat, &c)))
		return err;
	memcpy(buf, f->data + off, len);
	return 0;
}

void reader__store_feature(struct pm_reader *r, uint64_t feat, const void *p,
				  size_t len, uint64_t offset)
{
	struct pm_feat_slot *f;
	unsigned char *copy;

	if (feat >= HEADER_FEAT_BITS)
		return;
	copy = malloc(len ? len : 1);
	if (!copy)
		return;
	memcpy(copy, p, len);
	f = &r->feat[feat];
	free(f->data);
	*f = (struct pm_feat_slot){ .offset = offset, .size = len, .data = copy, .present = true };
}
