// SPDX-License-Identifier: GPL-2.0
/*
 * Build ids against independent oracles: readelf on real binaries, this
 * very process (its loaded notes), the kernel's and its modules' notes in
 * sysfs, and hand-built notes whose every answer is known in advance.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf.h"
#include "elf-fixture.h"
#include "tap.h"

static int hex_to_bytes(const char *hex, unsigned char *out, size_t max)
{
	size_t n = 0;
	unsigned int v;

	while (n < max && sscanf(hex + 2 * n, "%2x", &v) == 1)
		out[n++] = v;
	return n;
}

/* The oracle for file build ids: binutils' own reading of the notes. */
static int readelf_build_id(const char *path, unsigned char *id)
{
	char cmd[PATH_MAX + 64], line[512], *p;
	int len = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "Build ID: ");
		if (p && len < 0)
			len = hex_to_bytes(p + 10, id, PM_BUILD_ID_SIZE);
	}
	pclose(f);
	return len;
}

/* The main program comes first; any non-zero return stops the walk there. */
static int main_notes_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned char *id = arg;
	size_t len;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE &&
		    !pm_elf__build_id_from_notes(
			    (const void *)(info->dlpi_addr + ph->p_vaddr),
			    ph->p_memsz, id, &len))
			return len;
	}
	return -1;
}

static void test_file_build_ids(void)
{
	unsigned char id[PM_BUILD_ID_SIZE], ref[PM_BUILD_ID_SIZE],
		mem[PM_BUILD_ID_SIZE];
	char buf[256];
	size_t len = 0;
	int err, n, fd;

	err = pm_elf__build_id(self, id, &len);
	tap_ok(!err && len == PM_BUILD_ID_SIZE,
	       "build id of the test binary: err %d, %zu bytes", err, len);
	n = readelf_build_id(self, ref);
	if (n < 0)
		skip("build id equals readelf -n", "readelf -n shows none");
	else
		tap_ok(n == (int)len && !memcmp(id, ref, len),
		       "build id equals readelf -n");
	n = dl_iterate_phdr(main_notes_cb, mem);
	tap_ok(n == (int)len && !memcmp(id, mem, len),
	       "build id equals the one in the loaded PT_NOTE segment");

	tap_ok(pm_elf__build_id(tmp_path("missing"), id, &len) == -ENOENT,
	       "missing file: -ENOENT");
	write_file(tmp_path("text"), "#!/bin/sh\nexit 0\n", 17);
	tap_ok(pm_elf__build_id(tmp_path("text"), id, &len) == -ENOEXEC,
	       "text file: -ENOEXEC");
	write_file(tmp_path("empty"), "", 0);
	tap_ok(pm_elf__build_id(tmp_path("empty"), id, &len) == -ENOEXEC,
	       "empty file: -ENOEXEC");
	tap_ok(pm_elf__build_id(tmpdir, id, &len) == -ENOEXEC,
	       "directory: -ENOEXEC");
	/* Opened without O_NONBLOCK, a FIFO with no writer would hang here. */
	mkfifo(tmp_path("fifo"), 0600);
	tap_ok(pm_elf__build_id(tmp_path("fifo"), id, &len) == -ENOEXEC,
	       "FIFO: -ENOEXEC without blocking");

	fd = open(self, O_RDONLY);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	write_file(tmp_path("truncated"), buf, n > 0 ? n : 0);
	err = pm_elf__build_id(tmp_path("truncated"), id, &len);
	tap_ok(err == -ENOEXEC, "ELF truncated after %d bytes: %d", n, err);
}

static void test_raw_notes(void)
{
	static const unsigned char want[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
						11, 12, 13, 14, 15, 16, 17, 18,
						19, 20, 21, 22, 23, 24, 25 };
	unsigned char notes[256] = { 0 }, id[PM_BUILD_ID_SIZE];
	size_t n, len = 0;
	int err;

	n = put_note(notes, 1, "Linux", 6, "6.1", 4);
	n += put_note(notes + n, NT_GNU_BUILD_ID, "GNU", 4, want, 8);
	err = pm_elf__build_id_from_notes(notes, n, id, &len);
	tap_ok(!err && len == 8 && !memcmp(id, want, 8),
	       "raw notes: short build id after another note");
	err = pm_elf__build_id_from_notes(notes, n - 1, id, &len);
	tap_ok(err == -ENOENT, "raw notes: truncated descriptor: %d", err);

	n = put_note(notes, NT_GNU_BUILD_ID, "GNX", 4, want, 20);
	tap_ok(pm_elf__build_id_from_notes(notes, n, id, &len) == -ENOENT,
	       "raw notes: other owner ignored");
	n = put_note(notes, NT_GNU_BUILD_ID, "GNU", 4, want, 32);
	err = pm_elf__build_id_from_notes(notes, n, id, &len);
	tap_ok(!err && len == PM_BUILD_ID_SIZE && !memcmp(id, want, len),
	       "raw notes: long build id truncated to 20 bytes");
	memset(notes, 0xff, 12);
	tap_ok(pm_elf__build_id_from_notes(notes, 64, id, &len) == -ENOENT,
	       "raw notes: huge sizes rejected");
}

static void test_kernel_build_ids(void)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	char path[PATH_MAX];
	FILE *f;
	size_t len = 0;
	int err;

	if (access("/sys/kernel/notes", R_OK)) {
		skip("kernel build id", "no readable /sys/kernel/notes");
	} else {
		err = pm_elf__kernel_build_id(id, &len);
		tap_ok(!err && len == PM_BUILD_ID_SIZE,
		       "kernel build id: err %d, %zu bytes", err, len);
	}
	tap_ok(pm_elf__module_build_id("../kernel", id, &len) == -EINVAL,
	       "module name with a slash: -EINVAL");
	tap_ok(pm_elf__module_build_id("pmrec_no_such_module", id, &len) ==
		       -ENOENT,
	       "unknown module: -ENOENT");

	f = popen("ls /sys/module/*/notes/.note.gnu.build-id 2>/dev/null", "r");
	if (f && fgets(path, sizeof(path), f)) {
		char *name = path + strlen("/sys/module/");

		*strchr(name, '/') = '\0';
		err = pm_elf__module_build_id(name, id, &len);
		tap_ok(!err && len == PM_BUILD_ID_SIZE,
		       "module %s build id: err %d, %zu bytes", name, err, len);
	} else {
		skip("module build id", "no loaded module has notes");
	}
	if (f)
		pclose(f);
}

static void test_debug_path(void)
{
	static const unsigned char id[] = { 0xab, 0xcd, 0x01, 0xef };
	char path[PM_DEBUG_PATH_MAX];
	int err;

	err = pm_elf__debug_path(path, id, sizeof(id));
	tap_ok(!err && !strcmp(path, "/usr/lib/debug/.build-id/ab/cd01ef.debug"),
	       "debug file path: %s", err ? "(none)" : path);
	tap_ok(pm_elf__debug_path(path, id, 1) == -EINVAL,
	       "debug file path of a 1-byte build id: -EINVAL");
}

static void cleanup(void)
{
	static const char *const files[] = {
		"text", "empty", "fifo", "truncated",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(tmp_path(files[i]));
	rmdir(tmpdir);
}

int main(void)
{
	if (fixture__init("test-elf")) {
		printf("Bail out! cannot set up: %s\n", strerror(errno));
		return 1;
	}
	test_file_build_ids();
	test_raw_notes();
	test_kernel_build_ids();
	test_debug_path();
	cleanup();
	return tap_done();
}
