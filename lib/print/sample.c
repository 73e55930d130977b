// SPDX-License-Identifier: GPL-2.0
/* Record lines: the common columns, samples, raw bytes. */
#include <stdio.h>
#include <string.h>

#include "print/print_int.h"
#include "format/tpformat.h"
#include "dwarf/unwind.h"

const char *const pm_cpumode_names[8] = {
	"unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user", "6", "7",
};

const char *pm_record_type__label(uint32_t type, char *buf, size_t len)
{
	const char *name = pm_record_type__name(type);

	if (name)
		return name;
	snprintf(buf, len, "UNKNOWN_%u", type);
	return buf;
}

static void rec_begin(struct pm_emit *e, const struct pm_record *rec,
		      const struct pm_rec_info *in)
{
	struct pm_out *o = &e->out;
	char buf[32];
	const char *name = pm_record_type__label(rec->header->type, buf, sizeof(buf));

	if (e->json) {
		pm_out__str(o, "{\"offset\":");
		pm_out__u64(o, rec->offset);
		pm_out__str(o, ",\"type\":\"");
		pm_out__str(o, name);
		pm_out__str(o, "\",\"size\":");
		pm_out__u64(o, rec->header->size);
		pm_out__str(o, ",\"misc\":");
		pm_out__u64(o, rec->header->misc);
		e->first = false;
		if (in->has_time)
			pm_emit__u64(e, "time", in->time);
		if (in->has_cpu)
			pm_emit__u64(e, "cpu", in->cpu);
		if (in->has_pid) {
			pm_emit__s64(e, "pid", in->pid);
			pm_emit__s64(e, "tid", in->tid);
		}
		return;
	}
	pm_out__hex(o, rec->offset);
	pm_out__ch(o, ' ');
	if (in->has_time)
		pm_out__time(o, in->time);
	else
		pm_out__ch(o, '-');
	pm_out__ch(o, ' ');
	if (in->has_cpu)
		pm_out__u64(o, in->cpu);
	else
		pm_out__ch(o, '-');
	pm_out__ch(o, ' ');
	if (in->has_pid) {
		pm_out__s64(o, in->pid);
		pm_out__ch(o, '/');
		pm_out__s64(o, in->tid);
	} else {
		pm_out__ch(o, '-');
	}
	pm_out__ch(o, ' ');
	pm_out__str(o, name);
}

static void rec_end(struct pm_emit *e)
{
	if (e->json)
		pm_out__ch(&e->out, '}');
	pm_out__ch(&e->out, '\n');
}

/* --raw in text: the record bytes, hexdump -C style, under its line. */
static void print_raw_text(struct pm_emit *e, const struct pm_record *rec)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = rec->data;
	size_t n = rec->header->size, i, j;
	struct pm_out *o = &e->out;

	for (i = 0; i < n; i += 16) {
		char line[80];
		size_t len = 0;

		memcpy(line, "    ", 4);
		len = 4;
		for (j = 0; j < 4; j++)
			line[len++] = hex[(i >> (12 - 4 * j)) & 15];
		line[len++] = ':';
		for (j = 0; j < 16; j++) {
			line[len++] = ' ';
			if (i + j < n) {
				line[len++] = hex[p[i + j] >> 4];
				line[len++] = hex[p[i + j] & 15];
			} else {
				line[len++] = ' ';
				line[len++] = ' ';
			}
		}
		line[len++] = ' ';
		line[len++] = ' ';
		for (j = 0; j < 16 && i + j < n; j++)
			line[len++] = p[i + j] >= 0x20 && p[i + j] < 0x7f ? (char)p[i + j] : '.';
		line[len++] = '\n';
		pm_out__mem(o, line, len);
	}
}

/* Samples. */

static void print_tp_value(struct pm_emit *e, const struct pm_tp_field *f,
			   const unsigned char *p, size_t len)
{
	size_t elem = f->elem_size, i, n;

	if (f->flags & PM_TP_FIELD_STRING) {
		pm_emit__vstr(e, (const char *)p, strnlen((const char *)p, len));
		return;
	}
	if (elem != 1 && elem != 2 && elem != 4 && elem != 8) {
		if (e->json)
			pm_out__ch(&e->out, '"');
		pm_out__hexbytes(&e->out, p, len);
		if (e->json)
			pm_out__ch(&e->out, '"');
		return;
	}
	n = len / elem;
	if (f->flags & PM_TP_FIELD_ARRAY) {
		if (e->json)
			pm_out__ch(&e->out, '[');
		e->first = true;
	}
	for (i = 0; i < n; i++) {
		uint64_t v = pm_tp__read_int(p + i * elem, elem, f->is_signed);

		if (f->flags & PM_TP_FIELD_ARRAY)
			pm_emit__item(e);
		if (f->flags & PM_TP_FIELD_POINTER)
			pm_emit__vhex(e, v);
		else if (f->is_signed)
			pm_out__s64(&e->out, (int64_t)v);
		else
			pm_out__u64(&e->out, v);
		if (!(f->flags & PM_TP_FIELD_ARRAY))
			break;
	}
	if (f->flags & PM_TP_FIELD_ARRAY) {
		if (e->json)
			pm_out__ch(&e->out, ']');
		e->first = false;
	}
}

