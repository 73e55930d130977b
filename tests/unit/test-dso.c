// SPDX-License-Identifier: GPL-2.0
/*
 * Mapped files and their symbols against independent oracles: nm on real
 * binaries, this very process (its own functions, libc's), and hand-built
 * ELF files whose every answer is known in advance.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/dso.h"
#include "symbols/elf.h"
#include "elf-fixture.h"
#include "symbols/symtab.h"
#include "tap.h"

static int copy_file(const char *from, const char *to)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	return system(cmd) ? -1 : 0;
}

static bool nm_address(const char *path, const char *sym, uint64_t *addr)
{
	char cmd[PATH_MAX + 64], line[512], name[256], type;
	unsigned long long a;
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, sym)) {
			*addr = a;
			found = true;
		}
	}
	pclose(f);
	return found;
}

struct mapping {
	uint64_t start;
	uint64_t pgoff;
	uint64_t dev;
	uint64_t ino;
	char path[PATH_MAX];
};

static bool find_mapping(const void *addr, struct mapping *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char line[PATH_MAX + 128];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %4095s", &start,
			   &end, &pgoff, &maj, &min, &ino, m->path) != 7)
			continue;
		if ((uintptr_t)addr < start || (uintptr_t)addr >= end)
			continue;
		m->start = start;
		m->pgoff = pgoff;
		m->dev = makedev(maj, min);
		m->ino = ino;
		found = true;
	}
	fclose(f);
	return found;
}

/* Long enough that +5 is inside it; called through a pointer, so not inlined. */
__attribute__((noinline)) unsigned long pm_test_target(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	return x;
}

static unsigned long (*volatile target_fn)(unsigned long) = pm_test_target;

/*
 * A small ELF file: one PT_LOAD maps file offset 0x200 at 0x401200 (so the
 * load bias is not a page multiple), the build id is only in a section, and
 * the symbols cover aliases, sizeless functions and what must be ignored.
 */
#define FAKE_TEXT_OFF	0x200
#define FAKE_TEXT_ADDR	0x401200
#define FAKE_TEXT_SIZE	0x100
#define FAKE_NOTE_OFF	0x300
#define FAKE_SYM_OFF	0x328
#define FAKE_STR_OFF	0x480
#define FAKE_SHSTR_OFF	0x580
#define FAKE_SHDR_OFF	0x600
#define FAKE_SIZE	(FAKE_SHDR_OFF + 6 * sizeof(Elf64_Shdr))

static const struct {
	const char *name;
	uint64_t addr;
	uint64_t size;
	unsigned char info;
	uint16_t shndx;
} fake_syms[] = {
	{ "__alpha", 0x401200, 0x10, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 1 },
	{ "alpha_weak", 0x401200, 0x10, ELF64_ST_INFO(STB_WEAK, STT_FUNC), 1 },
	{ "alpha", 0x401200, 0x10, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 1 },
	{ "sizeless", 0x401220, 0, ELF64_ST_INFO(STB_LOCAL, STT_FUNC), 1 },
	{ "gamma", 0x401240, 8, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 1 },
	{ "object", 0x401250, 8, ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT), 1 },
	{ "imported", 0, 0, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), SHN_UNDEF },
	{ "resolver", 0x401270, 0x10, ELF64_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC), 1 },
	{ "tail", 0x401280, 0, ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), 1 },
};
#define FAKE_NR_FUNCS 5

static const unsigned char fake_id[PM_BUILD_ID_SIZE] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
};

static uint32_t add_str(unsigned char *img, size_t base, size_t *len,
			const char *s)
{
	uint32_t off = *len;

	strcpy((char *)img + base + off, s);
	*len += strlen(s) + 1;
	return off;
}

