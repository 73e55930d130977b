// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-reader: fuzz harness for the perf.data reader (lib/reader*.c and
 * lib/format/tpformat.c).  One input goes through everything `pmrec dump` asks of
 * the reader: open, every record, SAMPLE and sample_id decoding, the event
 * of each record, the --ordered queue, every header feature, the tracepoint
 * formats and their fields.
 *
 * One source, three drivers (see tests/fuzz/run):
 *   clang -fsanitize=fuzzer,...	libFuzzer: LLVMFuzzerTestOneInput()
 *   afl-clang-fast			AFL++ persistent mode main()
 *   cc -DFUZZ_REPLAY			main() over files and directories,
 *					each input in both modes
 * and two ways in:
 *   default		the bytes in a memfd: a seekable file
 *   -DFUZZ_PIPE	the bytes through a pipe written by a thread: pipe
 *			mode, and file-mode data from a non-seekable fd
 *
 * Every record and feature payload is decoded from an exact-size copy, so
 * AddressSanitizer sees a read past its end.  A broken contract of
 * reader.h (a fault without an offset and a reason, a fault that is not
 * sticky, a decoded field outside its record) aborts.
 *
 * Bounds are contracts too: the heap the reader holds stays within a budget
 * proportional to the input (fuzz-budget.h), and the time-order queue runs
 * under a small limit as dump's --queue-size does, its mapped chunks
 * checked against it.  Memory that grows faster than the input, or that
 * escapes the queue's accounting, aborts.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-budget.h"
#include "fuzz-memfd.h"
#include "reader/reader.h"
#include "base/cursor.h"
#include "reader/queue.h"
#include "format/tpformat.h"

enum fuzz_mode {
	FUZZ_MODE_FILE,
	FUZZ_MODE_PIPE,
};

#ifdef FUZZ_PIPE
#define FUZZ_DEFAULT_MODE FUZZ_MODE_PIPE
#else
#define FUZZ_DEFAULT_MODE FUZZ_MODE_FILE
#endif

/* The writer thread hands the pipe this much at a time. */
#define FUZZ_PIPE_CHUNK 4096
/*
 * dump --queue-size for the fuzzers: small, so that inputs of a few hundred
 * KiB pass it.  Besides the records it keeps, the queue may map its current
 * chunk, a spare and the chunk a compaction fills (tests/fuzz/run builds
 * 128 KiB chunks; this file may not see that -D, and then allows more).
 */
#define FUZZ_QUEUE_LIMIT (128 * 1024)
#define FUZZ_QUEUE_SLACK (3 * (PM_QCHUNK_SIZE + 4096))
/* The reader's own buffers and tables, whatever the input. */
#define FUZZ_BUDGET_EXTRA (16 << 20)
/*
 * And, for an input that holds a zstd frame, the window it may declare
 * (PM_ZSTD_WINDOW_LOG_MAX, what perf -z 22 writes) and zstd's block
 * buffers: a constant a 128-byte COMPRESSED record can ask for.
 */
#define FUZZ_ZSTD_EXTRA (((int64_t)1 << PM_ZSTD_WINDOW_LOG_MAX) + (1 << 20))

/* The extra budget of an input: zstd's window only where a frame may start. */
static int64_t fuzz__extra(const uint8_t *data, size_t size)
{
	static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

	return FUZZ_BUDGET_EXTRA + (memmem(data, size, zstd_magic, sizeof(zstd_magic)) ?
				    FUZZ_ZSTD_EXTRA : 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one run saw, for the replay driver's report. */
struct fuzz_result {
	uint64_t records;
	int64_t heap_peak;
	int err;
	char reason[240];
};

static int fuzz_memfd = -1;
static volatile unsigned char fuzz_sink;

static void __attribute__((noreturn)) fuzz__fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "%s:%d: reader contract broken: %s\n", file, line, what);
	abort();
}

