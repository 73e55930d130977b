// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-elf: fuzz harness for the symbol loader (the DSO cache of lib/symbols/dso.c,
 * over elf.c and symtab.c there), which reads the files that a
 * perf.data's MMAP2 records name: a crafted file is as much an input of
 * `pmrec dump` as the perf.data itself.  One input is written to a
 * regular file of a private directory and opened by its path, as dump
 * opens a mapped file (not a memfd's /proc/self/fd path: the opener
 * follows no symlink, and that one is):
 * build id, program headers, symbols, and the name of addresses across the
 * mapping, every name read to its end; and annotate's reading of a
 * function's code (symbol range, code bytes, disassembly, line table) at
 * a few places.  The same bytes are also read as a kcore (an ELF core
 * image of kernel memory, annotate --kcore): its segments and notes, and
 * kernel functions annotated from it with a fixed kallsyms whose functions
 * lie where the seed kcore's segment is.  The heap stays within the budget of
 * fuzz-budget.h: a file cannot multiply memory (a name copied per symbol).
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

#include "profile/annotate.h"
#include "symbols/dso.h"
#include "fuzz-budget.h"
#include "fuzz-memfd.h"
#include "symbols/kallsyms.h"
#include "symbols/kcore.h"
#include "symbols/symtab.h"

/* The loader keeps its tables and libelf's; the file itself is mapped. */
#define FUZZ_BUDGET_EXTRA (8 << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[256], fuzz_path[300], fuzz_kallsyms[300];
static struct pm_kallsyms *fuzz_ks;
static volatile size_t fuzz_sink;
static int64_t fuzz_heap_peak;

static void fuzz__cleanup(void)
{
	unlink(fuzz_path);
	unlink(fuzz_kallsyms);
	rmdir(fuzz_dir);
}

/* Kernel functions at the seed kcore's segment (0xffffffff81000000), and a module's. */
static void fuzz__kallsyms(void)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "ffffffff81000000 T kf0\n"
				   "ffffffff81000010 T kf1\n"
				   "ffffffff81000040 T kf2\n"
				   "ffffffff81000fff T kf3\n"
				   "ffffffffc0000000 t mf0\t[mod]\n";
	int fd;

	snprintf(fuzz_kallsyms, sizeof(fuzz_kallsyms), "%s/kallsyms", fuzz_dir);
	fd = open(fuzz_kallsyms, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1)) {
		perror("fuzz-elf: writing kallsyms");
		abort();
	}
	close(fd);
	fuzz_ks = pm_kallsyms__load(fuzz_kallsyms);
	if (!fuzz_ks)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	if (fuzz_path[0])
		return 0;
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/fuzz-elf.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fuzz_dir)) {
		perror("fuzz-elf: mkdtemp");
		abort();
	}
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/input", fuzz_dir);
	atexit(fuzz__cleanup);
	fuzz__kallsyms();
	return 0;
}

/* The input as the file's whole content. */
static void fuzz__write(const uint8_t *data, size_t size)
{
	int fd = open(fuzz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0) {
		perror("fuzz-elf: creating the input file");
		abort();
	}
	fuzz_memfd__fill(fd, data, size);
	close(fd);
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

/* Annotates the functions at a few file offsets, as annotate does with its samples. */
static void fuzz__annotate(struct pm_dso_cache *cache, char *path)
{
	struct pm_annotate_hit hit = { .period = 1, .samples = 1 };
	struct pm_annotate_func f = { .sym = "f", .dso = path, .hits = &hit, .nr_hits = 1,
				      .samples = 1, .period = 1 };
	struct pm_annotate_error e;
	struct pm_annotation a;

	for (hit.off = 0; hit.off < 0x8000; hit.off += 0x7f1) {
		if (!pm_annotation__build(&a, &f, cache, NULL, &e))
			fuzz_sink += a.nr_insns + a.nr_lines + a.samples;
		pm_annotation__exit(&a);
	}
}

/* The input as a kcore: each segment's first bytes, then kernel functions annotated from it. */
static void fuzz__kcore(char *path)
{
	static const uint64_t ips[] = { 0xffffffff81000004, 0xffffffff81000010, 0xffffffff81000040,
					0xffffffff81001000, 0xffffffffc0000008 };
	struct pm_annotate_hit hit = { .period = 1, .samples = 1 };
	struct pm_annotate_func f = { .sym = "kf", .dso = "[kernel.kallsyms]", .kernel = true,
				      .hits = &hit, .nr_hits = 1, .samples = 1, .period = 1 };
	struct pm_annotate_kernel k = { .kcore = path, .ks = fuzz_ks };
	struct pm_annotate_error e;
	struct pm_annotation a;
	unsigned char *buf;
	struct pm_kcore kc;
	size_t i;

	if (!pm_kcore__open(&kc, path)) {
		for (i = 0; i < kc.nr_segs && i < 16; i++) {
			if (pm_kcore__read(&kc, kc.segs[i].vaddr, kc.segs[i].size < 256 ?
					   kc.segs[i].size : 256, &buf))
				continue;
			fuzz_sink += buf[0];
			free(buf);
		}
		fuzz_sink += kc.build_id_len;
		pm_kcore__close(&kc);
	}
	for (i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		hit.off = ips[i];
		if (!pm_annotation__build(&a, &f, NULL, &k, &e))
			fuzz_sink += a.nr_insns + a.samples;
		pm_annotation__exit(&a);
	}
	pm_annotate_kernel__exit(&k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned char *id;
	struct pm_dso_cache *cache;
	struct pm_dso *dso;
	char path[300];
	size_t len;

	LLVMFuzzerInitialize(NULL, NULL);
	fuzz__write(data, size);
	snprintf(path, sizeof(path), "%s", fuzz_path);
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
	fuzz__annotate(cache, path);
	fuzz__kcore(path);
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
