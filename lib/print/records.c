// SPDX-License-Identifier: GPL-2.0
/* The bodies of kernel records and of perf's own (user) records. */
#include <stdio.h>
#include <string.h>

#include "format/perf_data.h"
#include "base/unaligned.h"
#include "print/print_int.h"

/* --- kernel records ------------------------------------------------------ */

/*
 * Event named by the trailer id, when there are several events; id 0 is
 * what perf writes into synthesized records.
 */
static void print_trailer_event(struct pm_printer *p, const struct pm_rec_info *in)
{
	if (in->s.evsel && in->s.id && pm_reader__nr_evsels(p->r) > 1)
		pm_emit__cstr(p->em, "event", pm_evsel__name((struct pm_evsel *)in->s.evsel));
}

static void print_mmap(struct pm_emit *e, const struct pm_record *rec, size_t len)
{
	uint16_t cpumode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct pm_mmap_body m;

	if (pm_mmap_body__decode(rec->header, len, &m))
		return;
	pm_emit__hex(e, "addr", m.addr);
	pm_emit__hex(e, "len", m.len);
	pm_emit__hex(e, "pgoff", m.pgoff);
	if (m.has_build_id) {
		pm_emit__hexbytes(e, "build_id", m.build_id, m.build_id_len);
	} else if (m.v2) {
		pm_emit__u64(e, "maj", m.maj);
		pm_emit__u64(e, "min", m.min);
		pm_emit__u64(e, "ino", m.ino);
		pm_emit__u64(e, "ino_generation", m.ino_generation);
	}
	if (m.v2) {
		pm_emit__hex(e, "prot", m.prot);
		pm_emit__hex(e, "flags", m.flags);
	}
	pm_emit__cstr(e, "cpumode", pm_cpumode_names[cpumode]);
	pm_emit__strn(e, "filename", m.filename, m.filename_max);
}

static void print_lost(struct pm_emit *e, const struct pm_record *rec, size_t len)
{
	uint64_t id, lost;

	if (pm_lost_body__decode(rec->header, len, &id, &lost))
		return;
	if (rec->header->type == PERF_RECORD_LOST)
		pm_emit__u64(e, "id", id);
	pm_emit__u64(e, "lost", lost);
}

static void print_task(struct pm_emit *e, const struct pm_record *rec, size_t len)
{
	struct pm_comm_body c;
	struct pm_fork_body f;

	if (rec->header->type == PERF_RECORD_COMM) {
		if (pm_comm_body__decode(rec->header, len, &c))
			return;
		pm_emit__strn(e, "comm", c.comm, c.comm_max);
		pm_emit__bool(e, "exec", rec->header->misc & PERF_RECORD_MISC_COMM_EXEC);
	} else if (!pm_fork_body__decode(rec->header, len, &f)) {
		pm_emit__s64(e, "ppid", f.ppid);
		pm_emit__s64(e, "ptid", f.ptid);
	}
}

static void print_namespaces(struct pm_emit *e, const unsigned char *b)
{
	uint64_t nr = rd64(b, 8), i;

	pm_emit__list_begin(e, "namespaces");
	for (i = 0; i < nr; i++) {
		if (e->json) {
			pm_emit__obj_begin(e, NULL);
			pm_emit__u64(e, "dev", rd64(b, 16 + 16 * i));
			pm_emit__u64(e, "ino", rd64(b, 24 + 16 * i));
			pm_emit__obj_end(e);
		} else {
			pm_emit__item(e);
			pm_out__u64(&e->out, rd64(b, 16 + 16 * i));
			pm_out__ch(&e->out, ':');
			pm_out__u64(&e->out, rd64(b, 24 + 16 * i));
		}
	}
	pm_emit__list_end(e);
}

