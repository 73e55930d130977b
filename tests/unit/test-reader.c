// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the perf.data reader over files and pipes built here: good
 * file and stream, every truncation, zero-size records, garbage, unknown
 * ids, tracepoint formats and the FINISHED_ROUND queue.  Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "format/perf_data.h"
#include "reader/reader.h"
#include "reader/queue.h"
#include "format/tpformat.h"

static int nr_tests, nr_failed;

static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	nr_tests++;
	if (!cond)
		nr_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", nr_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

#define SMALL_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static void put_attr(struct pm_buf *b, uint64_t sample_type, uint64_t config)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = PM_FILE_ATTR_SIZE,
		.config = config,
		.sample_period = 1000000,
		.sample_type = sample_type,
		.exclude_guest = 1,
	};

	pm_buf__append(b, &attr, PM_FILE_ATTR_SIZE);
}

static void put_comm(struct pm_buf *b)
{
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .size = 24 };

	pm_buf__append(b, &h, sizeof(h));
	pm_buf__append_u32(b, 4242);
	pm_buf__append_u32(b, 4242);
	pm_buf__append(b, "hot\0\0\0\0", 8);
}

static void put_sample(struct pm_buf *b, uint64_t ip, uint64_t time)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 2, .size = 40 };

	pm_buf__append(b, &h, sizeof(h));
	pm_buf__append_u64(b, ip);
	pm_buf__append_u32(b, 4242);
	pm_buf__append_u32(b, 4243);
	pm_buf__append_u64(b, time);
	pm_buf__append_u64(b, 1000000);
}

/* The data every layout carries: COMM, then samples at 1000 and 2000. */
static void put_data(struct pm_buf *b)
{
	put_comm(b);
	put_sample(b, 0x401130, 1000);
	put_sample(b, 0x401140, 2000);
}

/* header | attr + ids section | data (put by data) | feature table | HOSTNAME */
static void build_file_of(struct pm_buf *b, void (*data)(struct pm_buf *b))
{
	struct perf_file_header h = {
		.magic = PERF_MAGIC2,
		.size = PERF_FILE_HEADER_SIZE,
		.attr_size = PM_FILE_ATTR_SIZE + 16,
		.attrs = { .offset = PERF_FILE_HEADER_SIZE, .size = PM_FILE_ATTR_SIZE + 16 },
		.data = { .offset = PERF_FILE_HEADER_SIZE + PM_FILE_ATTR_SIZE + 16 },
	};
	struct perf_file_section hostname;
	size_t table;

	pm_buf__alloc(b, sizeof(h));
	put_attr(b, SMALL_TYPE, PERF_COUNT_SW_CPU_CLOCK);
	pm_buf__append_u64(b, 0);
	pm_buf__append_u64(b, 0);
	data(b);
	h.data.size = b->len - h.data.offset;
	h.adds_features[0] = 1ULL << HEADER_HOSTNAME;
	table = b->len;
	pm_buf__alloc(b, sizeof(hostname));
	hostname.offset = b->len;
	pm_buf__append_perf_string(b, "host");
	hostname.size = b->len - hostname.offset;
	memcpy(b->data + table, &hostname, sizeof(hostname));
	memcpy(b->data, &h, sizeof(h));
}

static void build_file(struct pm_buf *b)
{
	build_file_of(b, put_data);
}

static void build_pipe(struct pm_buf *b)
{
	struct perf_pipe_file_header h = { .magic = PERF_MAGIC2, .size = PERF_PIPE_HEADER_SIZE };
	struct perf_event_header rh = { .type = PERF_RECORD_HEADER_ATTR, .size = 8 + 128 };

	pm_buf__append(b, &h, sizeof(h));
	pm_buf__append(b, &rh, sizeof(rh));
	put_attr(b, SMALL_TYPE, PERF_COUNT_SW_CPU_CLOCK);
	/* An unpadded feature record leaves what follows unaligned. */
	rh = (struct perf_event_header){ .type = PERF_RECORD_HEADER_FEATURE, .size = 8 + 8 + 68 };
	pm_buf__append(b, &rh, sizeof(rh));
	pm_buf__append_u64(b, HEADER_HOSTNAME);
	pm_buf__append_perf_string(b, "host");
	put_data(b);
}

static int memfd_of(const struct pm_buf *b, size_t len)
{
	int fd = memfd_create("test-reader", MFD_CLOEXEC);

	if (fd < 0 || (len && write(fd, b->data, len) != (ssize_t)len)) {
		perror("memfd");
		exit(1);
	}
	return fd;
}

/* A reader on the first len bytes of b, from a memfd or a real pipe. */
static struct pm_reader *reader_of(const struct pm_buf *b, size_t len, bool pipe, int *err)
{
	struct pm_reader *r = pm_reader__new();
	int fds[2];
	pid_t pid;