static int write_fake_elf(const char *path, uint32_t symtab_type)
{
	static unsigned char img[FAKE_SIZE];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));
	Elf64_Sym *sym = (Elf64_Sym *)(img + FAKE_SYM_OFF);
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + FAKE_SHDR_OFF);
	size_t nr = 1 + sizeof(fake_syms) / sizeof(fake_syms[0]);
	size_t i, strlen_ = 1, shstrlen = 1;
	bool dyn = symtab_type == SHT_DYNSYM;

	memset(img, 0, sizeof(img));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = FAKE_SHDR_OFF;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 6;
	eh->e_shstrndx = 5;

	*ph = (Elf64_Phdr){
		.p_type = PT_LOAD,
		.p_flags = PF_R | PF_X,
		.p_offset = FAKE_TEXT_OFF,
		.p_vaddr = FAKE_TEXT_ADDR,
		.p_paddr = FAKE_TEXT_ADDR,
		.p_filesz = FAKE_TEXT_SIZE,
		.p_memsz = FAKE_TEXT_SIZE,
		.p_align = 0x1000,
	};
	memset(img + FAKE_TEXT_OFF, 0xcc, FAKE_TEXT_SIZE);
	put_note(img + FAKE_NOTE_OFF, NT_GNU_BUILD_ID, "GNU", 4, fake_id,
		 sizeof(fake_id));

	for (i = 1; i < nr; i++) {
		sym[i] = (Elf64_Sym){
			.st_name = add_str(img, FAKE_STR_OFF, &strlen_,
					   fake_syms[i - 1].name),
			.st_info = fake_syms[i - 1].info,
			.st_shndx = fake_syms[i - 1].shndx,
			.st_value = fake_syms[i - 1].addr,
			.st_size = fake_syms[i - 1].size,
		};
	}

	sh[1] = (Elf64_Shdr){
		.sh_name = add_str(img, FAKE_SHSTR_OFF, &shstrlen, ".text"),
		.sh_type = SHT_PROGBITS,
		.sh_flags = SHF_ALLOC | SHF_EXECINSTR,
		.sh_addr = FAKE_TEXT_ADDR,
		.sh_offset = FAKE_TEXT_OFF,
		.sh_size = FAKE_TEXT_SIZE,
		.sh_addralign = 16,
	};
	sh[2] = (Elf64_Shdr){
		.sh_name = add_str(img, FAKE_SHSTR_OFF, &shstrlen,
				   ".note.gnu.build-id"),
		.sh_type = SHT_NOTE,
		.sh_flags = SHF_ALLOC,
		.sh_addr = FAKE_TEXT_ADDR + FAKE_TEXT_SIZE,
		.sh_offset = FAKE_NOTE_OFF,
		.sh_size = 16 + sizeof(fake_id),
		.sh_addralign = 4,
	};
	sh[3] = (Elf64_Shdr){
		.sh_name = add_str(img, FAKE_SHSTR_OFF, &shstrlen,
				   dyn ? ".dynsym" : ".symtab"),
		.sh_type = symtab_type,
		.sh_flags = dyn ? SHF_ALLOC : 0,
		.sh_offset = FAKE_SYM_OFF,
		.sh_size = nr * sizeof(*sym),
		.sh_link = 4,
		.sh_info = 1,
		.sh_addralign = 8,
		.sh_entsize = sizeof(*sym),
	};
	sh[4] = (Elf64_Shdr){
		.sh_name = add_str(img, FAKE_SHSTR_OFF, &shstrlen,
				   dyn ? ".dynstr" : ".strtab"),
		.sh_type = SHT_STRTAB,
		.sh_offset = FAKE_STR_OFF,
		.sh_size = strlen_,
		.sh_addralign = 1,
	};
	sh[5] = (Elf64_Shdr){
		.sh_name = add_str(img, FAKE_SHSTR_OFF, &shstrlen, ".shstrtab"),
		.sh_type = SHT_STRTAB,
		.sh_offset = FAKE_SHSTR_OFF,
		.sh_size = shstrlen,
		.sh_addralign = 1,
	};
	return write_file(path, img, sizeof(img));
}

static bool sym_is(const struct pm_symtab *st, uint64_t addr, const char *want,
		   uint64_t want_off)
{
	const char *name;
	uint64_t off;
	int err = pm_symtab__find(st, addr, &name, &off);

	if (!want)
		return err == -ENOENT;
	return !err && !strcmp(name, want) && off == want_off;
}

