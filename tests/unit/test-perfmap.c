// SPDX-License-Identifier: GPL-2.0
/*
 * lib/perfmap: lines as perf parses them, malformed lines counted, long
 * names cut, a map that ends inside a line, and the opener's refusals
 * (symlink, FIFO, another owner).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/perfmap.h"
#include "symbols/symname.h"
#include "tap.h"

static int parses(const char *line, uint64_t start, uint64_t size, const char *name)
{
	const char *n;
	uint64_t s, z;
	size_t len;

	return !pm_perfmap__parse_line(line, strlen(line), &s, &z, &n, &len) && s == start &&
	       z == size && len == strlen(name) && !memcmp(n, name, len);
}

static int refused(const char *line)
{
	const char *n;
	uint64_t s, z;
	size_t len;

	return pm_perfmap__parse_line(line, strlen(line), &s, &z, &n, &len) == -EINVAL;
}

static void test_lines(void)
{
	tap_ok(parses("7fb4e37e4e00 2c JS:*hotLoop /tmp/hot.js:1:17", 0x7fb4e37e4e00, 0x2c,
		      "JS:*hotLoop /tmp/hot.js:1:17"), "Node's line");
	tap_ok(parses("0x00007f5e0d1c1a00 0x0000000000000140 double Hot.inner(int)",
		      0x7f5e0d1c1a00, 0x140, "double Hot.inner(int)"), "Java's line (0x)");
	tap_ok(parses("FFFFFFFFFFFF0000 10 up", 0xffffffffffff0000, 0x10, "up"), "upper case hex");
	tap_ok(parses(" 1000  10\tf g", 0x1000, 0x10, "f g"), "blanks before the numbers, a tab after");
	tap_ok(refused("") && refused("1000") && refused("1000 10") && refused("1000 10 ") &&
	       refused("zz 10 f") && refused("1000 0 f") && refused("1000x 10 f") &&
	       refused("10000000000000000 10 f") && refused("ffffffffffffffff 10 f") &&
	       refused("-1000 10 f"),
	       "malformed: missing fields, not hex, empty, over 64 bits, wrapping, a sign");
}

static int write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static void test_read(const char *dir)
{
	static const char text[] = "1000 100 first\n"
				   "not a line\n"
				   "1040 20 second name\n"
				   "\n"
				   "2000 10 unfinished";
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_perfmap_stats st;
	struct pm_jitsym js;
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	write_file(path, text, sizeof(text) - 1);
	fd = pm_perfmap__open(-1, path, getuid(), getuid());
	tap_ok(fd >= 0 && !pm_perfmap__read(fd, t, 42, "/tmp/perf-42.map", "[JIT] tid 42", NULL, &st), "read");
	close(fd);
	tap_ok(st.lines == 4 && st.malformed == 2 && st.added == 2 && !st.truncated,
	       "lines %llu, malformed %llu, added %llu; the unfinished last line left out",
	       (unsigned long long)st.lines, (unsigned long long)st.malformed,
	       (unsigned long long)st.added);
	tap_ok(!pm_jitsyms__find(t, 42, 0x1050, &js) && !strcmp(js.name, "second name") &&
	       !strcmp(js.dso, "/tmp/perf-42.map") &&
	       !strcmp(js.dso_short, "[JIT] tid 42") && !pm_jitsyms__find(t, 42, 0x1000, &js) &&
	       !strcmp(js.name, "first") && pm_jitsyms__find(t, 42, 0x2000, &js),
	       "the later line wins, names to the end of the line");
	pm_jitsyms__delete(t);
}

static void test_long_line(const char *dir)
{
	size_t len = 3 * 65536 + 123, i;
	char *text = malloc(len + 64), path[256];
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_perfmap_stats st;
	struct pm_jitsym js;
	int fd;

	i = (size_t)sprintf(text, "5000 10 ");
	memset(text + i, 'L', len - i);
	i = len;
	i += (size_t)sprintf(text + i, "\n6000 10 after\n");
	snprintf(path, sizeof(path), "%s/long.map", dir);
	write_file(path, text, i);
	fd = pm_perfmap__open(-1, path, getuid(), getuid());
	pm_perfmap__read(fd, t, 1, NULL, NULL, NULL, &st);
	close(fd);
	tap_ok(st.added == 2 && !pm_jitsyms__find(t, 1, 0x5000, &js) &&
	       strlen(js.name) == PM_SYM_NAME_MAX && !strcmp(js.name + PM_SYM_NAME_MAX - 3, "...") &&
	       !pm_jitsyms__find(t, 1, 0x6000, &js) && !strcmp(js.name, "after"),
	       "a 192 KB line: its name cut, the next line read");
	free(text);
	pm_jitsyms__delete(t);
}

static void test_open(const char *dir)
{
	char path[256], link[256], fifo[256];
	int fd;

	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	snprintf(link, sizeof(link), "%s/perf-2.map", dir);
	snprintf(fifo, sizeof(fifo), "%s/perf-3.map", dir);
	tap_ok(!symlink(path, link) && pm_perfmap__open(-1, link, getuid(), getuid()) == -ELOOP, "a symlink: -ELOOP");
	tap_ok(!mkfifo(fifo, 0600) && pm_perfmap__open(-1, fifo, getuid(), getuid()) == -EINVAL,
	       "a FIFO: -EINVAL, without blocking");
	tap_ok(pm_perfmap__open(-1, dir, getuid(), getuid()) < 0, "a directory: refused");
	if (getuid() == 0) {
		tap_ok(!chown(path, 12345, 12345) && pm_perfmap__open(-1, path, 0, 0) == -EPERM,
		       "another user's map: -EPERM");
		fd = pm_perfmap__open(-1, path, 12345, 12345);
		tap_ok(fd >= 0, "the process's user's map: read");
		close(fd);
		tap_ok(!chown(path, 0, 0) && (fd = pm_perfmap__open(-1, path, 12345, 12345)) >= 0,
		       "root's map: read");
		close(fd);
	}
	tap_ok(pm_perfmap__open(-1, "/nonexistent/perf-1.map", 0, 0) == -ENOENT, "missing: -ENOENT");
}

/* /tmp's perf maps by pid: a name like one and not one, an empty and a planted one. */
static void test_list_tmp(void)
{
	/* Above pid_max's limit (2^22): no real process's map. */
	const char *made[] = { "/tmp/perf-4194399.map", "/tmp/perf-4194398.map.old",
			       "/tmp/perf-x4194397.map" };
	bool created[3] = { false };
	struct pm_hashtab pids;
	size_t i;
	int fd, err;

	for (i = 0; i < 3; i++) {
		fd = open(made[i], O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		created[i] = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	pm_hashtab__init(&pids, NULL, NULL);
	err = pm_perfmap__list_tmp(&pids);
	tap_ok(!err && pm_hashtab__find_int(&pids, 4194399, NULL), "list_tmp: perf-PID.map listed");
	tap_ok(!pm_hashtab__find_int(&pids, 4194398, NULL) &&
	       !pm_hashtab__find_int(&pids, 4194397, NULL), "list_tmp: other names are not");
	pm_hashtab__exit(&pids);
	for (i = 0; i < 3; i++)
		if (created[i])
			unlink(made[i]);
}

int main(void)
{
	char dir[] = "/tmp/test-perfmap.XXXXXX";
	char cmd[64];

	if (!mkdtemp(dir))
		return 1;
	test_lines();
	test_read(dir);
	test_long_line(dir);
	test_open(dir);
	test_list_tmp();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap_ok(0, "cleanup");
	return tap_done();
}
