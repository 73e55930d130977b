// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader: header, attrs, features and the record stream.  File
 * and pipe mode share pm_reader__next(); the file header only decides where
 * the records start and end and where the metadata comes from.
 *
 * Here: its faults, its making and what it tells of itself; it is opened
 * in open.c, gives its features in feature.c and its records in stream.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader/reader_int.h"

static void error__set(struct pm_reader_error *e, uint64_t offset, int err,
		       const char *fmt, va_list ap)
{
	e->offset = offset;
	e->err = err;
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
}

int reader_error__set(struct pm_reader_error *e, uint64_t offset, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error__set(e, offset, err, fmt, ap);
	va_end(ap);
	return err;
}

void pm_reader__set_error(struct pm_reader *r, const struct pm_reader_error *e)
{
	r->err = *e;
	r->status = e->err;
}

int pm_reader__fault(struct pm_reader *r, const struct pm_reader_error *e)
{
	if (!r->status)
		pm_reader__set_error(r, e);
	return r->status;
}

int reader__fail(struct pm_reader *r, uint64_t offset, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->status)
		return r->status;
	va_start(ap, fmt);
	error__set(&r->err, offset, err, fmt, ap);
	va_end(ap);
	r->status = err;
	return err;
}

void reader__defer(struct pm_reader *r, uint64_t offset, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->deferred_status)
		return;
	va_start(ap, fmt);
	error__set(&r->deferred, offset, err, fmt, ap);
	va_end(ap);
	r->deferred_status = err;
}

struct pm_reader *pm_reader__new(void)
{
	struct pm_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = -1;
	r->id_pos = r->is_pos = -1;
	reader__init_ids(r);
	r->rec = aligned_alloc(8, PM_RECORD_MAX);
	if (!r->rec) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void pm_reader__delete(struct pm_reader *r)
{
	size_t i;

	if (!r)
		return;
	pm_input__exit(&r->in);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	reader__delete_evsels(r);
	for (i = 0; i < HEADER_FEAT_BITS; i++)
		free(r->feat[i].data);
	pm_tp_data__exit(&r->tp);
	reader__exit_unpack(r);
	free(r->prefix);
	free(r->rec);
	free(r);
}

const struct pm_reader_error *pm_reader__error(const struct pm_reader *r)
{
	return r->status ? &r->err : NULL;
}

bool pm_reader__is_pipe(const struct pm_reader *r)
{
	return r->pipe;
}

bool pm_reader__seekable(const struct pm_reader *r)
{
	return !r->pipe && r->in.seekable;
}

bool pm_reader__sample_id_all(const struct pm_reader *r)
{
	return r->sample_id_all;
}

bool pm_reader__is_unfinished(const struct pm_reader *r)
{
	return r->unfinished;
}

size_t pm_reader__unflushed(const struct pm_reader *r, uint64_t *offset)
{
	*offset = r->unz_off;
	return r->unz_unflushed;
}

bool pm_reader__inflating(const struct pm_reader *r)
{
	return r->dstream;
}

bool pm_reader__features_skipped(const struct pm_reader *r)
{
	return r->features_skipped;
}

const struct perf_file_header *pm_reader__header(const struct pm_reader *r)
{
	return &r->header;
}

const struct pm_tp_data *pm_reader__tracing(const struct pm_reader *r)
{
	return r->has_tp ? &r->tp : NULL;
}