	if (!pipe) {
		*err = pm_reader__open_fd(r, memfd_of(b, len));
		return r;
	}
	if (pipe2(fds, O_CLOEXEC))
		exit(1);
	pid = fork();
	if (!pid) {
		close(fds[0]);
		_exit(write(fds[1], b->data, len) == (ssize_t)len ? 0 : 1);
	}
	close(fds[1]);
	*err = pm_reader__open_fd(r, fds[0]);
	waitpid(pid, NULL, 0);
	return r;
}

/* Reads every record; returns how many, or the error. */
static int drain(struct pm_reader *r, int *nr)
{
	struct pm_record rec;
	struct pm_sample s;
	int err;

	*nr = 0;
	while ((err = pm_reader__next(r, &rec)) > 0) {
		if (rec.header->type == PERF_RECORD_SAMPLE &&
		    pm_reader__parse_sample(r, &rec, &s))
			return pm_reader__error(r)->err;
		(*nr)++;
	}
	return err;
}

static void check_good(const char *what, struct pm_reader *r, int open_err)
{
	struct pm_record rec;
	struct pm_sample s = { 0 };
	struct pm_cursor c;
	const char *str = NULL;
	size_t len = 0;
	int err, nr = 0, types[8];

	ok(open_err == 0, "%s: opens", what);
	while ((err = pm_reader__next(r, &rec)) > 0 && nr < 8) {
		types[nr++] = (int)rec.header->type;
		if (rec.header->type == PERF_RECORD_SAMPLE && !s.time)
			pm_reader__parse_sample(r, &rec, &s);
	}
	/* Pipe mode learns its events from HEADER_ATTR records on the way. */
	ok(pm_reader__nr_evsels(r) == 1 &&
	   !strcmp(pm_evsel__name(pm_reader__evsel(r, 0)), "cpu-clock"),
	   "%s: one event, cpu-clock", what);
	ok(err == 0 && nr >= 3 && types[nr - 3] == PERF_RECORD_COMM &&
	   types[nr - 1] == PERF_RECORD_SAMPLE, "%s: COMM and two SAMPLEs, clean end", what);
	ok(s.ip == 0x401130 && s.pid == 4242 && s.tid == 4243 && s.time == 1000 &&
	   s.period == 1000000, "%s: sample fields", what);
	ok(!pm_reader__feature(r, HEADER_HOSTNAME, &c) &&
	   !pm_cursor__perf_string(&c, &str, &len) && len == 4 && !memcmp(str, "host", 4),
	   "%s: HOSTNAME feature", what);
}

static void test_good(void)
{
	struct pm_buf f = { 0 }, p = { 0 };
	struct pm_reader *r;
	int err;

	build_file(&f);
	build_pipe(&p);
	r = reader_of(&f, f.len, false, &err);
	ok(!pm_reader__is_pipe(r), "file: detected as file mode");
	check_good("file", r, err);
	pm_reader__delete(r);

	r = reader_of(&p, p.len, false, &err);
	ok(pm_reader__is_pipe(r), "pipe format in a regular file: detected by header size 16");
	check_good("pipe-format file", r, err);
	pm_reader__delete(r);

	r = reader_of(&p, p.len, true, &err);
	check_good("pipe", r, err);
	pm_reader__delete(r);

	/* File mode through a pipe: attrs come first, features cannot. */
	r = reader_of(&f, f.len, true, &err);
	{
		int nr = 0;

		ok(!err && drain(r, &nr) == 0 && nr == 3 && pm_reader__features_skipped(r),
		   "file format through a pipe: records read, features skipped");
	}
	pm_reader__delete(r);
	pm_buf__exit(&f);
	pm_buf__exit(&p);
}

/* Every prefix must fail with an offset inside it (file), never crash. */
static void test_truncations(void)
{
	struct pm_buf f = { 0 }, p = { 0 };
	size_t len, bad = 0, pipe_bad = 0;
	struct pm_reader *r;
	int err, nr;

	build_file(&f);
	for (len = 0; len < f.len; len++) {
		r = reader_of(&f, len, false, &err);
		if (!err)
			err = drain(r, &nr);
		if (err >= 0 || !pm_reader__error(r) || pm_reader__error(r)->offset > f.len ||
		    !pm_reader__error(r)->reason[0])
			bad++;
		pm_reader__delete(r);
	}
	ok(bad == 0, "file: all %zu truncated prefixes fail with an offset (%zu did not)",
	   f.len, bad);

	/* A stream cut on a record boundary is complete; elsewhere it is torn. */
	build_pipe(&p);
	for (len = 0; len < p.len; len++) {
		/* header, HEADER_ATTR, HEADER_FEATURE, COMM, SAMPLE */
		bool boundary = len == 16 || len == 152 || len == 236 || len == 260 || len == 300;

		r = reader_of(&p, len, false, &err);
		if (!err)
			err = drain(r, &nr);
		if (boundary ? err != 0 : (err >= 0 || pm_reader__error(r)->offset > len))
			pipe_bad++;
		pm_reader__delete(r);
	}
	ok(pipe_bad == 0, "pipe: all %zu prefixes end cleanly or fail with an offset (%zu bad)",
	   p.len, pipe_bad);
	pm_buf__exit(&f);
	pm_buf__exit(&p);
}