/*
 * Tracepoint fields by name.  Text skips the common_* header fields (pid
 * and cpu are in the columns already); JSON has them all under "fields".
 */
static void print_tp_fields(struct pm_emit *e, const struct pm_tp_event *tp,
			    const struct pm_sample *s)
{
	const unsigned char *p;
	size_t i, len;

	pm_emit__obj_begin(e, "fields");
	for (i = 0; i < tp->nr_fields; i++) {
		const struct pm_tp_field *f = &tp->fields[i];

		if (!e->json && (f->flags & PM_TP_FIELD_COMMON))
			continue;
		pm_emit__key(e, f->name);
		if (pm_tp_field__data(f, s->raw, s->raw_size, &p, &len))
			pm_out__str(&e->out, e->json ? "null" : "?");
		else
			print_tp_value(e, f, p, len);
	}
	pm_emit__obj_end(e);
}

static void print_regs(struct pm_emit *e, const char *abi_key, const char *key,
		       const struct pm_regs *regs)
{
	pm_emit__u64(e, abi_key, regs->abi);
	pm_emit__hex_list(e, key, regs->regs, regs->nr);
}

static void print_branches(struct pm_emit *e, const struct pm_sample *s)
{
	uint64_t i;

	if (s->branch_has_hw_idx)
		pm_emit__s64(e, "branch_hw_idx", (int64_t)s->branch_hw_idx);
	pm_emit__list_begin(e, "branches");
	for (i = 0; i < s->branch_nr; i++) {
		const uint64_t *b = s->branches + 3 * i;

		if (e->json) {
			pm_emit__obj_begin(e, NULL);
			pm_emit__hex(e, "from", b[0]);
			pm_emit__hex(e, "to", b[1]);
			pm_emit__hex(e, "flags", b[2]);
			pm_emit__obj_end(e);
		} else {
			pm_emit__item(e);
			pm_out__hex(&e->out, b[0]);
			pm_out__str(&e->out, "->");
			pm_out__hex(&e->out, b[1]);
		}
	}
	pm_emit__list_end(e);
}

/*
 * Sample fields "sym", "symoff", "dso" of one address; without a symbol,
 * "dsoff", the offset in the mapped file (perf script's dsoff field), when
 * the address is in one.
 */
static void print_frame_fields(struct pm_emit *e, const struct pm_frame *f, const char *sym_key,
			       const char *off_key)
{
	if (f->sym) {
		pm_emit__cstr(e, sym_key, f->sym);
		pm_emit__hex(e, off_key, f->off);
	}
	if (f->dso)
		pm_emit__cstr(e, "dso", f->dso);
	if (!f->sym && f->in_file)
		pm_emit__hex(e, "dsoff", f->dsoff);
}


static void print_frame(struct pm_printer *p, const struct pm_named_frame *fr)
{
	struct pm_emit *e = p->em;
	struct pm_frame f = fr->f;

	/* Offsets are the ip's, as recorded (the name is the lookup's). */
	if (f.sym && !fr->inlined)
		f.off += fr->ip - fr->lookup;
	else if (!f.sym && f.in_file)
		f.dsoff += fr->ip - fr->lookup;
	if (e->json) {
		pm_emit__obj_begin(e, NULL);
		pm_emit__hex(e, "ip", fr->ip);
		if (fr->inlined) {
			pm_emit__cstr(e, "sym", f.sym);
			pm_emit__bool(e, "inlined", true);
			if (f.dso)
				pm_emit__cstr(e, "dso", f.dso);
		} else {
			print_frame_fields(e, &f, "sym", "off");
		}
		pm_emit__obj_end(e);
	} else if (fr->inlined) {
		pm_emit__item(e);
		pm_emit__vstr(e, f.sym, strlen(f.sym));
		pm_out__str(&e->out, "(inlined)");
	} else if (f.sym) {
		pm_emit__item(e);
		pm_emit__vstr(e, f.sym, strlen(f.sym));
		pm_out__ch(&e->out, '+');
		pm_out__hex(&e->out, f.off);
	} else {
		pm_emit__item(e);
		p->name.len = 0;
		if (!pm_frame__label(&p->name, f.sym, f.dso, f.in_file, f.dsoff))
			pm_emit__vstr(e, (const char *)p->name.data, p->name.len);
	}
}

