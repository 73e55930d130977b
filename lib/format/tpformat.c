// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "format/tpformat.h"

static const unsigned char tp_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* Format files are a few KiB; anything bigger is not a format. */
#define TP_FORMAT_MAX (1u << 20)

static char *strndup_trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Size of one element of a __data_loc array from its C type. */
static uint32_t type_elem_size(const char *type, uint8_t long_size)
{
	if (strstr(type, "64") || strstr(type, "long long"))
		return 8;
	if (strstr(type, "long"))
		return long_size ? long_size : 8;
	if (strstr(type, "32") || strstr(type, "int"))
		return 4;
	if (strstr(type, "16") || strstr(type, "short"))
		return 2;
	return 1;
}

static bool type_is_char(const char *type)
{
	const char *t = type;

	if (!strncmp(t, "const ", 6))
		t += 6;
	if (!strncmp(t, "signed ", 7))
		t += 7;
	return !strcmp(t, "char");
}

/*
 * "unsigned long args[6]", "__data_loc char[] name", "const char * fmt":
 * the name is the last identifier, an optional [N] follows it.
 */
static int field__parse_decl(struct pm_tp_field *f, const char *decl, size_t len,
			     uint8_t long_size)
{
	const char *end = decl + len, *name_end, *name, *dims = NULL;
	size_t dims_len = 0, tlen;
	char *type;

	while (end > decl && isspace((unsigned char)end[-1]))
		end--;
	if (end > decl && end[-1] == ']') {
		const char *open = end - 1;

		while (open > decl && *open != '[')
			open--;
		if (*open != '[')
			return -EBADMSG;
		dims = open + 1;
		dims_len = (size_t)(end - 1 - dims);
		end = open;
		while (end > decl && isspace((unsigned char)end[-1]))
			end--;
	}
	name_end = end;
	name = name_end;
	while (name > decl && is_ident(name[-1]))
		name--;
	if (name == name_end)
		return -EBADMSG;
	f->name = strndup(name, (size_t)(name_end - name));
	type = strndup_trim(decl, (size_t)(name - decl));
	if (!f->name || !type) {
		free(type);
		return -ENOMEM;
	}
	f->type = type;

	if (!strncmp(type, "__data_loc ", 11) || !strncmp(type, "__rel_loc ", 10)) {
		f->flags |= PM_TP_FIELD_DYNAMIC | PM_TP_FIELD_ARRAY;
		if (type[2] == 'r')
			f->flags |= PM_TP_FIELD_RELATIVE;
		memmove(type, strchr(type, ' ') + 1, strlen(strchr(type, ' ')));
		tlen = strlen(type);
		if (tlen >= 2 && !strcmp(type + tlen - 2, "[]"))
			type[tlen - 2] = '\0';
		f->elem_size = type_elem_size(type, long_size);
		f->nr_elems = 0;
	} else if (dims) {
		char *e;
		unsigned long n = strtoul(dims, &e, 10);

		f->flags |= PM_TP_FIELD_ARRAY;
		/* n > size also keeps n in 32 bits: "[4294967296]" with size 0. */
		if (e == dims || e != dims + dims_len || !n || n > f->size || f->size % n) {
			/* Unresolved macro or odd size: fall back to the type. */
			f->elem_size = type_elem_size(type, long_size);
			if (f->elem_size > f->size || f->size % f->elem_size)
				f->elem_size = 1;
			n = f->size / f->elem_size;
		} else {
			f->elem_size = f->size / (uint32_t)n;
		}
		f->nr_elems = (uint32_t)n;
	} else {
		f->elem_size = f->size;
		f->nr_elems = 1;
	}
	if ((f->flags & PM_TP_FIELD_ARRAY) && type_is_char(type))
		f->flags |= PM_TP_FIELD_STRING;
	if (strchr(type, '*'))
		f->flags |= PM_TP_FIELD_POINTER;
	if (!strncmp(f->name, "common_", 7))
		f->flags |= PM_TP_FIELD_COMMON;
	return 0;
}

/* Value of "key:N;" in line, or -1. */
static long long line_number(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	char *e;
	long long v;

	if (!p)
		return -1;
	p += strlen(key);
	v = strtoll(p, &e, 10);
	if (e == p || *e != ';' || v < 0 || v > UINT32_MAX)
		return -1;
	return v;
}