static void test_zero_size(void)
{
	struct pm_buf p = { 0 };
	struct perf_event_header zero = { .type = PERF_RECORD_COMM, .size = 0 };
	struct pm_reader *r;
	size_t off;
	int err, nr;

	build_pipe(&p);
	off = p.len;
	pm_buf__append(&p, &zero, sizeof(zero));
	put_sample(&p, 1, 1);
	r = reader_of(&p, p.len, false, &err);
	err = drain(r, &nr);
	ok(err == -EBADMSG && nr == 5 && pm_reader__error(r)->offset == off,
	   "size-0 record: the 5 records before it, then an error at its offset 0x%zx", off);
	pm_reader__delete(r);
	pm_buf__exit(&p);
}

static void test_garbage(void)
{
	struct pm_buf g = { 0 }, p = { 0 };
	struct perf_pipe_file_header h = { .magic = PERF_MAGIC2, .size = PERF_PIPE_HEADER_SIZE };
	struct pm_reader *r;
	uint32_t seed = 1;
	int i, err, nr;

	for (i = 0; i < 4096; i++) {
		seed = seed * 1103515245 + 12345;
		pm_buf__append(&g, (unsigned char[]){ (unsigned char)(seed >> 16) }, 1);
	}
	r = reader_of(&g, g.len, false, &err);
	ok(err == -EBADMSG && pm_reader__error(r)->offset == 0, "garbage: bad magic at offset 0");
	pm_reader__delete(r);

	pm_buf__append(&p, &h, sizeof(h));
	pm_buf__append(&p, g.data, g.len);
	r = reader_of(&p, p.len, false, &err);
	err = drain(r, &nr);
	ok(err < 0 && pm_reader__error(r)->offset < p.len,
	   "pipe header + garbage: error at 0x%llx after %d records",
	   (unsigned long long)pm_reader__error(r)->offset, nr);
	pm_reader__delete(r);

	r = reader_of(&g, 0, false, &err);
	ok(err == -EBADMSG, "empty input: error");
	pm_reader__delete(r);
	pm_buf__exit(&g);
	pm_buf__exit(&p);
}

/* Two events with IDENTIFIER: samples map by id; an unknown id is a fault. */
static void test_ids(void)
{
	struct perf_pipe_file_header h = { .magic = PERF_MAGIC2, .size = PERF_PIPE_HEADER_SIZE };
	struct perf_event_header rh = { .type = PERF_RECORD_HEADER_ATTR, .size = 8 + 128 + 8 };
	struct perf_event_header sh = { .type = PERF_RECORD_SAMPLE, .size = 24 };
	uint64_t type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	struct pm_buf p = { 0 };
	struct pm_record rec;
	struct pm_sample s;
	struct pm_reader *r;
	int err, i;

	pm_buf__append(&p, &h, sizeof(h));
	for (i = 0; i < 2; i++) {
		pm_buf__append(&p, &rh, sizeof(rh));
		put_attr(&p, type, i ? PERF_COUNT_SW_PAGE_FAULTS : PERF_COUNT_SW_TASK_CLOCK);
		pm_buf__append_u64(&p, 7 + (uint64_t)i);
	}
	pm_buf__append(&p, &sh, sizeof(sh));
	pm_buf__append_u64(&p, 8);
	pm_buf__append_u64(&p, 0x1234);
	pm_buf__append(&p, &sh, sizeof(sh));
	pm_buf__append_u64(&p, 99);
	pm_buf__append_u64(&p, 0x1234);

	r = reader_of(&p, p.len, false, &err);
	while ((err = pm_reader__next(r, &rec)) > 0 && rec.header->type != PERF_RECORD_SAMPLE)
		;
	ok(err > 0 && !pm_reader__parse_sample(r, &rec, &s) &&
	   !strcmp(pm_evsel__name((struct pm_evsel *)s.evsel), "page-faults") && s.ip == 0x1234,
	   "sample id 8 maps to the second event, page-faults");
	err = pm_reader__next(r, &rec);
	if (err > 0)
		err = pm_reader__parse_sample(r, &rec, &s);
	ok(err == -EBADMSG && strstr(pm_reader__error(r)->reason, "matches no event"),
	   "sample id 99 is an error");
	pm_reader__delete(r);
	pm_buf__exit(&p);
}

/*
 * Events whose ids lie far apart, and an id two events claim: each sample
 * finds its event, and the first claimer keeps the shared id, whether the
 * reader indexes the ids in an array (close) or hashes them (far).
 */