static void test_fake_elf(struct pm_dso_cache *cache, uint32_t type,
			  const char *file)
{
	const char *kind = type == SHT_DYNSYM ? ".dynsym" : ".symtab";
	const uint64_t map = 0x7f0000001000;
	const struct pm_symtab *st = NULL;
	const unsigned char *id = NULL;
	const char *path = tmp_path(file), *name = NULL;
	struct pm_dso *dso;
	uint64_t off = 0;
	size_t len = 0;
	int err;

	if (write_fake_elf(path, type)) {
		tap_ok(0, "write %s", path);
		return;
	}
	dso = pm_dso_cache__findnew(cache, path, 0, 0);
	err = dso ? pm_dso__build_id(dso, &id, &len) : -errno;
	tap_ok(!err && len == sizeof(fake_id) && !memcmp(id, fake_id, len),
	       "%s file: build id from the SHT_NOTE section", kind);
	err = dso ? pm_dso__symtab(dso, &st) : -errno;
	tap_ok(!err && pm_symtab__nr(st) == FAKE_NR_FUNCS,
	       "%s file: %d functions (aliases merged; objects, undefined skipped)",
	       kind, FAKE_NR_FUNCS);
	if (err)
		return;
	tap_ok(sym_is(st, 0x401200, "alpha", 0) &&
		       sym_is(st, 0x40120f, "alpha", 0xf),
	       "%s: of the aliases, the strong one with fewest underscores", kind);
	tap_ok(sym_is(st, 0x401210, NULL, 0) && sym_is(st, 0x401248, NULL, 0) &&
		       sym_is(st, 0x401250, NULL, 0),
	       "%s: nothing past a symbol's size", kind);
	tap_ok(sym_is(st, 0x40123f, "sizeless", 0x1f),
	       "%s: a sizeless symbol runs to the next one", kind);
	tap_ok(sym_is(st, 0x401274, "resolver", 4),
	       "%s: GNU indirect functions are found", kind);
	tap_ok(sym_is(st, 0x4012ff, "tail", 0x7f) && sym_is(st, 0x401300, NULL, 0),
	       "%s: the last sizeless symbol ends with its section", kind);

	err = pm_dso__resolve(dso, map, 0, map + 0x204, &name, &off);
	tap_ok(!err && !strcmp(name, "alpha") && off == 4,
	       "%s: resolve applies the PT_LOAD bias: %d", kind, err);
	err = pm_dso__resolve(dso, map, 0x200, map + 4, &name, &off);
	tap_ok(!err && !strcmp(name, "alpha") && off == 4,
	       "%s: resolve honours the mapping's pgoff: %d", kind, err);
	tap_ok(pm_dso__resolve(dso, map, 0, map + 0x10, &name, &off) == -ENOENT,
	       "%s: an offset outside every PT_LOAD is not found", kind);
}

static void test_self_symbols(struct pm_dso_cache *cache)
{
	const void *addr = (const void *)(uintptr_t)target_fn;
	const char *name = NULL;
	struct pm_dso *dso;
	struct mapping m;
	uint64_t off = 0;
	int err;

	if (!find_mapping(addr, &m)) {
		tap_ok(0, "mapping of pm_test_target in /proc/self/maps");
		return;
	}
	dso = pm_dso_cache__findnew(cache, m.path, m.dev, m.ino);
	err = dso ? pm_dso__resolve(dso, m.start, m.pgoff, (uintptr_t)addr,
				    &name, &off) :
		    -errno;
	tap_ok(!err && !strcmp(name, "pm_test_target") && off == 0,
	       "own function resolves to pm_test_target+0: %d %s+%#llx", err,
	       err ? "" : name, (unsigned long long)off);
	err = dso ? pm_dso__resolve(dso, m.start, m.pgoff,
				    (uintptr_t)addr + 5, &name, &off) :
		    -errno;
	tap_ok(!err && !strcmp(name, "pm_test_target") && off == 5,
	       "address+5 resolves to pm_test_target+5");
	tap_ok(pm_dso_cache__findnew(cache, m.path, m.dev, m.ino) == dso,
	       "same device and inode: same DSO");
	tap_ok(pm_dso_cache__findnew(cache, self, 0, 0) == dso,
	       "same file by path alone (stat): same DSO");
	target_fn(1);
}

static void test_libc_dynsym(struct pm_dso_cache *cache)
{
	const struct pm_symtab *st = NULL;
	const char *name = NULL;
	struct pm_dso *dso;
	struct mapping m;
	uint64_t off = 0;
	void *libc, *addr;
	int err;

	/* Through libc's handle: in a non-PIE program &getppid is a PLT stub. */
	libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	addr = libc ? dlsym(libc, "getppid") : NULL;
	if (!addr || !find_mapping(addr, &m)) {
		skip("libc .dynsym", "libc.so.6 or getppid not found");
		if (libc)
			dlclose(libc);
		return;
	}
	dso = pm_dso_cache__findnew(cache, m.path, m.dev, m.ino);
	err = dso ? pm_dso__symtab(dso, &st) : -errno;
	tap_ok(!err && pm_symtab__nr(st) > 100, "%s: %zu functions", m.path,
	       err ? 0 : pm_symtab__nr(st));
	err = dso ? pm_dso__resolve(dso, m.start, m.pgoff, (uintptr_t)addr,
				    &name, &off) :
		    -errno;
	/* With libc6-dbg installed the name comes from the debug file: __GI___getppid. */
	tap_ok(!err && off == 0 && (dlsym(libc, name) == addr || strstr(name, "getppid")),
	       "libc's getppid resolves to a name of that address: %s",
	       err ? "(none)" : name);
	dlclose(libc);
}

