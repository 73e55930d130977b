// SPDX-License-Identifier: GPL-2.0
/*
 * The kcore reader against hand-built ELF core files whose every answer is
 * known: which segment holds an address range (none when it straddles a
 * segment's end, lies in a segment without bytes in the file, or wraps),
 * the bytes read there, the build id of the VMCOREINFO note, and the files
 * refused (not ELF, not a core file, headers cut short, a symlink).
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf-fixture.h"
#include "symbols/kcore.h"
#include "tap.h"

#define SEG1 0xffffffff81000000ULL	/* 0x2000 bytes at 0x1000 */
#define SEG2 0xffffffffc0000000ULL	/* 0x1000 bytes at 0x3000 */
#define SEG3 0xffffffffc1000000ULL	/* p_filesz 0: memory without bytes here */
#define FILE_SIZE 0x4000

static const char vmcoreinfo[] = "OSRELEASE=6.1.0\nBUILD-ID=00112233445566778899aabbccddeeff01020304\n"
				 "PAGESIZE=4096\n";

static void put_phdr(unsigned char *p, uint32_t type, uint64_t off, uint64_t vaddr,
		     uint64_t filesz)
{
	Elf64_Phdr ph = { .p_type = type, .p_offset = off, .p_vaddr = vaddr, .p_filesz = filesz,
			  .p_memsz = filesz ? filesz : 0x1000, .p_align = 8 };

	memcpy(p, &ph, sizeof(ph));
}

/* A kcore: a VMCOREINFO note and three PT_LOAD segments, byte i of a segment being i*7. */
static unsigned char *kcore_image(uint16_t type)
{
	unsigned char *f = calloc(1, FILE_SIZE);
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = type, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 4,
	};
	size_t note, i;

	if (!f)
		exit(1);
	memcpy(f, &eh, sizeof(eh));
	note = put_note(f + 0x800, 0, "VMCOREINFO", 11, vmcoreinfo, sizeof(vmcoreinfo) - 1);
	put_phdr(f + 64, PT_NOTE, 0x800, 0, note);
	put_phdr(f + 64 + 56, PT_LOAD, 0x1000, SEG1, 0x2000);
	put_phdr(f + 64 + 112, PT_LOAD, 0x3000, SEG2, 0x1000);
	put_phdr(f + 64 + 168, PT_LOAD, 0, SEG3, 0);
	for (i = 0x1000; i < FILE_SIZE; i++)
		f[i] = (unsigned char)((i < 0x3000 ? i - 0x1000 : i - 0x3000) * 7);
	return f;
}

static int write_image(const char *name, const void *f, size_t len)
{
	return write_file(tmp_path(name), f, len);
}

static void test_kcore_segments(void)
{
	static const unsigned char want_id[] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
						 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
						 0x01, 0x02, 0x03, 0x04 };
	unsigned char *f = kcore_image(ET_CORE), *buf = NULL;
	struct pm_kcore kc;
	uint64_t off = 0;
	int err;

	write_image("kcore", f, FILE_SIZE);
	err = pm_kcore__open(&kc, tmp_path("kcore"));
	tap_ok(!err && kc.machine == EM_X86_64 && kc.nr_segs == 2,
	       "kcore: opens, x86-64, the two segments with bytes (err %d)", err);
	if (err) {
		free(f);
		return;
	}
	tap_ok(kc.build_id_len == sizeof(want_id) && !memcmp(kc.build_id, want_id, sizeof(want_id)),
	       "kcore: the build id of the VMCOREINFO note");
	tap_ok(!pm_kcore__offset(&kc, SEG1, 0x2000, &off) && off == 0x1000 &&
		       !pm_kcore__offset(&kc, SEG1 + 0x1ff0, 0x10, &off) && off == 0x2ff0 &&
		       !pm_kcore__offset(&kc, SEG2 + 0x10, 0x20, &off) && off == 0x3010,
	       "kcore: a range inside a segment is at its offset there");
	tap_ok(pm_kcore__offset(&kc, SEG1 + 0x1ff0, 0x11, &off) == -ERANGE &&
		       pm_kcore__offset(&kc, SEG1 - 1, 1, &off) == -ERANGE &&
		       pm_kcore__offset(&kc, SEG1 + 0x2000, 1, &off) == -ERANGE &&
		       pm_kcore__offset(&kc, SEG2 + 0x10, UINT64_MAX, &off) == -ERANGE &&
		       pm_kcore__offset(&kc, SEG3, 1, &off) == -ERANGE,
	       "kcore: no segment holds a range across an end, before, after, wrapping, or "
	       "without bytes in the file");
	err = pm_kcore__read(&kc, SEG2 + 3, 4, &buf);
	tap_ok(!err && buf && buf[0] == 21 && buf[1] == 28 && buf[3] == 42,
	       "kcore: the bytes read are the segment's (err %d)", err);
	free(buf);
	tap_ok(pm_kcore__read(&kc, SEG3, 4, &buf) == -ERANGE && !buf &&
		       pm_kcore__read(&kc, SEG1, PM_KCORE_READ_MAX + 1, &buf) == -EFBIG,
	       "kcore: reads outside the segments or over the bound are refused");
	pm_kcore__close(&kc);
	/* The headers say the segment goes on; the file ends first. */
	write_image("kcore-cut", f, 0x2800);
	err = pm_kcore__open(&kc, tmp_path("kcore-cut"));
	tap_ok(!err && pm_kcore__read(&kc, SEG1 + 0x1000, 0x1000, &buf) == -EIO && !buf,
	       "kcore: a segment cut short by the file's end is an I/O error");
	if (!err)
		pm_kcore__close(&kc);
	free(f);
}

static void test_kcore_refused(void)
{
	unsigned char *f = kcore_image(ET_EXEC);
	struct pm_kcore kc;

	write_image("exec", f, FILE_SIZE);
	tap_ok(pm_kcore__open(&kc, tmp_path("exec")) == -ENOEXEC && kc.fd == -1,
	       "kcore: an ELF file that is not a core file is refused");
	free(f);
	f = kcore_image(ET_CORE);
	write_image("short", f, 64 + 56);
	tap_ok(pm_kcore__open(&kc, tmp_path("short")) == -ENOEXEC,
	       "kcore: program headers cut short are refused");
	write_image("text", "hello\n", 6);
	tap_ok(pm_kcore__open(&kc, tmp_path("text")) == -ENOEXEC, "kcore: a text file is refused");
	tap_ok(pm_kcore__open(&kc, tmp_path("missing")) == -ENOENT, "kcore: a missing file");
	tap_ok(!symlink(tmp_path("kcore"), tmp_path("link")) &&
		       pm_kcore__open(&kc, tmp_path("link")) == -ELOOP,
	       "kcore: a symlink is not followed");
	free(f);
}

static void cleanup(void)
{
	static const char *const files[] = { "kcore", "kcore-cut", "exec", "short", "text", "link" };
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(tmp_path(files[i]));
	rmdir(tmpdir);
}

int main(void)
{
	if (fixture__init("test-kcore")) {
		printf("Bail out! cannot set up: %s\n", strerror(errno));
		return 1;
	}
	test_kcore_segments();
	test_kcore_refused();
	cleanup();
	return tap_done();
}
