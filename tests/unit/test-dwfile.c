// SPDX-License-Identifier: GPL-2.0
/*
 * lib/dwarf/dwfile and lib/dwarf/inlines: this test's own DWARF (the unit
 * tests are built with -g) gives the source line of an instruction of an
 * always-inlined function and names that function as inlined there, both
 * as annotate (DW_AT_name) and as report (through pm_inlines, kept per
 * file and offset); a path that is not absolute is no file.  libdw 0.188
 * finds an address's unit through .debug_aranges, which clang does not
 * write: in a clang build those checks are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/dwfile.h"
#include "symbols/dso.h"
#include "dwarf/inlines.h"
#include "tap.h"

static int inner_line;

/* The address of an instruction of its own inlined body (the lea itself). */
static inline __attribute__((always_inline)) uintptr_t inner_fn(void)
{
	uintptr_t pc;

	inner_line = __LINE__; asm volatile("1: lea 1b(%%rip), %0" : "=r"(pc));
	return pc;
}

static __attribute__((noinline)) uintptr_t outer_fn(void)
{
	return inner_fn();
}

/* The load bias of the main program: the first object dl_iterate_phdr reports. */
static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* Whether the file at path has a section named name. */
static bool has_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 && elf_version(EV_CURRENT) != EV_NONE ?
		   elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf && !elf_getshdrstrndx(elf, &shstrndx))
		while (!found && (scn = elf_nextscn(elf, scn)))
			found = gelf_getshdr(scn, &sh) &&
				!strcmp(elf_strptr(elf, shstrndx, sh.sh_name) ?: "", name);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

static void test_self(struct pm_dso *exe, uint64_t vaddr)
{
	struct pm_dwfile *f = pm_dwfile__open(exe);
	const char *names[PM_DWFILE_MAX_INLINED], *file = NULL;
	uint32_t line = 0;
	size_t nr = 0;
	int err;

	tap_ok(f != NULL, "the test's own file opens");
	if (!f)
		return;
	err = pm_dwfile__line(f, vaddr, &file, &line);
	tap_ok(!err && ends_with(file, "tests/unit/test-dwfile.c") && line == (uint32_t)inner_line,
	       "the inlined instruction's line: %s:%u (want line %d)", err ? "-" : file, line,
	       inner_line);
	err = pm_dwfile__inlined(f, vaddr, PM_DWFILE_NAME, names, &nr);
	tap_ok(!err && nr >= 1 && names[0] && !strcmp(names[0], "inner_fn"),
	       "inner_fn is inlined there (%zu names, the first %s)", nr,
	       nr && names[0] ? names[0] : "-");
	err = pm_dwfile__inlined(f, vaddr, PM_DWFILE_LINKAGE, names, &nr);
	tap_ok(!err && nr >= 1 && names[0] && !strcmp(names[0], "inner_fn"),
	       "a C function's linkage name is its name");
	pm_dwfile__close(f);
}

static void test_inlines(struct pm_dso *dso, uint64_t vaddr)
{
	struct pm_inlines *in = pm_inlines__new();
	const char *const *names = NULL, *const *again = NULL;
	size_t nr = 0, nr2 = 0;

	tap_ok(in != NULL, "an inline cache");
	if (!in)
		return;
	tap_ok(!pm_inlines__kept(in, dso, 0x1234, &names, &nr), "nothing kept at first");
	tap_ok(!pm_inlines__read(in, dso, 0x1234, vaddr, &names, &nr) && nr >= 1 &&
	       !strcmp(names[0], "inner_fn"), "read: inner_fn inlined");
	tap_ok(pm_inlines__kept(in, dso, 0x1234, &again, &nr2) && again == names && nr2 == nr,
	       "kept: the same names, by (file, offset)");
	tap_ok(!pm_inlines__kept(in, dso, 0x1235, &again, &nr2), "another offset is not kept");
	tap_ok(!pm_inlines__read(in, dso, 0x1235, vaddr + (1ULL << 40), &again, &nr2) &&
	       !nr2, "no code there: no names");
	pm_inlines__delete(in);
}

static void test_not_a_file(struct pm_dso *vdso)
{
	struct pm_dwfile *f = pm_dwfile__open(vdso);
	const char *names[PM_DWFILE_MAX_INLINED], *file;
	uint32_t line;
	size_t nr = 1;

	tap_ok(pm_dso__open(vdso) == -ENOENT, "a path that is not absolute opens nothing");
	tap_ok(f && pm_dwfile__line(f, 0x1000, &file, &line) == -ENOENT &&
	       !pm_dwfile__inlined(f, 0x1000, PM_DWFILE_NAME, names, &nr) && !nr,
	       "and finds neither lines nor inlines");
	pm_dwfile__close(f);
}

int main(void)
{
	struct pm_dso_cache *cache = pm_dso_cache__new();
	char exe[PATH_MAX];
	uintptr_t bias = 0, pc = outer_fn();

	dl_iterate_phdr(first_bias, &bias);
	if (!realpath("/proc/self/exe", exe))
		exe[0] = '\0';
	if (!cache)
		return 1;
	if (has_section(exe, ".debug_aranges")) {
		test_self(pm_dso_cache__findnew(cache, exe, 0, 0), pc - bias);
		test_inlines(pm_dso_cache__findnew(cache, exe, 0, 0), pc - bias);
	} else {
		tap_ok(1, "# SKIP no .debug_aranges (clang): libdw 0.188 finds no unit");
	}
	test_not_a_file(pm_dso_cache__findnew(cache, "[vdso]", 0, 0));
	pm_dso_cache__delete(cache);
	return tap_done();
}
