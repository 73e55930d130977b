// SPDX-License-Identifier: GPL-2.0
/*
 * The embedded symbols (lib/symbols/symarchive.h): a payload written and read back
 * names what it was given, and every field the layout bounds, made wrong
 * one at a time, is refused with the offset of the field; the table of an
 * open ELF file (this test's) names its functions at their file offsets.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "symbols/elf.h"
#include "symbols/kallsyms.h"
#include "symbols/symarchive.h"
#include "symbols/symtab.h"
#include "tap.h"

static const unsigned char id_a[20] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					11, 12, 13, 14, 15, 16, 17, 18, 19 };
static const unsigned char id_b[8] = { 0xbb, 1, 2, 3, 4, 5, 6, 7 };

static const struct pm_symarchive_sym file_syms[] = {
	{ .start = 0x1000, .size = 0x20, .name = "main" },
	{ .start = 0x1040, .size = 0x10, .name = "helper" },
};
static const struct pm_symarchive_sym kernel_syms[] = {
	{ .start = 0xffffffff81000000, .size = 0x100, .name = "do_syscall_64" },
	{ .start = 0xffffffff81000200, .size = 0x80, .name = "read_zero" },
};
static const struct pm_symarchive_sym module_syms[] = {
	{ .start = 0xffffffffc0000000, .size = 0x40, .name = "mod_fn" },
};

/* A payload of two files, the kernel image and one module. */
static int build(struct pm_buf *b)
{
	return pm_symarchive__begin(b) ?:
	       pm_symarchive__add(b, &(struct pm_symarchive_table){
		       .kind = PM_SYMARCHIVE_FILE, .path = "/tmp/prog", .build_id = id_a,
		       .build_id_len = sizeof(id_a), .syms = file_syms, .nr_syms = 2 }) ?:
	       pm_symarchive__add(b, &(struct pm_symarchive_table){
		       .kind = PM_SYMARCHIVE_FILE, .path = "/lib/empty.so", .build_id = id_b,
		       .build_id_len = sizeof(id_b) }) ?:
	       pm_symarchive__add(b, &(struct pm_symarchive_table){
		       .kind = PM_SYMARCHIVE_KERNEL, .path = "[kernel.kallsyms]",
		       .syms = kernel_syms, .nr_syms = 2 }) ?:
	       pm_symarchive__add(b, &(struct pm_symarchive_table){
		       .kind = PM_SYMARCHIVE_KERNEL, .path = "[mymod]", .syms = module_syms,
		       .nr_syms = 1 }) ?:
	       pm_symarchive__end(b);
}

static bool file_names(const struct pm_symtab *st, uint64_t addr, const char *want,
		       uint64_t want_off)
{
	const char *name;
	uint64_t off;

	if (pm_symtab__find(st, addr, &name, &off))
		return !want;
	return want && !strcmp(name, want) && off == want_off;
}

static bool kernel_names(const struct pm_kallsyms *ks, uint64_t addr, const char *want,
			 const char *want_mod)
{
	const char *name, *mod;
	uint64_t off;

	if (pm_kallsyms__find(ks, addr, &name, &mod, &off))
		return !want;
	return want && !strcmp(name, want) && !want_mod == !mod &&
	       (!mod || !strcmp(mod, want_mod));
}