static void print_text_poke(struct pm_emit *e, const unsigned char *b, size_t len)
{
	uint16_t old_len = rd16(b, 8), new_len = rd16(b, 10);

	pm_emit__hex(e, "addr", rd64(b, 0));
	pm_emit__u64(e, "old_len", old_len);
	pm_emit__u64(e, "new_len", new_len);
	if ((size_t)old_len + new_len <= len - 12) {
		pm_emit__hexbytes(e, "old_bytes", b + 12, old_len);
		pm_emit__hexbytes(e, "new_bytes", b + 12 + old_len, new_len);
	}
}

void pm_print__kernel_record(struct pm_printer *p, const struct pm_record *rec,
			     const struct pm_rec_info *in)
{
	struct pm_emit *e = p->em;
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	size_t len = in->body_len;
	uint16_t misc = rec->header->misc;

	switch (rec->header->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		print_mmap(e, rec, len);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		print_lost(e, rec, len);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		print_task(e, rec, len);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		pm_emit__u64(e, "id", rd64(b, 8));
		pm_emit__u64(e, "stream_id", rd64(b, 16));
		break;
	case PERF_RECORD_READ:
		pm_emit__u64_list(e, "values", (const uint64_t *)(b + 8), (len - 8) / 8);
		break;
	case PERF_RECORD_AUX:
		pm_emit__hex(e, "aux_offset", rd64(b, 0));
		pm_emit__u64(e, "aux_size", rd64(b, 8));
		pm_emit__hex(e, "flags", rd64(b, 16));
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		pm_emit__s64(e, "next_prev_pid", (int32_t)rd32(b, 0));
		pm_emit__s64(e, "next_prev_tid", (int32_t)rd32(b, 4));
		/* fall through */
	case PERF_RECORD_SWITCH:
		pm_emit__bool(e, "out", misc & PERF_RECORD_MISC_SWITCH_OUT);
		pm_emit__bool(e, "preempt", misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		break;
	case PERF_RECORD_NAMESPACES:
		print_namespaces(e, b);
		break;
	case PERF_RECORD_KSYMBOL:
		pm_emit__hex(e, "addr", rd64(b, 0));
		pm_emit__u64(e, "len", rd32(b, 8));
		pm_emit__u64(e, "ksym_type", rd16(b, 12));
		pm_emit__hex(e, "flags", rd16(b, 14));
		pm_emit__strn(e, "name", b + 16, len - 16);
		break;
	case PERF_RECORD_BPF_EVENT:
		pm_emit__u64(e, "bpf_type", rd16(b, 0));
		pm_emit__hex(e, "flags", rd16(b, 2));
		pm_emit__u64(e, "bpf_id", rd32(b, 4));
		pm_emit__hexbytes(e, "tag", b + 8, 8);
		break;
	case PERF_RECORD_CGROUP:
		pm_emit__u64(e, "cgroup_id", rd64(b, 0));
		pm_emit__strn(e, "path", b + 8, len - 8);
		break;
	case PERF_RECORD_TEXT_POKE:
		print_text_poke(e, b, len);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		pm_emit__u64(e, "hw_id", rd64(b, 0));
		break;
	default:
		break;
	}
	print_trailer_event(p, in);
}


/* --- perf's own records -------------------------------------------------- */

void pm_print__attr(struct pm_emit *e, const struct perf_event_attr *attr)
{
	pm_emit__u64(e, "attr_type", attr->type);
	pm_emit__hex(e, "config", attr->config);
	pm_emit__u64(e, attr->freq ? "sample_freq" : "sample_period", attr->sample_period);
	pm_emit__hex(e, "sample_type", attr->sample_type);
	pm_emit__hex(e, "read_format", attr->read_format);
	pm_emit__bool(e, "sample_id_all", attr->sample_id_all);
}

static void print_header_attr(struct pm_printer *p, const struct pm_record *rec)
{
	struct pm_emit *e = p->em;
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	size_t len = rec->header->size - 8;
	struct perf_event_attr attr = { 0 };
	uint32_t size = rd32(b, 4) ? rd32(b, 4) : PERF_ATTR_SIZE_VER0;
	struct pm_evsel *ev = NULL;
	uint64_t nr, i;

	memcpy(&attr, b, size < sizeof(attr) ? size : sizeof(attr));
	nr = (len - size) / 8;
	if (nr)
		ev = pm_reader__evsel_by_id(p->r, rd64(b, size));
	if (ev)
		pm_emit__cstr(e, "event", pm_evsel__name(ev));
	pm_print__attr(e, &attr);
	pm_emit__list_begin(e, "ids");
	for (i = 0; i < nr; i++) {
		pm_emit__item(e);
		pm_out__u64(&e->out, rd64(b, size + 8 * i));
	}
	pm_emit__list_end(e);
}

static void print_id_index(struct pm_emit *e, const unsigned char *b)
{
	uint64_t nr = rd64(b, 0), i;

	pm_emit__u64(e, "nr", nr);
	pm_emit__list_begin(e, "entries");
	for (i = 0; i < nr; i++) {
		const unsigned char *ent = b + 8 + 32 * i;

		if (e->json) {
			pm_emit__obj_begin(e, NULL);
			pm_emit__u64(e, "id", rd64(ent, 0));
			pm_emit__u64(e, "idx", rd64(ent, 8));
			pm_emit__s64(e, "cpu", (int64_t)rd64(ent, 16));
			pm_emit__s64(e, "tid", (int64_t)rd64(ent, 24));
			pm_emit__obj_end(e);
		} else {
			pm_emit__item(e);
			pm_out__u64(&e->out, rd64(ent, 0));
			pm_out__ch(&e->out, ':');
			pm_out__u64(&e->out, rd64(ent, 8));
			pm_out__ch(&e->out, ':');
			pm_out__s64(&e->out, (int64_t)rd64(ent, 16));
			pm_out__ch(&e->out, ':');
			pm_out__s64(&e->out, (int64_t)rd64(ent, 24));
		}
	}
	pm_emit__list_end(e);
}

static void print_thread_map(struct pm_emit *e, const unsigned char *b)
{
	uint64_t nr = rd64(b, 0), i;

	pm_emit__u64(e, "nr", nr);
	pm_emit__list_begin(e, "threads");
	for (i = 0; i < nr; i++) {
		const unsigned char *ent = b + 8 + 24 * i;

		if (e->json) {
			pm_emit__obj_begin(e, NULL);
			pm_emit__s64(e, "pid", (int64_t)rd64(ent, 0));
			pm_emit__strn(e, "comm", ent + 8, 16);
			pm_emit__obj_end(e);
		} else {
			pm_emit__item(e);
			pm_out__s64(&e->out, (int64_t)rd64(ent, 0));
			pm_out__ch(&e->out, ':');
			pm_emit__vstr(e, (const char *)ent + 8, strnlen((const char *)ent + 8, 16));
		}
	}
	pm_emit__list_end(e);
}

static void cpus_add(struct pm_emit *e, uint64_t cpu)
{
	pm_emit__item(e);
	pm_out__u64(&e->out, cpu);
}

/* perf_record_cpu_map_data: list, mask or range (format doc, 4.2). */
static void print_cpu_map_data(struct pm_emit *e, const unsigned char *b, size_t len)
{
	uint16_t type = rd16(b, 0), nr, long_size;
	uint64_t i, bit;

	pm_emit__list_begin(e, "cpus");
	if (type == 0 && len >= 4) {
		nr = rd16(b, 2);
		for (i = 0; i < nr && 4 + 2 * i + 2 <= len; i++)
			cpus_add(e, rd16(b, 4 + 2 * i));
	} else if (type == 1 && len >= 6) {
		size_t off;

		nr = rd16(b, 2);
		long_size = rd16(b, 4);
		off = long_size == 8 ? 8 : 6;
		if (long_size == 4 || long_size == 8)
			for (i = 0; i < nr && off + long_size * (i + 1) <= len; i++) {
				uint64_t word = long_size == 8 ? rd64(b, off + 8 * i) :
								 rd32(b, off + 4 * i);

				for (bit = 0; bit < (uint64_t)long_size * 8; bit++)
					if (word & (1ULL << bit))
						cpus_add(e, i * long_size * 8 + bit);
			}
	} else if (type == 2 && len >= 8) {
		for (i = rd16(b, 4); i <= rd16(b, 6); i++)
			cpus_add(e, i);
	}
	pm_emit__list_end(e);
}

static void print_event_update(struct pm_printer *p, const unsigned char *b, size_t len)
{
	static const char *const kinds[] = { "unit", "scale", "name", "cpus" };
	struct pm_evsel *ev = pm_reader__evsel_by_id(p->r, rd64(b, 8));
	struct pm_emit *e = p->em;
	uint64_t kind = rd64(b, 0);
	double scale;

	pm_emit__cstr(e, "update", kind < 4 ? kinds[kind] : "unknown");
	pm_emit__u64(e, "id", rd64(b, 8));
	if (ev)
		pm_emit__cstr(e, "event", pm_evsel__name(ev));
	switch (kind) {
	case PERF_EVENT_UPDATE__UNIT:
	case PERF_EVENT_UPDATE__NAME:
		pm_emit__strn(e, "value", b + 16, len - 16);
		break;
	case PERF_EVENT_UPDATE__SCALE:
		if (len >= 24) {
			memcpy(&scale, b + 16, sizeof(scale));
			pm_emit__key(e, "value");
			pm_out__printf(&e->out, "%.17g", scale);
		}
		break;
	case PERF_EVENT_UPDATE__CPUS:
		print_cpu_map_data(e, b + 16, len - 16);
		break;
	default:
		break;
	}
}

void pm_print__build_id_entry(struct pm_emit *e, const struct pm_build_id_entry *b)
{
	pm_emit__s64(e, "build_id_pid", b->pid);
	pm_emit__hexbytes(e, "build_id", b->id, b->id_len);
	pm_emit__cstr(e, "cpumode", pm_cpumode_names[b->cpumode]);
	pm_emit__strn(e, "filename", b->filename, b->filename_max);
}

static void print_stat_config(struct pm_emit *e, const unsigned char *b)
{
	uint64_t nr = rd64(b, 0), i;

	pm_emit__list_begin(e, "config");
	for (i = 0; i < nr; i++) {
		if (e->json) {
			pm_emit__obj_begin(e, NULL);
			pm_emit__u64(e, "tag", rd64(b, 8 + 16 * i));
			pm_emit__u64(e, "val", rd64(b, 16 + 16 * i));
			pm_emit__obj_end(e);
			continue;
		}
		pm_emit__item(e);
		pm_out__u64(&e->out, rd64(b, 8 + 16 * i));
		pm_out__ch(&e->out, ':');
		pm_out__u64(&e->out, rd64(b, 16 + 16 * i));
	}
	pm_emit__list_end(e);
}

static void print_time_conv(struct pm_emit *e, const unsigned char *b, size_t len)
{
	pm_emit__u64(e, "time_shift", rd64(b, 0));
	pm_emit__u64(e, "time_mult", rd64(b, 8));
	pm_emit__u64(e, "time_zero", rd64(b, 16));
	if (len >= 48) {
		pm_emit__u64(e, "time_cycles", rd64(b, 24));
		pm_emit__hex(e, "time_mask", rd64(b, 32));
		pm_emit__bool(e, "cap_user_time_zero", b[40]);
		pm_emit__bool(e, "cap_user_time_short", b[41]);
	}
}

static void print_feature(struct pm_emit *e, const unsigned char *b, size_t len)
{
	uint64_t nr = rd64(b, 0);
	const char *name = nr < INT32_MAX ? pm_feature__name((int)nr) : NULL;
	char buf[24];

	if (!name) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)nr);
		name = buf;
	}
	pm_emit__cstr(e, "feature", name);
	pm_emit__u64(e, "data_size", len - 8);
}

