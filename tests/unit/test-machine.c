// SPDX-License-Identifier: GPL-2.0
/*
 * lib/machine against records built in memory: mappings that overlap,
 * forks, execs, build-id checks, kernel names, and the work bound.
 */
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/elf.h"
#include "symbols/jitsym.h"
#include "symbols/kallsyms.h"
#include "symbols/machine.h"
#include "symbols/vdso.h"
#include "tap.h"

struct rec {
	struct perf_event_header h;
	unsigned char body[4096];
};

/* An MMAP2 record; with id, the build-id form. */
static struct perf_event_header *mmap2(struct rec *r, int32_t pid, uint64_t start, uint64_t len,
				       uint64_t pgoff, uint64_t dev, uint64_t ino,
				       const unsigned char *id, const char *path)
{
	unsigned char *b = r->body;
	size_t name = strlen(path) + 1;
	uint32_t maj = major(dev), min = minor(dev);

	memset(r, 0, sizeof(*r));
	r->h.type = PERF_RECORD_MMAP2;
	r->h.misc = PERF_RECORD_MISC_USER;
	memcpy(b, &pid, 4);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &start, 8);
	memcpy(b + 16, &len, 8);
	memcpy(b + 24, &pgoff, 8);
	if (id) {
		r->h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		b[32] = PM_BUILD_ID_SIZE;
		memcpy(b + 36, id, PM_BUILD_ID_SIZE);
	} else {
		memcpy(b + 32, &maj, 4);
		memcpy(b + 36, &min, 4);
		memcpy(b + 40, &ino, 8);
	}
	memcpy(b + 64, path, name);
	r->h.size = (uint16_t)(8 + 64 + (name + 7) / 8 * 8);
	return &r->h;
}

/* Builds an MMAP2 record in r and hands it to m. */
#define feed(m, r, ...) \
	do { \
		struct perf_event_header *h_ = mmap2(r, __VA_ARGS__); \
		pm_machine__event(m, h_, h_->size - 8u); \
	} while (0)

/* A FORK record: the new task pid/tid, created by ppid/ptid. */
static void fork_task(struct pm_machine *m, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
	struct rec r = { .h = { .type = PERF_RECORD_FORK, .size = 8 + 24 } };
	uint32_t v[4] = { (uint32_t)pid, (uint32_t)ppid, (uint32_t)tid, (uint32_t)ptid };

	memcpy(r.body, v, sizeof(v));
	pm_machine__event(m, &r.h, 24);
}

static void fork_rec(struct pm_machine *m, int32_t pid, int32_t ppid)
{
	fork_task(m, pid, ppid, pid, ppid);
}

static void comm_rec(struct pm_machine *m, int32_t pid, const char *comm, bool exec)
{
	struct rec r = { .h = { .type = PERF_RECORD_COMM, .size = 8 + 24 } };

	if (exec)
		r.h.misc = PERF_RECORD_MISC_COMM_EXEC;
	memcpy(r.body, &pid, 4);
	memcpy(r.body + 4, &pid, 4);
	strncpy((char *)r.body + 8, comm, 15);
	pm_machine__event(m, &r.h, 24);
}

__attribute__((noinline)) unsigned long pm_machine_target(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = x * 31 + i;
	return x;
}

struct self_map {
	uint64_t start, end, pgoff, dev, ino;
	char path[PATH_MAX];
};

static bool self_map(const void *addr, struct self_map *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char line[PATH_MAX + 128];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %4095s", &start, &end, &pgoff, &maj,
			   &min, &ino, m->path) != 7 ||
		    (uintptr_t)addr < start || (uintptr_t)addr >= end)
			continue;
		*m = (struct self_map){ start, end, pgoff, makedev(maj, min), ino, "" };
		sscanf(line, "%*s %*s %*s %*s %*s %4095s", m->path);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