static void test_round_trip(void)
{
	struct pm_symarchive_error e = { 0 };
	struct pm_buf b = { 0 };
	struct pm_symarchive *a;
	const struct pm_symtab *st;
	struct pm_kallsyms *ks;

	tap_ok(!build(&b), "a payload of two files, the kernel and a module is written");
	tap_ok(b.len % 8 == 0 && !memcmp(b.data, "PMRECSYM", 8), "it is 8-aligned and starts with the magic");
	a = pm_symarchive__decode(b.data, b.len, 1000, &e);
	tap_ok(a != NULL, "it reads back");
	if (!a) {
		pm_buf__exit(&b);
		return;
	}
	tap_ok(pm_symarchive__nr_tables(a) == 4, "four tables");
	st = pm_symarchive__file(a, id_a, sizeof(id_a));
	tap_ok(st && pm_symtab__nr(st) == 2 && file_names(st, 0x1000, "main", 0) &&
		       file_names(st, 0x101f, "main", 0x1f) && file_names(st, 0x1020, NULL, 0) &&
		       file_names(st, 0x1045, "helper", 5) && file_names(st, 0xfff, NULL, 0),
	       "a file's symbols name what they cover, at file offsets, and nothing else");
	st = pm_symarchive__file(a, id_b, sizeof(id_b));
	tap_ok(st && !pm_symtab__nr(st), "a file of no symbols is found, empty");
	tap_ok(!pm_symarchive__file(a, id_a, 8) && !pm_symarchive__file(a, id_b, 7),
	       "a build id is matched whole, length included");
	tap_ok(pm_symarchive__has_kernel(a), "it has kernel symbols");
	ks = pm_symarchive__kallsyms(a);
	tap_ok(ks && kernel_names(ks, 0xffffffff81000010, "do_syscall_64", NULL) &&
		       kernel_names(ks, 0xffffffff81000250, "read_zero", NULL) &&
		       kernel_names(ks, 0xffffffff81000150, NULL, NULL) &&
		       kernel_names(ks, 0xffffffffc0000004, "mod_fn", "mymod"),
	       "the kernel's and the module's symbols name their addresses, with the module");
	pm_kallsyms__delete(ks);
	pm_symarchive__delete(a);
	pm_buf__exit(&b);
}

/*
 * Two tables of one build id (archives written before the writer keyed
 * them by id): the first is used, and the second's symbols name nothing.
 */
static void test_repeated_id(void)
{
	static const struct pm_symarchive_sym other[] = {
		{ .start = 0x3000, .size = 0x10, .name = "second" },
	};
	struct pm_symarchive_error e = { 0 };
	struct pm_buf b = { 0 };
	struct pm_symarchive *a;
	const struct pm_symtab *st;
	int err;

	err = pm_symarchive__begin(&b) ?:
	      pm_symarchive__add(&b, &(struct pm_symarchive_table){
		      .kind = PM_SYMARCHIVE_FILE, .path = "/a/prog", .build_id = id_a,
		      .build_id_len = sizeof(id_a), .syms = file_syms, .nr_syms = 2 }) ?:
	      pm_symarchive__add(&b, &(struct pm_symarchive_table){
		      .kind = PM_SYMARCHIVE_FILE, .path = "/b/prog", .build_id = id_a,
		      .build_id_len = sizeof(id_a), .syms = other, .nr_syms = 1 }) ?:
	      pm_symarchive__end(&b);
	a = err ? NULL : pm_symarchive__decode(b.data, b.len, 0, &e);
	st = a ? pm_symarchive__file(a, id_a, sizeof(id_a)) : NULL;
	tap_ok(st && file_names(st, 0x1000, "main", 0) && file_names(st, 0x3000, NULL, 0),
	       "two tables of one build id: the first is used");
	pm_symarchive__delete(a);
	pm_buf__exit(&b);
}

static void test_writer_refuses(void)
{
	static const struct pm_symarchive_sym unsorted[] = {
		{ .start = 0x2000, .size = 1, .name = "b" },
		{ .start = 0x1000, .size = 1, .name = "a" },
	};
	static const struct pm_symarchive_sym empty_size[] = {
		{ .start = 0x2000, .size = 0, .name = "z" },
	};
	struct pm_buf b = { 0 };

	pm_symarchive__begin(&b);
	tap_ok(pm_symarchive__add(&b, &(struct pm_symarchive_table){
		       .kind = PM_SYMARCHIVE_FILE, .path = "/x", .build_id = id_a,
		       .build_id_len = 20, .syms = unsorted, .nr_syms = 2 }) == -EINVAL &&
		       pm_symarchive__add(&b, &(struct pm_symarchive_table){
			       .kind = PM_SYMARCHIVE_FILE, .path = "/x", .build_id = id_a,
			       .build_id_len = 20, .syms = empty_size, .nr_syms = 1 }) == -EINVAL &&
		       pm_symarchive__add(&b, &(struct pm_symarchive_table){
			       .kind = PM_SYMARCHIVE_FILE, .path = "/x" }) == -EINVAL,
	       "the writer refuses unsorted symbols, a size 0, a file without a build id");
	tap_ok(b.len == 32, "and leaves the payload as it was");
	pm_buf__exit(&b);
}

