// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for annotate's pieces that need no recording: the source
 * lines it shows (line ends, a last line without a newline, lines out of
 * range, files it must not read) and an annotation's refusals (kernel
 * code, a missing file, another build id than recorded); and kernel
 * functions from a kcore built here: the samples on their instructions by
 * address, and each refusal (another kernel, no segment, no kcore, no
 * kallsyms).
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/annotate.h"
#include "tap.h"

static char dir[] = "/tmp/test-annotate.XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static const struct pm_source_owner root_owner = { 0, 0 };

static int line_is(struct pm_sources *src, const char *path, uint32_t line, const char *want)
{
	const char *text;
	size_t len;

	if (pm_sources__line(src, &root_owner, path, line, &text, &len))
		return want == NULL;
	return want && len == strlen(want) && !memcmp(text, want, len);
}

/*
 * Root shows a source file only if the binary's owner could read it: a
 * 0600 root file, or one in a 0700 root directory, is withheld from
 * nobody's binary, and named as withheld; root's binary shows both.
 */
static void test_sources_owner(const char *open_path)
{
	const struct pm_source_owner nobody = { 65534, 65534 };
	struct pm_sources src = { 0 };
	struct pm_source_owner who;
	char secret[96], sub[64], hidden[96];
	const char *text, *withheld;
	size_t len;
	int a, b, c, d;

	if (geteuid() != 0) {
		tap_ok(1, "# SKIP owner rule: needs root");
		return;
	}
	snprintf(secret, sizeof(secret), "%s/secret.c", dir);
	write_file(secret, "int secret;");
	chmod(secret, 0600);
	snprintf(sub, sizeof(sub), "%s/root-only", dir);
	mkdir(sub, 0700);
	snprintf(hidden, sizeof(hidden), "%s/open.c", sub);
	write_file(hidden, "int hidden;");
	chmod(hidden, 0644);
	chmod(dir, 0755);
	a = pm_sources__line(&src, &nobody, secret, 1, &text, &len);
	b = pm_sources__line(&src, &nobody, hidden, 1, &text, &len);
	c = pm_sources__line(&src, &nobody, open_path, 1, &text, &len);
	d = pm_sources__line(&src, &root_owner, secret, 1, &text, &len);
	tap_ok(a == -EACCES && b == -EACCES, "nobody's binary: a 0600 file and one in a 0700 "
	       "directory withheld (%d, %d)", a, b);
	tap_ok(!c && !d, "a file nobody can read is shown, and root's binary shows the secret "
	       "(%d, %d)", c, d);
	tap_ok(pm_sources__withheld(&src, 0, &withheld, &who) && !strcmp(withheld, secret) &&
	       who.uid == 65534 && pm_sources__withheld(&src, 1, &withheld, &who) &&
	       !strcmp(withheld, hidden) && !pm_sources__withheld(&src, 2, &withheld, &who),
	       "the withheld files named, in order");
	tap_ok(geteuid() == 0 && access(secret, R_OK) == 0, "the thread is root again after");
	pm_sources__exit(&src);
	unlink(hidden);
	rmdir(sub);
	unlink(secret);
}

static void test_sources(void)
{
	struct pm_sources src = { 0 };
	char path[64], link_path[64];

	snprintf(path, sizeof(path), "%s/a.c", dir);
	write_file(path, "int x;\r\n\nreturn 1;");
	tap_ok(line_is(&src, path, 1, "int x;"), "line 1, its CR LF cut");
	tap_ok(line_is(&src, path, 2, ""), "an empty line");
	tap_ok(line_is(&src, path, 3, "return 1;"), "a last line without a newline");
	tap_ok(line_is(&src, path, 4, NULL) && line_is(&src, path, 0, NULL),
	       "lines 0 and past the end: none");
	snprintf(link_path, sizeof(link_path), "%s/link.c", dir);
	tap_ok(!symlink(path, link_path) && line_is(&src, link_path, 1, NULL),
	       "a symbolic link is not followed");
	tap_ok(line_is(&src, "/nonexistent/x.c", 1, NULL), "a missing file: no line");
	tap_ok(line_is(&src, path, 3, "return 1;"), "the file read once is still there");
	tap_ok(src.nr == 3, "one entry per file asked for (%zu)", src.nr);
	pm_sources__exit(&src);
	unlink(link_path);
	test_sources_owner(path);
	unlink(path);
}

