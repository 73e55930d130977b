// SPDX-License-Identifier: GPL-2.0
/*
 * Where a recorded file is found: the order of places, the build id that
 * decides, the reasons said for what is passed over, symlinks kept inside
 * --symfs and the build-id cache, the fetcher last, and a file found once
 * opened again only while it is the same file.  The files are this test's
 * own executable (its build id) and /bin/sh (another one).
 */
#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "symbols/elf.h"
#include "symbols/elf_int.h"
#include "symbols/locate.h"
#include "symbols/vdso.h"
#include "tap.h"

static char dir[] = "/tmp/pmrec-test-locate.XXXXXX";
static char exe[PATH_MAX];
static unsigned char id[PM_BUILD_ID_SIZE];
static size_t id_len;

static int sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Locates the file recorded as path with build id (want: our id, or none). */
static int locate(struct pm_locator *l, const char *path, bool want, struct pm_located *loc,
		  char **trail)
{
	struct pm_buf t = { 0 };
	struct elf_file ef;
	int err = pm_locator__open(l, path, id, want ? id_len : 0, &ef, loc, &t);

	if (!err)
		elf_file__close(&ef);
	pm_buf__append(&t, "", 1);
	*trail = (char *)t.data;
	return err;
}

static struct pm_locator *locator(const char *symfs, const char *cache, pm_locate_fetch_fn *fetch)
{
	struct pm_locator_opts o = { .symfs = symfs, .buildid_dir = cache, .fetch = fetch };

	return pm_locator__new(&o);
}

static void test_order(void)
{
	int err;
	char root[PATH_MAX], want[2 * PATH_MAX], *trail;
	struct pm_locator *l;
	struct pm_located loc;

	snprintf(root, sizeof(root), "%s/root", dir);
	sh("mkdir -p \"$(dirname '%s/root%s')\" && cp '%s' '%s/root%s'", dir, exe, exe, dir, exe);
	l = locator(root, "/nonexistent", NULL);
	snprintf(want, sizeof(want), "%s%s", root, exe);
	err = locate(l, exe, true, &loc, &trail);
	tap_ok(!err && !strcmp(loc.path, want) && !loc.recorded,
	       "--symfs first: %s", loc.path ? loc.path : "-");
	pm_located__exit(&loc);
	free(trail);

	sh("cp /bin/sh '%s/root%s'", dir, exe);
	err = locate(l, exe, true, &loc, &trail);
	tap_ok(!err && !strcmp(loc.path, exe) &&
	       strstr(trail, "its build id differs from the recorded one") &&
	       strstr(trail, want), "another build id under DIR is passed over, said: %s", trail);
	pm_located__exit(&loc);
	free(trail);

	err = locate(l, exe, false, &loc, &trail);
	tap_ok(!err && !strcmp(loc.path, want) && !loc.recorded,
	       "without a build id, the file under DIR is taken as it is");
	pm_located__exit(&loc);
	free(trail);

	sh("rm -rf '%s/root'; mkdir -p '%s/root'; cp '%s' '%s/root/'", dir, dir, exe, dir);
	snprintf(want, sizeof(want), "%s/%s", root, strrchr(exe, '/') + 1);
	err = locate(l, exe, true, &loc, &trail);
	tap_ok(!err && !strcmp(loc.path, want),
	       "then DIR and the base name: %s", loc.path ? loc.path : "-");
	pm_located__exit(&loc);
	free(trail);
	pm_locator__delete(l);

	l = locator(NULL, "/nonexistent", NULL);
	err = locate(l, exe, false, &loc, &trail);
	tap_ok(!err && !strcmp(loc.path, exe) && loc.recorded,
	       "no --symfs, no build id: the recorded path, to be checked by inode");
	pm_located__exit(&loc);
	free(trail);
	pm_locator__delete(l);
}

static void test_cache(void)
{
	int err;
	char cache[PATH_MAX], hex[PM_BUILD_ID_HEX_MAX], *trail;
	struct pm_locator *l;
	struct pm_located loc;

	pm_elf__build_id_hex(hex, id, id_len);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	sh("mkdir -p '%s%s/%s' '%s/.build-id/%.2s' && cp '%s' '%s%s/%s/elf' && "
	   "ln -s '../../%s/%s' '%s/.build-id/%.2s/%s'", cache, "/gone/prog", hex, cache, hex, exe,
	   cache, "/gone/prog", hex, "gone/prog", hex, cache, hex, hex + 2);
	l = locator(NULL, cache, NULL);
	err = locate(l, "/gone/prog", true, &loc, &trail);
	tap_ok(!err && strstr(loc.path, "/.build-id/"),
	       "perf's cache: the .build-id link (relative, inside): %s", loc.path ? loc.path : "-");
	pm_located__exit(&loc);
	free(trail);
	sh("rm '%s/.build-id/%.2s/%s'", cache, hex, hex + 2);
	err = locate(l, "/gone/prog", true, &loc, &trail);
	tap_ok(!err && strstr(loc.path, "/gone/prog/"),
	       "then PATH/BUILDID/elf: %s", loc.path ? loc.path : "-");
	pm_located__exit(&loc);
	free(trail);
	err = locate(l, "/gone/prog", false, &loc, &trail);
	tap_ok(err == -ENOENT,
	       "no build id recorded: the cache is not looked in");
	free(trail);
	tap_ok(!sh("mv '%s%s' '%s/outside' && ln -s '%s/outside/%s' '%s/.build-id/%.2s/%s' && "
	   "test -f '%s/.build-id/%.2s/%s/elf'", cache, "/gone/prog", dir, dir, hex, cache, hex,
	   hex + 2, cache, hex, hex + 2), "a link to a copy outside the cache, which the path reaches");
	err = locate(l, "/gone/prog", true, &loc, &trail);
	tap_ok(err == -ENOENT,
	       "an absolute link out of the cache leads nowhere: %s", trail);
	free(trail);
	pm_locator__delete(l);
}