/* A copy of the good payload with a u32 (or u16, u8, u64) at off set to v. */
static bool refused_at(const struct pm_buf *good, size_t off, size_t width, uint64_t v,
		       size_t want_off, const char *what)
{
	struct pm_symarchive_error e = { 0 };
	unsigned char *p = malloc(good->len);
	struct pm_symarchive *a;
	bool ok;

	memcpy(p, good->data, good->len);
	memcpy(p + off, &v, width);
	a = pm_symarchive__decode(p, good->len, 4096, &e);
	ok = !a && errno == EBADMSG && e.reason && e.offset == 4096 + want_off;
	if (!ok)
		printf("# %s: %s at %llu (want %zu)\n", what, e.reason ? e.reason : "accepted",
		       (unsigned long long)e.offset - 4096, want_off);
	pm_symarchive__delete(a);
	free(p);
	return ok;
}

static void test_reader_refuses(void)
{
	/* Offsets in the payload of build(): header 32, first table at 32, its path at 72. */
	const size_t t = 32, syms = 32 + 40 + 16, names = syms + 32;
	struct pm_symarchive_error e = { 0 };
	struct pm_buf b = { 0 };
	size_t cut;
	bool all = true;

	build(&b);
	tap_ok(refused_at(&b, 0, 1, 'X', 0, "magic") && refused_at(&b, 8, 4, 2, 8, "version") &&
		       refused_at(&b, 12, 4, PM_SYMARCHIVE_MAX_TABLES + 1, 12, "tables") &&
		       refused_at(&b, 16, 8, b.len + 8, 16, "size") &&
		       refused_at(&b, 24, 8, 1, 24, "reserved"),
	       "header: magic, version, table count, size and reserved bytes are checked");
	tap_ok(refused_at(&b, t, 4, 3, t, "kind") &&
		       refused_at(&b, t + 4, 4, PM_SYMARCHIVE_MAX_SYMS + 1, t + 4, "nr_syms") &&
		       refused_at(&b, t + 4, 4, 1000, t, "nr_syms past the end") &&
		       refused_at(&b, t + 8, 4, PM_SYMARCHIVE_MAX_NAMES + 1, t + 8, "names_size") &&
		       refused_at(&b, t + 12, 2, 0, t + 12, "path_len 0") &&
		       refused_at(&b, t + 12, 2, 5000, t + 12, "path_len too long") &&
		       refused_at(&b, t + 12, 2, 4, t + 40, "path without its NUL") &&
		       refused_at(&b, t + 14, 1, 21, t + 14, "build id length") &&
		       refused_at(&b, t + 14, 1, 0, t + 14, "file without build id") &&
		       refused_at(&b, t + 15, 1, 1, t + 15, "reserved"),
	       "table: kind, counts, sizes, path and build id are checked, each at its offset");
	tap_ok(refused_at(&b, syms + 8, 4, 0, syms, "size 0") &&
		       refused_at(&b, syms, 8, UINT64_MAX - 4, syms, "wrapping") &&
		       refused_at(&b, syms + 16, 8, 0x1000, syms + 16, "order") &&
		       refused_at(&b, syms + 12, 4, 12, syms + 12, "name offset") &&
		       refused_at(&b, syms + 28, 4, 0, syms + 28, "a name used twice") &&
		       refused_at(&b, t + 8, 4, 16, syms + 32, "names not all used") &&
		       refused_at(&b, names + 11, 1, 'x', syms + 32, "names end"),
	       "symbols: sizes, order, names each used once and in order, the names' end");
	for (cut = 0; cut < b.len && all; cut += 8)
		if (pm_symarchive__decode(b.data, cut, 0, &e) || errno != EBADMSG)
			all = false;
	tap_ok(all, "every truncation is refused");
	pm_buf__exit(&b);
}

