// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-unwind: fuzz harness for the DWARF unwinder (lib/dwarf/unwind.c through
 * lib/symbols/naming.c).  One input is a perf.data file (seeds: --call-graph dwarf
 * recordings, tests/fuzz/run), read from a memfd as `pmrec dump --stats`
 * reads it: every record shapes the address spaces, every sample's stack
 * is unwound and its inlined frames looked up.  The registers and stack
 * copies of the samples are the attacker's; the mapped files are the
 * machine's.  A stack that makes the unwinder loop shows as a libFuzzer
 * timeout; counts that do not add up abort.
 *
 * Drivers, as for fuzz-reader (see tests/fuzz/run): libFuzzer by default,
 * -DFUZZ_REPLAY for a main() over files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-memfd.h"
#include "symbols/naming.h"
#include "reader/reader.h"
#include "reader/rec_info.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_memfd = -1;
static volatile size_t fuzz_sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fuzz_memfd < 0)
		fuzz_memfd = fuzz_memfd__new("fuzz-unwind");
	return 0;
}

/*
 * Every sample's stack unwound, with its inlined frames, as dump --stats
 * does it: no names, so no kallsyms read per input (the kernel part is
 * fuzz-reader's).
 */
static void fuzz__unwind(struct pm_reader *r, struct pm_namer *n)
{
	struct pm_unwind_stats st;
	struct pm_rec_info in;
	struct pm_record rec;
	uint64_t samples = 0;

	while (pm_reader__next(r, &rec) > 0) {
		if (pm_rec_info__compute(&in, r, &rec))
			continue;
		if (pm_namer__track(n, &rec, in.body_len))
			abort();
		if (rec.header->type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		if (pm_namer__count_unwind(n, rec.header->misc & PERF_RECORD_MISC_CPUMODE_MASK, &in.s))
			abort();
	}
	pm_namer__unwind_stats(n, &st);
	if (st.unwound > samples || st.partial > st.unwound)
		abort();
	fuzz_sink += st.partial;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_reader *r;
	struct pm_namer *n;

	if (fuzz_memfd < 0)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_memfd__fill(fuzz_memfd, data, size);
	r = pm_reader__new();
	if (!r)
		abort();
	if (!pm_reader__open_fd(r, fuzz_memfd)) {
		n = pm_namer__new(r, NULL, NULL);
		if (!n)
			abort();
		if (!pm_namer__read_build_ids(n))
			fuzz__unwind(r, n);
		pm_namer__delete(n);
	}
	pm_reader__delete(r);
	return 0;
}

#ifdef FUZZ_REPLAY
int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	return fuzz_replay__files("fuzz-unwind", argc, argv, NULL);
}
#endif