static void print_stat(struct pm_emit *e, const unsigned char *b)
{
	pm_emit__u64(e, "id", rd64(b, 0));
	pm_emit__s64(e, "stat_cpu", (int32_t)rd32(b, 8));
	pm_emit__s64(e, "thread", (int32_t)rd32(b, 12));
	pm_emit__u64(e, "val", rd64(b, 16));
	pm_emit__u64(e, "ena", rd64(b, 24));
	pm_emit__u64(e, "run", rd64(b, 32));
}

static void print_auxtrace(struct pm_emit *e, const unsigned char *b)
{
	pm_emit__u64(e, "data_size", rd64(b, 0));
	pm_emit__hex(e, "aux_offset", rd64(b, 8));
	pm_emit__hex(e, "reference", rd64(b, 16));
	pm_emit__u64(e, "idx", rd32(b, 24));
	pm_emit__s64(e, "aux_tid", (int32_t)rd32(b, 28));
	pm_emit__s64(e, "aux_cpu", (int32_t)rd32(b, 32));
}

static void print_auxtrace_error(struct pm_emit *e, const unsigned char *b, size_t len)
{
	static const char *const keys[] = { "err_type", "code", "err_cpu", "err_pid",
					    "err_tid", "fmt" };
	size_t i;

	for (i = 0; i < 6; i++)
		pm_emit__u64(e, keys[i], rd32(b, 4 * i));
	pm_emit__hex(e, "ip", rd64(b, 24));
	pm_emit__u64(e, "err_time", rd64(b, 32));
	if (len > 40)
		pm_emit__strn(e, "msg", b + 40, len - 40 < 64 ? len - 40 : 64);
}

