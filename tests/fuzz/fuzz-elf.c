// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-elf: fuzz harness for the symbol loader (the DSO cache of lib/symbols/dso.c,
 * over elf.c and symtab.c there), which reads the files that a
 * perf.data's MMAP2 records name: a crafted file is as much an input of
 * `pmrec dump` as the perf.data itself.  One input is written to a
 * memfd and opened by its /proc/self/fd path, as dump opens a mapped file:
 * build id, program headers, symbols, and the name of addresses across the
 * mapping, every name read to its end.  The heap stays within the budget of
 * fuzz-budget.h: a file cannot multiply memory (a name copied per symbol).
 *
 * Drivers, as for fuzz-reader (see tests/fuzz/run): libFuzzer by default,
 * -DFUZZ_REPLAY for a main() over files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dso.h"
#include "fuzz-budget.h"
#include "fuzz-memfd.h"
#include "symtab.h"

/* The loader keeps its tables and libelf's; the file itself is mapped. */
#define FUZZ_BUDGET_EXTRA (8 << 20)

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
		fuzz_memfd = fuzz_memfd__new("fuzz-elf");
	return 0;
}

/* Names addresses across the first 2 MiB of a mapping at 0x400000. */
static void fuzz__resolve(struct pm_dso *dso)
{
	const struct pm_symtab *st;
	const char *sym;
	uint64_t ip, off;

	if (pm_dso__symtab(dso, &st))
		return;
	fuzz_sink += pm_symtab__nr(st);
	for (ip = 0x400000; ip < 0x600000; ip += 0x1000 / 4 + 3) {
		if (pm_dso__resolve(dso, 0x400000, 0, ip, &sym, &off))
			continue;
		fuzz_sink += strlen(sym) + off;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned char *id;
	struct pm_dso_cache *cache;
	struct pm_dso *dso;
	char path[64];
	size_t len;

	if (fuzz_memfd < 0)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_memfd__fill(fuzz_memfd, data, size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fuzz_memfd);
	fuzz_budget__arm(size, FUZZ_BUDGET_EXTRA);
	cache = pm_dso_cache__new();
	if (!cache)
		abort();
	dso = pm_dso_cache__findnew(cache, path, 0, 0);
	if (!dso)
		abort();
	if (!pm_dso__build_id(dso, &id, &len))
		fuzz_sink += len ? id[0] + id[len - 1] : 0;
	fuzz__resolve(dso);
	pm_dso_cache__delete(cache);
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
	return fuzz_replay__files("fuzz-elf", argc, argv, fuzz__say);
}
#endif