#define fuzz_check(cond)						\
	do {								\
		if (!(cond))						\
			fuzz__fail(#cond, __FILE__, __LINE__);		\
	} while (0)

/* Reads every byte, so that the sanitizer checks the whole range. */
static void fuzz__touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned char x = 0;
	size_t i;

	for (i = 0; i < n; i++)
		x ^= b[i];
	fuzz_sink ^= x;
}

/* [p, p + n) lies in [base, base + len). */
static bool fuzz__inside(const void *p, uint64_t n, const void *base, size_t len)
{
	const unsigned char *q = p, *b = base;

	if (!p)
		return !n;
	if (q < b || (size_t)(q - b) > len)
		return false;
	return n <= len - (size_t)(q - b);
}

static void fuzz__check_error(struct pm_reader *r, int err)
{
	const struct pm_reader_error *e = pm_reader__error(r);

	fuzz_check(err < 0);
	fuzz_check(e != NULL);
	fuzz_check(e->err == err);
	fuzz_check(memchr(e->reason, '\0', sizeof(e->reason)) != NULL);
	fuzz_check(e->reason[0] != '\0');
}

/* --- tracepoint fields, as dump prints them ---------------------------------- */

static void fuzz__tp_fields(const struct pm_tp_event *tp, const struct pm_sample *s)
{
	const unsigned char *p;
	size_t i, j, len, elem;

	for (i = 0; i < tp->nr_fields; i++) {
		const struct pm_tp_field *f = &tp->fields[i];

		if (pm_tp_field__data(f, s->raw, s->raw_size, &p, &len))
			continue;
		fuzz_check(fuzz__inside(p, len, s->raw, s->raw_size));
		if (f->flags & PM_TP_FIELD_STRING) {
			fuzz_sink ^= (unsigned char)strnlen((const char *)p, len);
			continue;
		}
		elem = f->elem_size;
		if (elem != 1 && elem != 2 && elem != 4 && elem != 8) {
			fuzz__touch(p, len);
			continue;
		}
		for (j = 0; j < len / elem; j++)
			fuzz_sink ^= (unsigned char)pm_tp__read_int(p + j * elem, elem, f->is_signed);
	}
}

/* --- records ------------------------------------------------------------------- */

static void fuzz__regs(const struct pm_regs *regs, const void *base, size_t len)
{
	fuzz_check(regs->nr <= 64);
	fuzz_check(!regs->abi || fuzz__inside(regs->regs, regs->nr * 8, base, len));
	if (regs->abi)
		fuzz__touch(regs->regs, regs->nr * 8);
}

/* Every pointer of a decoded SAMPLE lies inside the record it came from. */
static void fuzz__sample(const struct pm_sample *s, const void *base, size_t len)
{
	uint64_t f = s->fields;

	fuzz_check(s->evsel != NULL);
	fuzz_check(f == s->evsel->attr.sample_type);
	if (f & PERF_SAMPLE_CALLCHAIN) {
		fuzz_check(s->callchain_nr <= len / 8);
		fuzz_check(fuzz__inside(s->callchain, s->callchain_nr * 8, base, len));
		fuzz__touch(s->callchain, s->callchain_nr * 8);
	}
	if (f & PERF_SAMPLE_RAW) {
		fuzz_check(fuzz__inside(s->raw, s->raw_size, base, len));
		fuzz__touch(s->raw, s->raw_size);
		if (s->evsel->tp)
			fuzz__tp_fields(s->evsel->tp, s);
	}
	if (f & PERF_SAMPLE_BRANCH_STACK) {
		fuzz_check(s->branch_nr <= len / 24);
		fuzz_check(fuzz__inside(s->branches, s->branch_nr * 24, base, len));
		fuzz__touch(s->branches, s->branch_nr * 24);
	}
	if (f & PERF_SAMPLE_REGS_USER)
		fuzz__regs(&s->regs_user, base, len);
	if (f & PERF_SAMPLE_REGS_INTR)
		fuzz__regs(&s->regs_intr, base, len);
	if (f & PERF_SAMPLE_STACK_USER) {
		fuzz_check(fuzz__inside(s->stack_user, s->stack_user_size, base, len));
		fuzz__touch(s->stack_user, s->stack_user_size);
	}
	if (f & PERF_SAMPLE_AUX) {
		fuzz_check(fuzz__inside(s->aux, s->aux_size, base, len));
		fuzz__touch(s->aux, s->aux_size);
	}
	if (f & PERF_SAMPLE_READ) {
		fuzz_check(s->read_nr <= len / 8);
		fuzz_check(fuzz__inside(s->read, s->read_nr * 8, base, len));
		fuzz__touch(s->read, s->read_nr * 8);
	}
}

