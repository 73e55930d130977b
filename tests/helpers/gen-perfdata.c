// SPDX-License-Identifier: GPL-2.0
/*
 * gen-perfdata: writes synthetic perf.data files and pipe streams, good and
 * malformed, so that `pmrec dump` is tested without the kernel.
 *
 *   gen-perfdata [--pipe] [--variant=NAME] [--no-names] [--truncate=N] [--repeat=N]
 *                [--kernel-samples=ADDR:N,...] [--kernel-build-id=HEX|none] [-o FILE]
 *
 * --variant=kcore writes only kernel-mode cpu-clock samples: N at each
 * ADDR of --kernel-samples (for annotate from a synthetic kcore), with the
 * kernel's build id of --kernel-build-id in HEADER_BUILD_ID (default
 * a0a1..b3; none: no entry).
 *
 * The "good" content is fixed (see the table in gen_good_data()); the tests
 * assert on its exact counts and values.  Built standalone (not linked to
 * lib/), it only shares the on-disk constants of perf_data.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf_data.h"

struct gbuf {
	unsigned char *p;
	size_t len, cap;
};

static void *gbuf_grow(struct gbuf *b, size_t n)
{
	void *dst;

	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p) {
			perror("gen-perfdata");
			exit(2);
		}
		b->cap = cap;
	}
	dst = b->p + b->len;
	memset(dst, 0, n);
	b->len += n;
	return dst;
}

static void put(struct gbuf *b, const void *p, size_t n)
{
	memcpy(gbuf_grow(b, n), p, n);
}

static void put_u8(struct gbuf *b, uint8_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u16(struct gbuf *b, uint16_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u32(struct gbuf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u64(struct gbuf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void pad8(struct gbuf *b)
{
	if (b->len & 7)
		gbuf_grow(b, 8 - (b->len & 7));
}

/* NUL-terminated, zero-padded to 8 (record strings). */
static void put_str8(struct gbuf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
	pad8(b);
}

/* perf header string: u32 len + string padded to 64. */
static void put_perf_string(struct gbuf *b, const char *s)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) & ~(size_t)63);

	put_u32(b, len);
	memcpy(gbuf_grow(b, len), s, strlen(s));
}

static void set_u16(struct gbuf *b, size_t off, uint16_t v)
{
	memcpy(b->p + off, &v, sizeof(v));
}

static void set_u64(struct gbuf *b, size_t off, uint64_t v)
{
	memcpy(b->p + off, &v, sizeof(v));
}

static size_t rec_begin(struct gbuf *b, uint32_t type, uint16_t misc)
{
	size_t start = b->len;

	put_u32(b, type);
	put_u16(b, misc);
	put_u16(b, 0);
	return start;
}

static void rec_end_nopad(struct gbuf *b, size_t start)
{
	set_u16(b, start + 6, (uint16_t)(b->len - start));
}

static void rec_end(struct gbuf *b, size_t start)
{
	pad8(b);
	rec_end_nopad(b, start);
}

/* --- the events ---------------------------------------------------------- */

#define TRAILER_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		      PERF_SAMPLE_CPU)
#define TP_TYPE (TRAILER_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

struct gevent {
	const char *name;	/* EVENT_DESC / EVENT_UPDATE name */
	uint32_t type;
	uint64_t config;
	uint64_t period;
	uint64_t sample_type;
	uint64_t ids[2];
	size_t nr_ids;
};

enum { EV_CLOCK, EV_FAULTS, EV_SWITCH, EV_SYS_ENTER, EV_EXEC, NR_EVENTS };

static const struct gevent events[NR_EVENTS] = {
	[EV_CLOCK] = { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1000,
		       TRAILER_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
		       { 11, 12 }, 2 },
	[EV_FAULTS] = { "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1,
			TRAILER_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, { 21, 22 }, 2 },
	[EV_SWITCH] = { "sched:sched_switch", PERF_TYPE_TRACEPOINT, 372, 1, TP_TYPE,
			{ 31, 32 }, 2 },
	[EV_SYS_ENTER] = { "raw_syscalls:sys_enter", PERF_TYPE_TRACEPOINT, 443, 1, TP_TYPE,
			   { 41 }, 1 },
	[EV_EXEC] = { "sched:sched_process_exec", PERF_TYPE_TRACEPOINT, 365, 1, TP_TYPE,
		      { 51 }, 1 },
};

/* Options that shape the output. */
struct gen {
	bool pipe;
	bool names;
	const char *variant;
	bool minimal;		/* one attr, no sample_id_all, no ids */
	unsigned long repeat;	/* copies of the good data, for big files */
	const char *kernel_samples;	/* kcore: "ADDR:N,..." */
	const char *kernel_id;		/* hex, "none", NULL: a0a1..b3 */
};

static bool variant(const struct gen *g, const char *name)
{
	return !strcmp(g->variant, name);
}