/* line: "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" (NUL-terminated) */
static int field__parse(struct pm_tp_field *f, const char *line, uint8_t long_size)
{
	const char *decl = strstr(line, "field:");
	const char *semi;
	long long off, size, sign;

	if (!decl)
		return -EBADMSG;
	decl += 6;
	semi = strchr(decl, ';');
	off = line_number(line, "offset:");
	size = line_number(line, "size:");
	sign = line_number(line, "signed:");
	if (!semi || off < 0 || size < 0)
		return -EBADMSG;
	*f = (struct pm_tp_field){
		.offset = (uint32_t)off,
		.size = (uint32_t)size,
		.is_signed = sign > 0,
	};
	return field__parse_decl(f, decl, (size_t)(semi - decl), long_size);
}

static void field__exit(struct pm_tp_field *f)
{
	free(f->name);
	free(f->type);
}

static int event__add_field(struct pm_tp_event *ev, const char *line, uint8_t long_size)
{
	struct pm_tp_field *fields, f = { 0 };
	int err = field__parse(&f, line, long_size);

	if (err) {
		field__exit(&f);
		return err;
	}
	fields = realloc(ev->fields, (ev->nr_fields + 1) * sizeof(*fields));
	if (!fields) {
		field__exit(&f);
		return -ENOMEM;
	}
	ev->fields = fields;
	ev->fields[ev->nr_fields++] = f;
	return 0;
}

static int event__parse_lines(struct pm_tp_event *ev, char *text, uint8_t long_size)
{
	char *line, *save = NULL;
	int err;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line;

		while (isspace((unsigned char)*p))
			p++;
		if (!strncmp(p, "name:", 5)) {
			free(ev->name);
			ev->name = strndup_trim(p + 5, strlen(p + 5));
			if (!ev->name)
				return -ENOMEM;
		} else if (!strncmp(p, "ID:", 3)) {
			char *e;

			ev->id = strtoull(p + 3, &e, 10);
			if (e == p + 3)
				return -EBADMSG;
		} else if (!strncmp(p, "field:", 6)) {
			err = event__add_field(ev, p, long_size);
			if (err)
				return err;
		} else if (!strncmp(p, "print fmt:", 10)) {
			break;
		}
	}
	return ev->name ? 0 : -EBADMSG;
}

int pm_tp_event__parse(struct pm_tp_event *ev, const char *system, const char *text,
		       size_t len, uint8_t long_size)
{
	char *copy;
	int err;

	*ev = (struct pm_tp_event){ .id = UINT64_MAX };
	if (len > TP_FORMAT_MAX)
		return -EBADMSG;
	copy = strndup(text, len);
	ev->system = strdup(system);
	if (!copy || !ev->system) {
		free(copy);
		return -ENOMEM;
	}
	err = event__parse_lines(ev, copy, long_size);
	free(copy);
	if (!err && ev->id == UINT64_MAX)
		err = -EBADMSG;
	if (!err && asprintf(&ev->full_name, "%s:%s", ev->system, ev->name) < 0) {
		ev->full_name = NULL;
		err = -ENOMEM;
	}
	return err;
}

void pm_tp_event__exit(struct pm_tp_event *ev)
{
	size_t i;

	for (i = 0; i < ev->nr_fields; i++)
		field__exit(&ev->fields[i]);
	free(ev->fields);
	free(ev->system);
	free(ev->name);
	free(ev->full_name);
	*ev = (struct pm_tp_event){ 0 };
}

/* Skips a u64-sized blob: header_page, header_event, ftrace formats. */
static int skip_sized(struct pm_cursor *c)
{
	uint64_t size;
	const void *p;

	if (pm_cursor__u64(c, &size) || size > pm_cursor__left(c))
		return -EBADMSG;
	return pm_cursor__bytes(c, (size_t)size, &p);
}

static int tp_data__add_event(struct pm_tp_data *td, const char *system, const char *text,
			      size_t len)
{
	struct pm_tp_event *events, ev;
	int err = pm_tp_event__parse(&ev, system, text, len, td->long_size);

	if (err) {
		pm_tp_event__exit(&ev);
		return err;
	}
	events = realloc(td->events, (td->nr_events + 1) * sizeof(*events));
	if (!events) {
		pm_tp_event__exit(&ev);
		return -ENOMEM;
	}
	td->events = events;
	td->events[td->nr_events++] = ev;
	return 0;
}