/*
 * Decodes rec as dump does (info__compute): the SAMPLE, or the sample_id
 * trailer of another kernel record.  Sets *time when the record has one.
 */
static int fuzz__decode(struct pm_reader *r, const struct pm_record *rec, uint64_t *time,
			bool *has_time)
{
	size_t size = rec->header->size, body_len;
	uint32_t type = rec->header->type;
	struct pm_evsel *e;
	struct pm_sample s;
	int err;

	*has_time = false;
	if (type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		uint64_t quick = 0;
		int qerr = pm_reader__sample_time(r, rec, &quick);

		err = pm_reader__parse_sample(r, rec, &s);
		/*
		 * dump queues by the shortcut: it must agree with the decoder,
		 * and fail only on samples the decoder refuses too.
		 */
		if (!err)
			fuzz_check(qerr == !!(s.fields & PERF_SAMPLE_TIME) &&
				   (qerr == 0 || quick == s.time));
		else if (qerr < 0)
			fuzz_check(err);
		if (err)
			return err;
		fuzz__sample(&s, rec->data, size);
	} else {
		err = pm_reader__parse_id(r, rec, &s, &body_len);
		if (err)
			return err;
		fuzz_check(body_len <= size - sizeof(struct perf_event_header));
		fuzz_check(!(s.fields & ~(uint64_t)PM_SAMPLE_ID_BITS));
	}
	if (s.evsel)
		fuzz_sink ^= (unsigned char)strlen(pm_evsel__name((struct pm_evsel *)s.evsel));
	e = pm_reader__evsel_of(r, rec, &err);
	fuzz_check(e || err == -ENOENT || !err);
	if (e)
		fuzz_sink ^= (unsigned char)strlen(pm_evsel__name(e));
	*has_time = s.fields & PERF_SAMPLE_TIME;
	*time = s.time;
	return 0;
}

/* Pops up to time limit until the queue holds at most keep bytes. */
static int fuzz__flush(struct pm_reader *r, struct pm_oqueue *q, uint64_t limit, size_t keep)
{
	struct pm_record rec;
	uint64_t time;
	bool has_time;
	int err = 0;

	while (!err && pm_oqueue__bytes(q) > keep && pm_oqueue__pop(q, limit, &rec) > 0) {
		fuzz_check(((uintptr_t)rec.data & 7) == 0);
		err = fuzz__decode(r, &rec, &time, &has_time);
	}
	return err;
}