static const char *name_at(const struct pm_symtab *st, uint64_t addr)
{
	const char *name;
	uint64_t off;

	return pm_symtab__find(st, addr, &name, &off) ? "(none)" : name;
}

/* An IRELATIVE stub's name: its IFUNC's, the function at the addend, unversioned. */
static void ifunc_name(const struct pm_symtab *st, uint64_t addr, char *name, size_t size)
{
	const char *f;
	uint64_t off;

	if (pm_symtab__find(st, addr, &f, &off) || off)
		f = "";
	/* Without its version (memcpy@@GLIBC_2.14). */
	snprintf(name, size, "%.*s@plt", (int)strcspn(f, "@"), f);
}

/*
 * The PLT stubs of path against objdump's synthetic "name@plt" symbols
 * (objdump reads the GOT slot each stub jumps through): each stub is
 * named at its first and last byte.  objdump's "*ABS*+0x9d420@plt" (an
 * IRELATIVE stub, which binds no symbol) is named after the IFUNC at
 * 0x9d420.
 */
static void test_plt(struct pm_dso_cache *cache, const char *path, const char *what)
{
	char cmd[PATH_MAX + 64], line[2048], name[1024];
	struct pm_dso *dso = pm_dso_cache__findnew(cache, path, 0, 0);
	const struct pm_symtab *st = NULL;
	unsigned long long a, ifunc;
	size_t n = 0, same = 0;
	FILE *f;

	if (!dso || pm_dso__symtab(dso, &st)) {
		tap_ok(0, "%s: symbols of %s", what, path);
		return;
	}
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		/* Not the header: objdump calls it "getenv@plt-0x10". */
		if (sscanf(line, "%llx <%1023[^>]>:", &a, name) != 2 || strlen(name) < 4 ||
		    strcmp(name + strlen(name) - 4, "@plt"))
			continue;
		if (sscanf(name, "*ABS*+%llx@plt", &ifunc) == 1)
			ifunc_name(st, ifunc, name, sizeof(name));
		n++;
		if (sym_is(st, a, name, 0) && sym_is(st, a + 15, name, 15))
			same++;
		else if (n - same == 1)
			printf("# %#llx: objdump %s, pmrec %s\n", a, name, name_at(st, a));
	}
	if (f)
		pclose(f);
	tap_ok(n > 0 && same == n, "%s: %zu of %zu PLT stubs named as objdump names them",
	       what, same, n);
}

static void test_plts(struct pm_dso_cache *cache)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *addr = libc ? dlsym(libc, "getppid") : NULL;
	struct mapping m;

	test_plt(cache, self, "this program (.symtab)");
	/* libc's symbols come from its debug file, its stubs from libc. */
	if (addr && find_mapping(addr, &m))
		test_plt(cache, m.path, "libc (debug file, IRELATIVE stubs)");
	else
		tap_ok(0, "libc's mapping");
	if (libc)
		dlclose(libc);
}

static void test_stripped(struct pm_dso_cache *cache)
{
	const char *sym = "spin", *name = NULL;
	const struct pm_symtab *full = NULL, *bare = NULL;
	const unsigned char *id1 = NULL, *id2 = NULL;
	const char *stripped = tmp_path("stripped");
	char helper[PATH_MAX + 32], cmd[3 * PATH_MAX];
	size_t len1 = 0, len2 = 0;
	struct pm_dso *d1, *d2;
	uint64_t addr, off = 0;
	int err;

	/* The spin helper is built beside the unit tests; else strip ourselves. */
	snprintf(helper, sizeof(helper), "%s", self);
	snprintf(strrchr(helper, '/'), 32, "/../helpers/spin");
	if (access(helper, R_OK)) {
		snprintf(helper, sizeof(helper), "%s", self);
		sym = "pm_test_target";
	}
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' '%s' 2>/dev/null",
		 helper, stripped);
	if (system(cmd) || !nm_address(helper, sym, &addr)) {
		skip("stripped copy", "objcopy or nm failed");
		return;
	}
	d1 = pm_dso_cache__findnew(cache, helper, 0, 0);
	d2 = pm_dso_cache__findnew(cache, stripped, 0, 0);
	if (!d1 || !d2) {
		tap_ok(0, "DSOs for %s and its stripped copy", helper);
		return;
	}
	tap_ok(d1 != d2, "a copy is another DSO");
	err = pm_dso__build_id(d1, &id1, &len1);
	err = err ? err : pm_dso__build_id(d2, &id2, &len2);
	tap_ok(!err && len1 == PM_BUILD_ID_SIZE && len2 == len1 &&
		       !memcmp(id1, id2, len1),
	       "stripped copy keeps the build id (PT_NOTE): %d", err);
	err = pm_dso__symtab(d1, &full);
	tap_ok(!err && sym_is(full, addr, sym, 0),
	       "%s at the address nm gives", sym);
	err = pm_dso__symtab(d2, &bare);
	tap_ok(!err && full && pm_symtab__nr(bare) < pm_symtab__nr(full) &&
		       pm_symtab__find(bare, addr, &name, &off) == -ENOENT,
	       "stripped copy: %zu symbols from .dynsym, %s not among them",
	       err ? 0 : pm_symtab__nr(bare), sym);
}