static void check_ids_at(uint64_t base, uint64_t far)
{
	struct perf_pipe_file_header h = { .magic = PERF_MAGIC2, .size = PERF_PIPE_HEADER_SIZE };
	struct perf_event_header rh = { .type = PERF_RECORD_HEADER_ATTR, .size = 8 + 128 + 16 };
	struct perf_event_header sh = { .type = PERF_RECORD_SAMPLE, .size = 24 };
	uint64_t type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	uint64_t ids[3][2] = { { base, base + 1 }, { far, base + 1 }, { base - 3, far + 5 } };
	uint64_t ask[] = { base, base + 1, far, base - 3, far + 5 };
	const char *want[] = { "task-clock", "task-clock", "page-faults", "cpu-clock", "cpu-clock" };
	uint64_t config[] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
			      PERF_COUNT_SW_CPU_CLOCK };
	struct pm_buf p = { 0 };
	struct pm_record rec;
	struct pm_sample s;
	struct pm_reader *r;
	int err, i, good = 0;

	pm_buf__append(&p, &h, sizeof(h));
	for (i = 0; i < 3; i++) {
		pm_buf__append(&p, &rh, sizeof(rh));
		put_attr(&p, type, config[i]);
		pm_buf__append(&p, ids[i], sizeof(ids[i]));
	}
	for (i = 0; i < 5; i++) {
		pm_buf__append(&p, &sh, sizeof(sh));
		pm_buf__append_u64(&p, ask[i]);
		pm_buf__append_u64(&p, 0x1000 + (uint64_t)i);
	}
	r = reader_of(&p, p.len, false, &err);
	for (i = 0; (err = pm_reader__next(r, &rec)) > 0;) {
		if (rec.header->type != PERF_RECORD_SAMPLE)
			continue;
		if (!pm_reader__parse_sample(r, &rec, &s) && s.ip == 0x1000 + (uint64_t)i &&
		    !strcmp(pm_evsel__name((struct pm_evsel *)s.evsel), want[i]))
			good++;
		i++;
	}
	ok(err == 0 && good == 5, "ids %#llx and %#llx apart: all 5 samples find their event, "
	   "the first claimer keeps a shared id", (unsigned long long)base,
	   (unsigned long long)far);
	ok(!pm_reader__evsel_by_id(r, base + 2) && !pm_reader__evsel_by_id(r, far + 1) &&
	   !pm_reader__evsel_by_id(r, 0), "ids no event claims find none");
	pm_reader__delete(r);
	pm_buf__exit(&p);
}

static void test_ids_spread(void)
{
	check_ids_at(100, 140);			/* one array */
	check_ids_at(1000, 1000 + 300);		/* the array made again, larger */
	check_ids_at(5000, 5000 + (1ull << 40));	/* too far apart: hashed */
	check_ids_at(10, UINT64_MAX - 5);	/* the top of the range */
}

static void test_tpformat(void)
{
	static const char fmt[] =
		"name: sys_enter\nID: 443\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n"
		"\tfield:char comm[16];\toffset:64;\tsize:16;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:80;\tsize:4;\tsigned:0;\n"
		"\tfield:const char * fmt;\toffset:88;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"NR %ld\", REC->id\n";
	unsigned char raw[104] = { 0 };
	uint32_t loc = (3u << 16) | 96;
	struct pm_tp_event ev;
	const struct pm_tp_field *f;
	const unsigned char *p;
	size_t len;
	int err = pm_tp_event__parse(&ev, "raw_syscalls", fmt, sizeof(fmt) - 1, 8);

	ok(!err && ev.id == 443 && !strcmp(ev.full_name, "raw_syscalls:sys_enter") &&
	   ev.nr_fields == 7, "format: name, id and 7 fields");
	if (err || ev.nr_fields != 7) {
		pm_tp_event__exit(&ev);
		return;
	}
	f = &ev.fields[3];
	ok(!strcmp(f->name, "args") && !strcmp(f->type, "unsigned long") &&
	   (f->flags & PM_TP_FIELD_ARRAY) && f->nr_elems == 6 && f->elem_size == 8,
	   "unsigned long args[6]: array of 6 x 8 bytes");
	ok((ev.fields[1].flags & PM_TP_FIELD_COMMON) && ev.fields[2].is_signed,
	   "common_ flag and signed flag");
	ok((ev.fields[4].flags & PM_TP_FIELD_STRING) && ev.fields[4].size == 16,
	   "char comm[16] is a string");
	f = &ev.fields[5];
	memcpy(raw + 80, &loc, 4);
	memcpy(raw + 96, "ab", 3);
	ok((f->flags & PM_TP_FIELD_DYNAMIC) && (f->flags & PM_TP_FIELD_STRING) &&
	   !pm_tp_field__data(f, raw, sizeof(raw), &p, &len) && len == 3 && !strcmp((char *)p, "ab"),
	   "__data_loc char[] name resolves to its bytes");
	loc = (200u << 16) | 96;
	memcpy(raw + 80, &loc, 4);
	ok(pm_tp_field__data(f, raw, sizeof(raw), &p, &len) == -EBADMSG,
	   "__data_loc past the payload is refused");
	ok(ev.fields[6].flags & PM_TP_FIELD_POINTER, "const char * is a pointer");
	ok(pm_tp__read_int((const unsigned char *)"\xff\xff\xff\xff", 4, true) == UINT64_MAX &&
	   pm_tp__read_int((const unsigned char *)"\xff\xff\xff\xff", 4, false) == 0xffffffff,
	   "integers sign-extend only when signed");
	pm_tp_event__exit(&ev);
}