static void put_attr(struct gbuf *b, const struct gen *g, const struct gevent *e)
{
	struct perf_event_attr attr = {
		.type = e->type,
		.size = PM_FILE_ATTR_SIZE,
		.config = e->config,
		.sample_period = e->period,
		.sample_type = g->minimal ? PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					    PERF_SAMPLE_PERIOD : e->sample_type,
		.sample_id_all = !g->minimal,
		.exclude_guest = 1,
		.disabled = 1,
		.inherit = 1,
	};

	if (e == &events[EV_CLOCK] && !g->minimal) {
		attr.mmap = attr.comm = attr.task = attr.mmap2 = attr.comm_exec = 1;
		attr.freq = 1;
		attr.sample_freq = 1000;
	}
	if (variant(g, "bad-attr") && e == &events[EV_FAULTS])
		attr.size = 4000;
	/* No kernel samples, so report adds each sample as it comes, not after kallsyms. */
	if (variant(g, "rename"))
		attr.exclude_kernel = 1;
	put(b, &attr, sizeof(attr) < PM_FILE_ATTR_SIZE ? sizeof(attr) : PM_FILE_ATTR_SIZE);
	if (sizeof(attr) < PM_FILE_ATTR_SIZE)
		gbuf_grow(b, PM_FILE_ATTR_SIZE - sizeof(attr));
}

static size_t nr_events(const struct gen *g)
{
	return g->minimal ? 1 : NR_EVENTS;
}

/* sample_id trailer: TID, TIME, CPU, IDENTIFIER. */
static void put_trailer(struct gbuf *b, const struct gen *g, uint32_t pid, uint32_t tid,
			uint64_t time, uint32_t cpu, uint64_t id)
{
	if (g->minimal)
		return;
	put_u32(b, pid);
	put_u32(b, tid);
	put_u64(b, time);
	put_u32(b, cpu);
	put_u32(b, 0);
	put_u64(b, id);
}

struct gsample {
	int ev;
	uint16_t misc;
	uint32_t cpu, pid, tid;
	uint64_t time, ip, period;
	const uint64_t *chain;
	size_t nr_chain;
	const void *raw;
	uint32_t raw_len;
};

static void put_sample(struct gbuf *b, const struct gen *g, const struct gsample *s)
{
	const struct gevent *e = &events[s->ev];
	uint64_t type = g->minimal ? PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				     PERF_SAMPLE_PERIOD : e->sample_type;
	uint64_t id = variant(g, "unknown-id") && s->ev == EV_FAULTS ? 999 :
		      e->ids[s->cpu % e->nr_ids];
	size_t start = rec_begin(b, PERF_RECORD_SAMPLE, s->misc), i;

	if (type & PERF_SAMPLE_IDENTIFIER)
		put_u64(b, id);
	put_u64(b, s->ip);
	put_u32(b, s->pid);
	put_u32(b, s->tid);
	put_u64(b, s->time);
	if (type & PERF_SAMPLE_CPU) {
		put_u32(b, s->cpu);
		put_u32(b, 0);
	}
	put_u64(b, s->period);
	if (type & PERF_SAMPLE_CALLCHAIN) {
		put_u64(b, s->nr_chain);
		for (i = 0; i < s->nr_chain; i++)
			put_u64(b, s->chain[i]);
	}
	if (type & PERF_SAMPLE_RAW) {
		uint32_t size = (uint32_t)(((4 + s->raw_len + 7) & ~7u) - 4);

		put_u32(b, size);
		put(b, s->raw, s->raw_len);
		gbuf_grow(b, size - s->raw_len);
	}
	rec_end(b, start);
}

/* --- tracepoint formats --------------------------------------------------- */

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char fmt_switch[] =
	"name: sched_switch\nID: 372\nformat:\n" COMMON_FIELDS
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

static const char fmt_exec[] =
	"name: sched_process_exec\nID: 365\nformat:\n" COMMON_FIELDS
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";

static const char fmt_sys_enter[] =
	"name: sys_enter\nID: 443\nformat:\n" COMMON_FIELDS
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0]\n";

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static void put_sized(struct gbuf *b, const char *text)
{
	put_u64(b, strlen(text));
	put(b, text, strlen(text));
}

static void build_tracing_data(struct gbuf *b, const struct gen *g)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	put(b, magic, sizeof(magic));
	if (variant(g, "bad-tracing"))
		b->p[b->len - 1] = 'X';
	put(b, "0.6", 4);
	put_u8(b, 0);
	put_u8(b, 8);
	put_u32(b, 4096);
	put(b, "header_page", 12);
	put_sized(b, header_page);
	put(b, "header_event", 13);
	put_sized(b, "# compressed entry header\n");
	put_u32(b, 0);		/* ftrace formats */
	put_u32(b, 2);		/* systems */
	put(b, "sched", 6);
	put_u32(b, 2);
	put_sized(b, fmt_switch);
	put_sized(b, fmt_exec);
	put(b, "raw_syscalls", 13);
	put_u32(b, 1);
	put_sized(b, fmt_sys_enter);
	put_u32(b, 0);		/* kallsyms */
	put_u32(b, 0);		/* printk formats */
	put_u64(b, 0);		/* saved cmdlines */
}