static int tp_data__parse_system(struct pm_tp_data *td, struct pm_cursor *c,
				 const char **reason)
{
	const char *name;
	const void *text;
	size_t name_len;
	uint32_t i, n;
	uint64_t size;
	char *system;
	int err = 0;

	if (pm_cursor__cstring(c, &name, &name_len) || pm_cursor__u32(c, &n)) {
		*reason = "truncated event system";
		return -EBADMSG;
	}
	system = strndup(name, name_len);
	if (!system)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		if (pm_cursor__u64(c, &size) || size > pm_cursor__left(c) ||
		    pm_cursor__bytes(c, (size_t)size, &text)) {
			*reason = "event format size past the end of the tracing data";
			err = -EBADMSG;
			break;
		}
		err = tp_data__add_event(td, system, text, (size_t)size);
		if (err == -EBADMSG)
			*reason = "malformed event format";
	}
	free(system);
	return err;
}

static int tp_data__parse_head(struct pm_tp_data *td, struct pm_cursor *c, const char **reason)
{
	const void *magic;
	const char *s;
	size_t slen;
	uint8_t endian;

	if (pm_cursor__bytes(c, sizeof(tp_magic), &magic) ||
	    memcmp(magic, tp_magic, sizeof(tp_magic))) {
		*reason = "bad tracing data magic";
		return -EBADMSG;
	}
	if (pm_cursor__cstring(c, &s, &slen) || slen >= sizeof(td->version)) {
		*reason = "bad tracing data version";
		return -EBADMSG;
	}
	memcpy(td->version, s, slen);
	td->version[slen] = '\0';
	if (pm_cursor__u8(c, &endian) || pm_cursor__u8(c, &td->long_size) ||
	    pm_cursor__u32(c, &td->page_size)) {
		*reason = "truncated tracing data header";
		return -EBADMSG;
	}
	td->big_endian = endian != 0;
	if (pm_cursor__cstring(c, &s, &slen) || strcmp(s, "header_page") || skip_sized(c)) {
		*reason = "bad header_page in tracing data";
		return -EBADMSG;
	}
	if (pm_cursor__cstring(c, &s, &slen) || strcmp(s, "header_event") || skip_sized(c)) {
		*reason = "bad header_event in tracing data";
		return -EBADMSG;
	}
	return 0;
}

int pm_tp_data__parse(struct pm_tp_data *td, const void *blob, size_t size,
		      size_t *err_off, const char **reason)
{
	struct pm_cursor c;
	uint32_t i, n;
	int err;

	*td = (struct pm_tp_data){ 0 };
	*reason = NULL;
	pm_cursor__init(&c, blob, size, 0);
	err = tp_data__parse_head(td, &c, reason);
	if (!err && pm_cursor__u32(&c, &n))
		err = -EBADMSG;
	for (i = 0; !err && i < n; i++)
		if (skip_sized(&c)) {
			*reason = "bad ftrace format in tracing data";
			err = -EBADMSG;
		}
	if (!err && pm_cursor__u32(&c, &n))
		err = -EBADMSG;
	for (i = 0; !err && i < n; i++)
		err = tp_data__parse_system(td, &c, reason);
	/* kallsyms, printk formats and saved cmdlines are not needed. */
	if (err == -EBADMSG && !*reason)
		*reason = "truncated tracing data";
	*err_off = c.pos;
	return err;
}

void pm_tp_data__exit(struct pm_tp_data *td)
{
	size_t i;

	for (i = 0; i < td->nr_events; i++)
		pm_tp_event__exit(&td->events[i]);
	free(td->events);
	*td = (struct pm_tp_data){ 0 };
}

const struct pm_tp_event *pm_tp_data__find(const struct pm_tp_data *td, uint64_t id)
{
	size_t i;

	for (i = 0; i < td->nr_events; i++)
		if (td->events[i].id == id)
			return &td->events[i];
	return NULL;
}

int pm_tp_field__data(const struct pm_tp_field *f, const void *raw, size_t raw_size,
		      const unsigned char **p, size_t *len)
{
	uint64_t off, n;
	uint32_t loc;

	if ((uint64_t)f->offset + f->size > raw_size)
		return -EBADMSG;
	if (!(f->flags & PM_TP_FIELD_DYNAMIC)) {
		*p = (const unsigned char *)raw + f->offset;
		*len = f->size;
		return 0;
	}
	if (f->size < sizeof(loc))
		return -EBADMSG;
	memcpy(&loc, (const unsigned char *)raw + f->offset, sizeof(loc));
	off = loc & 0xffff;
	n = loc >> 16;
	if (f->flags & PM_TP_FIELD_RELATIVE)
		off += (uint64_t)f->offset + f->size;
	if (off + n > raw_size)
		return -EBADMSG;
	*p = (const unsigned char *)raw + off;
	*len = (size_t)n;
	return 0;
}

uint64_t pm_tp__read_int(const unsigned char *p, size_t size, bool is_signed)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return is_signed ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}