/*
 * Array counts that do not match the size (found by tests/fuzz): the count
 * falls back to the type, never past the size, and "[4294967296]" with
 * size 0 is no division by zero.
 */
static void test_tpformat_counts(void)
{
	static const struct { const char *decl; unsigned int size; } cases[] = {
		{ "char a[4294967296]", 0 }, { "char a[-1]", 0 }, { "char a[18446744073709551616]", 0 },
		{ "int a[99]", 8 }, { "int a[0]", 8 }, { "long a[4294967298]", 16 },
	};
	char fmt[256];
	struct pm_tp_event ev;
	size_t i, bad = 0;
	int len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pm_tp_field *f;

		len = snprintf(fmt, sizeof(fmt),
			       "name: e\nID: 1\nformat:\n\tfield:%s;\toffset:0;\tsize:%u;\tsigned:0;\n",
			       cases[i].decl, cases[i].size);
		if (pm_tp_event__parse(&ev, "s", fmt, (size_t)len, 8) || ev.nr_fields != 1) {
			bad++;
			pm_tp_event__exit(&ev);
			continue;
		}
		f = &ev.fields[0];
		if (!(f->flags & PM_TP_FIELD_ARRAY) || !f->elem_size ||
		    (uint64_t)f->elem_size * f->nr_elems > f->size) {
			printf("# %s size %u: elem_size %u nr_elems %u\n", cases[i].decl,
			       cases[i].size, f->elem_size, f->nr_elems);
			bad++;
		}
		pm_tp_event__exit(&ev);
	}
	ok(!bad, "array counts that do not fit the size fall back to the type");
}

/* The queueing shortcut agrees with the full decode, and fails like it. */
static void test_sample_time(void)
{
	struct pm_buf b = { 0 };
	struct pm_reader *r;
	struct pm_record rec;
	struct pm_sample s;
	uint64_t t = 0, times[2];
	int err, n = 0, agree = 0;
	size_t off;

	build_file(&b);
	r = reader_of(&b, b.len, false, &err);
	while (pm_reader__next(r, &rec) > 0) {
		if (rec.header->type != PERF_RECORD_SAMPLE || n == 2)
			continue;
		err = pm_reader__sample_time(r, &rec, &t);
		agree += err == 1 && !pm_reader__parse_sample(r, &rec, &s) && s.time == t;
		times[n++] = t;
	}
	ok(agree == 2 && times[0] == 1000 && times[1] == 2000,
	   "sample_time: 1000 and 2000, as the full decode says");
	pm_reader__delete(r);

	/* The first sample cut after its ip: the time is not there. */
	off = PERF_FILE_HEADER_SIZE + PM_FILE_ATTR_SIZE + 16 + 24;
	((struct perf_event_header *)(b.data + off))->size = 16;
	r = reader_of(&b, b.len, false, &err);
	while ((err = pm_reader__next(r, &rec)) > 0 && rec.header->type != PERF_RECORD_SAMPLE)
		;
	err = err > 0 ? pm_reader__sample_time(r, &rec, &t) : 0;
	ok(err == -EBADMSG && pm_reader__error(r)->offset >= off &&
	   pm_reader__error(r)->offset <= off + 16,
	   "sample_time: a sample too short for its time fails inside it (%d at %llu, record at %zu)",
	   err, (unsigned long long)pm_reader__error(r)->offset, off);
	pm_reader__delete(r);
	pm_buf__exit(&b);
}

/*
 * The decoder writes every member, those the sample lacks as 0: what a
 * decode leaves does not depend on what the struct held.  And the decoding
 * thread's variant describes a fault without touching the reader.
 */
static void test_decode(void)
{
	struct pm_buf b = { 0 };
	struct pm_reader *r;
	struct pm_reader_error e = { 0 };
	struct pm_record rec;
	struct pm_sample a, z;
	size_t len = offsetof(struct pm_sample, branch_has_hw_idx) + sizeof(a.branch_has_hw_idx);
	int err, ea, ez;

	build_file(&b);
	r = reader_of(&b, b.len, false, &err);
	while ((err = pm_reader__next(r, &rec)) > 0 && rec.header->type != PERF_RECORD_SAMPLE)
		;
	memset(&a, 0xa5, sizeof(a));
	memset(&z, 0, sizeof(z));
	ea = pm_reader__decode_sample(r, &rec, &a, &e);
	ez = pm_reader__decode_sample(r, &rec, &z, &e);
	ok(err > 0 && !ea && !ez && !memcmp(&a, &z, len) && z.ip == 0x401130 && !z.callchain &&
	   !z.raw_size && !z.regs_user.regs && !z.read_nr && !z.branch_has_hw_idx,
	   "decode: a sample decoded over garbage equals one decoded over zeros");
	/* Cut after its time: the period is missing. */
	((struct perf_event_header *)rec.header)->size = 32;
	err = pm_reader__decode_sample(r, &rec, &a, &e);
	ok(err == -EBADMSG && e.err == -EBADMSG && e.offset == rec.offset + 32 &&
	   strstr(e.reason, "does not match sample_type") && !pm_reader__error(r),
	   "decode: a short sample's fault is described, the reader keeps none (%d at %llu: %s)",
	   err, (unsigned long long)e.offset, e.reason);
	pm_reader__set_error(r, &e);
	ok(pm_reader__error(r) && pm_reader__error(r)->offset == e.offset &&
	   pm_reader__next(r, &rec) == -EBADMSG, "decode: the fault set becomes the reader's");
	pm_reader__delete(r);
	pm_buf__exit(&b);
}