static void test_own_text(void)
{
	struct pm_machine *m = pm_machine__new();
	struct self_map sm;
	struct pm_frame f;
	struct rec r;
	uint64_t ip = (uintptr_t)pm_machine_target;

	if (!tap_ok(self_map((void *)pm_machine_target, &sm), "own text in /proc/self/maps"))
		return;
	feed(m, &r, 100, sm.start, sm.end - sm.start, sm.pgoff, sm.dev, sm.ino,
				   NULL, sm.path);
	pm_machine__resolve(m, 100, PERF_RECORD_MISC_USER, ip + 3, &f);
	tap_ok(f.sym && !strcmp(f.sym, "pm_machine_target") && f.off == 3 && f.dso &&
	       !strcmp(f.dso, sm.path), "own function: %s+%llu in %s", f.sym ? f.sym : "(null)",
	       (unsigned long long)f.off, f.dso ? f.dso : "(null)");
	pm_machine__resolve(m, 101, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(!f.sym && !f.dso, "another pid has no maps");
	pm_machine__resolve(m, 100, PERF_RECORD_MISC_USER, sm.end, &f);
	tap_ok(!f.dso, "the end of a map is outside it");
	pm_machine__resolve(m, 100, PERF_RECORD_MISC_HYPERVISOR, ip, &f);
	tap_ok(!f.dso && !f.sym, "hypervisor addresses stay unnamed");

	fork_rec(m, 200, 100);
	pm_machine__resolve(m, 200, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(f.sym && !strcmp(f.sym, "pm_machine_target"), "a forked process inherits the maps");
	comm_rec(m, 200, "child", true);
	pm_machine__resolve(m, 200, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(!f.dso, "exec empties the address space");
	tap_ok(pm_machine__comm(m, 200) && !strcmp(pm_machine__comm(m, 200), "child"),
	       "the comm of the exec is kept");
	pm_machine__resolve(m, 100, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(f.sym != NULL, "the parent keeps its maps");
	pm_machine__delete(m);
}

static bool comm_is(const struct pm_machine *m, int32_t tid, const char *want)
{
	const char *c = pm_machine__comm(m, tid);

	return want ? c && !strcmp(c, want) : !c;
}

/* Names of tasks the kernel never sent a COMM for: their parent's, as perf's. */
static void test_fork_comm(void)
{
	struct pm_machine *m = pm_machine__new();

	comm_rec(m, 100, "server", false);
	fork_rec(m, 200, 100);
	tap_ok(comm_is(m, 200, "server"), "a forked process goes by its parent's name");
	fork_task(m, 100, 100, 101, 100);
	tap_ok(comm_is(m, 101, "server"), "a new thread goes by its creator's name");
	comm_rec(m, 200, "worker", false);
	tap_ok(comm_is(m, 200, "worker") && comm_is(m, 100, "server"),
	       "its own COMM renames the child alone");
	fork_task(m, 200, 200, 202, 200);
	tap_ok(comm_is(m, 202, "worker"), "a thread of the renamed child takes the new name");
	fork_rec(m, 300, 299);
	tap_ok(comm_is(m, 300, NULL), "the child of an unnamed task stays unnamed");
	tap_ok(comm_is(m, 0, "swapper"), "the idle task, tid 0, is swapper (perf's name)");
	comm_rec(m, 0, "idle", false);
	tap_ok(comm_is(m, 0, "idle"), "unless a COMM names it");
	pm_machine__delete(m);
}

static const char *dso_at(struct pm_machine *m, uint64_t addr)
{
	struct pm_frame f;

	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, addr, &f);
	return f.dso ? f.dso : "-";
}

static void test_overlaps(void)
{
	struct pm_machine *m = pm_machine__new();
	uint64_t gen;
	struct rec r;

	feed(m, &r, 1, 0x10000, 0x40000, 0, 0, 0, NULL, "[a]");
	feed(m, &r, 1, 0x20000, 0x10000, 0, 0, 0, NULL, "[b]");
	tap_ok(!strcmp(dso_at(m, 0x1ffff), "[a]") && !strcmp(dso_at(m, 0x20000), "[b]") &&
	       !strcmp(dso_at(m, 0x2ffff), "[b]") && !strcmp(dso_at(m, 0x30000), "[a]") &&
	       !strcmp(dso_at(m, 0x4ffff), "[a]") && !strcmp(dso_at(m, 0x50000), "-"),
	       "a map inside another splits it in three");
	gen = pm_machine__generation(m);
	feed(m, &r, 1, 0x08000, 0x30000, 0, 0, 0, NULL, "[c]");
	tap_ok(pm_machine__generation(m) != gen && !strcmp(dso_at(m, 0x20000), "[c]") &&
	       !strcmp(dso_at(m, 0x1ffff), "[c]"),
	       "addresses named before a new map are named by it after (a new generation)");
	tap_ok(!strcmp(dso_at(m, 0x8000), "[c]") && !strcmp(dso_at(m, 0x37fff), "[c]") &&
	       !strcmp(dso_at(m, 0x38000), "[a]") && !strcmp(dso_at(m, 0x7fff), "-"),
	       "a map over several replaces and trims them");
	feed(m, &r, 1, 0x60000, 0, 0, 0, 0, NULL, "[d]");
	tap_ok(!strcmp(dso_at(m, 0x60000), "-"), "an empty map is ignored");
	pm_machine__delete(m);
}

static void test_build_ids(void)
{
	unsigned char id[PM_BUILD_ID_SIZE], wrong[PM_BUILD_ID_SIZE];
	uint64_t ip = (uintptr_t)pm_machine_target;
	struct pm_machine *m;
	struct self_map sm;
	struct pm_frame f;
	struct rec r;
	size_t len;

	if (!self_map((void *)pm_machine_target, &sm) || pm_elf__build_id(sm.path, id, &len) ||
	    len != PM_BUILD_ID_SIZE) {
		tap_ok(0, "own build id");
		return;
	}
	memcpy(wrong, id, sizeof(id));
	wrong[0] ^= 0xff;

	m = pm_machine__new();
	feed(m, &r, 1, sm.start, sm.end - sm.start, sm.pgoff, 0, 0, id, sm.path);
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(f.sym && !strcmp(f.sym, "pm_machine_target") && !f.refused_now,
	       "the recorded build id matches: named");
	feed(m, &r, 2, sm.start, sm.end - sm.start, sm.pgoff, 0, 0, wrong,
				   sm.path);
	pm_machine__resolve(m, 2, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(!f.sym && f.dso && f.refused_now && strstr(f.refusal, "build id differs"),
	       "another build id in MMAP2: refused (%s)", f.refusal ? f.refusal : "");
	pm_machine__resolve(m, 2, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(!f.sym && !f.refused_now, "refused again, said only once");
	pm_machine__delete(m);

	m = pm_machine__new();
	pm_machine__expect_build_id(m, sm.path, wrong, sizeof(wrong));
	feed(m, &r, 1, sm.start, sm.end - sm.start, sm.pgoff, sm.dev, sm.ino,
				   NULL, sm.path);
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(!f.sym && f.refused_now, "another build id in BUILD_ID: refused");
	pm_machine__delete(m);

	m = pm_machine__new();
	feed(m, &r, 1, sm.start, sm.end - sm.start, sm.pgoff, sm.dev,
				   sm.ino + 1, NULL, sm.path);
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(!f.sym && f.refused_now && strstr(f.refusal, "replaced"),
	       "another inode at the path: refused (%s)", f.refusal ? f.refusal : "");
	pm_machine__delete(m);
}

static void test_kernel(void)
{
	char path[] = "/tmp/pmrec-test-kallsyms.XXXXXX";
	struct pm_machine *m = pm_machine__new();
	struct perf_event_header *h;
	struct pm_frame f;
	struct rec r;
	FILE *fp;
	int fd = mkstemp(path);

	fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!tap_ok(fp != NULL, "fake kallsyms"))
		return;
	fputs("ffffffff81000000 T _text\nffffffff81000100 T do_work\n"
	      "ffffffff81000200 T other\nffffffffc0000000 t modfn\t[ext4]\n"
	      "ffffffffc0001000 t end\t[ext4]\n", fp);
	fclose(fp);
	pm_machine__resolve(m, -1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000110, &f);
	tap_ok(!f.sym && !f.dso, "without kallsyms kernel addresses stay unnamed");
	h = mmap2(&r, -1, 0xffffffff81000000, 0x1000, 0xffffffff81000000, 0, 0, NULL,
		  "[kernel.kallsyms]_text");
	h->misc = PERF_RECORD_MISC_KERNEL;
	pm_machine__event(m, h, h->size - 8u);
	pm_machine__resolve(m, -1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000110, &f);
	tap_ok(!f.sym && f.dso && !strcmp(f.dso, "[kernel.kallsyms]"),
	       "without kallsyms: the recorded kernel text is [kernel.kallsyms], as perf's map");
	pm_machine__resolve(m, -1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0000004, &f);
	tap_ok(!f.sym && !f.dso, "without kallsyms: outside the recorded text, no file");
	pm_machine__set_kallsyms(m, pm_kallsyms__load(path));
	pm_machine__resolve(m, -1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000110, &f);
	tap_ok(f.sym && !strcmp(f.sym, "do_work") && f.off == 0x10 && f.dso &&
	       !strcmp(f.dso, "[kernel.kallsyms]"), "kernel: do_work+0x10 in [kernel.kallsyms]");
	pm_machine__resolve(m, -1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0000004, &f);
	tap_ok(f.sym && !strcmp(f.sym, "modfn") && f.dso && !strcmp(f.dso, "[ext4]"),
	       "module: modfn in [ext4]");
	unlink(path);
	pm_machine__delete(m);
}

/*
 * Maps inserted from the top down move the whole table each time: the
 * quadratic case a hostile file would use.  It must stop, not spin.
 */
static void test_work_bound(void)
{
	struct pm_machine *m = pm_machine__new();
	struct rec r;
	uint64_t i;

	for (i = 0; i < 100000 && !pm_machine__overloaded(m); i++)
		feed(m, &r, 1, 0x7f0000000000ULL - i * 0x2000, 0x1000, 0, 0, 0,
					   NULL, "[x]");
	tap_ok(pm_machine__overloaded(m) && i > 5000,
	       "top-down inserts stop at the work bound after %llu maps", (unsigned long long)i);
	pm_machine__delete(m);

	m = pm_machine__new();
	for (i = 0; i < 20000; i++)
		feed(m, &r, 1, 0x400000 + i * 0x2000, 0x1000, 0, 0, 0, NULL,
					   "[y]");
	tap_ok(!pm_machine__overloaded(m) && !strcmp(dso_at(m, 0x400000 + 19999 * 0x2000), "[y]"),
	       "20000 maps in address order stay well within it");
	pm_machine__delete(m);
}

static void test_truncated(void)
{
	struct pm_machine *m = pm_machine__new();
	struct rec r;

	mmap2(&r, 1, 0x1000, 0x1000, 0, 0, 0, NULL, "[z]");
	memset(r.body + 64, 'x', 16);
	pm_machine__event(m, &r.h, 64 + 16);
	tap_ok(!strcmp(dso_at(m, 0x1000), "-"), "a file name without its NUL is not taken");
	tap_ok(pm_machine__event(m, &r.h, 10) == 0, "a record shorter than MMAP2 is ignored");
	pm_machine__delete(m);
}

/* JIT names: in anonymous memory and in no mapping, never over a file's. */
static void test_jit(void)
{
	struct pm_machine *m = pm_machine__new();
	struct pm_jitsyms *jit = pm_jitsyms__new();
	uint64_t ip = (uintptr_t)pm_machine_target, gen;
	struct self_map sm;
	struct pm_frame f;
	struct rec r;

	if (!self_map((void *)pm_machine_target, &sm))
		return;
	feed(m, &r, 300, 0x10000, 0x1000, 0, 0, 0, NULL, "//anon");
	feed(m, &r, 300, 0x20000, 0x1000, 0, 0, 0, NULL, "[anon:v8 code]");
	feed(m, &r, 300, sm.start, sm.end - sm.start, sm.pgoff, sm.dev, sm.ino, NULL, sm.path);
	pm_machine__set_jitsyms(m, jit);
	pm_machine__resolve(m, 300, PERF_RECORD_MISC_USER, 0x10010, &f);
	tap_ok(!f.sym && f.dso && !strcmp(f.dso, "//anon"), "anonymous memory without JIT names: its map");
	gen = pm_machine__generation(m);
	pm_jitsyms__add(jit, &(struct pm_jitsym_add){ .pid = 300, .start = 0x10000, .size = 0x100,
						      .name = "jitted", .name_len = 6,
						      .dso = "/tmp/perf-300.map" });
	pm_jitsyms__add(jit, &(struct pm_jitsym_add){ .pid = 300, .start = 0x20000, .size = 0x100,
						      .name = "named", .name_len = 5 });
	pm_jitsyms__add(jit, &(struct pm_jitsym_add){ .pid = 300, .start = 0x30000, .size = 0x100,
						      .name = "nomap", .name_len = 5 });
	pm_jitsyms__add(jit, &(struct pm_jitsym_add){ .pid = 300, .start = ip, .size = 0x10,
						      .name = "over a file", .name_len = 11 });
	tap_ok(pm_machine__generation(m) != gen, "JIT names start a generation");
	pm_machine__resolve(m, 300, PERF_RECORD_MISC_USER, 0x10010, &f);
	tap_ok(f.sym && !strcmp(f.sym, "jitted") && f.off == 0x10 && !strcmp(f.dso, "/tmp/perf-300.map"),
	       "anonymous memory: the JIT name, cached resolution dropped");
	pm_machine__resolve(m, 300, PERF_RECORD_MISC_USER, 0x20001, &f);
	tap_ok(f.sym && !strcmp(f.sym, "named") && !strcmp(f.dso, "[anon:v8 code]"),
	       "named anonymous memory, the map's name as dso");
	pm_machine__resolve(m, 300, PERF_RECORD_MISC_USER, 0x30000, &f);
	tap_ok(f.sym && !strcmp(f.sym, "nomap") && !f.dso, "no mapping: the JIT name");
	pm_machine__resolve(m, 300, PERF_RECORD_MISC_USER, ip, &f);
	tap_ok(f.sym && !strcmp(f.sym, "pm_machine_target"), "a file's own symbols win");
	pm_machine__resolve(m, 300, PERF_RECORD_MISC_KERNEL, 0x10010, &f);
	tap_ok(!f.sym, "never for kernel addresses");
	pm_machine__delete(m);
	pm_jitsyms__delete(jit);
}

/*
 * An address of a file's mapping is at address - start + pgoff in the file
 * (named or not, refused or missing); anonymous memory and the kernel have
 * no file (perf's identity map_ip).
 */
static void test_file_offsets(void)
{
	struct pm_machine *m = pm_machine__new();
	struct pm_frame f;
	struct rec r;

	feed(m, &r, 1, 0x7f0000010000, 0x20000, 0x3000, 0, 0, NULL, "/nonexistent/liblzma.so.5");
	feed(m, &r, 1, 0x7f0000040000, 0x2000, 0x7f0000040, 0, 0, NULL, "//anon");
	feed(m, &r, 1, 0x7f0000050000, 0x2000, 0, 0, 0, NULL, "[vdso]");
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, 0x7f0000022bc9, &f);
	tap_ok(!f.sym && f.in_file && f.dsoff == 0x15bc9, "a missing file: offset %#llx in it",
	       (unsigned long long)f.dsoff);
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, 0x7f0000040123, &f);
	tap_ok(!f.sym && !f.in_file && f.dso, "anonymous memory has no file offset");
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, 0x7f0000050a10, &f);
	tap_ok(!f.sym && f.in_file && f.dsoff == 0xa10, "[vdso]: offset in it, as perf's");
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, 0x7f0000090000, &f);
	tap_ok(!f.dso && !f.in_file, "outside every mapping: none");
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000000, &f);
	tap_ok(!f.in_file, "kernel addresses: none");
	pm_machine__delete(m);
}

