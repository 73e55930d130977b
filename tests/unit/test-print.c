// SPDX-License-Identifier: GPL-2.0
/*
 * Golden strings for every record printer of `pmrec dump` (lib/print/),
 * text and JSON: records are built here byte by byte, printed into memory
 * and compared with what pmrec-dump(1) promises.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/emit.h"
#include "format/perf_data.h"
#include "print/print.h"
#include "reader/rec_info.h"
#include "print/stats.h"
#include "tap.h"

static struct pm_emit em;
static struct pm_printer pr;
static struct pm_buf rb;
static struct pm_record rec;

/* --- building records ------------------------------------------------------ */

static void start(uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	rb.len = 0;
	pm_buf__append(&rb, &h, sizeof(h));
}

static void u16(uint16_t v)
{
	pm_buf__append(&rb, &v, sizeof(v));
}

static void u32(uint32_t v)
{
	pm_buf__append_u32(&rb, v);
}

static void u64(uint64_t v)
{
	pm_buf__append_u64(&rb, v);
}

static void bytes(const void *p, size_t n)
{
	pm_buf__append(&rb, p, n);
}

/* s, NUL, zero-padded to a multiple of 8 bytes of record. */
static void str(const char *s)
{
	pm_buf__append(&rb, s, strlen(s) + 1);
	pm_buf__pad(&rb, 8);
}

static const struct pm_record *finish(void)
{
	struct perf_event_header *h = (void *)rb.data;

	h->size = (uint16_t)rb.len;
	rec = (struct pm_record){ .offset = 0x1a0, .header = h, .data = rb.data };
	return &rec;
}

/* --- checking --------------------------------------------------------------- */

static bool same(const char *what, const char *want)
{
	size_t n = strlen(want);
	bool eq = em.out.len == n && !memcmp(em.out.buf, want, n);

	if (!tap_ok(eq, "%s", what))
		printf("#   got  '%.*s'\n#   want '%s'\n", (int)em.out.len, em.out.buf, want);
	em.out.len = 0;
	return eq;
}

/* The record just built, with info in (NULL: no trailer, no columns). */
static void check_in(const char *what, const struct pm_rec_info *in, const char *text,
		     const char *json)
{
	struct pm_rec_info none = { .body_len = rec.header->size - 8 };
	char name[128];

	if (!in)
		in = &none;
	em.json = false;
	pm_printer__record(&pr, &rec, in);
	snprintf(name, sizeof(name), "%s: text", what);
	same(name, text);
	em.json = true;
	pm_printer__record(&pr, &rec, in);
	snprintf(name, sizeof(name), "%s: JSON", what);
	same(name, json);
}

static void check(const char *what, const char *text, const char *json)
{
	finish();
	check_in(what, NULL, text, json);
}

/* --- kernel records ---------------------------------------------------------- */