void pm_print__user_record(struct pm_printer *p, const struct pm_record *rec)
{
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	size_t len = rec->header->size - 8;
	const struct pm_tp_data *tp;
	struct pm_build_id_entry bid;
	struct pm_emit *e = p->em;

	switch (rec->header->type) {
	case PERF_RECORD_HEADER_ATTR:
		print_header_attr(p, rec);
		break;
	case PERF_RECORD_HEADER_EVENT_TYPE:
		pm_emit__u64(e, "event_id", rd64(b, 0));
		pm_emit__strn(e, "name", b + 8, 64);
		break;
	case PERF_RECORD_HEADER_TRACING_DATA:
		tp = pm_reader__tracing(p->r);
		pm_emit__u64(e, "data_size", rec->extra_size);
		pm_emit__u64(e, "formats", tp ? tp->nr_events : 0);
		break;
	case PERF_RECORD_HEADER_BUILD_ID:
		if (!pm_build_id_entry__decode(rec->data, rec->header->size, &bid))
			pm_print__build_id_entry(e, &bid);
		break;
	case PERF_RECORD_ID_INDEX:
		print_id_index(e, b);
		break;
	case PERF_RECORD_AUXTRACE_INFO:
		pm_emit__u64(e, "auxtrace_type", rd32(b, 0));
		break;
	case PERF_RECORD_AUXTRACE:
		print_auxtrace(e, b);
		break;
	case PERF_RECORD_AUXTRACE_ERROR:
		print_auxtrace_error(e, b, len);
		break;
	case PERF_RECORD_THREAD_MAP:
		print_thread_map(e, b);
		break;
	case PERF_RECORD_CPU_MAP:
		print_cpu_map_data(e, b, len);
		break;
	case PERF_RECORD_STAT_CONFIG:
		print_stat_config(e, b);
		break;
	case PERF_RECORD_STAT:
		print_stat(e, b);
		break;
	case PERF_RECORD_STAT_ROUND:
		pm_emit__u64(e, "round_type", rd64(b, 0));
		pm_emit__u64(e, "round_time", rd64(b, 8));
		break;
	case PERF_RECORD_EVENT_UPDATE:
		print_event_update(p, b, len);
		break;
	case PERF_RECORD_TIME_CONV:
		print_time_conv(e, b, len);
		break;
	case PERF_RECORD_HEADER_FEATURE:
		print_feature(e, b, len);
		break;
	default:
		break;
	}
}