/* The value of the vDSO's __vdso_clock_gettime (its offset: the image is linked at 0), or 0. */
static uint64_t vdso_clock_gettime(void)
{
	int fd = pm_vdso__memfd();
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	uint64_t value = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	size_t i;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM ?
			      elf_getdata(scn, NULL) : NULL;

		for (i = 0; d && i < sh.sh_size / sh.sh_entsize && gelf_getsym(d, (int)i, &sym); i++)
			if (!strcmp(elf_strptr(elf, sh.sh_link, sym.st_name) ?: "",
				    "__vdso_clock_gettime"))
				value = sym.st_value;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return value;
}

/*
 * "[vdso]" of the recorded build id is named from the running vDSO; one
 * mapped below 4 GiB (a 32-bit process's, another image) is "[vdso32]"
 * and named from nothing.
 */
static void test_vdso(void)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), fn;
	unsigned char id[PM_BUILD_ID_SIZE];
	struct pm_machine *m;
	struct pm_frame f;
	struct rec r;
	size_t len;

	elf_version(EV_CURRENT);
	fn = vdso_clock_gettime();
	if (!base || !fn || pm_vdso__build_id(id, &len)) {
		tap_ok(0, "this process's vDSO, its build id and __vdso_clock_gettime");
		return;
	}
	m = pm_machine__new();
	pm_machine__expect_build_id(m, PM_VDSO_NAME, id, len);
	feed(m, &r, 1, base, 0x2000, 0, 0, 0, NULL, PM_VDSO_NAME);
	pm_machine__resolve(m, 1, PERF_RECORD_MISC_USER, base + fn + 1, &f);
	tap_ok(f.sym && !strcmp(f.sym, "__vdso_clock_gettime") && f.dso &&
	       !strcmp(f.dso, PM_VDSO_NAME), "[vdso]: %s", f.sym ? f.sym : "(no name)");
	feed(m, &r, 2, 0xf7fc0000, 0x2000, 0, 0, 0, NULL, PM_VDSO_NAME);
	pm_machine__resolve(m, 2, PERF_RECORD_MISC_USER, 0xf7fc0000 + fn + 1, &f);
	tap_ok(!f.sym && f.dso && !strcmp(f.dso, PM_VDSO32_NAME),
	       "a 32-bit process's: [vdso32], not named from this one: %s", f.dso ? f.dso : "");
	pm_machine__delete(m);
}

int main(void)
{
	test_own_text();
	test_fork_comm();
	test_overlaps();
	test_build_ids();
	test_kernel();
	test_work_bound();
	test_truncated();
	test_jit();
	test_file_offsets();
	test_vdso();
	return tap_done();
}