static void test_mmap(void)
{
	start(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(10), u32(11), u64(0x400000), u64(0x1000), u64(0), str("/bin/true");
	check("MMAP",
	      "0x1a0 - - - MMAP addr=0x400000 len=0x1000 pgoff=0x0 cpumode=user "
	      "filename=/bin/true\n",
	      "{\"offset\":416,\"type\":\"MMAP\",\"size\":56,\"misc\":2,\"addr\":\"0x400000\","
	      "\"len\":\"0x1000\",\"pgoff\":\"0x0\",\"cpumode\":\"user\","
	      "\"filename\":\"/bin/true\"}\n");

	start(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	u32(10), u32(11), u64(0x7f0000), u64(0x2000), u64(0x1000);
	u32(8), u32(1), u64(1234), u64(5), u32(5), u32(2), str("/lib/libc.so.6");
	check("MMAP2 with device and inode",
	      "0x1a0 - - - MMAP2 addr=0x7f0000 len=0x2000 pgoff=0x1000 maj=8 min=1 ino=1234 "
	      "ino_generation=5 prot=0x5 flags=0x2 cpumode=user filename=/lib/libc.so.6\n",
	      "{\"offset\":416,\"type\":\"MMAP2\",\"size\":88,\"misc\":2,\"addr\":\"0x7f0000\","
	      "\"len\":\"0x2000\",\"pgoff\":\"0x1000\",\"maj\":8,\"min\":1,\"ino\":1234,"
	      "\"ino_generation\":5,\"prot\":\"0x5\",\"flags\":\"0x2\",\"cpumode\":\"user\","
	      "\"filename\":\"/lib/libc.so.6\"}\n");

	start(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	u32(10), u32(11), u64(0x7f0000), u64(0x2000), u64(0);
	bytes("\x03\0\0\0\xde\xad\xbe\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 24);
	u32(5), u32(2), str("[vdso]");
	check("MMAP2 with a build id",
	      "0x1a0 - - - MMAP2 addr=0x7f0000 len=0x2000 pgoff=0x0 build_id=deadbe prot=0x5 "
	      "flags=0x2 cpumode=user filename=[vdso]\n",
	      "{\"offset\":416,\"type\":\"MMAP2\",\"size\":80,\"misc\":16386,"
	      "\"addr\":\"0x7f0000\",\"len\":\"0x2000\",\"pgoff\":\"0x0\","
	      "\"build_id\":\"deadbe\",\"prot\":\"0x5\",\"flags\":\"0x2\",\"cpumode\":\"user\","
	      "\"filename\":\"[vdso]\"}\n");
}

static void test_tasks(void)
{
	struct pm_rec_info in;

	start(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	u32(1), u32(2), str("a \"b\"");
	finish();
	in = (struct pm_rec_info){ .body_len = rec.header->size - 8, .has_time = true,
				   .time = 1500000001, .has_cpu = true, .cpu = 3,
				   .has_pid = true, .pid = 1, .tid = 2 };
	check_in("COMM with exec, quoted, all columns", &in,
		 "0x1a0 1.500000001 3 1/2 COMM comm=\"a \\\"b\\\"\" exec=1\n",
		 "{\"offset\":416,\"type\":\"COMM\",\"size\":24,\"misc\":8192,"
		 "\"time\":1500000001,\"cpu\":3,\"pid\":1,\"tid\":2,\"comm\":\"a \\\"b\\\"\","
		 "\"exec\":true}\n");

	start(PERF_RECORD_FORK, 0);
	u32(20), u32(10), u32(21), u32((uint32_t)-1), u64(5000);
	check("FORK", "0x1a0 - - - FORK ppid=10 ptid=-1\n",
	      "{\"offset\":416,\"type\":\"FORK\",\"size\":32,\"misc\":0,\"ppid\":10,\"ptid\":-1}\n");

	start(PERF_RECORD_EXIT, 0);
	u32(20), u32(10), u32(21), u32(11), u64(6000);
	check("EXIT", "0x1a0 - - - EXIT ppid=10 ptid=11\n",
	      "{\"offset\":416,\"type\":\"EXIT\",\"size\":32,\"misc\":0,\"ppid\":10,\"ptid\":11}\n");
}

static void test_kernel_misc(void)
{
	start(PERF_RECORD_LOST, 0);
	u64(7), u64(5);
	check("LOST", "0x1a0 - - - LOST id=7 lost=5\n",
	      "{\"offset\":416,\"type\":\"LOST\",\"size\":24,\"misc\":0,\"id\":7,\"lost\":5}\n");

	start(PERF_RECORD_LOST_SAMPLES, 0);
	u64(9);
	check("LOST_SAMPLES", "0x1a0 - - - LOST_SAMPLES lost=9\n",
	      "{\"offset\":416,\"type\":\"LOST_SAMPLES\",\"size\":16,\"misc\":0,\"lost\":9}\n");

	start(PERF_RECORD_THROTTLE, 0);
	u64(100), u64(4), u64(6);
	check("THROTTLE", "0x1a0 - - - THROTTLE id=4 stream_id=6\n",
	      "{\"offset\":416,\"type\":\"THROTTLE\",\"size\":32,\"misc\":0,\"id\":4,"
	      "\"stream_id\":6}\n");

	start(PERF_RECORD_UNTHROTTLE, 0);
	u64(100), u64(4), u64(6);
	check("UNTHROTTLE", "0x1a0 - - - UNTHROTTLE id=4 stream_id=6\n",
	      "{\"offset\":416,\"type\":\"UNTHROTTLE\",\"size\":32,\"misc\":0,\"id\":4,"
	      "\"stream_id\":6}\n");

	start(PERF_RECORD_READ, 0);
	u32(1), u32(2), u64(100), u64(200);
	check("READ", "0x1a0 - - - READ values=100,200\n",
	      "{\"offset\":416,\"type\":\"READ\",\"size\":32,\"misc\":0,\"values\":[100,200]}\n");

	start(PERF_RECORD_AUX, 0);
	u64(0x1000), u64(64), u64(1);
	check("AUX", "0x1a0 - - - AUX aux_offset=0x1000 aux_size=64 flags=0x1\n",
	      "{\"offset\":416,\"type\":\"AUX\",\"size\":32,\"misc\":0,\"aux_offset\":\"0x1000\","
	      "\"aux_size\":64,\"flags\":\"0x1\"}\n");

	start(PERF_RECORD_ITRACE_START, 0);
	u32(1), u32(2);
	check("ITRACE_START", "0x1a0 - - - ITRACE_START\n",
	      "{\"offset\":416,\"type\":\"ITRACE_START\",\"size\":16,\"misc\":0}\n");

	start(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	check("SWITCH out, preempted", "0x1a0 - - - SWITCH out=1 preempt=1\n",
	      "{\"offset\":416,\"type\":\"SWITCH\",\"size\":8,\"misc\":24576,\"out\":true,"
	      "\"preempt\":true}\n");

	start(PERF_RECORD_SWITCH_CPU_WIDE, 0);
	u32(30), u32(31);
	check("SWITCH_CPU_WIDE", "0x1a0 - - - SWITCH_CPU_WIDE next_prev_pid=30 next_prev_tid=31 "
	      "out=0 preempt=0\n",
	      "{\"offset\":416,\"type\":\"SWITCH_CPU_WIDE\",\"size\":16,\"misc\":0,"
	      "\"next_prev_pid\":30,\"next_prev_tid\":31,\"out\":false,\"preempt\":false}\n");

	start(PERF_RECORD_AUX_OUTPUT_HW_ID, 0);
	u64(3);
	check("AUX_OUTPUT_HW_ID", "0x1a0 - - - AUX_OUTPUT_HW_ID hw_id=3\n",
	      "{\"offset\":416,\"type\":\"AUX_OUTPUT_HW_ID\",\"size\":16,\"misc\":0,\"hw_id\":3}\n");
}

static void test_kernel_other(void)
{
	start(PERF_RECORD_NAMESPACES, 0);
	u32(1), u32(2), u64(2), u64(4), u64(100), u64(5), u64(200);
	check("NAMESPACES", "0x1a0 - - - NAMESPACES namespaces=4:100,5:200\n",
	      "{\"offset\":416,\"type\":\"NAMESPACES\",\"size\":56,\"misc\":0,\"namespaces\":"
	      "[{\"dev\":4,\"ino\":100},{\"dev\":5,\"ino\":200}]}\n");

	start(PERF_RECORD_KSYMBOL, 0);
	u64(0xffffffffc0001000ULL), u32(0x80), u16(1), u16(0), str("bpf_prog_x");
	check("KSYMBOL", "0x1a0 - - - KSYMBOL addr=0xffffffffc0001000 len=128 ksym_type=1 "
	      "flags=0x0 name=bpf_prog_x\n",
	      "{\"offset\":416,\"type\":\"KSYMBOL\",\"size\":40,\"misc\":0,"
	      "\"addr\":\"0xffffffffc0001000\",\"len\":128,\"ksym_type\":1,\"flags\":\"0x0\","
	      "\"name\":\"bpf_prog_x\"}\n");

	start(PERF_RECORD_BPF_EVENT, 0);
	u16(1), u16(0), u32(42), bytes("\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
	check("BPF_EVENT", "0x1a0 - - - BPF_EVENT bpf_type=1 flags=0x0 bpf_id=42 "
	      "tag=0123456789abcdef\n",
	      "{\"offset\":416,\"type\":\"BPF_EVENT\",\"size\":24,\"misc\":0,\"bpf_type\":1,"
	      "\"flags\":\"0x0\",\"bpf_id\":42,\"tag\":\"0123456789abcdef\"}\n");

	start(PERF_RECORD_CGROUP, 0);
	u64(3), str("/sys");
	check("CGROUP", "0x1a0 - - - CGROUP cgroup_id=3 path=/sys\n",
	      "{\"offset\":416,\"type\":\"CGROUP\",\"size\":24,\"misc\":0,\"cgroup_id\":3,"
	      "\"path\":\"/sys\"}\n");

	start(PERF_RECORD_TEXT_POKE, 0);
	u64(0xffffffff81000000ULL), u16(2), u16(2), bytes("\x90\x90\xeb\x05\0\0\0\0", 8);
	check("TEXT_POKE", "0x1a0 - - - TEXT_POKE addr=0xffffffff81000000 old_len=2 new_len=2 "
	      "old_bytes=9090 new_bytes=eb05\n",
	      "{\"offset\":416,\"type\":\"TEXT_POKE\",\"size\":28,\"misc\":0,"
	      "\"addr\":\"0xffffffff81000000\",\"old_len\":2,\"new_len\":2,"
	      "\"old_bytes\":\"9090\",\"new_bytes\":\"eb05\"}\n");

	/* Unknown types show their bytes: there is nothing else to show. */
	start(30, 0);
	u64(0x4142434445464748ULL), u32(0x0a0d0000);
	check("unknown type: size and bytes",
	      "0x1a0 - - - UNKNOWN_30 data_size=12\n"
	      "    0000: 1e 00 00 00 00 00 14 00 48 47 46 45 44 43 42 41  ........HGFEDCBA\n"
	      "    0010: 00 00 0d 0a                                      ....\n",
	      "{\"offset\":416,\"type\":\"UNKNOWN_30\",\"size\":20,\"misc\":0,\"data_size\":12,"
	      "\"raw\":\"1e00000000001400484746454443424100000d0a\"}\n");
	pr.raw = true;
	start(PERF_RECORD_LOST_SAMPLES, 0);
	u64(0x20);
	check("--raw",
	      "0x1a0 - - - LOST_SAMPLES lost=32\n"
	      "    0000: 0d 00 00 00 00 00 10 00 20 00 00 00 00 00 00 00  ........ .......\n",
	      "{\"offset\":416,\"type\":\"LOST_SAMPLES\",\"size\":16,\"misc\":0,\"lost\":32,"
	      "\"raw\":\"0d000000000010002000000000000000\"}\n");
	pr.raw = false;
}

/* --- perf's own records --------------------------------------------------- */

static void test_user_header(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = PM_FILE_ATTR_SIZE, .config = 0,
		.sample_period = 4000, .freq = 1, .sample_id_all = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	unsigned char id[20] = { 0xaa, 0xbb, 0xcc, 0xdd };

	start(PERF_RECORD_HEADER_ATTR, 0);
	bytes(&attr, PM_FILE_ATTR_SIZE), u64(1), u64(2);
	check("HEADER_ATTR",
	      "0x1a0 - - - HEADER_ATTR attr_type=1 config=0x0 sample_freq=4000 sample_type=0x3 "
	      "read_format=0x0 sample_id_all=1 ids=1,2\n",
	      "{\"offset\":416,\"type\":\"HEADER_ATTR\",\"size\":152,\"misc\":0,"
	      "\"attr_type\":1,\"config\":\"0x0\",\"sample_freq\":4000,\"sample_type\":\"0x3\","
	      "\"read_format\":\"0x0\",\"sample_id_all\":true,\"ids\":[1,2]}\n");

	start(PERF_RECORD_HEADER_EVENT_TYPE, 0);
	u64(12);
	bytes("sched:sched_switch\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	      "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 64);
	check("HEADER_EVENT_TYPE",
	      "0x1a0 - - - HEADER_EVENT_TYPE event_id=12 name=sched:sched_switch\n",
	      "{\"offset\":416,\"type\":\"HEADER_EVENT_TYPE\",\"size\":80,\"misc\":0,"
	      "\"event_id\":12,\"name\":\"sched:sched_switch\"}\n");

	start(PERF_RECORD_HEADER_TRACING_DATA, 0);
	u32(4096), u32(0);
	finish();
	rec.extra_size = 4096;
	check_in("HEADER_TRACING_DATA", NULL,
		 "0x1a0 - - - HEADER_TRACING_DATA data_size=4096 formats=0\n",
		 "{\"offset\":416,\"type\":\"HEADER_TRACING_DATA\",\"size\":16,\"misc\":0,"
		 "\"data_size\":4096,\"formats\":0}\n");

	start(PERF_RECORD_HEADER_BUILD_ID, PM_BUILD_ID_MISC_SIZE | PERF_RECORD_MISC_USER);
	u32((uint32_t)-1), bytes(id, 20), bytes("\x04\0\0\0", 4), str("/usr/bin/x y");
	check("HEADER_BUILD_ID, 4-byte id",
	      "0x1a0 - - - HEADER_BUILD_ID build_id_pid=-1 build_id=aabbccdd cpumode=user "
	      "filename=\"/usr/bin/x y\"\n",
	      "{\"offset\":416,\"type\":\"HEADER_BUILD_ID\",\"size\":56,\"misc\":32770,"
	      "\"build_id_pid\":-1,\"build_id\":\"aabbccdd\",\"cpumode\":\"user\","
	      "\"filename\":\"/usr/bin/x y\"}\n");

	start(PERF_RECORD_HEADER_BUILD_ID, PERF_RECORD_MISC_KERNEL);
	u32((uint32_t)-1), bytes(id, 20), bytes("\x04\0\0\0", 4), str("[kernel.kallsyms]");
	check("HEADER_BUILD_ID, no size flag: 20 bytes",
	      "0x1a0 - - - HEADER_BUILD_ID build_id_pid=-1 "
	      "build_id=aabbccdd00000000000000000000000000000000 cpumode=kernel "
	      "filename=[kernel.kallsyms]\n",
	      "{\"offset\":416,\"type\":\"HEADER_BUILD_ID\",\"size\":56,\"misc\":1,"
	      "\"build_id_pid\":-1,\"build_id\":\"aabbccdd00000000000000000000000000000000\","
	      "\"cpumode\":\"kernel\",\"filename\":\"[kernel.kallsyms]\"}\n");

	start(PERF_RECORD_HEADER_FEATURE, 0);
	u64(HEADER_HOSTNAME), u32(8), bytes("host\0\0\0\0", 8);
	check("HEADER_FEATURE",
	      "0x1a0 - - - HEADER_FEATURE feature=HOSTNAME data_size=12\n",
	      "{\"offset\":416,\"type\":\"HEADER_FEATURE\",\"size\":28,\"misc\":0,"
	      "\"feature\":\"HOSTNAME\",\"data_size\":12}\n");

	start(PERF_RECORD_HEADER_FEATURE, 0);
	u64(99);
	check("HEADER_FEATURE, unknown",
	      "0x1a0 - - - HEADER_FEATURE feature=99 data_size=0\n",
	      "{\"offset\":416,\"type\":\"HEADER_FEATURE\",\"size\":16,\"misc\":0,"
	      "\"feature\":\"99\",\"data_size\":0}\n");

	start(PERF_RECORD_FINISHED_ROUND, 0);
	check("FINISHED_ROUND",
	      "0x1a0 - - - FINISHED_ROUND\n",
	      "{\"offset\":416,\"type\":\"FINISHED_ROUND\",\"size\":8,\"misc\":0}\n");
}

static void test_user_maps(void)
{
	start(PERF_RECORD_ID_INDEX, 0);
	u64(2), u64(10), u64(0), u64(0), u64((uint64_t)-1), u64(11), u64(1), u64(1), u64(77);
	check("ID_INDEX",
	      "0x1a0 - - - ID_INDEX nr=2 entries=10:0:0:-1,11:1:1:77\n",
	      "{\"offset\":416,\"type\":\"ID_INDEX\",\"size\":80,\"misc\":0,\"nr\":2,"
	      "\"entries\":[{\"id\":10,\"idx\":0,\"cpu\":0,\"tid\":-1},{\"id\":11,\"idx\":1,"
	      "\"cpu\":1,\"tid\":77}]}\n");

	start(PERF_RECORD_THREAD_MAP, 0);
	u64(2), u64(5), bytes("sh\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	u64((uint64_t)-1), bytes("a b\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	check("THREAD_MAP",
	      "0x1a0 - - - THREAD_MAP nr=2 threads=5:sh,-1:\"a b\"\n",
	      "{\"offset\":416,\"type\":\"THREAD_MAP\",\"size\":64,\"misc\":0,\"nr\":2,"
	      "\"threads\":[{\"pid\":5,\"comm\":\"sh\"},{\"pid\":-1,\"comm\":\"a b\"}]}\n");

	start(PERF_RECORD_CPU_MAP, 0);
	u16(0), u16(3), u16(0), u16(2), u16(7);
	check("CPU_MAP list",
	      "0x1a0 - - - CPU_MAP cpus=0,2,7\n",
	      "{\"offset\":416,\"type\":\"CPU_MAP\",\"size\":18,\"misc\":0,\"cpus\":[0,2,7]}\n");

	start(PERF_RECORD_CPU_MAP, 0);
	u16(1), u16(1), u16(8), u16(0), u64(0x8000000000000005ULL);
	check("CPU_MAP mask, 64-bit",
	      "0x1a0 - - - CPU_MAP cpus=0,2,63\n",
	      "{\"offset\":416,\"type\":\"CPU_MAP\",\"size\":24,\"misc\":0,\"cpus\":[0,2,63]}\n");

	start(PERF_RECORD_CPU_MAP, 0);
	u16(1), u16(2), u16(4), u32(0x3), u32(0x1);
	check("CPU_MAP mask, 32-bit",
	      "0x1a0 - - - CPU_MAP cpus=0,1,32\n",
	      "{\"offset\":416,\"type\":\"CPU_MAP\",\"size\":22,\"misc\":0,\"cpus\":[0,1,32]}\n");

	start(PERF_RECORD_CPU_MAP, 0);
	u16(2), u16(0), u16(4), u16(6);
	check("CPU_MAP range",
	      "0x1a0 - - - CPU_MAP cpus=4,5,6\n",
	      "{\"offset\":416,\"type\":\"CPU_MAP\",\"size\":16,\"misc\":0,\"cpus\":[4,5,6]}\n");
}

static void test_user_stat(void)
{
	double scale = 2.5;

	start(PERF_RECORD_STAT_CONFIG, 0);
	u64(2), u64(1), u64(2), u64(3), u64(4);
	check("STAT_CONFIG",
	      "0x1a0 - - - STAT_CONFIG config=1:2,3:4\n",
	      "{\"offset\":416,\"type\":\"STAT_CONFIG\",\"size\":48,\"misc\":0,"
	      "\"config\":[{\"tag\":1,\"val\":2},{\"tag\":3,\"val\":4}]}\n");

	start(PERF_RECORD_STAT, 0);
	u64(8), u32((uint32_t)-1), u32(3), u64(100), u64(200), u64(150);
	check("STAT",
	      "0x1a0 - - - STAT id=8 stat_cpu=-1 thread=3 val=100 ena=200 run=150\n",
	      "{\"offset\":416,\"type\":\"STAT\",\"size\":48,\"misc\":0,\"id\":8,"
	      "\"stat_cpu\":-1,\"thread\":3,\"val\":100,\"ena\":200,\"run\":150}\n");

	start(PERF_RECORD_STAT_ROUND, 0);
	u64(1), u64(123456);
	check("STAT_ROUND",
	      "0x1a0 - - - STAT_ROUND round_type=1 round_time=123456\n",
	      "{\"offset\":416,\"type\":\"STAT_ROUND\",\"size\":24,\"misc\":0,\"round_type\":1,"
	      "\"round_time\":123456}\n");

	start(PERF_RECORD_EVENT_UPDATE, 0);
	u64(PERF_EVENT_UPDATE__UNIT), u64(1), str("msec");
	check("EVENT_UPDATE unit",
	      "0x1a0 - - - EVENT_UPDATE update=unit id=1 value=msec\n",
	      "{\"offset\":416,\"type\":\"EVENT_UPDATE\",\"size\":32,\"misc\":0,"
	      "\"update\":\"unit\",\"id\":1,\"value\":\"msec\"}\n");

	start(PERF_RECORD_EVENT_UPDATE, 0);
	u64(PERF_EVENT_UPDATE__SCALE), u64(1), bytes(&scale, 8);
	check("EVENT_UPDATE scale",
	      "0x1a0 - - - EVENT_UPDATE update=scale id=1 value=2.5\n",
	      "{\"offset\":416,\"type\":\"EVENT_UPDATE\",\"size\":32,\"misc\":0,"
	      "\"update\":\"scale\",\"id\":1,\"value\":2.5}\n");

	start(PERF_RECORD_EVENT_UPDATE, 0);
	u64(PERF_EVENT_UPDATE__NAME), u64(1), str("my-event");
	check("EVENT_UPDATE name",
	      "0x1a0 - - - EVENT_UPDATE update=name id=1 value=my-event\n",
	      "{\"offset\":416,\"type\":\"EVENT_UPDATE\",\"size\":40,\"misc\":0,"
	      "\"update\":\"name\",\"id\":1,\"value\":\"my-event\"}\n");

	start(PERF_RECORD_EVENT_UPDATE, 0);
	u64(PERF_EVENT_UPDATE__CPUS), u64(1), u16(2), u16(0), u16(1), u16(2);
	check("EVENT_UPDATE cpus",
	      "0x1a0 - - - EVENT_UPDATE update=cpus id=1 cpus=1,2\n",
	      "{\"offset\":416,\"type\":\"EVENT_UPDATE\",\"size\":32,\"misc\":0,"
	      "\"update\":\"cpus\",\"id\":1,\"cpus\":[1,2]}\n");

	start(PERF_RECORD_TIME_CONV, 0);
	u64(10), u64(500), u64(1000);
	check("TIME_CONV, short",
	      "0x1a0 - - - TIME_CONV time_shift=10 time_mult=500 time_zero=1000\n",
	      "{\"offset\":416,\"type\":\"TIME_CONV\",\"size\":32,\"misc\":0,\"time_shift\":10,"
	      "\"time_mult\":500,\"time_zero\":1000}\n");

	start(PERF_RECORD_TIME_CONV, 0);
	u64(10), u64(500), u64(1000), u64(77), u64(0xffffffff), bytes("\x01\x00\0\0\0\0\0\0", 8);
	check("TIME_CONV, long",
	      "0x1a0 - - - TIME_CONV time_shift=10 time_mult=500 time_zero=1000 time_cycles=77 "
	      "time_mask=0xffffffff cap_user_time_zero=1 cap_user_time_short=0\n",
	      "{\"offset\":416,\"type\":\"TIME_CONV\",\"size\":56,\"misc\":0,\"time_shift\":10,"
	      "\"time_mult\":500,\"time_zero\":1000,\"time_cycles\":77,"
	      "\"time_mask\":\"0xffffffff\",\"cap_user_time_zero\":true,"
	      "\"cap_user_time_short\":false}\n");
}

static void test_user_aux(void)
{
	start(PERF_RECORD_AUXTRACE_INFO, 0);
	u32(4), u32(0);
	check("AUXTRACE_INFO",
	      "0x1a0 - - - AUXTRACE_INFO auxtrace_type=4\n",
	      "{\"offset\":416,\"type\":\"AUXTRACE_INFO\",\"size\":16,\"misc\":0,"
	      "\"auxtrace_type\":4}\n");

	start(PERF_RECORD_AUXTRACE, 0);
	u64(4096), u64(0x2000), u64(0xabc), u32(1), u32(55), u32(2), u32(0);
	check("AUXTRACE",
	      "0x1a0 - - - AUXTRACE data_size=4096 aux_offset=0x2000 reference=0xabc idx=1 "
	      "aux_tid=55 aux_cpu=2\n",
	      "{\"offset\":416,\"type\":\"AUXTRACE\",\"size\":48,\"misc\":0,\"data_size\":4096,"
	      "\"aux_offset\":\"0x2000\",\"reference\":\"0xabc\",\"idx\":1,\"aux_tid\":55,"
	      "\"aux_cpu\":2}\n");

	start(PERF_RECORD_AUXTRACE_ERROR, 0);
	u32(1), u32(2), u32(3), u32(4), u32(5), u32(0), u64(0x401000), u64(999);
	str("decoder: lost sync");
	check("AUXTRACE_ERROR",
	      "0x1a0 - - - AUXTRACE_ERROR err_type=1 code=2 err_cpu=3 err_pid=4 err_tid=5 "
	      "fmt=0 ip=0x401000 err_time=999 msg=\"decoder: lost sync\"\n",
	      "{\"offset\":416,\"type\":\"AUXTRACE_ERROR\",\"size\":72,\"misc\":0,"
	      "\"err_type\":1,\"code\":2,\"err_cpu\":3,\"err_pid\":4,\"err_tid\":5,\"fmt\":0,"
	      "\"ip\":\"0x401000\",\"err_time\":999,\"msg\":\"decoder: lost sync\"}\n");
}

/* --- samples ------------------------------------------------------------------ */

#define TP_FORMAT								\
	"name: demo\nID: 7\nformat:\n"						\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"		\
	"\tfield:char comm[8];\toffset:8;\tsize:8;\tsigned:0;\n"		\
	"\tfield:long delta;\toffset:16;\tsize:8;\tsigned:1;\n"			\
	"\tfield:unsigned short ids[2];\toffset:24;\tsize:4;\tsigned:0;\n"	\
	"\tfield:void * ptr;\toffset:28;\tsize:8;\tsigned:0;\n"			\
	"\tfield:struct odd blob;\toffset:36;\tsize:3;\tsigned:0;\n"		\
	"\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:0;\n"	\
	"\tfield:int past_end;\toffset:60;\tsize:4;\tsigned:1;\n\n"		\
	"print fmt: \"x\"\n"

static void test_sample_all(void)
{
	static const uint64_t chain[] = { 0x401000, 0x402000 };
	static const uint64_t branches[] = { 0x1, 0x2, 0x10, 0x3, 0x4, 0x0 };
	static const uint64_t regs[] = { 0xa, 0xb }, read[] = { 100, 2 };
	unsigned char raw[48] = { 0 };
	struct pm_tp_event tp = { 0 };
	struct pm_evsel ev = { .name = "demo:demo", .tp = &tp };
	struct pm_rec_info in = { 0 };
	struct pm_sample *s = &in.s;
	int64_t delta = -5;
	uint64_t ptr = 0xffff8880dead0000ULL;
	uint32_t loc = 4u << 16 | 44;

	if (!tap_ok(!pm_tp_event__parse(&tp, "demo", TP_FORMAT, strlen(TP_FORMAT), 8),
		    "tracepoint format parses"))
		return;
	memcpy(raw, "\x07\0\0\0\x2a\0\0\0", 8);
	memcpy(raw + 8, "cc\x01", 3);
	memcpy(raw + 16, &delta, 8);
	memcpy(raw + 24, "\x01\0\x02\0", 4);
	memcpy(raw + 28, &ptr, 8);
	memcpy(raw + 36, "\xab\xcd\xef", 3);
	memcpy(raw + 40, &loc, 4);
	memcpy(raw + 44, "tmp\0", 4);
	*s = (struct pm_sample){
		.evsel = &ev, .fields = ~0ULL & ~(uint64_t)PERF_SAMPLE_IDENTIFIER,
		.id = 3, .ip = 0x401234, .time = 2000000000, .addr = 0xdead, .stream_id = 4,
		.period = 1000, .pid = 5, .tid = 6, .cpu = 1, .callchain_nr = 2,
		.callchain = chain, .raw_size = 48, .raw = raw, .branch_nr = 2,
		.branch_hw_idx = 1, .branch_has_hw_idx = true, .branches = branches,
		.regs_user = { .abi = 2, .nr = 2, .regs = regs },
		.regs_intr = { .abi = 2, .nr = 1, .regs = regs },
		.stack_user_size = 8192, .stack_user_dyn_size = 512, .weight = 33,
		.data_src = 0x1234, .transaction = 0x5, .phys_addr = 0x5000, .cgroup = 9,
		.data_page_size = 4096, .code_page_size = 2097152, .aux_size = 16,
		.read = read, .read_nr = 2,
	};
	in.has_time = in.has_cpu = in.has_pid = true;
	in.time = s->time, in.cpu = s->cpu, in.pid = 5, in.tid = 6;
	start(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	u64(0);
	finish();
	check_in("SAMPLE with every field, tracepoint fields by name", &in,
		 "0x1a0 2.000000000 1 5/6 SAMPLE event=demo:demo cpumode=kernel ip=0x401234 "
		 "sample_id=3 stream_id=4 period=1000 addr=0xdead read=100,2 "
		 "callchain=0x401000,0x402000 raw_size=48 comm=\"cc\\x01\" delta=-5 ids=1,2 "
		 "ptr=0xffff8880dead0000 blob=abcdef name=tmp past_end=? branch_hw_idx=1 "
		 "branches=0x1->0x2,0x3->0x4 regs_user_abi=2 regs_user=0xa,0xb "
		 "stack_user_size=8192 stack_user_dyn_size=512 weight=33 data_src=0x1234 "
		 "transaction=0x5 regs_intr_abi=2 regs_intr=0xa phys_addr=0x5000 cgroup=9 "
		 "data_page_size=4096 code_page_size=2097152 aux_size=16\n",
		 "{\"offset\":416,\"type\":\"SAMPLE\",\"size\":16,\"misc\":1,"
		 "\"time\":2000000000,\"cpu\":1,\"pid\":5,\"tid\":6,\"event\":\"demo:demo\","
		 "\"cpumode\":\"kernel\",\"ip\":\"0x401234\",\"sample_id\":3,\"stream_id\":4,"
		 "\"period\":1000,\"addr\":\"0xdead\",\"read\":[100,2],"
		 "\"callchain\":[\"0x401000\",\"0x402000\"],\"raw_size\":48,"
		 "\"fields\":{\"common_type\":7,\"common_pid\":42,\"comm\":\"cc\\u0001\","
		 "\"delta\":-5,\"ids\":[1,2],\"ptr\":\"0xffff8880dead0000\","
		 "\"blob\":\"abcdef\",\"name\":\"tmp\",\"past_end\":null},\"branch_hw_idx\":1,"
		 "\"branches\":[{\"from\":\"0x1\",\"to\":\"0x2\",\"flags\":\"0x10\"},"
		 "{\"from\":\"0x3\",\"to\":\"0x4\",\"flags\":\"0x0\"}],\"regs_user_abi\":2,"
		 "\"regs_user\":[\"0xa\",\"0xb\"],\"stack_user_size\":8192,"
		 "\"stack_user_dyn_size\":512,\"weight\":33,\"data_src\":\"0x1234\","
		 "\"transaction\":\"0x5\",\"regs_intr_abi\":2,\"regs_intr\":[\"0xa\"],"
		 "\"phys_addr\":\"0x5000\",\"cgroup\":9,\"data_page_size\":4096,"
		 "\"code_page_size\":2097152,\"aux_size\":16}\n");
	pm_tp_event__exit(&tp);
}

static void test_sample_freq(void)
{
	struct pm_evsel ev = { .name = "cycles", .attr = { .freq = 1 } };
	struct pm_rec_info in = { 0 };

	/* A frequency event without PERIOD in sample_type: no period shown. */
	in.s = (struct pm_sample){ .evsel = &ev, .fields = PERF_SAMPLE_IP, .ip = 0x10 };
	start(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_GUEST_USER);
	u64(0x10);
	finish();
	check_in("SAMPLE, IP only, guest user", &in,
		 "0x1a0 - - - SAMPLE event=cycles cpumode=guest_user ip=0x10\n",
		 "{\"offset\":416,\"type\":\"SAMPLE\",\"size\":16,\"misc\":5,"
		 "\"event\":\"cycles\",\"cpumode\":\"guest_user\",\"ip\":\"0x10\"}\n");
}

static void warn_count(void *arg, const struct pm_warning *w)
{
	(*(int *)arg)++;
}

/*
 * Named frames, through a namer fed with a COMM and an MMAP (of file offset
 * 0x3000): a file's addresses no symbol covers are named by their offset
 * in it, the recorded ip's in dump, the one looked up (a return address
 * one byte back) in folded stacks.
 */
static void test_sample_frames(void)
{
	static const uint64_t chain[] = { PERF_CONTEXT_USER, 0x1100, 0x1201, 0x9999 };
	struct pm_reader *r = pm_reader__new();
	struct pm_evsel ev = { .name = "cpu-clock" };
	struct pm_rec_info in = { 0 };
	struct pm_namer *n;
	const char *stack;
	size_t len;
	int warnings = 0;

	n = r ? pm_namer__new(r, warn_count, &warnings) : NULL;
	if (!tap_ok(n != NULL, "a namer"))
		return;
	start(PERF_RECORD_COMM, 0);
	u32(100), u32(101), str("worker");
	finish();
	pm_namer__track(n, &rec, rec.header->size - 8);
	start(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(100), u32(100), u64(0x1000), u64(0x1000), u64(0x3000), str("/nonexistent/libx.so");
	finish();
	pm_namer__track(n, &rec, rec.header->size - 8);

	in.s = (struct pm_sample){ .evsel = &ev, .pid = 100, .tid = 101, .ip = 0x1100,
				   .callchain = chain, .callchain_nr = 4,
				   .fields = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN };
	start(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(0);
	finish();
	pr.namer = n;
	check_in("SAMPLE with dso and frames", &in,
		 "0x1a0 - - - SAMPLE event=cpu-clock cpumode=user ip=0x1100 "
		 "dso=/nonexistent/libx.so dsoff=0x3100 period=0 "
		 "callchain=0xfffffffffffffe00,0x1100,0x1201,"
		 "0x9999 frames=libx.so+0x3100,libx.so+0x3201,[unknown]\n",
		 "{\"offset\":416,\"type\":\"SAMPLE\",\"size\":16,\"misc\":2,"
		 "\"event\":\"cpu-clock\",\"cpumode\":\"user\",\"ip\":\"0x1100\","
		 "\"dso\":\"/nonexistent/libx.so\",\"dsoff\":\"0x3100\",\"period\":0,"
		 "\"callchain\":[\"0xfffffffffffffe00\",\"0x1100\",\"0x1201\",\"0x9999\"],"
		 "\"frames\":[{\"ip\":\"0x1100\",\"dso\":\"/nonexistent/libx.so\","
		 "\"dsoff\":\"0x3100\"},{\"ip\":\"0x1201\",\"dso\":\"/nonexistent/libx.so\","
		 "\"dsoff\":\"0x3201\"},{\"ip\":\"0x9999\"}]}\n");
	pr.namer = NULL;
	tap_ok(!pm_namer__fold(n, PERF_RECORD_MISC_USER, &in.s, &stack, &len) &&
	       len == strlen("worker;[unknown];libx.so+0x3200;libx.so+0x3100") &&
	       !memcmp(stack, "worker;[unknown];libx.so+0x3200;libx.so+0x3100", len),
	       "folded: comm, then the frames from the outermost in");
	in.s.tid = 7;
	in.s.fields = PERF_SAMPLE_IP;
	tap_ok(!pm_namer__fold(n, PERF_RECORD_MISC_USER, &in.s, &stack, &len) &&
	       len == strlen(":7;libx.so+0x3100") && !memcmp(stack, ":7;libx.so+0x3100", len),
	       "folded without comm or chain: :tid, then the ip");
	tap_ok(warnings == 0, "no warning for a missing file without a build id");
	pm_namer__delete(n);
	pm_reader__delete(r);
}

/* --- stats ------------------------------------------------------------------- */

static void test_stats(void)
{
	struct pm_stats st = { 0 };
	struct pm_reader *r = pm_reader__new();
	struct pm_rec_info in = { 0 };

	start(PERF_RECORD_LOST, 0);
	u64(1), u64(5);
	finish();
	in.body_len = 16;
	pm_stats__count(&st, &rec, &in);
	start(PERF_RECORD_LOST_SAMPLES, 0);
	u64(7);
	finish();
	in.body_len = 8;
	pm_stats__count(&st, &rec, &in);
	start(200, 0);
	finish();
	pm_stats__count(&st, &rec, &in);
	pm_stats__count(&st, &rec, &in);
	em.json = false;
	pm_stats__print(&st, &em, r);
	same("stats: text",
	     "type   LOST                                 1\n"
	     "type   LOST_SAMPLES                         1\n"
	     "type   UNKNOWN_200                          2\n"
	     "total  records                              4\n"
	     "total  samples                              0\n"
	     "total  lost                                 7\n");
	em.json = true;
	pm_stats__print(&st, &em, r);
	same("stats: JSON",
	     "{\"type\":\"STATS\",\"records\":4,\"samples\":0,\"lost\":7,"
	     "\"by_type\":{\"LOST\":1,\"LOST_SAMPLES\":1,\"UNKNOWN_200\":2},\"by_event\":{}}\n");
	pm_stats__exit(&st);
	/* The same drops, announced twice, count once; LOST alone when it is all there is. */
	st = (struct pm_stats){ 0 };
	start(PERF_RECORD_LOST, 0);
	u64(1), u64(5);
	finish();
	in.body_len = 16;
	pm_stats__count(&st, &rec, &in);
	pm_stats__count(&st, &rec, &in);
	tap_ok(pm_stats__lost(&st) == 10, "stats: LOST records alone sum to %llu",
	       (unsigned long long)pm_stats__lost(&st));
	pm_stats__exit(&st);
	pm_reader__delete(r);
}

int main(void)
{
	pr.r = pm_reader__new();
	if (!pr.r || pm_out__init_fd(&em.out, -1, 1 << 16))
		return 1;
	pr.em = &em;
	test_mmap();
	test_tasks();
	test_kernel_misc();
	test_kernel_other();
	test_user_header();
	test_user_maps();
	test_user_stat();
	test_user_aux();
	test_sample_all();
	test_sample_freq();
	test_sample_frames();
	test_stats();
	pm_printer__exit(&pr);
	pm_reader__delete(pr.r);
	pm_out__exit(&em.out);
	pm_buf__exit(&rb);
	return tap_done();
}