/* Section 6 of the format doc: R1{1000,3000} R2{4000,2000} R3{5000,1500}. */
static void test_queue(void)
{
	static const uint64_t rounds[3][2] = { { 1000, 3000 }, { 4000, 2000 }, { 5000, 1500 } };
	static const uint64_t want[] = { 1000, 2000, 3000, 1500, 4000, 5000 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 8 };
	struct pm_record rec = { .header = &h, .data = &h }, out;
	struct pm_oqueue q;
	uint64_t got[6];
	size_t n = 0, i, j;
	uint64_t limit;

	pm_oqueue__init(&q);
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 2; j++) {
			rec.offset = rounds[i][j];
			pm_oqueue__push(&q, &rec, rounds[i][j]);
		}
		limit = pm_oqueue__round(&q);
		while (n < 6 && pm_oqueue__pop(&q, limit, &out) > 0)
			got[n++] = out.offset;
	}
	while (n < 6 && pm_oqueue__pop(&q, UINT64_MAX, &out) > 0)
		got[n++] = out.offset;
	ok(n == 6 && !memcmp(got, want, sizeof(want)),
	   "FINISHED_ROUND order 1000 2000 3000 1500 4000 5000");
	pm_oqueue__exit(&q);
}

/*
 * A run emptied keeps its array, within the budget, for the next round's
 * run: the queue does not grow it again from one entry every round.
 */
static void test_queue_keep(void)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 8 };
	struct pm_record rec = { .header = &h, .data = &h }, out;
	size_t kept, popped = 0, reused = 0;
	struct pm_oqueue q;
	uint64_t t;

	pm_oqueue__init(&q);
	/* A late record in a run of its own keeps the queue from emptying. */
	pm_oqueue__push(&q, &rec, 1000000);
	for (t = 1; t <= 2000; t++)
		pm_oqueue__push(&q, &rec, t);
	while (pm_oqueue__pop(&q, 2000, &out) > 0)
		popped++;
	kept = q.kept_bytes;
	for (t = 2001; t <= 4000; t++)
		pm_oqueue__push(&q, &rec, t);
	if (q.tail != SIZE_MAX)
		reused = q.runs[q.tail].cap;
	ok(popped == 2000 && kept == 2048 * sizeof(struct pm_qent) && !q.kept_bytes &&
	   reused == 2048,
	   "an emptied run's array is kept and taken again (%zu popped, %zu kept, cap %zu)",
	   popped, kept, reused);
	pm_oqueue__exit(&q);
}

struct ref_item {
	uint64_t time;
	uint64_t id;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref_item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * dump's --queue-size rule (over the limit, pop the oldest down to half of
 * it) on records in random time order: popped records are reclaimed, so a
 * flush keeps about half of the limit queued instead of draining the queue,
 * and order holds within what is kept.
 */
static void test_queue_bound(void)
{
	enum { N = 400000, LIMIT = 4 << 20 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 16 };
	uint64_t data[2] = { 0 }, seed = 7;
	struct pm_record rec = { .header = &h, .data = data }, out;
	size_t i, flushes = 0, max_bytes = 0, popped = 0, min_kept = SIZE_MAX, max_mapped = 0;
	struct pm_oqueue q;

	memcpy(data, &h, sizeof(h));
	pm_oqueue__init(&q);
	for (i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		rec.offset = i;
		pm_oqueue__push(&q, &rec, seed >> 40);
		if (pm_oqueue__bytes(&q) > max_bytes)
			max_bytes = pm_oqueue__bytes(&q);
		if (pm_oqueue__mapped_bytes(&q) > max_mapped)
			max_mapped = pm_oqueue__mapped_bytes(&q);
		if (pm_oqueue__bytes(&q) <= LIMIT)
			continue;
		flushes++;
		while (pm_oqueue__bytes(&q) > LIMIT / 2 && pm_oqueue__pop(&q, UINT64_MAX, &out) > 0)
			popped++;
		if (pm_oqueue__bytes(&q) < min_kept)
			min_kept = pm_oqueue__bytes(&q);
	}
	while (pm_oqueue__pop(&q, UINT64_MAX, &out) > 0)
		popped++;
	ok(popped == N && flushes >= 5 && min_kept >= LIMIT / 4 && max_bytes <= LIMIT + 4096,
	   "queue: random order under a %d-byte limit: %zu flushes keep at least %zu bytes "
	   "queued, at most %zu bytes, %zu of %d records out", LIMIT, flushes, min_kept,
	   max_bytes, popped, N);
	/* The chunks: the records kept, plus the current chunk and the spares (reused first). */
	ok(max_mapped <= LIMIT + (3u << 20),
	   "queue: the chunks mapped stay within the limit plus 3 MiB (at most %zu bytes)",
	   max_mapped);
	ok(pm_oqueue__bytes(&q) == 0, "queue: empty again, it accounts 0 bytes (%zu)",
	   pm_oqueue__bytes(&q));
	pm_oqueue__exit(&q);
}