/* --- features ------------------------------------------------------------- */

static void build_event_desc(struct gbuf *b, const struct gen *g)
{
	size_t i, j;

	put_u32(b, (uint32_t)nr_events(g));
	put_u32(b, PM_FILE_ATTR_SIZE);
	for (i = 0; i < nr_events(g); i++) {
		put_attr(b, g, &events[i]);
		put_u32(b, g->minimal ? 0 : (uint32_t)events[i].nr_ids);
		put_perf_string(b, events[i].name);
		for (j = 0; !g->minimal && j < events[i].nr_ids; j++)
			put_u64(b, events[i].ids[j]);
	}
}

static void build_build_id(struct gbuf *b, const struct gen *g)
{
	size_t start = b->len;
	unsigned v;
	int i, n = 20;

	put_u32(b, 0);
	put_u16(b, PERF_RECORD_MISC_KERNEL | 0x8000);
	put_u16(b, 0);
	put_u32(b, (uint32_t)-1);
	if (g->kernel_id) {
		n = (int)(strlen(g->kernel_id) / 2);
		n = n > 20 ? 20 : n;
		for (i = 0; i < n && sscanf(g->kernel_id + 2 * i, "%2x", &v) == 1; i++)
			put_u8(b, (uint8_t)v);
		gbuf_grow(b, (size_t)(20 - i));
	} else {
		for (i = 0; i < 20; i++)
			put_u8(b, (uint8_t)(0xa0 + i));
	}
	put_u8(b, (uint8_t)n);
	put_u8(b, 0);
	put_u16(b, 0);
	put(b, "[kernel.kallsyms]", 18);
	gbuf_grow(b, 64 - 18);
	set_u16(b, start + 6, (uint16_t)(b->len - start));
}

/* Feature payloads written by the generator, in bit order. */
static bool build_feature(struct gbuf *b, const struct gen *g, int feat)
{
	switch (feat) {
	case HEADER_TRACING_DATA:
		if (g->minimal || g->pipe)
			return false;
		build_tracing_data(b, g);
		return true;
	case HEADER_BUILD_ID:
		if (g->minimal || g->pipe || (g->kernel_id && !strcmp(g->kernel_id, "none")))
			return false;
		build_build_id(b, g);
		return true;
	case HEADER_HOSTNAME:
		put_perf_string(b, "gen-host");
		return true;
	case HEADER_OSRELEASE:
		put_perf_string(b, "6.1.0-gen");
		return !g->minimal;
	case HEADER_VERSION:
		put_perf_string(b, "pmrec-gen");
		return !g->minimal;
	case HEADER_ARCH:
		put_perf_string(b, "x86_64");
		return !g->minimal;
	case HEADER_NRCPUS:
		put_u32(b, 4);
		put_u32(b, 2);
		return !g->minimal;
	case HEADER_CPUDESC:
		put_perf_string(b, "Generated CPU");
		return !g->minimal;
	case HEADER_CPUID:
		put_perf_string(b, "GenuineGen,1,2,3");
		return !g->minimal;
	case HEADER_TOTAL_MEM:
		put_u64(b, 1048576);
		return !g->minimal;
	case HEADER_CMDLINE:
		put_u32(b, 2);
		put_perf_string(b, "gen-perfdata");
		put_perf_string(b, "--weird");
		return !g->minimal;
	case HEADER_EVENT_DESC:
		if (!g->names)
			return false;
		build_event_desc(b, g);
		return true;
	case HEADER_SAMPLE_TIME:
		put_u64(b, 1000);
		put_u64(b, 5000);
		return !g->minimal;
	default:
		return false;
	}
}

/* --- data records ----------------------------------------------------------- */

static void put_comm(struct gbuf *b, const struct gen *g, uint32_t pid, uint32_t tid,
		     const char *comm, uint64_t time)
{
	size_t start = rec_begin(b, PERF_RECORD_COMM, 0);

	put_u32(b, pid);
	put_u32(b, tid);
	put_str8(b, comm);
	put_trailer(b, g, 0, 0, time, 0, 0);
	rec_end(b, start);
}

static void put_kernel_mmap(struct gbuf *b, const struct gen *g)
{
	size_t start = rec_begin(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);

	put_u32(b, (uint32_t)-1);
	put_u32(b, 0);
	put_u64(b, 0xffffffff81000000ULL);
	put_u64(b, 0x1000000);
	put_u64(b, 0xffffffff81000000ULL);
	put_str8(b, "[kernel.kallsyms]_text");
	put_trailer(b, g, 0, 0, 0, 0, 0);
	rec_end(b, start);
}

