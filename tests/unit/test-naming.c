// SPDX-License-Identifier: GPL-2.0
/*
 * pm_frame__label, the one rule that names a frame in every output (dump,
 * folded stacks, flame graph, pprof, speedscope).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "symbols/naming.h"
#include "tap.h"

static bool label_is(const char *sym, const char *dso, bool in_file, uint64_t dsoff,
		     const char *want)
{
	struct pm_buf b = { 0 };
	bool ok;

	ok = !pm_frame__label(&b, sym, dso, in_file, dsoff) && b.len == strlen(want) &&
	     !memcmp(b.data, want, b.len);
	if (!ok)
		printf("# got '%.*s', want '%s'\n", (int)b.len, b.data ? (char *)b.data : "",
		       want);
	pm_buf__exit(&b);
	return ok;
}

int main(void)
{
	tap_ok(label_is("lzma_code", "/usr/lib/liblzma.so.5", true, 0x15bc9, "lzma_code"),
	       "a symbol is the label, wherever it is");
	tap_ok(label_is(NULL, "/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1", true, 0x15bc9,
			"liblzma.so.5.4.1+0x15bc9"),
	       "no symbol in a file: base name + offset in the file");
	tap_ok(label_is(NULL, "/usr/bin/prog", true, 0, "prog+0x0"), "offset 0 is 0x0");
	tap_ok(label_is(NULL, "[vdso]", true, 0xa10, "[vdso]+0xa10"), "[vdso] keeps its brackets");
	tap_ok(label_is(NULL, "//anon", false, 0, "[anon]"), "anonymous memory: [file]");
	tap_ok(label_is(NULL, "[kernel.kallsyms]", false, 0, "[kernel.kallsyms]"),
	       "the kernel: as it is");
	tap_ok(label_is(NULL, NULL, false, 0, "[unknown]"), "no mapping: [unknown]");
	return tap_done();
}
