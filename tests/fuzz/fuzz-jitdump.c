// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-jitdump: fuzz harness for the jitdump parser (lib/symbols/jitdump.c) and
 * the loader that feeds its code into the JIT names (lib/symbols/jitcode.c): a
 * jitdump is named by a recording's MMAP record and written by whoever
 * runs the profiled program, so it is as much an input of report as the
 * perf.data itself.  One input is parsed record by record (debug lines
 * too), then read from a memfd as report reads it, timed, advanced to the
 * end of time and looked up across the addresses its loads name.  Then as
 * pmrec record copies it (held, encoded: feature 242) and report reads the
 * copy back: every lookup must name what the file named.  And the input
 * taken as such a copy itself (its first file found and read back).  The
 * heap stays within the budget of fuzz-budget.h: the file read once, the
 * names copied at most four times (each path freed before the next).
 *
 * And the reader's bounds (lib/symbols/jitbudget.h), against what the
 * kernel counts for the process (/proc/self/io): read within a byte bound
 * and a time budget the input picks, under a clock that moves a
 * millisecond at each look, it never reads more than the bound and one
 * record prefix (rchar), and reads nothing once its time is out: two
 * reads at most for each look at the clock within the budget, whatever
 * the records (syscr).
 *
 * Drivers, as for fuzz-reader (see tests/fuzz/run): libFuzzer by default,
 * -DFUZZ_REPLAY for a main() over files.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "fuzz-budget.h"
#include "fuzz-memfd.h"
#include "symbols/jitcode.h"
#include "symbols/jitdump.h"

/* The table's slots and the loader's array grow by doubling. */
#define FUZZ_BUDGET_EXTRA (4 << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_memfd = -1;
static int fuzz_io = -1;		/* /proc/self/io */
static volatile size_t fuzz_sink;
static int64_t fuzz_heap_peak;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_memfd < 0)
		fuzz_memfd = fuzz_memfd__new("fuzz-jitdump");
	if (fuzz_io < 0)
		fuzz_io = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	if (fuzz_io < 0) {
		perror("fuzz: /proc/self/io");
		abort();
	}
	return 0;
}

/* The process's bytes read and read calls so far; *len: the bytes this look read. */
static void fuzz__io(uint64_t *rchar, uint64_t *syscr, size_t *len)
{
	char text[512], *p;
	ssize_t n = pread(fuzz_io, text, sizeof(text) - 1, 0);

	if (n <= 0)
		abort();
	text[n] = '\0';
	*len = (size_t)n;
	p = strstr(text, "rchar:");
	*rchar = p ? strtoull(p + 6, NULL, 10) : 0;
	p = strstr(text, "syscr:");
	*syscr = p ? strtoull(p + 6, NULL, 10) : 0;
	if (!strstr(text, "rchar:") || !p)
		abort();
}

/* The reader's clock: a millisecond more at each look. */
static uint64_t fuzz__clock(void *arg)
{
	uint64_t *now = arg;

	return *now += 1000000;
}

/*
 * The file read within a bound and a budget the input picks; the kernel's
 * counts of what was read, against them.
 */
static void fuzz__bounded(const uint8_t *data, size_t size)
{
	uint64_t now = 0, looks, rchar0, rchar, syscr0, syscr;
	uint64_t ms = size ? 1 + data[0] % 8 : 1;
	struct pm_jit_limits lim = {
		.max_bytes = 4096 + size * (size > 1 ? (data[1] & 3) + 1 : 4) / 4,
		.max_nsec = ms * 1000000, .clock = fuzz__clock, .clock_arg = &now };
	struct pm_jitcode_stats st;
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_jitcode *c = t ? pm_jitcode__new(t) : NULL;
	size_t len0, len;

	if (!c)
		abort();
	fuzz__io(&rchar0, &syscr0, &len0);
	pm_jitcode__read_within(c, fuzz_memfd, 1, "/tmp/jit-1.dump", true, &lim, &st);
	fuzz__io(&rchar, &syscr, &len);
	/* Between the two looks: the reader's reads, and the first look's own. */
	rchar -= rchar0 + len0;
	syscr -= syscr0 + 1;
	looks = now / 1000000;
	if (rchar > lim.max_bytes + PM_JITDUMP_PREFIX_SIZE || st.bytes > lim.max_bytes) {
		fprintf(stderr, "reader contract broken: %llu bytes read, bound %llu\n",
			(unsigned long long)rchar, (unsigned long long)lim.max_bytes);
		abort();
	}
	/*
	 * The first look starts the budget; each later one within it lets
	 * two reads through at most (its piece, the next record's prefix);
	 * one past it, none.
	 */
	if (syscr > 2 * (looks - 1 < ms ? looks - 1 : ms)) {
		fprintf(stderr, "reader contract broken: %llu reads for %llu looks at the clock, "
			"%llu ms allowed\n", (unsigned long long)syscr, (unsigned long long)looks,
			(unsigned long long)ms);
		abort();
	}
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);
}

