/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_TPFORMAT_H
#define PMREC_TPFORMAT_H

/*
 * Tracepoint event formats from perf's tracing-data blob (format doc,
 * section 8): the `field:TYPE NAME; offset:N; size:N; signed:N;` lines of
 * each events/<sys>/<name>/format, so RAW payloads can be shown by field.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	PM_TP_FIELD_ARRAY = 1 << 0,	/* nr_elems x elem_size */
	PM_TP_FIELD_STRING = 1 << 1,	/* char array: shown as a string */
	PM_TP_FIELD_DYNAMIC = 1 << 2,	/* __data_loc: u32 (len << 16 | offset) */
	PM_TP_FIELD_RELATIVE = 1 << 3,	/* __rel_loc: offset from the field's end */
	PM_TP_FIELD_POINTER = 1 << 4,
	PM_TP_FIELD_COMMON = 1 << 5,	/* common_type, common_pid, ... */
};

struct pm_tp_field {
	char *name;
	char *type;		/* declaration without the name and [N] */
	uint32_t offset;
	uint32_t size;
	uint32_t elem_size;	/* of one element; == size unless an array */
	uint32_t nr_elems;	/* 1 unless PM_TP_FIELD_ARRAY */
	unsigned int flags;
	bool is_signed;
};

struct pm_tp_event {
	char *system;
	char *name;
	char *full_name;	/* "system:name" */
	uint64_t id;
	struct pm_tp_field *fields;
	size_t nr_fields;
};

struct pm_tp_data {
	char version[8];
	bool big_endian;
	uint8_t long_size;
	uint32_t page_size;
	struct pm_tp_event *events;
	size_t nr_events;
};

/*
 * Parses a tracing-data blob.  On -EBADMSG, *err_off is the offset in the
 * blob and *reason says what was wrong; formats parsed so far are kept.
 */
int pm_tp_data__parse(struct pm_tp_data *td, const void *blob, size_t size,
		      size_t *err_off, const char **reason);
void pm_tp_data__exit(struct pm_tp_data *td);
const struct pm_tp_event *pm_tp_data__find(const struct pm_tp_data *td, uint64_t id);

/* Parses one format file's text (not NUL-terminated) into ev. */
int pm_tp_event__parse(struct pm_tp_event *ev, const char *system, const char *text,
		       size_t len, uint8_t long_size);
void pm_tp_event__exit(struct pm_tp_event *ev);

/*
 * Bytes of field f in a RAW payload (resolving __data_loc); -EBADMSG when
 * they lie outside raw.
 */
int pm_tp_field__data(const struct pm_tp_field *f, const void *raw, size_t raw_size,
		      const unsigned char **p, size_t *len);
/* Integer of 1, 2, 4 or 8 bytes at p, sign-extended when is_signed. */
uint64_t pm_tp__read_int(const unsigned char *p, size_t size, bool is_signed);

#endif