static int fuzz__record(struct pm_reader *r, struct pm_oqueue *q, const struct pm_record *rec)
{
	size_t size = rec->header->size;
	uint32_t type = rec->header->type;
	struct pm_record copy = *rec;
	const char *name;
	uint64_t time;
	bool has_time;
	void *buf;
	int err;

	fuzz_check(rec->header == rec->data);
	fuzz_check(size >= sizeof(struct perf_event_header));
	fuzz_check(((uintptr_t)rec->data & 7) == 0);
	name = pm_record_type__name(type);
	fuzz_check(!name || pm_record_type__from_name(name) == (int)type);

	buf = malloc(size);
	if (!buf)
		abort();
	memcpy(buf, rec->data, size);
	copy.header = copy.data = buf;
	if (type == PERF_RECORD_FINISHED_ROUND) {
		err = fuzz__flush(r, q, pm_oqueue__round(q), 0);
	} else {
		err = fuzz__decode(r, &copy, &time, &has_time);
		if (!err && has_time && pm_oqueue__push(q, &copy, time))
			abort();
		/* dump --queue-size: the oldest half goes early. */
		if (!err && pm_oqueue__bytes(q) > FUZZ_QUEUE_LIMIT)
			err = fuzz__flush(r, q, UINT64_MAX, FUZZ_QUEUE_LIMIT / 2);
	}
	fuzz_check(pm_oqueue__mapped_bytes(q) <= FUZZ_QUEUE_LIMIT + FUZZ_QUEUE_SLACK);
	free(buf);
	return err;
}

/* --- header features, as dump's header printers read them ------------------- */

static int fuzz__perf_string(struct pm_cursor *c)
{
	size_t start = c->pos, slen;
	const char *s;

	if (pm_cursor__perf_string(c, &s, &slen)) {
		fuzz_check(c->pos == start);
		return -1;
	}
	fuzz_check(fuzz__inside(s, slen, c->p, c->len));
	fuzz__touch(s, slen);
	return 0;
}

static void fuzz__string_list(struct pm_cursor *c)
{
	uint32_t nr, i;

	if (pm_cursor__u32(c, &nr))
		return;
	for (i = 0; i < nr; i++)
		if (fuzz__perf_string(c))
			break;
}

static void fuzz__build_ids(struct pm_cursor *c)
{
	uint16_t size;
	const void *p;

	while (pm_cursor__left(c) >= 36) {
		memcpy(&size, c->p + c->pos + 6, sizeof(size));
		if (size < 36 || pm_cursor__bytes(c, size, &p))
			break;
		fuzz__touch(p, size);
	}
}

/* Any mix of getters stays inside the payload. */
static void fuzz__cursor_walk(struct pm_cursor c)
{
	const char *s;
	const void *p;
	size_t slen;
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;
	uint8_t v8;
	unsigned int step;

	for (step = 0; pm_cursor__left(&c) && step < 4096; step++) {
		size_t before = c.pos;
		int err;

		switch (step % 6) {
		case 0:
			err = pm_cursor__perf_string(&c, &s, &slen);
			if (!err)
				fuzz_check(fuzz__inside(s, slen, c.p, c.len));
			break;
		case 1:
			err = pm_cursor__cstring(&c, &s, &slen);
			if (!err)
				fuzz_check(fuzz__inside(s, slen + 1, c.p, c.len) && !s[slen]);
			break;
		case 2:
			err = pm_cursor__u64(&c, &v64);
			break;
		case 3:
			err = pm_cursor__u32(&c, &v32);
			break;
		case 4:
			err = pm_cursor__u16(&c, &v16);
			break;
		default:
			err = pm_cursor__u8(&c, &v8);
			if (!err)
				err = pm_cursor__bytes(&c, v8, &p);
			break;
		}
		fuzz_check(c.pos <= c.len);
		fuzz_check(err || c.pos > before);
		if (err && step % 6 == 5)
			break;
	}
	fuzz_check(pm_cursor__offset(&c) == c.base + c.pos);
}