static void test_refusals(void)
{
	struct pm_annotate_hit hit = { .off = 0x1000, .period = 1, .samples = 1 };
	struct pm_annotate_func f = { .sym = "f", .hits = &hit, .nr_hits = 1, .samples = 1,
				      .period = 1 };
	struct pm_dso_cache *cache = pm_dso_cache__new();
	struct pm_annotate_error e;
	struct pm_annotation a;
	char self[4096] = "", kernel[] = "[kernel.kallsyms]", missing[] = "/nonexistent";
	int err;

	if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0)
		perror("readlink");

	f.dso = kernel;
	f.kernel = true;
	err = pm_annotation__build(&a, &f, cache, NULL, &e);
	tap_ok(err == -ENOTSUP && e.why == PM_ANNOTATE_KERNEL, "kernel code is refused (%d)", err);
	pm_annotation__exit(&a);
	f.dso = missing;
	f.kernel = false;
	err = pm_annotation__build(&a, &f, cache, NULL, &e);
	tap_ok(err && e.why == PM_ANNOTATE_OPEN, "a missing file: its error (%d)", err);
	pm_annotation__exit(&a);
	/* This very program, with a build id it does not have. */
	f.dso = self;
	memset(f.build_id, 0xab, 20);
	f.build_id_len = 20;
	err = pm_annotation__build(&a, &f, cache, NULL, &e);
	tap_ok(err == -ESTALE && e.why == PM_ANNOTATE_BUILD_ID,
	       "another build id than recorded is refused (%d)", err);
	pm_annotation__exit(&a);
	pm_dso_cache__delete(cache);
}

#define KTEXT 0xffffffff81000000ULL

/*
 * A kcore whose one segment at KTEXT holds kfunc at +0x1000 (push; mov;
 * add; dec; jne; pop; ret; nop; nop), its VMCOREINFO note giving the build
 * id 0x11 x 20.
 */
static void write_kcore(const char *path)
{
	static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x01, 0xf8, 0x48,
					      0xff, 0xc8, 0x75, 0xf8, 0x5d, 0xc3, 0x90, 0x90 };
	static const char desc[] = "BUILD-ID=1111111111111111111111111111111111111111\n";
	static unsigned char f[0x1000 + 0x2000];
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2,
	};
	Elf64_Phdr ph[2] = {
		{ .p_type = PT_NOTE, .p_offset = 0x200, .p_filesz = 12 + 12 + sizeof(desc) + 3 },
		{ .p_type = PT_LOAD, .p_offset = 0x1000, .p_vaddr = KTEXT, .p_filesz = 0x2000,
		  .p_memsz = 0x2000 },
	};
	uint32_t nh[3] = { 11, sizeof(desc) - 1, 0 };
	FILE *out = fopen(path, "w");

	memcpy(f, &eh, sizeof(eh));
	memcpy(f + sizeof(eh), ph, sizeof(ph));
	memcpy(f + 0x200, nh, sizeof(nh));
	memcpy(f + 0x200 + 12, "VMCOREINFO", 11);
	memcpy(f + 0x200 + 24, desc, sizeof(desc) - 1);
	memcpy(f + 0x2000, code, sizeof(code));
	if (!out || fwrite(f, 1, sizeof(f), out) != sizeof(f) || fclose(out)) {
		perror(path);
		exit(1);
	}
}