static void put_mmap2(struct gbuf *b, const struct gen *g, bool build_id)
{
	size_t start = rec_begin(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
				 (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	int i;

	put_u32(b, 100);
	put_u32(b, 100);
	put_u64(b, build_id ? 0x7f0000000000ULL : 0x400000);
	put_u64(b, build_id ? 0x20000 : 0x1000);
	put_u64(b, 0);
	if (build_id) {
		put_u8(b, 20);
		put_u8(b, 0);
		put_u16(b, 0);
		for (i = 0; i < 20; i++)
			put_u8(b, (uint8_t)(i + 1));
	} else {
		put_u32(b, 8);
		put_u32(b, 1);
		put_u64(b, 1234);
		put_u64(b, 0);
	}
	put_u32(b, 5);
	put_u32(b, 2);
	put_str8(b, build_id ? "/lib/libc.so.6" : "/usr/bin/worker");
	put_trailer(b, g, 0, 0, 0, 0, 0);
	rec_end(b, start);
}

static void put_simple(struct gbuf *b, const struct gen *g, uint32_t type, const uint64_t *v,
		       size_t n, uint32_t cpu, uint64_t time, uint64_t id)
{
	size_t start = rec_begin(b, type, 0), i;

	for (i = 0; i < n; i++)
		put_u64(b, v[i]);
	put_trailer(b, g, 100, 100, time, cpu, id);
	rec_end(b, start);
}

static void put_task(struct gbuf *b, const struct gen *g, uint32_t type, uint64_t time,
		     uint32_t cpu)
{
	size_t start = rec_begin(b, type, 0);

	put_u32(b, 102);
	put_u32(b, 100);
	put_u32(b, 102);
	put_u32(b, 100);
	put_u64(b, time);
	put_trailer(b, g, 102, 102, time, cpu, events[EV_CLOCK].ids[cpu % 2]);
	rec_end(b, start);
}

static void put_finished(struct gbuf *b, uint32_t type)
{
	rec_end(b, rec_begin(b, type, 0));
}

static void put_id_index(struct gbuf *b)
{
	size_t start = rec_begin(b, PERF_RECORD_ID_INDEX, 0), i, j, n = 0;

	for (i = 0; i < NR_EVENTS; i++)
		n += events[i].nr_ids;
	put_u64(b, n);
	for (i = 0; i < NR_EVENTS; i++)
		for (j = 0; j < events[i].nr_ids; j++) {
			put_u64(b, events[i].ids[j]);
			put_u64(b, i);
			put_u64(b, j);
			put_u64(b, (uint64_t)-1);
		}
	rec_end(b, start);
}

static void put_thread_map(struct gbuf *b)
{
	size_t start = rec_begin(b, PERF_RECORD_THREAD_MAP, 0);
	char comm[16] = "worker";

	put_u64(b, 1);
	put_u64(b, 100);
	put(b, comm, sizeof(comm));
	rec_end(b, start);
}

static void put_cpu_map(struct gbuf *b)
{
	size_t start = rec_begin(b, PERF_RECORD_CPU_MAP, 0);

	put_u16(b, 2);		/* range */
	put_u8(b, 0);
	put_u8(b, 0);
	put_u16(b, 0);
	put_u16(b, 1);
	rec_end(b, start);
}

static void put_switch_raw(struct gbuf *b)
{
	unsigned char raw[64] = { 0 };
	uint16_t common_type = 372;
	int32_t v;
	int64_t state = 1;

	memcpy(raw, &common_type, 2);
	v = 101;
	memcpy(raw + 4, &v, 4);
	memcpy(raw + 8, "worker", 6);
	memcpy(raw + 24, &v, 4);
	v = 120;
	memcpy(raw + 28, &v, 4);
	memcpy(raw + 32, &state, 8);
	memcpy(raw + 40, "swapper/1", 9);
	v = 0;
	memcpy(raw + 56, &v, 4);
	v = 120;
	memcpy(raw + 60, &v, 4);
	put(b, raw, sizeof(raw));
}

static void put_sys_enter_raw(struct gbuf *b)
{
	uint16_t common_type = 443;
	int32_t pid = 100;
	int64_t id = 110;
	uint64_t arg;

	put_u16(b, common_type);
	put_u16(b, 0);
	put(b, &pid, 4);
	put(b, &id, 8);
	for (arg = 1; arg <= 6; arg++)
		put_u64(b, arg);
}

static void put_exec_raw(struct gbuf *b)
{
	uint16_t common_type = 365;
	int32_t pid = 102;
	uint32_t loc = (10u << 16) | 20;

	put_u16(b, common_type);
	put_u16(b, 0);
	put(b, &pid, 4);
	put_u32(b, loc);
	put(b, &pid, 4);
	put(b, &pid, 4);
	put(b, "/bin/true", 10);
}

static void put_tp_sample(struct gbuf *b, const struct gen *g, int ev, uint32_t cpu,
			  uint32_t pid, uint64_t time, void (*raw)(struct gbuf *))
{
	struct gbuf rb = { 0 };
	struct gsample s = {
		.ev = ev, .misc = PERF_RECORD_MISC_KERNEL, .cpu = cpu, .pid = pid, .tid = pid,
		.time = time, .ip = 0xffffffff81000400ULL, .period = 1,
	};

	raw(&rb);
	s.raw = rb.p;
	s.raw_len = (uint32_t)rb.len;
	put_sample(b, g, &s);
	free(rb.p);
}

/*
 * The good data: three FINISHED_ROUND windows whose sample times are
 * R1 {1000, 3000}, R2 {4000, 2000}, R3 {5000, 1500} (section 6 of the
 * format doc), plus every common record type.
 */
static void gen_good_data(struct gbuf *b, const struct gen *g)
{
	static const uint64_t chain_user[] = { PERF_CONTEXT_USER, 0x401000, 0x401100 };
	static const uint64_t chain_kernel[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000100ULL,
						 0xffffffff81000200ULL, PERF_CONTEXT_USER,
						 0x401000 };
	const struct gsample s1 = {
		.ev = EV_CLOCK, .misc = PERF_RECORD_MISC_USER, .cpu = 0, .pid = 100, .tid = 100,
		.time = 1000, .ip = 0x401000, .period = 1000000, .chain = chain_user, .nr_chain = 3,
	};
	const struct gsample s2 = {
		.ev = EV_CLOCK, .misc = PERF_RECORD_MISC_KERNEL, .cpu = 1, .pid = 100, .tid = 101,
		.time = 3000, .ip = 0xffffffff81000100ULL, .period = 1000000,
		.chain = chain_kernel, .nr_chain = 5,
	};
	const struct gsample s3 = {
		.ev = EV_FAULTS, .misc = PERF_RECORD_MISC_USER, .cpu = 0, .pid = 100, .tid = 100,
		.time = 4000, .ip = 0x401234, .period = 1,
	};
	uint64_t v[3];

	put_id_index(b);
	put_thread_map(b);
	put_cpu_map(b);
	put_kernel_mmap(b, g);
	put_comm(b, g, 100, 100, "worker", 0);
	/* A quote, a backslash, a control byte, invalid UTF-8, then "é". */
	put_comm(b, g, 100, 101, "a\"b\\c\x01\xff\xc3\xa9", 0);
	put_mmap2(b, g, false);
	put_mmap2(b, g, true);
	put_finished(b, PERF_RECORD_FINISHED_INIT);

	put_sample(b, g, &s1);
	put_task(b, g, PERF_RECORD_FORK, 1500, 1);
	put_sample(b, g, &s2);
	put_finished(b, PERF_RECORD_FINISHED_ROUND);

	put_sample(b, g, &s3);
	put_tp_sample(b, g, EV_SWITCH, 1, 101, 2000, put_switch_raw);
	v[0] = events[EV_CLOCK].ids[0];
	v[1] = 5;
	put_simple(b, g, PERF_RECORD_LOST, v, 2, 0, 2500, events[EV_CLOCK].ids[0]);
	v[0] = 7;
	put_simple(b, g, PERF_RECORD_LOST_SAMPLES, v, 1, 1, 3500, events[EV_CLOCK].ids[1]);
	put_finished(b, PERF_RECORD_FINISHED_ROUND);

	put_tp_sample(b, g, EV_SYS_ENTER, 0, 100, 5000, put_sys_enter_raw);
	put_tp_sample(b, g, EV_EXEC, 1, 102, 1500, put_exec_raw);
	v[0] = 4500;
	v[1] = v[2] = events[EV_CLOCK].ids[0];
	put_simple(b, g, PERF_RECORD_THROTTLE, v, 3, 0, 4500, v[1]);
	v[0] = 4600;
	put_simple(b, g, PERF_RECORD_UNTHROTTLE, v, 3, 0, 4600, v[1]);
	put_task(b, g, PERF_RECORD_EXIT, 6000, 1);
	put_finished(b, PERF_RECORD_FINISHED_ROUND);
}

/* One attr, no trailers: small enough for every-prefix loops. */
static void gen_minimal_data(struct gbuf *b, const struct gen *g)
{
	const struct gsample s = {
		.ev = EV_CLOCK, .misc = PERF_RECORD_MISC_USER, .pid = 4242, .tid = 4242,
		.time = 1000, .ip = 0x401130, .period = 1000000,
	};
	struct gsample s2 = s;

	put_comm(b, g, 4242, 4242, "hot", 0);
	put_sample(b, g, &s);
	s2.time = 2000;
	s2.ip = 0x401140;
	put_sample(b, g, &s2);
}

/*
 * A COMM and a SAMPLE in one zstd frame of one raw block (zstd's stored
 * form: no libzstd needed here), cut into two COMPRESSED records in the
 * middle of the COMM, as perf's records may be cut, with a FINISHED_ROUND
 * between them: perf flushes one drain's output as COMPRESSED records of
 * at most 64 KiB, and what zstd kept comes in the next drain's.
 */
static void put_compressed(struct gbuf *b, const struct gen *g, bool unflushed)
{
	const struct gsample smp = {
		.ev = EV_CLOCK, .misc = PERF_RECORD_MISC_USER, .pid = 4243, .tid = 4243,
		.time = 5000, .ip = 0x401150, .period = 1000000,
	};
	struct gbuf in = { 0 }, z = { 0 };
	size_t start, cut;

	put_comm(&in, g, 4243, 4243, "packed", 0);
	put_sample(&in, g, &smp);
	put_u32(&z, 0xFD2FB528);	/* magic */
	put_u8(&z, 0);			/* no content size, no checksum */
	put_u8(&z, 0x38);		/* window 128 KiB */
	put_u8(&z, (uint8_t)((in.len << 3) | 1));	/* raw block, the last */
	put_u8(&z, (uint8_t)(in.len >> 5));
	put_u8(&z, (uint8_t)(in.len >> 13));
	put(&z, in.p, in.len);
	cut = z.len - in.len + 12;
	start = rec_begin(b, PERF_RECORD_COMPRESSED, 0);
	put(b, z.p, cut);
	rec_end_nopad(b, start);
	start = rec_begin(b, PERF_RECORD_FINISHED_ROUND, 0);
	rec_end_nopad(b, start);
	/* perf record -z may never write what zstd still holds at the end. */
	if (!unflushed) {
		start = rec_begin(b, PERF_RECORD_COMPRESSED, 0);
		put(b, z.p + cut, z.len - cut);
		rec_end_nopad(b, start);
	}
	free(in.p);
	free(z.p);
}

/* Records that make the data malformed or unusual, by variant. */
static void gen_variant_data(struct gbuf *b, const struct gen *g, size_t data_start)
{
	size_t start;
	uint64_t seed = 12345;
	int i;

	/*
	 * The thread renames itself (a COMM, not an exec), then is sampled
	 * where it was before: that sample is the new name's.
	 */
	if (variant(g, "rename")) {
		const struct gsample s = {
			.ev = EV_CLOCK, .misc = PERF_RECORD_MISC_USER, .pid = 4242, .tid = 4242,
			.time = 3000, .ip = 0x401130, .period = 1000000,
		};

		put_comm(b, g, 4242, 4242, "renamed", 2500);
		put_sample(b, g, &s);
	}
	if (variant(g, "unknown")) {
		start = rec_begin(b, 30, 0);
		put_u64(b, 0x1122334455667788ULL);
		put_trailer(b, g, 100, 100, 7000, 0, 0);
		rec_end(b, start);
		start = rec_begin(b, 90, 0);
		put_u64(b, 0xdeadbeef);
		rec_end(b, start);
	} else if (variant(g, "compressed")) {
		put_compressed(b, g, false);
	} else if (variant(g, "compressed-unflushed")) {
		put_compressed(b, g, true);
	} else if (variant(g, "compressed-half")) {
		/* A frame whose one compressed block ends half way: zstd holds it. */
		start = rec_begin(b, PERF_RECORD_COMPRESSED, 0);
		put_u32(b, 0xFD2FB528);
		put_u8(b, 0);
		put_u8(b, 0x38);
		/* Block header: last, compressed (type 2), 64 bytes. */
		put_u8(b, (uint8_t)(((64 << 3) | (2 << 1) | 1) & 0xff));
		put_u8(b, (uint8_t)((64 << 3) >> 8));
		put_u8(b, 0);
		put(b, "half of a block.", 16);
		rec_end(b, start);
	} else if (variant(g, "compressed-bad")) {
		start = rec_begin(b, PERF_RECORD_COMPRESSED, 0);
		put(b, "\x28\xb5\x2f\xfd not really zstd", sizeof("\x28\xb5\x2f\xfd not really zstd"));
		rec_end(b, start);
	} else if (variant(g, "auxtrace")) {
		start = rec_begin(b, PERF_RECORD_AUXTRACE, 0);
		put_u64(b, 24);		/* size of the data after the record */
		put_u64(b, 0);
		put_u64(b, 0x1234);
		put_u32(b, 0);
		put_u32(b, 100);
		put_u32(b, 0);
		put_u32(b, 0);
		rec_end(b, start);
		put(b, "AUXTRACE-PAYLOAD-24bytes", 24);
		put_finished(b, PERF_RECORD_FINISHED_ROUND);
	} else if (variant(g, "zero-size")) {
		/* After the first four records: some good output comes first. */
		size_t off = data_start, n;

		for (n = 0; n < 4; n++) {
			uint16_t size;

			memcpy(&size, b->p + off + 6, 2);
			off += size;
		}
		gbuf_grow(b, 8);
		memmove(b->p + off + 8, b->p + off, b->len - 8 - off);
		memset(b->p + off, 0, 8);
		b->p[off] = PERF_RECORD_COMM;
	} else if (variant(g, "oversize")) {
		start = rec_begin(b, PERF_RECORD_SAMPLE, 0);
		put_u64(b, 1);
		rec_end(b, start);
		set_u16(b, start + 6, 0xff00);
	} else if (variant(g, "cut-sample")) {
		/*
		 * A sample whose time is there and the rest is not, then two
		 * good ones after it in time: a reader that queues by time
		 * finds the fault only when the sample leaves the queue.
		 */
		const struct gsample later = {
			.ev = EV_CLOCK, .misc = PERF_RECORD_MISC_USER, .cpu = 0, .pid = 100,
			.tid = 100, .time = 6500, .ip = 0x401000, .period = 1000000,
		};
		struct gsample last = later;

		start = rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		put_u64(b, events[EV_CLOCK].ids[0]);
		put_u64(b, 0x401000);
		put_u32(b, 100);
		put_u32(b, 100);
		put_u64(b, 5500);
		rec_end(b, start);
		put_sample(b, g, &later);
		last.time = 7000;
		put_sample(b, g, &last);
	} else if (variant(g, "short-sample")) {
		start = rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		put_u64(b, events[EV_CLOCK].ids[0]);
		put_u64(b, 0x401000);
		rec_end(b, start);
	} else if (variant(g, "garbage")) {
		b->len = data_start;
		for (i = 0; i < 256; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			put_u8(b, (uint8_t)(seed >> 56));
		}
	}
}

/* Kernel-mode samples only: N of period 1000000 at each ADDR of --kernel-samples. */
static void gen_kcore_data(struct gbuf *b, const struct gen *g)
{
	struct gsample s = {
		.ev = EV_CLOCK, .misc = PERF_RECORD_MISC_KERNEL, .pid = 100, .tid = 100,
		.period = 1000000,
	};
	const char *p = g->kernel_samples ? g->kernel_samples : "";
	unsigned long long addr;
	unsigned long n, i;
	int used;

	put_id_index(b);
	put_kernel_mmap(b, g);
	put_comm(b, g, 100, 100, "worker", 0);
	put_finished(b, PERF_RECORD_FINISHED_INIT);
	while (sscanf(p, "%llx:%lu%n", &addr, &n, &used) == 2) {
		for (i = 0; i < n; i++) {
			s.ip = addr;
			s.time += 1000;
			s.cpu = (uint32_t)(i & 1);
			put_sample(b, g, &s);
		}
		p += used;
		p += *p == ',';
	}
	put_finished(b, PERF_RECORD_FINISHED_ROUND);
}

static void gen_data(struct gbuf *b, const struct gen *g)
{
	size_t start = b->len;
	unsigned long i;

	for (i = 0; i < g->repeat; i++) {
		if (variant(g, "kcore"))
			gen_kcore_data(b, g);
		else if (g->minimal)
			gen_minimal_data(b, g);
		else
			gen_good_data(b, g);
	}
	gen_variant_data(b, g, start);
}

/* --- file and pipe layouts --------------------------------------------------- */

static void gen_file(struct gbuf *b, const struct gen *g)
{
	struct perf_file_header h = {
		.magic = PERF_MAGIC2,
		.size = PERF_FILE_HEADER_SIZE,
		.attr_size = PM_FILE_ATTR_SIZE + sizeof(struct perf_file_section),
	};
	size_t ids_off[NR_EVENTS], i, j, table;
	struct gbuf feat[HEADER_LAST_FEATURE] = { 0 };
	int f, nr_feat = 0;

	gbuf_grow(b, sizeof(h));
	for (i = 0; i < nr_events(g); i++) {
		ids_off[i] = b->len;
		for (j = 0; !g->minimal && j < events[i].nr_ids; j++)
			put_u64(b, events[i].ids[j]);
	}
	h.attrs.offset = b->len;
	for (i = 0; i < nr_events(g); i++) {
		size_t n = g->minimal ? 0 : events[i].nr_ids;

		put_attr(b, g, &events[i]);
		put_u64(b, n ? ids_off[i] : 0);
		put_u64(b, n * 8);
	}
	h.attrs.size = b->len - h.attrs.offset;
	pad8(b);
	h.data.offset = b->len;
	gen_data(b, g);
	h.data.size = b->len - h.data.offset;

	if (variant(g, "unfinished") || variant(g, "unfinished-torn")) {
		h.data.size = 0;
		if (variant(g, "unfinished-torn"))
			b->len -= 20;
		memcpy(b->p, &h, sizeof(h));
		return;
	}
	for (f = 1; f < HEADER_LAST_FEATURE; f++) {
		if (build_feature(&feat[f], g, f)) {
			h.adds_features[f / 64] |= 1ULL << (f % 64);
			nr_feat++;
		}
	}
	/* The table sits right after the data; payloads follow it. */
	table = b->len;
	gbuf_grow(b, (size_t)nr_feat * sizeof(struct perf_file_section));
	for (f = 1, i = 0; f < HEADER_LAST_FEATURE; f++) {
		if (h.adds_features[f / 64] & (1ULL << (f % 64))) {
			set_u64(b, table + 16 * i, b->len);
			set_u64(b, table + 16 * i + 8, feat[f].len);
			if (variant(g, "bad-feature") && f == HEADER_HOSTNAME)
				set_u64(b, table + 16 * i, 1 << 30);
			put(b, feat[f].p, feat[f].len);
			i++;
		}
		free(feat[f].p);
	}
	memcpy(b->p, &h, sizeof(h));
}

static void gen_pipe(struct gbuf *b, const struct gen *g)
{
	struct perf_pipe_file_header h = { .magic = PERF_MAGIC2, .size = PERF_PIPE_HEADER_SIZE };
	struct gbuf blob = { 0 };
	size_t start, i, j;
	int f;

	put(b, &h, sizeof(h));
	for (i = 0; i < nr_events(g); i++) {
		start = rec_begin(b, PERF_RECORD_HEADER_ATTR, 0);
		put_attr(b, g, &events[i]);
		for (j = 0; !g->minimal && j < events[i].nr_ids; j++)
			put_u64(b, events[i].ids[j]);
		rec_end(b, start);
	}
	/* Feature records keep their exact, unpadded sizes, as perf writes them. */
	for (f = 1; f < HEADER_LAST_FEATURE; f++) {
		size_t before = b->len;

		start = rec_begin(b, PERF_RECORD_HEADER_FEATURE, 0);
		put_u64(b, (uint64_t)f);
		if (build_feature(b, g, f))
			rec_end_nopad(b, start);
		else
			b->len = before;
	}
	if (!g->minimal) {
		build_tracing_data(&blob, g);
		pad8(&blob);
		start = rec_begin(b, PERF_RECORD_HEADER_TRACING_DATA, 0);
		put_u32(b, (uint32_t)blob.len);
		put_u32(b, 0);
		rec_end_nopad(b, start);
		put(b, blob.p, blob.len);
		free(blob.p);
	}
	if (g->names && !g->minimal) {
		start = rec_begin(b, PERF_RECORD_EVENT_UPDATE, 0);
		put_u64(b, PERF_EVENT_UPDATE__NAME);
		put_u64(b, events[EV_FAULTS].ids[0]);
		put_str8(b, events[EV_FAULTS].name);
		rec_end(b, start);
	}
	if (!g->minimal) {
		start = rec_begin(b, PERF_RECORD_TIME_CONV, 0);
		put_u64(b, 10);
		put_u64(b, 1);
		put_u64(b, 0);
		rec_end(b, start);
	}
	gen_data(b, g);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gen-perfdata [--pipe] [--variant=NAME] [--no-names] [--truncate=N]\n"
		   "                    [--repeat=N] [-o FILE]\n"
		   "variants: good minimal rename unknown compressed compressed-unflushed compressed-half compressed-bad auxtrace zero-size oversize garbage\n"
		   "          unfinished unfinished-torn short-sample cut-sample unknown-id\n"
		   "          bad-attr bad-tracing bad-feature kcore\n"
		   "          [--kernel-samples=ADDR:N,...] [--kernel-build-id=HEX|none] (kcore)\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pipe", no_argument, NULL, 'p' },
		{ "variant", required_argument, NULL, 'v' },
		{ "no-names", no_argument, NULL, 'n' },
		{ "truncate", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "kernel-samples", required_argument, NULL, 'k' },
		{ "kernel-build-id", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct gen g = { .names = true, .variant = "good", .repeat = 1 };
	struct gbuf b = { 0 };
	const char *out = NULL;
	long long truncate = -1;
	size_t done = 0;
	FILE *f;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			g.pipe = true;
			break;
		case 'v':
			g.variant = optarg;
			break;
		case 'n':
			g.names = false;
			break;
		case 't':
			truncate = atoll(optarg);
			break;
		case 'r':
			g.repeat = strtoul(optarg, NULL, 10);
			break;
		case 'o':
			out = optarg;
			break;
		case 'k':
			g.kernel_samples = optarg;
			break;
		case 'b':
			g.kernel_id = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	g.minimal = variant(&g, "minimal") || variant(&g, "rename");
	if (g.pipe)
		gen_pipe(&b, &g);
	else
		gen_file(&b, &g);
	if (truncate >= 0 && (size_t)truncate < b.len)
		b.len = (size_t)truncate;
	f = out ? fopen(out, "wb") : stdout;
	if (!f) {
		fprintf(stderr, "gen-perfdata: %s: %s\n", out, strerror(errno));
		return 2;
	}
	if (b.len)
		done = fwrite(b.p, 1, b.len, f);
	if (done != b.len || (out && fclose(f))) {
		fprintf(stderr, "gen-perfdata: write error\n");
		return 2;
	}
	free(b.p);
	return 0;
}