/*
 * Old and new records interleaved in every chunk (a round flushed up to the
 * previous round's end leaves such chunks): popping the old ones leaves each
 * chunk two thirds popped.  By default that compacts; above the threshold it
 * does not, and the chunks still empty by the end.
 */
static void test_queue_compact_above(void)
{
	enum { N = 200000 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 64 };
	uint64_t data[8] = { 0 };
	struct pm_record rec = { .header = &h, .data = data }, out;
	size_t halfway[2], i, k;
	struct pm_oqueue q;

	memcpy(data, &h, sizeof(h));
	for (k = 0; k < 2; k++) {
		pm_oqueue__init(&q);
		if (k)
			pm_oqueue__set_compact_above(&q, SIZE_MAX);
		for (i = 0; i < N; i++)
			pm_oqueue__push(&q, &rec, i % 3 ? i : N + i);
		for (i = 0; i < N * 2 / 3 - 16; i++)
			pm_oqueue__pop(&q, UINT64_MAX, &out);
		halfway[k] = pm_oqueue__bytes(&q);
		while (pm_oqueue__pop(&q, UINT64_MAX, &out) > 0)
			;
		ok(pm_oqueue__bytes(&q) == 0, "queue: %s, empty at the end of the round",
		   k ? "no compaction" : "compaction");
		pm_oqueue__exit(&q);
	}
	ok(halfway[0] < halfway[1] * 3 / 4,
	   "queue: compaction reclaims popped records halfway (%zu bytes), above the threshold "
	   "they wait for their chunks to empty (%zu bytes)", halfway[0], halfway[1]);
}

/*
 * Against a reference (sort what is pending at each round, deliver up to the
 * limit): sorted chunks from 4 "rings" per pass, equal times, a few records
 * far out of order, and a stretch where every record starts a new run.
 */
static void test_queue_runs(void)
{
	enum { N = 60000 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 8 };
	struct pm_record rec = { .header = &h, .data = &h }, out;
	struct ref_item *pend = calloc(N, sizeof(*pend));
	uint64_t *want = calloc(N, sizeof(*want)), *got = calloc(N, sizeof(*got));
	uint64_t ring_time[4] = { 0 }, limit, seed = 42;
	size_t npend = 0, nwant = 0, ngot = 0, id = 0, i, k;
	struct pm_oqueue q;
	bool same = true;

	pm_oqueue__init(&q);
	while (id < N) {
		for (k = 0; k < 4 && id < N; k++) {
			size_t len = 1 + (seed = seed * 6364136223846793005ULL + 1) % 300;

			for (i = 0; i < len && id < N; i++, id++) {
				uint64_t t;

				seed = seed * 6364136223846793005ULL + 1;
				if (id > 30000 && id < 32000)
					t = 1000000 + (id % 2 ? id : 60000 - id);	/* a run per record */
				else if (seed >> 60 == 0)
					t = ring_time[k] / 2;	/* far back */
				else
					t = ring_time[k] += (seed >> 33) % 3;	/* ties too */
				rec.offset = id;
				pm_oqueue__push(&q, &rec, t);
				pend[npend++] = (struct ref_item){ t, id };
			}
		}
		limit = pm_oqueue__round(&q);
		while (pm_oqueue__pop(&q, limit, &out) > 0)
			got[ngot++] = out.offset;
		qsort(pend, npend, sizeof(*pend), ref_cmp);
		for (i = 0; i < npend && pend[i].time <= limit; i++)
			want[nwant++] = pend[i].id;
		memmove(pend, pend + i, (npend - i) * sizeof(*pend));
		npend -= i;
	}
	while (pm_oqueue__pop(&q, UINT64_MAX, &out) > 0)
		got[ngot++] = out.offset;
	qsort(pend, npend, sizeof(*pend), ref_cmp);
	for (i = 0; i < npend; i++)
		want[nwant++] = pend[i].id;
	for (i = 0; i < N && same; i++)
		same = got[i] == want[i];
	ok(ngot == N && nwant == N && same,
	   "queue: %zu of %d records in the reference's order (first difference at %zu)",
	   ngot, N, same ? (size_t)N : i - 1);
	ok(pm_oqueue__bytes(&q) == 0, "queue: empty, it accounts 0 bytes (%zu)",
	   pm_oqueue__bytes(&q));
	pm_oqueue__exit(&q);

	/* Records still queued at exit are freed (ASan/valgrind check it). */
	pm_oqueue__init(&q);
	for (i = 0; i < 3000; i++) {
		rec.offset = i;
		pm_oqueue__push(&q, &rec, i % 7);
	}
	k = pm_oqueue__bytes(&q);
	ok(pm_oqueue__pop(&q, 0, &out) > 0 && out.offset == 0 &&
	   pm_oqueue__pop(&q, 0, &out) > 0 && out.offset == 7,
	   "queue: equal times go in arrival order across runs");
	ok(k >= 3000 * (8 + sizeof(struct pm_queued) + sizeof(struct pm_qent)) &&
	   pm_oqueue__bytes(&q) <= k,
	   "queue: bytes count every record and its entry (%zu for 3000, %zu after 2 pops)", k,
	   pm_oqueue__bytes(&q));
	pm_oqueue__exit(&q);
	free(pend);
	free(want);
	free(got);
}

