// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-jitdump: fuzz harness for the jitdump parser (lib/jitdump.c) and
 * the loader that feeds its code into the JIT names (lib/jitcode.c): a
 * jitdump is named by a recording's MMAP record and written by whoever
 * runs the profiled program, so it is as much an input of report as the
 * perf.data itself.  One input is parsed record by record (debug lines
 * too), then read from a memfd as report reads it, timed, advanced to the
 * end of time and looked up across the addresses its loads name.  The
 * heap stays within the budget of fuzz-budget.h: the file read once, the
 * names copied at most twice.
 *
 * Drivers, as for fuzz-reader (see tests/fuzz/run): libFuzzer by default,
 * -DFUZZ_REPLAY for a main() over files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-budget.h"
#include "fuzz-memfd.h"
#include "jitcode.h"
#include "jitdump.h"

/* The table's slots and the loader's array grow by doubling. */
#define FUZZ_BUDGET_EXTRA (4 << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_memfd = -1;
static volatile size_t fuzz_sink;
static int64_t fuzz_heap_peak;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_memfd < 0)
		fuzz_memfd = fuzz_memfd__new("fuzz-jitdump");
	return 0;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_jitcode_stats st;
	struct pm_jitsyms *t;
	struct pm_jitcode *c;
	struct pm_jitsym s;
	uint64_t first, ip;

	if (fuzz_memfd < 0)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_budget__arm(size, FUZZ_BUDGET_EXTRA);
	first = fuzz__parse(data, size);
	fuzz_memfd__fill(fuzz_memfd, data, size);
	t = pm_jitsyms__new();
	c = t ? pm_jitcode__new(t) : NULL;
	if (!c)
		abort();
	if (!pm_jitcode__read(c, fuzz_memfd, 1, "/tmp/jit-1.dump", true, &st)) {
		pm_jitcode__advance(c, UINT64_MAX / 2);
		pm_jitcode__advance(c, UINT64_MAX);
		for (ip = first; ip < first + 0x10000; ip += 61)
			if (!pm_jitsyms__find(t, 1, ip, &s))
				fuzz_sink += strlen(s.name) + (s.src ? strlen(s.src) : 0);
	}
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);
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