/* Builds f from the kcore at path and kallsyms ks, the recorded kernel's build id 0xid x 20. */
static int build_kernel(struct pm_annotation *a, const struct pm_annotate_func *f,
			const char *path, const struct pm_kallsyms *ks, unsigned char id,
			struct pm_annotate_error *e)
{
	unsigned char ids[20];
	struct pm_annotate_kernel k = { .kcore = path, .ks = ks, .id = ids, .id_len = 20 };
	int err;

	memset(ids, id, sizeof(ids));
	err = pm_annotation__build(a, f, NULL, &k, e);
	pm_annotate_kernel__exit(&k);
	return err;
}

static void test_kernel(void)
{
	struct pm_annotate_hit hits[] = {
		{ .off = KTEXT + 0x1004, .period = 600, .samples = 6 },
		{ .off = KTEXT + 0x1005, .period = 100, .samples = 1 },	/* inside the add */
		{ .off = KTEXT + 0x100a, .period = 300, .samples = 3 },
	};
	struct pm_annotate_func f = { .sym = "kfunc", .dso = "[kernel.kallsyms]", .kernel = true,
				      .hits = hits, .nr_hits = 3, .samples = 10, .period = 1000 };
	char kcore[64], kallsyms[64];
	struct pm_annotate_error e;
	struct pm_annotation a;
	struct pm_kallsyms *ks;
	int err;

	snprintf(kcore, sizeof(kcore), "%s/kcore", dir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	write_kcore(kcore);
	write_file(kallsyms, "ffffffff81000000 T _text\nffffffff81001000 T kfunc\n"
		   "ffffffff81001010 T kafter\nffffffff81100000 T kfar\nffffffff81100040 T kend\n");
	ks = pm_kallsyms__load(kallsyms);
	err = build_kernel(&a, &f, kcore, ks, 0x11, &e);
	tap_ok(!err && a.start == KTEXT + 0x1000 && a.size == 16 && a.nr_insns == 9 &&
		       !strcmp(a.sym, "kfunc") && a.insns[2].samples == 7 && a.insns[2].period == 700 &&
		       a.insns[4].samples == 3 && a.samples == 10 && !a.lost && !a.has_lines &&
		       !a.nr_lines,
	       "kernel: the samples on their instructions by address, no lines (%d)", err);
	tap_ok(!err && !strcmp(pm_annotation__mnemonic(&a, &a.insns[4]), "jne") && a.insns[4].jump &&
		       a.insns[4].target == KTEXT + 0x1004, "kernel: the jump's target is kernel code");
	pm_annotation__exit(&a);
	err = build_kernel(&a, &f, kcore, ks, 0x22, &e);
	tap_ok(err == -ESTALE && e.why == PM_ANNOTATE_KERNEL_OTHER && e.build_id_len == 20 &&
		       e.build_id[0] == 0x11,
	       "kernel: a kcore whose note gives another build id is refused (%d)", err);
	pm_annotation__exit(&a);
	hits[0].off = KTEXT + 0x100010;
	f.nr_hits = 1;
	err = build_kernel(&a, &f, kcore, ks, 0x11, &e);
	tap_ok(err == -ERANGE && e.why == PM_ANNOTATE_KCORE_RANGE && e.addr == KTEXT + 0x100000,
	       "kernel: a function no segment holds is refused with its address (%d)", err);
	pm_annotation__exit(&a);
	err = build_kernel(&a, &f, kallsyms, ks, 0x11, &e);
	tap_ok(err == -ENOEXEC && e.why == PM_ANNOTATE_KCORE,
	       "kernel: a file that is no kcore is refused (%d)", err);
	pm_annotation__exit(&a);
	err = build_kernel(&a, &f, kcore, NULL, 0x11, &e);
	tap_ok(err == -ENOENT && e.why == PM_ANNOTATE_NO_KALLSYMS,
	       "kernel: without kallsyms, no bounds (%d)", err);
	pm_annotation__exit(&a);
	pm_kallsyms__delete(ks);
	unlink(kcore);
	unlink(kallsyms);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_sources();
	test_refusals();
	test_kernel();
	rmdir(dir);
	return tap_done();
}
