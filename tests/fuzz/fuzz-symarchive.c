// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-symarchive: fuzz harness for the reader of the symbols a recording
 * carries (lib/symbols/symarchive.c, the HEADER_PMREC_SYMBOLS payload).
 * One input is one payload: decoded, then, when accepted, its first
 * table's build id looked up and addresses across its symbols and the
 * kernel's named, every name read to its end.  A refused input must say
 * where (an offset inside the input) and why.  The heap stays within the
 * budget of fuzz-budget.h: the decoder copies each name once.
 *
 * Drivers, as for fuzz-reader (see tests/fuzz/run): libFuzzer by default,
 * -DFUZZ_REPLAY for a main() over files.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-budget.h"
#include "fuzz-memfd.h"
#include "symbols/kallsyms.h"
#include "symbols/symarchive.h"
#include "symbols/symtab.h"

/* A table per name at most, and the kernel's copied once more. */
#define FUZZ_BUDGET_EXTRA (1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t fuzz_sink;
static int64_t fuzz_heap_peak;

/* The symbols of the input's first table, if it is a file's (build id at 48). */
static void fuzz__file(const struct pm_symarchive *a, const uint8_t *data, size_t size)
{
	const struct pm_symtab *st;
	struct pm_symbol s;
	size_t i;

	if (size < 72 || data[46] > 20)
		return;
	st = pm_symarchive__file(a, data + 48, data[46]);
	if (!st)
		return;
	for (i = 0; i < pm_symtab__nr(st) && i < 4096; i++) {
		pm_symtab__get(st, i, &s);
		fuzz_sink += strlen(s.name) + s.addr + s.size;
	}
}

static void fuzz__kernel(const struct pm_symarchive *a)
{
	struct pm_kallsyms *ks = pm_symarchive__kallsyms(a);
	const char *name, *mod;
	struct pm_symbol s;
	uint64_t off;
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < pm_kallsyms__nr(ks) && i < 4096; i++) {
		pm_kallsyms__get(ks, i, &s, &mod);
		if (!pm_kallsyms__find(ks, s.addr + s.size / 2, &name, &mod, &off))
			fuzz_sink += strlen(name) + off + (mod ? strlen(mod) : 0);
	}
	pm_kallsyms__delete(ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_symarchive_error e = { 0 };
	struct pm_symarchive *a;

	fuzz_budget__arm(size, FUZZ_BUDGET_EXTRA);
	a = pm_symarchive__decode(data, size, 0, &e);
	if (!a && errno != ENOMEM && (!e.reason || e.offset > size)) {
		fprintf(stderr, "decoder contract broken: refused without a reason inside the input\n");
		abort();
	}
	if (a) {
		fuzz__file(a, data, size);
		fuzz__kernel(a);
		fuzz_sink += pm_symarchive__nr_tables(a);
		pm_symarchive__delete(a);
	}
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
	return fuzz_replay__files("fuzz-symarchive", argc, argv, fuzz__say);
}
#endif
