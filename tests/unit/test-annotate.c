// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for annotate's pieces that need no recording: the source
 * lines it shows (line ends, a last line without a newline, lines out of
 * range, files it must not read) and an annotation's refusals (kernel
 * code, a missing file, another build id than recorded).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
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

static int line_is(struct pm_sources *src, const char *path, uint32_t line, const char *want)
{
	const char *text;
	size_t len;

	if (pm_sources__line(src, path, line, &text, &len))
		return want == NULL;
	return want && len == strlen(want) && !memcmp(text, want, len);
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

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_sources();
	test_refusals();
	rmdir(dir);
	return tap_done();
}