static void fuzz__feature(int feat, const struct pm_cursor *c0)
{
	struct pm_cursor c = *c0;
	uint32_t v32, type;
	uint64_t v64;

	fuzz_check(c.pos == 0);
	fuzz_check(c.p || !c.len);
	fuzz__touch(c.p, c.len);
	switch (feat) {
	case HEADER_HOSTNAME:
	case HEADER_OSRELEASE:
	case HEADER_VERSION:
	case HEADER_ARCH:
	case HEADER_CPUDESC:
	case HEADER_CPUID:
		fuzz__perf_string(&c);
		break;
	case HEADER_CMDLINE:
		fuzz__string_list(&c);
		break;
	case HEADER_CPU_TOPOLOGY:
		fuzz__string_list(&c);
		fuzz__string_list(&c);
		break;
	case HEADER_NRCPUS:
		if (!pm_cursor__u32(&c, &v32))
			pm_cursor__u32(&c, &v32);
		break;
	case HEADER_TOTAL_MEM:
	case HEADER_CLOCKID:
		pm_cursor__u64(&c, &v64);
		break;
	case HEADER_SAMPLE_TIME:
		if (!pm_cursor__u64(&c, &v64))
			pm_cursor__u64(&c, &v64);
		break;
	case HEADER_PMU_MAPPINGS:
		if (pm_cursor__u32(&c, &v32))
			break;
		while (v32-- && !pm_cursor__u32(&c, &type))
			if (fuzz__perf_string(&c))
				break;
		break;
	case HEADER_BUILD_ID:
		fuzz__build_ids(&c);
		break;
	default:
		break;
	}
	fuzz_check(c.pos <= c.len);
	fuzz__cursor_walk(*c0);
}

/* --- metadata: events, tracepoint formats, features ---------------------- */

static void fuzz__tracing(struct pm_reader *r)
{
	const struct pm_tp_data *tp = pm_reader__tracing(r);
	size_t i, j;

	if (!tp)
		return;
	fuzz_check(tp->nr_events == 0 || tp->events);
	fuzz_check(memchr(tp->version, '\0', sizeof(tp->version)) != NULL);
	for (i = 0; i < tp->nr_events; i++) {
		const struct pm_tp_event *ev = &tp->events[i];

		fuzz_check(ev->system && ev->name && ev->full_name);
		fuzz_check(pm_tp_data__find(tp, ev->id) != NULL);
		fuzz_sink ^= (unsigned char)(strlen(ev->system) + strlen(ev->name) +
					     strlen(ev->full_name));
		for (j = 0; j < ev->nr_fields; j++) {
			const struct pm_tp_field *f = &ev->fields[j];

			fuzz_check(f->name && f->type);
			fuzz_sink ^= (unsigned char)(strlen(f->name) + strlen(f->type));
		}
	}
}

static void fuzz__metadata(struct pm_reader *r)
{
	const struct perf_file_header *h = pm_reader__header(r);
	size_t i, j, nr = pm_reader__nr_evsels(r);
	struct pm_cursor c;
	int feat, err;

	fuzz_check(h != NULL);
	fuzz_check(!pm_reader__is_pipe(r) || h->size == PERF_PIPE_HEADER_SIZE);
	fuzz_check(!pm_reader__is_pipe(r) || !pm_reader__is_unfinished(r));
	fuzz_check(pm_reader__evsel(r, nr) == NULL);
	for (i = 0; i < nr; i++) {
		struct pm_evsel *e = pm_reader__evsel(r, i);

		fuzz_check(e && e->idx == (int)i);
		fuzz_check(!e->nr_ids || e->ids);
		fuzz_check(!e->tp || e->attr.type == PERF_TYPE_TRACEPOINT);
		fuzz_sink ^= (unsigned char)strlen(pm_evsel__name(e));
		for (j = 0; j < e->nr_ids; j++)
			fuzz_check(pm_reader__evsel_by_id(r, e->ids[j]) != NULL);
	}
	fuzz__tracing(r);
	for (feat = -1; feat <= HEADER_FEAT_BITS; feat++) {
		const char *name = pm_feature__name(feat);

		fuzz_check(!name || (feat > 0 && feat < HEADER_LAST_FEATURE) ||
			   feat == HEADER_PMREC_JIT_SYMBOLS || feat == HEADER_PMREC_SYMBOLS ||
			   feat == HEADER_PMREC_JIT_CODE);
		err = pm_reader__feature(r, feat, &c);
		if (err) {
			fuzz_check(err < 0);
			continue;
		}
		fuzz_check(feat >= 0 && feat < HEADER_FEAT_BITS);
		fuzz__feature(feat, &c);
	}
}

