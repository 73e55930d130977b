// SPDX-License-Identifier: GPL-2.0
/*
 * The files kept (lib/record/filecap.h): a file at its path is left to
 * be read there; one deleted while mapped is held through the mapping
 * (root only: map_files), read once, its build id handed on and its
 * symbols kept once per build id; a record whose inode is another file's
 * keeps nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "record/filecap.h"
#include "symbols/elf.h"
#include "symbols/symarchive.h"
#include "tap.h"

static char dir[] = "/tmp/pmrec-test-filecap.XXXXXX";

/* A copy of this test's binary at path, mapped executable: the map, fill m from it. */
static void *map_copy(const char *path, struct pm_filecap_map *m, struct stat *st)
{
	char cmd[512], self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	void *p;
	int fd;

	/* The test's own binary: cp's /proc/self/exe would be cp. */
	if (n <= 0)
		exit(2);
	self[n] = '\0';
	snprintf(cmd, sizeof(cmd), "cp %s %s", self, path);
	if (system(cmd))
		exit(2);
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, st))
		exit(2);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		exit(2);
	*m = (struct pm_filecap_map){ .pid = getpid(), .start = (uintptr_t)p, .len = 4096,
				      .path = path, .dev = st->st_dev, .ino = st->st_ino };
	return p;
}

struct seen {
	int calls;
	char path[256];
	unsigned char id[PM_BUILD_ID_SIZE];
	size_t len;
};

static int note_id(void *arg, const char *path, const unsigned char *id, size_t len)
{
	struct seen *s = arg;

	s->calls++;
	snprintf(s->path, sizeof(s->path), "%s", path);
	memcpy(s->id, id, len);
	s->len = len;
	return 0;
}

int main(void)
{
	unsigned char want[PM_BUILD_ID_SIZE];
	struct pm_filecap_map m, twin, other;
	struct pm_filecap_stats st;
	struct pm_symarchive_error e;
	struct pm_symarchive *a;
	struct pm_filecap *c;
	struct pm_buf out = { 0 };
	struct seen s = { 0 };
	char path[128], path2[128];
	struct stat sb, sb2;
	size_t want_len = 0;
	void *p, *p2;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/prog", dir);
	snprintf(path2, sizeof(path2), "%s/twin", dir);
	c = pm_filecap__new();
	p = map_copy(path, &m, &sb);
	p2 = map_copy(path2, &twin, &sb2);
	tap_ok(!pm_elf__build_id(path, want, &want_len), "the copy has a build id");
	tap_ok(pm_filecap__note(c, &m) == PM_FILECAP_HERE,
	       "a file at its recorded path is read there, not held");
	other = m;
	other.ino = sb.st_ino + 1000;
	tap_ok(pm_filecap__note(c, &other) != PM_FILECAP_HELD,
	       "a record whose inode the mapping does not have: not held");
	if (geteuid() != 0) {
		printf("# map_files needs root: the rest skipped\n");
		goto out;
	}
	unlink(path);
	unlink(path2);
	tap_ok(pm_filecap__note(c, &m) == PM_FILECAP_HELD && pm_filecap__note(c, &twin) == PM_FILECAP_HELD,
	       "files deleted while mapped are held through their mappings");
	pm_filecap__stats(c, &st);
	tap_ok(st.through_map == 2 && !st.through_root, "... counted so");
	tap_ok(!pm_filecap__finish(c, note_id, &s) && s.calls == 2 && s.len == want_len &&
	       !memcmp(s.id, want, want_len) && !strcmp(s.path, path2),
	       "the end hands on each file's path and build id");
	pm_filecap__stats(c, &st);
	tap_ok(st.tables == 1 && st.same_id == 1, "one table per build id (%llu, %llu)",
	       (unsigned long long)st.tables, (unsigned long long)st.same_id);
	s.calls = 0;
	tap_ok(!pm_filecap__finish(c, note_id, &s) && s.calls == 2,
	       "a second end (a rotated file) reads nothing again, hands on the same");
	tap_ok(pm_filecap__any(c) && !pm_filecap__encode(c, &out), "the payload is written");
	a = pm_symarchive__decode(out.data, out.len, 0, &e);
	if (!a)
		printf("# %s at %llu\n", e.reason, (unsigned long long)e.offset);
	tap_ok(a && pm_symarchive__nr_tables(a) == 1 && pm_symarchive__file(a, want, want_len),
	       "it decodes: the file's symbols under its build id");
	pm_symarchive__delete(a);
out:
	pm_buf__exit(&out);
	pm_filecap__delete(c);
	munmap(p, 4096);
	munmap(p2, 4096);
	unlink(path);
	unlink(path2);
	rmdir(dir);
	return tap_done();
}