static const char *fetched;
static int fetch_calls;

static int fake_fetch(void *arg, const unsigned char *fid, size_t len, bool debug,
		      const char **path)
{
	fetch_calls++;
	if (len != id_len || memcmp(fid, id, len) || debug)
		return -EINVAL;
	*path = fetched;
	return fetched ? 0 : -ENOENT;
}

static void test_fetch(void)
{
	int err;
	char copy[PATH_MAX], lie[PATH_MAX], *trail;
	struct pm_locator *l = locator(NULL, "/nonexistent", fake_fetch);
	struct pm_located loc;
	int fd;

	snprintf(copy, sizeof(copy), "%s/fetched", dir);
	snprintf(lie, sizeof(lie), "%s/lie", dir);
	sh("cp '%s' '%s' && cp /bin/sh '%s'", exe, copy, lie);
	fetched = copy;
	err = locate(l, "/gone/prog", true, &loc, &trail);
	tap_ok(!err && !strcmp(loc.path, copy) &&
	       fetch_calls == 1, "the fetcher last, asked with the build id");
	fd = pm_locator__reopen(l, &loc);
	tap_ok(fd >= 0, "the file found opens again");
	if (fd >= 0)
		close(fd);
	sh("cp /bin/sh '%s.new' && mv '%s.new' '%s'", copy, copy, copy);
	tap_ok(pm_locator__reopen(l, &loc) == -ESTALE, "replaced since: -ESTALE");
	pm_located__exit(&loc);
	free(trail);
	fetched = lie;
	err = locate(l, "/gone/prog", true, &loc, &trail);
	tap_ok(err == -ENOENT &&
	       strstr(trail, "its build id differs"), "a fetched file of another build id is passed over");
	free(trail);
	fetched = NULL;
	err = locate(l, "/gone/prog", true, &loc, &trail);
	tap_ok(err == -ENOENT &&
	       strstr(trail, "debuginfod: not found"), "a fetch that fails is said: %s", trail);
	free(trail);
	pm_locator__delete(l);
}

/*
 * "[vdso]" of this kernel's build id is the running vDSO (its image in a
 * memfd, opened again as a fresh copy), which exports __vdso_clock_gettime;
 * of another id, nothing.
 */
static void test_vdso(void)
{
	struct pm_locator *l = locator(NULL, dir, NULL);
	unsigned char vid[PM_BUILD_ID_SIZE], other[PM_BUILD_ID_SIZE];
	struct pm_buf t = { 0 };
	struct pm_located loc;
	struct elf_file ef;
	size_t len, i;
	bool named = false;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	int err, fd;

	if (pm_vdso__build_id(vid, &len)) {
		tap_ok(0, "this process has a vDSO with a build id");
		pm_locator__delete(l);
		return;
	}
	err = pm_locator__open(l, PM_VDSO_NAME, vid, len, &ef, &loc, NULL);
	while (!err && (scn = elf_nextscn(ef.elf, scn))) {
		Elf_Data *d = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM ?
			      elf_getdata(scn, NULL) : NULL;
		GElf_Sym sym;

		for (i = 0; d && i < sh.sh_size / sh.sh_entsize && gelf_getsym(d, (int)i, &sym); i++)
			named |= !strcmp(elf_strptr(ef.elf, sh.sh_link, sym.st_name) ?: "",
					 "__vdso_clock_gettime");
	}
	tap_ok(!err && loc.vdso && named, "[vdso] of this build id: the running vDSO, %s",
	       named ? "__vdso_clock_gettime in its .dynsym" : "no __vdso_clock_gettime");
	if (!err)
		elf_file__close(&ef);
	fd = pm_locator__reopen(l, &loc);
	tap_ok(fd >= 0 && lseek(fd, 0, SEEK_END) > 0, "opened again: %d", fd);
	if (fd >= 0)
		close(fd);
	pm_located__exit(&loc);
	memcpy(other, vid, len);
	other[0] ^= 0xff;
	err = pm_locator__open(l, PM_VDSO_NAME, other, len, &ef, &loc, &t);
	pm_buf__append(&t, "", 1);
	tap_ok(err == -ENOENT && strstr((char *)t.data, "vDSO: its build id differs"),
	       "[vdso] of another build id: not found, said why: %s", (char *)t.data);
	pm_buf__exit(&t);
	pm_locator__delete(l);
}

int main(void)
{
	struct elf_file ef;

	if (!realpath("/proc/self/exe", exe) || !mkdtemp(dir))
		return 1;
	if (elf_file__open(&ef, exe, 0, NULL) || elf__build_id(ef.elf, id, &id_len)) {
		tap_ok(0, "this test's executable has a build id");
		return tap_done();
	}
	elf_file__close(&ef);
	test_order();
	test_cache();
	test_fetch();
	test_vdso();
	sh("rm -rf '%s'", dir);
	return tap_done();
}