/* --- one input ------------------------------------------------------------------ */

static void fuzz__read(int fd, size_t size, int64_t extra, struct fuzz_result *res)
{
	struct pm_reader *r;
	struct pm_record rec;
	struct pm_oqueue q;
	uint64_t last = 0;
	int err, again;

	fuzz_budget__arm(size, extra);
	r = pm_reader__new();
	if (!r)
		abort();
	*res = (struct fuzz_result){ 0 };
	pm_oqueue__init(&q);
	err = pm_reader__open_fd(r, fd);
	if (!err) {
		fuzz_check(pm_reader__error(r) == NULL);
		/* dump --header: the metadata first; in pipe mode it comes with the records. */
		fuzz__metadata(r);
		while ((err = pm_reader__next(r, &rec)) > 0) {
			/* The records a COMPRESSED record holds all carry its offset. */
			fuzz_check(!res->records || rec.offset >= last);
			last = rec.offset;
			res->records++;
			err = fuzz__record(r, &q, &rec);
			if (err)
				break;
		}
		if (!err)
			err = fuzz__flush(r, &q, UINT64_MAX, 0);
		fuzz__metadata(r);
	}
	if (err) {
		fuzz__check_error(r, err);
		/* Sticky: reading on gives the same fault, at the same offset. */
		again = pm_reader__next(r, &rec);
		fuzz_check(again == err);
		fuzz__check_error(r, err);
		snprintf(res->reason, sizeof(res->reason), "offset 0x%llx: %s",
			 (unsigned long long)pm_reader__error(r)->offset,
			 pm_reader__error(r)->reason);
	} else {
		fuzz_check(pm_reader__error(r) == NULL);
		fuzz_check(pm_reader__next(r, &rec) == 0);
	}
	res->err = err;
	pm_oqueue__exit(&q);
	pm_reader__delete(r);
	res->heap_peak = fuzz_budget__disarm();
}

struct fuzz_writer {
	int fd;
	const uint8_t *data;
	size_t size;
};

static void *fuzz_writer__run(void *arg)
{
	struct fuzz_writer *w = arg;
	size_t done = 0;

	while (done < w->size) {
		size_t chunk = w->size - done < FUZZ_PIPE_CHUNK ? w->size - done : FUZZ_PIPE_CHUNK;
		ssize_t n = write(w->fd, w->data + done, chunk);

		if (n < 0 && errno == EINTR)
			continue;
		/* EPIPE: the reader stopped at a fault before the end. */
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(w->fd);
	return NULL;
}

static void fuzz__one_pipe(const uint8_t *data, size_t size, struct fuzz_result *res)
{
	struct fuzz_writer w = { .data = data, .size = size };
	pthread_t thread;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC)) {
		perror("fuzz-reader: pipe");
		abort();
	}
	w.fd = fds[1];
	if (pthread_create(&thread, NULL, fuzz_writer__run, &w)) {
		fprintf(stderr, "fuzz-reader: cannot start the pipe writer\n");
		abort();
	}
	fuzz__read(fds[0], size, fuzz__extra(data, size), res);
	close(fds[0]);
	pthread_join(thread, NULL);
}

static void fuzz__one_file(const uint8_t *data, size_t size, struct fuzz_result *res)
{
	fuzz_memfd__fill(fuzz_memfd, data, size);
	fuzz__read(fuzz_memfd, size, fuzz__extra(data, size), res);
}

