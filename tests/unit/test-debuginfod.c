// SPDX-License-Identifier: GPL-2.0
/*
 * lib/symbols/debuginfod.c with a file:// server (libdebuginfod fetches
 * those through libcurl as it fetches http://): no handle without
 * DEBUGINFOD_URLS, a file fetched into the client cache, each build id
 * asked once, no path that is not a regular file of that cache, and that
 * cache where libdebuginfod puts it (HOME, XDG_CACHE_HOME).  The
 * real server, stalls and lies: tests/t0797-debuginfod.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/debuginfod.h"
#include "tap.h"

static char dir[] = "/tmp/pmrec-test-debuginfod.XXXXXX";

static const unsigned char id_a[] = { 0xaa, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07 };
static const unsigned char id_b[] = { 0xbb, 0x01, 0x02, 0x03 };
static const unsigned char id_c[] = { 0xcc, 0x01, 0x02, 0x03 };

/* Writes text to the file at dir/rel, making its directories. */
static int put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int same_text(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	return n == strlen(text) && !memcmp(buf, text, n);
}

static void test_no_urls(void)
{
	struct pm_debuginfod *d;

	unsetenv("DEBUGINFOD_URLS");
	errno = 0;
	d = pm_debuginfod__new();
	tap_ok(!d && errno == ENOENT, "DEBUGINFOD_URLS unset: no handle, ENOENT");
	setenv("DEBUGINFOD_URLS", "", 1);
	errno = 0;
	d = pm_debuginfod__new();
	tap_ok(!d && errno == ENOENT, "DEBUGINFOD_URLS empty: no handle, ENOENT");
}

static void test_fetch(void)
{
	struct pm_debuginfod_stats st;
	struct pm_debuginfod *d = pm_debuginfod__new();
	const char *p1 = NULL, *p2 = NULL, *p3 = NULL;
	char want[512];
	int rc;

	if (!tap_ok(d != NULL, "a handle with DEBUGINFOD_URLS set"))
		return;
	snprintf(want, sizeof(want), "%s/cache/aa01020304050607/executable", dir);
	rc = pm_debuginfod__find(d, id_a, sizeof(id_a), PM_DEBUGINFOD_EXECUTABLE, &p1);
	tap_ok(!rc && p1 && !strcmp(p1, want), "the executable is fetched into the client cache: %d %s",
	       rc, p1 ? p1 : "(none)");
	tap_ok(p1 && same_text(p1, "executable a"), "with the server's bytes");
	tap_ok(pm_debuginfod__find(d, id_a, sizeof(id_a), PM_DEBUGINFOD_EXECUTABLE, &p2) == 0 &&
	       p2 == p1, "asked again: the same path, not asked again");
	tap_ok(pm_debuginfod__find(d, id_a, sizeof(id_a), PM_DEBUGINFOD_DEBUGINFO, &p3) == 0 &&
	       p3 && same_text(p3, "debuginfo a"), "the debug file is another kind");
	pm_debuginfod__stats(d, &st);
	tap_ok(st.fetched == 2 && !st.cached && !st.failed && st.bytes == 23,
	       "stats: 2 files, 23 bytes (fetched %u cached %u failed %u bytes %llu)",
	       st.fetched, st.cached, st.failed, (unsigned long long)st.bytes);
	tap_ok(pm_debuginfod__find(d, id_a, 0, PM_DEBUGINFOD_EXECUTABLE, &p1) == -EINVAL && !p1 &&
	       pm_debuginfod__find(d, id_a, 21, PM_DEBUGINFOD_EXECUTABLE, &p1) == -EINVAL &&
	       pm_debuginfod__find(d, id_a, sizeof(id_a), 7, &p1) == -EINVAL,
	       "no build id, one too long, or no such kind: -EINVAL");
	pm_debuginfod__delete(d);
	d = pm_debuginfod__new();
	if (!d)
		return;
	rc = pm_debuginfod__find(d, id_a, sizeof(id_a), PM_DEBUGINFOD_EXECUTABLE, &p1);
	pm_debuginfod__stats(d, &st);
	tap_ok(!rc && p1 && !strcmp(p1, want) && st.cached == 1 && !st.fetched,
	       "a new handle finds it in the client cache (cached %u fetched %u)", st.cached,
	       st.fetched);
	pm_debuginfod__delete(d);
}

/*
 * A miss is remembered by the handle, not only by libdebuginfod's mark
 * in its cache: with the mark gone and the file there, the same handle
 * still says -ENOENT, a new one finds it.
 */