static void test_cache(struct pm_dso_cache *cache)
{
	const char *a = tmp_path("copy-a"), *b = tmp_path("copy-b");
	const unsigned char *id = NULL;
	struct timespec times[2] = { { 0, UTIME_OMIT }, { 1000000, 0 } };
	struct pm_dso *d1, *d2;
	struct stat st;
	size_t len = 0;

	d1 = pm_dso_cache__findnew(cache, "[vdso]", 0, 0);
	d2 = pm_dso_cache__findnew(cache, "[vdso]", 0, 0);
	tap_ok(d1 && d1 == d2 && !strcmp(pm_dso__path(d1), "[vdso]"),
	       "a name that is no file is cached by name");
	tap_ok(d1 && pm_dso__build_id(d1, &id, &len) == -ENOENT &&
		       pm_dso__build_id(d1, &id, &len) == -ENOENT,
	       "and its failure to open is remembered");

	if (copy_file(self, a) || copy_file(self, b)) {
		tap_ok(0, "copy %s", self);
		return;
	}
	d1 = pm_dso_cache__findnew(cache, a, 0, 0);
	tap_ok(d1 && !pm_dso__build_id(d1, &id, &len), "copy read by path");
	utimensat(AT_FDCWD, a, times, 0);
	d2 = pm_dso_cache__findnew(cache, a, 0, 0);
	tap_ok(d2 && d2 != d1 && !pm_dso__build_id(d1, &id, &len),
	       "rewritten file (new mtime): new DSO, the old one still valid");
	tap_ok(d2 && pm_dso_cache__findnew(cache, a, 0, 0) == d2,
	       "and the new DSO is the one found from then on");

	stat(b, &st);
	d1 = pm_dso_cache__findnew(cache, b, st.st_dev, st.st_ino);
	rename(a, b);
	tap_ok(d1 && pm_dso__build_id(d1, &id, &len) == -ESTALE,
	       "path now names another inode: -ESTALE");
	unlink(b);
}

/* Files by inode and by name alone, many: each is found again as itself. */
static void test_many(struct pm_dso_cache *cache)
{
	enum { NR = 3000 };
	static struct pm_dso *d[NR];
	struct pm_dso *again, *other;
	size_t i, same = 0;
	char name[32];

	for (i = 0; i < NR; i++) {
		snprintf(name, sizeof(name), "[anon:%zu]", i);
		d[i] = pm_dso_cache__findnew(cache, name, i % 2 ? 7 : 0, i % 2 ? 1000 + i : 0);
	}
	for (i = 0; i < NR; i++) {
		snprintf(name, sizeof(name), "[anon:%zu]", i);
		again = pm_dso_cache__findnew(cache, name, i % 2 ? 7 : 0, i % 2 ? 1000 + i : 0);
		same += d[i] && again == d[i] && !strcmp(pm_dso__path(again), name);
	}
	tap_ok(same == NR, "%zu of %d files found again as themselves", same, NR);
	other = pm_dso_cache__findnew(cache, "[anon:1]", 8, 1001);
	tap_ok(other && other != d[1], "the same inode on another device is another file");
}

static void cleanup(void)
{
	static const char *const files[] = {
		"fake-symtab", "fake-dynsym", "stripped",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(tmp_path(files[i]));
	rmdir(tmpdir);
}

int main(void)
{
	struct pm_dso_cache *cache;

	if (fixture__init("test-dso")) {
		printf("Bail out! cannot set up: %s\n", strerror(errno));
		return 1;
	}
	cache = pm_dso_cache__new();
	if (!cache) {
		printf("Bail out! pm_dso_cache__new: %s\n", strerror(errno));
		return 1;
	}
	test_fake_elf(cache, SHT_SYMTAB, "fake-symtab");
	test_fake_elf(cache, SHT_DYNSYM, "fake-dynsym");
	test_self_symbols(cache);
	test_libc_dynsym(cache);
	test_plts(cache);
	test_stripped(cache);
	test_cache(cache);
	test_many(cache);
	pm_dso_cache__delete(cache);
	cleanup();
	return tap_done();
}