/*
 * The frames of the call chain, or of the unwound stack copy.  A sample
 * with neither has no frames here, though the namer falls back to its ip.
 */
static void print_frames(struct pm_printer *p, const struct pm_sample *s, uint16_t cpumode)
{
	const struct pm_named_frame *fr;
	struct pm_chain_walk w;
	uint64_t ip, lookup;
	uint16_t mode;
	size_t i, nr;

	pm_chain_walk__init(&w, s, cpumode);
	pm_emit__list_begin(p->em, "frames");
	if (!pm_namer__frames(p->namer, cpumode, s, &fr, &nr) &&
	    (pm_chain_walk__next(&w, &ip, &lookup, &mode) || (nr && fr[nr - 1].unwound)))
		for (i = 0; i < nr; i++)
			print_frame(p, &fr[i]);
	pm_emit__list_end(p->em);
}


void pm_print__sample(struct pm_printer *p, const struct pm_record *rec,
		      const struct pm_rec_info *in)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const struct pm_sample *s = &in->s;
	struct pm_evsel *ev = (struct pm_evsel *)s->evsel;
	struct pm_emit *e = p->em;
	uint64_t t = s->fields;

	pm_emit__cstr(e, "event", pm_evsel__name(ev));
	pm_emit__cstr(e, "cpumode", pm_cpumode_names[cpumode]);
	if (t & PERF_SAMPLE_IP) {
		pm_emit__hex(e, "ip", s->ip);
		if (p->namer) {
			struct pm_frame f;

			pm_namer__resolve(p->namer, (int32_t)s->pid, cpumode, s->ip, &f);
			print_frame_fields(e, &f, "sym", "symoff");
		}
	}
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		pm_emit__u64(e, "sample_id", s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		pm_emit__u64(e, "stream_id", s->stream_id);
	if ((t & PERF_SAMPLE_PERIOD) || !ev->attr.freq)
		pm_emit__u64(e, "period", s->period);
	if (t & PERF_SAMPLE_ADDR)
		pm_emit__hex(e, "addr", s->addr);
	if (t & PERF_SAMPLE_READ)
		pm_emit__u64_list(e, "read", s->read, s->read_nr);
	if (t & PERF_SAMPLE_CALLCHAIN)
		pm_emit__hex_list(e, "callchain", s->callchain, s->callchain_nr);
	if (p->namer && ((t & PERF_SAMPLE_CALLCHAIN) || pm_unwind__possible(s)))
		print_frames(p, s, cpumode);
	if (t & PERF_SAMPLE_RAW) {
		pm_emit__u64(e, "raw_size", s->raw_size);
		if (ev->tp)
			print_tp_fields(e, ev->tp, s);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK)
		print_branches(e, s);
	if (t & PERF_SAMPLE_REGS_USER)
		print_regs(e, "regs_user_abi", "regs_user", &s->regs_user);
	if (t & PERF_SAMPLE_STACK_USER) {
		pm_emit__u64(e, "stack_user_size", s->stack_user_size);
		pm_emit__u64(e, "stack_user_dyn_size", s->stack_user_dyn_size);
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		pm_emit__u64(e, "weight", s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		pm_emit__hex(e, "data_src", s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		pm_emit__hex(e, "transaction", s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		print_regs(e, "regs_intr_abi", "regs_intr", &s->regs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		pm_emit__hex(e, "phys_addr", s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		pm_emit__u64(e, "cgroup", s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		pm_emit__u64(e, "data_page_size", s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		pm_emit__u64(e, "code_page_size", s->code_page_size);
	if (t & PERF_SAMPLE_AUX)
		pm_emit__u64(e, "aux_size", s->aux_size);
}


void pm_printer__record(struct pm_printer *p, const struct pm_record *rec,
			const struct pm_rec_info *in)
{
	struct pm_emit *e = p->em;
	uint32_t type = rec->header->type;
	bool unknown = !pm_record_type__name(type);

	rec_begin(e, rec, in);
	if (type == PERF_RECORD_SAMPLE)
		pm_print__sample(p, rec, in);
	else if (unknown)
		pm_emit__u64(e, "data_size", rec->header->size - 8u);
	else if (type < PERF_RECORD_USER_TYPE_START)
		pm_print__kernel_record(p, rec, in);
	else
		pm_print__user_record(p, rec);
	/* Unknown records show their bytes: there is nothing else to show. */
	if (e->json && (p->raw || unknown))
		pm_emit__hexbytes(e, "raw", rec->data, rec->header->size);
	rec_end(e);
	if (!e->json && (p->raw || unknown))
		print_raw_text(e, rec);
}


void pm_printer__exit(struct pm_printer *p)
{
	pm_buf__exit(&p->name);
}