static void test_miss_once(void)
{
	struct pm_debuginfod_stats st;
	struct pm_debuginfod *d = pm_debuginfod__new(), *d2;
	const char *p;
	char mark[512];

	if (!d)
		return;
	tap_ok(pm_debuginfod__find(d, id_b, sizeof(id_b), PM_DEBUGINFOD_EXECUTABLE, &p) == -ENOENT &&
	       !p, "a build id nobody has: -ENOENT");
	snprintf(mark, sizeof(mark), "%s/cache/bb010203/executable", dir);
	unlink(mark);
	put("srv/buildid/bb010203/executable", "executable b");
	tap_ok(pm_debuginfod__find(d, id_b, sizeof(id_b), PM_DEBUGINFOD_EXECUTABLE, &p) == -ENOENT,
	       "asked again on the same handle: still -ENOENT, not asked");
	pm_debuginfod__stats(d, &st);
	tap_ok(st.failed == 1 && st.not_found == 1 && !st.first_error,
	       "stats: one failure, not found (failed %u not_found %u first_error %d)",
	       st.failed, st.not_found, st.first_error);
	pm_debuginfod__delete(d);
	d2 = pm_debuginfod__new();
	tap_ok(d2 && pm_debuginfod__find(d2, id_b, sizeof(id_b), PM_DEBUGINFOD_EXECUTABLE, &p) == 0,
	       "a new handle asks, and has it");
	pm_debuginfod__delete(d2);
}

/* libdebuginfod opens a cache entry following links: pmrec must not name one. */
static void test_cache_symlink(void)
{
	struct pm_debuginfod *d = pm_debuginfod__new();
	char target[512], link[512];
	const char *p;

	if (!d)
		return;
	put("elsewhere", "not the cache's");
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	snprintf(link, sizeof(link), "%s/cache/cc010203/executable", dir);
	put("cache/cc010203/placeholder", "");
	tap_ok(!symlink(target, link), "a symlink planted in the cache");
	tap_ok(pm_debuginfod__find(d, id_c, sizeof(id_c), PM_DEBUGINFOD_EXECUTABLE, &p) == -EIO && !p,
	       "a cache entry that is a symlink: -EIO, no path");
	pm_debuginfod__delete(d);
}

/* Finds id_a with a new handle: 1 when it is named want (dir + rel). */
static int found_at(const char *rel)
{
	struct pm_debuginfod *d = pm_debuginfod__new();
	char want[512];
	const char *p;
	int ok;

	if (!d)
		return 0;
	snprintf(want, sizeof(want), "%s/%s", dir, rel);
	ok = !pm_debuginfod__find(d, id_a, sizeof(id_a), PM_DEBUGINFOD_EXECUTABLE, &p) &&
	     !strcmp(p, want);
	pm_debuginfod__delete(d);
	return ok;
}

/* The client cache where libdebuginfod puts it without DEBUGINFOD_CACHE_PATH. */
static void test_cache_place(void)
{
	char home[512], xdg[512], legacy[600];

	snprintf(home, sizeof(home), "%s/home", dir);
	snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
	snprintf(legacy, sizeof(legacy), "%s/.debuginfod_client_cache", home);
	unsetenv("DEBUGINFOD_CACHE_PATH");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", home, 1);
	mkdir(home, 0700);
	tap_ok(found_at("home/.cache/debuginfod_client/aa01020304050607/executable"),
	       "no DEBUGINFOD_CACHE_PATH: in ~/.cache/debuginfod_client");
	setenv("XDG_CACHE_HOME", xdg, 1);
	tap_ok(found_at("xdg/debuginfod_client/aa01020304050607/executable"),
	       "XDG_CACHE_HOME: in $XDG_CACHE_HOME/debuginfod_client");
	tap_ok(!mkdir(legacy, 0700) &&
	       found_at("home/.debuginfod_client_cache/aa01020304050607/executable"),
	       "~/.debuginfod_client_cache when it exists");
}

int main(void)
{
	char url[600], cache[600], cmd[600];

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_no_urls();
	snprintf(url, sizeof(url), "file://%s/srv", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	unsetenv("DEBUGINFOD_PROGRESS");
	unsetenv("DEBUGINFOD_VERBOSE");
	put("srv/buildid/aa01020304050607/executable", "executable a");
	put("srv/buildid/aa01020304050607/debuginfo", "debuginfo a");
	test_fetch();
	test_miss_once();
	test_cache_symlink();
	test_cache_place();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap_ok(0, "removing %s", dir);
	return tap_done();
}