/* Every record and debug line; the first load's address, for the lookups. */
static uint64_t fuzz__parse(const uint8_t *data, size_t size)
{
	struct pm_jitdump_line line = { 0 };
	struct pm_jitdump_rec r;
	struct pm_jitdump j;
	uint64_t first = 0, idx;
	size_t pos;

	if (pm_jitdump__init(&j, data, size))
		return 0;
	while (pm_jitdump__next(&j, &r) == 1) {
		if (r.type == PM_JIT_CODE_LOAD) {
			first = first ? first : r.load.code_addr;
			fuzz_sink += r.load.name_len + r.load.code[r.load.code_size - 1];
		} else if (r.type == PM_JIT_CODE_DEBUG_INFO) {
			idx = 0;
			pos = 0;
			while (pm_jitdump__next_line(&j, &r, &idx, &pos, &line) == 1)
				fuzz_sink += line.file_len + (line.file_len ? line.file[0] : 0);
		} else if (r.type == PM_JIT_CODE_UNWINDING_INFO && r.unwind.unwinding_size) {
			fuzz_sink += r.unwind.data[r.unwind.unwinding_size - 1];
		}
	}
	return first;
}

/* What the table names across the first load's addresses, as one hash. */
static uint64_t fuzz__names(struct pm_jitsyms *t, uint64_t first)
{
	uint64_t ip, h = 1469598103934665603ULL;
	struct pm_jitsym s;
	const char *p;

	for (ip = first; ip < first + 0x10000; ip += 61) {
		if (pm_jitsyms__find(t, 1, ip, &s)) {
			h = (h ^ 0xff) * 1099511628211ULL;
			continue;
		}
		for (p = s.name; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		for (p = s.src ? s.src : ""; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ s.line ^ s.start ^ (s.size << 1)) * 1099511628211ULL;
	}
	return h;
}

/* The loads read into a table of their own, advanced to the end; its names' hash. */
static uint64_t fuzz__named(bool copy, const struct pm_jitcode_copy *cp, uint64_t first, bool *ok)
{
	struct pm_jitcode_stats st;
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_jitcode *c = t ? pm_jitcode__new(t) : NULL;
	uint64_t h = 0;

	if (!c)
		abort();
	*ok = !(copy ? pm_jitcode__read_copy(c, cp, "/tmp/jit-1.dump", true, &st) :
		       pm_jitcode__read(c, fuzz_memfd, 1, "/tmp/jit-1.dump", true, &st));
	if (*ok) {
		pm_jitcode__advance(c, UINT64_MAX / 2);
		pm_jitcode__advance(c, UINT64_MAX);
		h = fuzz__names(t, first);
	}
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);
	return h;
}

/* The file as the recorder copies it: the payload, NULL when it holds nothing. */
static void fuzz__hold(struct pm_buf *payload)
{
	struct pm_jitcode_stats st;
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_jitcode *c = t ? pm_jitcode__new(t) : NULL;

	if (!c)
		abort();
	pm_jitcode__hold(c);
	if (!pm_jitcode__read(c, fuzz_memfd, 1, "/tmp/jit-1.dump", true, &st) &&
	    pm_jitcode__encode(c, payload))
		abort();
	/* Held, never added. */
	if (pm_jitsyms__count(t))
		abort();
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);
}

/* The input as a copy: its first file, found by its own pid and path, read back. */
static void fuzz__as_copy(const uint8_t *data, size_t size)
{
	struct pm_jitcode_copy cp;
	uint32_t pid, dso_len;
	uint64_t first = 0;
	char dso[4096];
	bool ok;

	if (size < 48)
		return;
	memcpy(&pid, data + 8, 4);
	memcpy(&dso_len, data + 20, 4);
	if (dso_len >= sizeof(dso) || dso_len > size - 48)
		return;
	memcpy(dso, data + 48, dso_len);
	dso[dso_len] = '\0';
	if (pm_jitcode__copy_find(data, size, (int32_t)pid, dso, &cp))
		return;
	cp.pid = 1;	/* the pid fuzz__names looks up */
	/* From its first entry's start (its second u64). */
	if (cp.entries_len >= 16)
		memcpy(&first, cp.entries + 8, 8);
	fuzz_sink += fuzz__named(true, &cp, first, &ok);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_buf payload = { 0 };
	struct pm_jitcode_copy cp;
	uint64_t first, live, copied;
	bool ok, ok2;

	if (fuzz_memfd < 0)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_budget__arm(size, FUZZ_BUDGET_EXTRA);
	first = fuzz__parse(data, size);
	fuzz_memfd__fill(fuzz_memfd, data, size);
	live = fuzz__named(false, NULL, first, &ok);
	fuzz__hold(&payload);
	if (payload.len) {
		/* What the recorder wrote, report finds and names alike. */
		if (pm_jitcode__copy_find(payload.data, payload.len, 1, "/tmp/jit-1.dump", &cp))
			abort();
		copied = fuzz__named(true, &cp, first, &ok2);
		if (ok && ok2 && copied != live)
			abort();
	}
	pm_buf__exit(&payload);
	fuzz__as_copy(data, size);
	fuzz__bounded(data, size);
	fuzz_heap_peak = fuzz_budget__disarm();
	return 0;
}

#ifdef FUZZ_REPLAY
static void fuzz__say(size_t len)
{
	(void)len;
	printf(", heap %lld KiB", (long long)fuzz_heap_peak / 1024);
}

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	return fuzz_replay__files("fuzz-jitdump", argc, argv, fuzz__say);
}
#endif