static void fuzz__one(const uint8_t *data, size_t size, enum fuzz_mode mode,
		      struct fuzz_result *res)
{
	if (mode == FUZZ_MODE_PIPE)
		fuzz__one_pipe(data, size, res);
	else
		fuzz__one_file(data, size, res);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* The writer of a pipe the reader gave up on gets EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (fuzz_memfd < 0)
		fuzz_memfd = fuzz_memfd__new("fuzz-reader");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_result res;

	fuzz__one(data, size, FUZZ_DEFAULT_MODE, &res);
	return 0;
}

/* --- drivers with a main() ------------------------------------------------------- */

#if defined(FUZZ_REPLAY) || defined(__AFL_COMPILER)

static const char *const fuzz_mode_names[] = { "file", "pipe" };

/* Runs one input file in each mode of modes[]; prints what the reader said. */
static int fuzz__replay_file(const char *path, const enum fuzz_mode *modes, size_t nr_modes)
{
	struct fuzz_result res;
	uint8_t *data;
	size_t size, i;
	int err = fuzz_file__slurp(path, &data, &size);

	if (err) {
		fprintf(stderr, "fuzz-reader: cannot read '%s': %s\n", path, strerror(-err));
		free(data);
		return -1;
	}
	printf("%s:", path);
	for (i = 0; i < nr_modes; i++) {
		fflush(stdout);
		fuzz__one(data, size, modes[i], &res);
		printf(" %s: %llu records, heap %lld KiB, %s%s%s", fuzz_mode_names[modes[i]],
		       (unsigned long long)res.records, (long long)res.heap_peak / 1024,
		       res.err ? "error at " : "ok", res.err ? res.reason : "",
		       i + 1 < nr_modes ? ";" : "\n");
	}
	fflush(stdout);
	free(data);
	return 0;
}

static int fuzz__replay_path(const char *path, const enum fuzz_mode *modes, size_t nr_modes,
			     unsigned long *count)
{
	struct dirent **names;
	struct stat st;
	char *sub;
	int n, i, bad = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "fuzz-reader: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return fuzz__replay_file(path, modes, nr_modes);
	}
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "fuzz-reader: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			if (asprintf(&sub, "%s/%s", path, names[i]->d_name) < 0)
				abort();
			if (fuzz__replay_path(sub, modes, nr_modes, count))
				bad = -1;
			free(sub);
		}
		free(names[i]);
	}
	free(names);
	return bad;
}

static int fuzz__replay(int argc, char **argv, const enum fuzz_mode *modes, size_t nr_modes)
{
	unsigned long count = 0;
	int i, bad = 0;

	for (i = 1; i < argc; i++)
		if (fuzz__replay_path(argv[i], modes, nr_modes, &count))
			bad = 1;
	fprintf(stderr, "fuzz-reader: %lu inputs replayed%s\n", count,
		bad ? ", some could not be read" : "");
	return bad;
}

#endif

#if defined(FUZZ_REPLAY)

int main(int argc, char **argv)
{
	static const enum fuzz_mode modes[] = { FUZZ_MODE_FILE, FUZZ_MODE_PIPE };

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n"
			"Reads every input with the perf.data reader, as a file and through a pipe.\n",
			argv[0]);
		return 64;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	return fuzz__replay(argc, argv, modes, 2);
}

#elif defined(__AFL_COMPILER)

__AFL_FUZZ_INIT();

/* Persistent mode: many inputs per process, from AFL's shared memory. */
int main(int argc, char **argv)
{
	static const enum fuzz_mode mode = FUZZ_DEFAULT_MODE;
	struct fuzz_result res;
	unsigned char *buf;

	LLVMFuzzerInitialize(&argc, &argv);
	/* Outside afl-fuzz: run the file arguments, as the replay driver does. */
	if (argc > 1)
		return fuzz__replay(argc, argv, &mode, 1);
	__AFL_INIT();
	buf = __AFL_FUZZ_TESTCASE_BUF;
	while (__AFL_LOOP(10000))
		fuzz__one(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN, mode, &res);
	return 0;
}

#endif