static void test_names(void)
{
	static const struct { const char *name; int type; } types[] = {
		{ "sample", PERF_RECORD_SAMPLE }, { "MMAP2", PERF_RECORD_MMAP2 },
		{ "header_attr", PERF_RECORD_HEADER_ATTR }, { "feature", PERF_RECORD_HEADER_FEATURE },
		{ "finished_round", PERF_RECORD_FINISHED_ROUND }, { "nope", -1 },
	};
	size_t i, bad = 0;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		bad += pm_record_type__from_name(types[i].name) != types[i].type;
	ok(!bad && !strcmp(pm_record_type__name(PERF_RECORD_LOST_SAMPLES), "LOST_SAMPLES") &&
	   !pm_record_type__name(30), "record type names, case-insensitive, with perf's aliases");
	ok(!strcmp(pm_feature__name(HEADER_EVENT_DESC), "EVENT_DESC") && !pm_feature__name(99),
	   "feature names");
}

enum { READ_AHEAD_NR = 100000 };

/* COMM, then READ_AHEAD_NR samples of 40 bytes: ip and time count up. */
static void put_many(struct pm_buf *b)
{
	uint64_t i;

	put_comm(b);
	for (i = 0; i < READ_AHEAD_NR; i++)
		put_sample(b, 0x400000 + i, 1000 + i);
}

/*
 * A file of several input buffers (4 MB of 40-byte samples, so records
 * straddle every chunk the read-ahead hands over) reads as its stream
 * does, record for record, and its features after the data still read.
 */
static void test_read_ahead(void)
{
	struct pm_buf b = { 0 };
	struct pm_reader *r;
	struct pm_record rec;
	struct pm_sample s;
	struct pm_cursor c;
	const char *str = NULL;
	size_t len = 0;
	int err, fd, pass, fds[2];
	uint64_t i;
	pid_t pid;

	build_file_of(&b, put_many);

	for (pass = 0; pass < 2; pass++) {
		const char *what = pass ? "through a pipe" : "file";
		bool seq = true;

		r = pm_reader__new();
		pid = -1;
		if (pass) {
			/* Read while the writer writes: 4 MB do not fit in a pipe. */
			if (pipe2(fds, O_CLOEXEC))
				exit(1);
			pid = fork();
			if (!pid) {
				close(fds[0]);
				_exit(write(fds[1], b.data, b.len) == (ssize_t)b.len ? 0 : 1);
			}
			close(fds[1]);
			fd = fds[0];
		} else {
			fd = memfd_of(&b, b.len);
		}
		err = pm_reader__open_fd(r, fd);
		i = 0;
		while (!err && (err = pm_reader__next(r, &rec)) > 0) {
			err = 0;
			if (rec.header->type != PERF_RECORD_SAMPLE)
				continue;
			err = pm_reader__parse_sample(r, &rec, &s);
			if (!err && (s.ip != 0x400000 + i || s.time != 1000 + i))
				seq = false;
			i++;
		}
		ok(!err && i == READ_AHEAD_NR && seq,
		   "%s of 4 MB: %d samples in order (%llu read, error %d)", what, READ_AHEAD_NR,
		   (unsigned long long)i, err);
		if (!pass)
			ok(!pm_reader__feature(r, HEADER_HOSTNAME, &c) &&
			   !pm_cursor__perf_string(&c, &str, &len) && len == 4 &&
			   !memcmp(str, "host", 4), "%s: the feature after the data reads", what);
		/* The caller may close its fd first: the read-ahead has its own. */
		close(fd);
		pm_reader__delete(r);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	pm_buf__exit(&b);
}

int main(void)
{
	test_good();
	test_truncations();
	test_zero_size();
	test_garbage();
	test_ids();
	test_ids_spread();
	test_tpformat();
	test_tpformat_counts();
	test_sample_time();
	test_decode();
	test_queue();
	test_queue_runs();
	test_queue_keep();
	test_queue_bound();
	test_queue_compact_above();
	test_names();
	test_read_ahead();
	printf("1..%d\n", nr_tests);
	return nr_failed ? 1 : 0;
}