/* The file offset of fn in this test's binary, from the mapping that holds it. */
static int self_offset(const void *fn, uint64_t *off)
{
	unsigned long long start, end, pgoff;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int err = -ENOENT;

	while (f && err && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &pgoff) == 3 &&
		    (uintptr_t)fn >= start && (uintptr_t)fn < end) {
			*off = (uintptr_t)fn - start + pgoff;
			err = 0;
		}
	if (f)
		fclose(f);
	return err;
}

static int refuse(void *arg, const unsigned char *id, size_t len)
{
	(void)arg;
	(void)id;
	return len ? -EEXIST : -EINVAL;
}

static void test_from_elf(void)
{
	unsigned char id[PM_BUILD_ID_SIZE], want[PM_BUILD_ID_SIZE];
	size_t id_len = 0, want_len = 0;
	struct pm_symarchive_error e;
	struct pm_symarchive *a = NULL;
	struct pm_buf b = { 0 };
	const struct pm_symtab *st;
	char self[4096] = "";
	uint64_t off = 0;
	bool cut = true;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), err;

	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		self[0] = '\0';

	err = pm_symarchive__begin(&b) ?:
	      pm_symarchive__add_elf(&b, fd, "/kept/prog", 1u << 20, NULL, NULL, id, &id_len, &cut) ?:
	      pm_symarchive__end(&b);
	tap_ok(!err && !cut && fcntl(fd, F_GETFD) < 0, "an open ELF file's table is written, the fd closed (%d)", err);
	tap_ok(!pm_elf__build_id(self, want, &want_len) && want_len == id_len &&
	       !memcmp(id, want, id_len), "... keyed by the file's build id");
	if (!err)
		a = pm_symarchive__decode(b.data, b.len, 0, &e);
	st = a ? pm_symarchive__file(a, id, id_len) : NULL;
	tap_ok(st && !self_offset((const void *)test_from_elf, &off) &&
	       file_names(st, off + 1, "test_from_elf", 1),
	       "a function is named at its file offset, as a mapping's ip - start + pgoff");
	pm_symarchive__delete(a);
	b.len = 0;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	err = pm_symarchive__begin(&b) ?: pm_symarchive__add_elf(&b, fd, "/p", 2, NULL, NULL, id, &id_len, &cut);
	tap_ok(!err && cut, "more symbols than allowed: the table is cut, and says so");
	b.len = 0;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	err = pm_symarchive__begin(&b) ?:
	      pm_symarchive__add_elf(&b, fd, "/p", 10, refuse, NULL, id, &id_len, &cut);
	tap_ok(err == -EEXIST && b.len == 32 && id_len == want_len && !memcmp(id, want, id_len),
	       "the check sees the build id first; what it refuses adds nothing");
	b.len = 0;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	err = pm_symarchive__begin(&b) ?: pm_symarchive__add_elf(&b, fd, "/p", 2, NULL, NULL, id, &id_len, &cut);
	tap_ok(err == -ENOEXEC && b.len == 32 && fcntl(fd, F_GETFD) < 0,
	       "a file that is no ELF adds nothing (%d), its fd closed", err);
	pm_buf__exit(&b);
}

int main(void)
{
	test_round_trip();
	test_repeated_id();
	test_writer_refuses();
	test_reader_refuses();
	test_from_elf();
	return tap_done();
}
