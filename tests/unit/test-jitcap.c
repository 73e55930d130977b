// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/jitcap and the bounds of the JIT readers: a sparse file
 * refused at its open; perf maps and jitdumps cut at their bytes and at
 * their time (a clock of the test's own); the drain's side never waits
 * for the reader thread (its clock held still while the drain hands on
 * more exits than the queue holds), the exits it could not hand on read
 * at the end; a sparse jitdump marker refused and told.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "record/jitcap.h"
#include "symbols/jitcode.h"
#include "symbols/jitsym.h"
#include "symbols/perfmap.h"
#include "tap.h"

static char dir[] = "/tmp/test-jitcap.XXXXXX";

/* A jitdump: a header, then nr records of an unknown id, 16 bytes each. */
static int write_jitdump(const char *path, unsigned int nr, uint64_t size)
{
	uint32_t h[10] = { PM_JITDUMP_MAGIC, 1, PM_JITDUMP_HEADER_SIZE, 62, 0, 1 };
	uint32_t r[4] = { 99, 16 };
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	bool ok = fd >= 0 && write(fd, h, sizeof(h)) == sizeof(h);

	while (ok && nr--)
		ok = write(fd, r, sizeof(r)) == sizeof(r);
	if (ok && size)
		ok = !ftruncate(fd, (off_t)size);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* A perf map of nr lines. */
static int write_map(const char *path, unsigned int nr)
{
	FILE *f = fopen(path, "w");
	unsigned int i;

	if (!f)
		return -1;
	for (i = 0; i < nr; i++)
		fprintf(f, "%x 10 function_number_%u\n", 0x10000 + 0x10 * i, i);
	return fclose(f);
}

/* A clock that moves a second at each look. */
static uint64_t stepping_clock(void *arg)
{
	uint64_t *t = arg;

	return *t += 1000000000ULL;
}

static void test_sparse(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/jit-1.dump", dir);
	tap_ok(!write_jitdump(path, 4, 64ULL << 30), "a 64 GiB jitdump of holes made");
	tap_ok(pm_perfmap__open(-1, path, getuid(), getuid()) == -EFBIG, "sparse: refused, -EFBIG");
	tap_ok(!write_jitdump(path, 4, 0) &&
	       (fd = pm_perfmap__open(-1, path, getuid(), getuid())) >= 0 && !close(fd),
	       "the same file without its holes: opened");
}

static void test_map_bounds(void)
{
	struct pm_jit_limits lim = { .max_bytes = 1000 };
	struct pm_perfmap_stats st;
	struct pm_jitsyms *t = pm_jitsyms__new();
	uint64_t now = 0;
	char path[64];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	tap_ok(t && !write_map(path, 20000), "a map of 20000 lines");
	fd = pm_perfmap__open(-1, path, getuid(), getuid());
	ok = fd >= 0 && !pm_perfmap__read(fd, t, 1, NULL, NULL, &lim, &st);
	tap_ok(ok && st.bytes == 1000 && st.cut == -EFBIG && st.truncated && st.added > 10 &&
	       st.added < 40, "cut at 1000 bytes: %llu names of the lines before",
	       (unsigned long long)st.added);
	close(fd);
	/* Each read looks at the clock once: 1.5 s lets one chunk through. */
	lim = (struct pm_jit_limits){ .max_nsec = 1500000000ULL, .clock = stepping_clock,
				      .clock_arg = &now };
	fd = pm_perfmap__open(-1, path, getuid(), getuid());
	ok = fd >= 0 && !pm_perfmap__read(fd, t, 2, NULL, NULL, &lim, &st);
	tap_ok(ok && st.cut == -ETIME && st.bytes == 64 << 10 && st.truncated,
	       "cut at its time: one 64 KiB chunk read (%llu bytes)", (unsigned long long)st.bytes);
	close(fd);
	pm_jitsyms__delete(t);
}

static void test_jitdump_bounds(void)
{
	struct pm_jit_limits lim = { .max_bytes = 4096 + 100 };
	struct pm_jitsyms *t = pm_jitsyms__new();
	struct pm_jitcode *c = t ? pm_jitcode__new(t) : NULL;
	struct pm_jitcode_stats st;
	uint64_t now = 0;
	char path[64];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "%s/jit-2.dump", dir);
	tap_ok(c && !write_jitdump(path, 1000, 0), "a jitdump of 1000 records");
	/* A bound under the header's page: nothing read. */
	fd = open(path, O_RDONLY);
	lim.max_bytes = 100;
	tap_ok(fd >= 0 && !pm_jitcode__read_within(c, fd, 1, path, false, &lim, &st) &&
	       st.cut == -EFBIG && !st.bytes && !st.skipped, "a bound under a page: nothing read");
	close(fd);
	lim.max_bytes = 4096 + 100;
	fd = open(path, O_RDONLY);
	ok = fd >= 0 && !pm_jitcode__read_within(c, fd, 1, path, false, &lim, &st);
	tap_ok(ok && st.cut == -EFBIG && st.bytes == 4096 + 3 * 32 && st.truncated && !st.bad,
	       "cut at its header page and 100 bytes: 3 records and their prefixes read (%llu "
	       "bytes)", (unsigned long long)st.bytes);
	lim = (struct pm_jit_limits){ .max_nsec = 3500000000ULL, .clock = stepping_clock,
				      .clock_arg = &now };
	tap_ok(!pm_jitcode__read_within(c, fd, 1, path, false, &lim, &st) && st.cut == -ETIME &&
	       st.bytes == 4096 + 2 * 32,
	       "cut at its time: the header and 2 records in 3.5 s of a clock a second a look");
	tap_ok(!pm_jitcode__read_within(c, fd, 1, path, false, NULL, &st) && !st.cut &&
	       st.bytes == 4096 + 1000 * 32 && st.skipped == 1000, "within the defaults: all of it");
	close(fd);
	pm_jitcode__delete(c);
	pm_jitsyms__delete(t);
}

/* The MMAP2 of an anonymous executable mapping, or of a file, of pid. */
static void put_mmap2(struct pm_buf *b, int32_t pid, const char *file)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, gen;
		uint32_t prot, flags;
		char name[96];
	} r = { .h = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER,
		       .size = sizeof(r) },
		.pid = (uint32_t)pid, .tid = (uint32_t)pid, .addr = 0x10000, .len = 0x1000,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE };

	snprintf(r.name, sizeof(r.name), "%s", file);
	pm_buf__append(b, &r, sizeof(r));
}

static void put_exit(struct pm_buf *b, int32_t pid)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} r = { .h = { .type = PERF_RECORD_EXIT, .size = sizeof(r) },
		.pid = (uint32_t)pid, .tid = (uint32_t)pid };

	pm_buf__append(b, &r, sizeof(r));
}

/* The reader's clock: its first look waits until the test lets it go. */
struct gate {
	int entered[2], go[2];
	bool passed;
};

static uint64_t gate_clock(void *arg)
{
	struct gate *g = arg;
	char x = 0;

	if (!g->passed) {
		g->passed = true;
		if (write(g->entered[1], &x, 1) != 1 || read(g->go[0], &x, 1) != 1)
			abort();
	}
	return 1;
}

/* Pids no process has (over any pid_max): their status unread, their maps absent. */
#define NO_PID 0x7ff00000

static void test_queue(void)
{
	struct gate g = { .passed = false };
	struct pm_jit_limits lim = { .clock = gate_clock, .clock_arg = &g };
	struct pm_jitcap *c = pm_jitcap__new(NULL, NULL);
	struct pm_jitcap_stats st;
	struct pm_buf b = { 0 }, out = { 0 };
	int32_t pid = getpid();
	char map[64], x = 0;
	bool ok;
	int i;

	snprintf(map, sizeof(map), "/tmp/perf-%d.map", pid);
	tap_ok(c && !pipe(g.entered) && !pipe(g.go) && !write_map(map, 100), "set up");
	pm_jitcap__limit(c, &lim);
	put_mmap2(&b, pid, "//anon");
	put_exit(&b, pid);
	/* A drain that waited for the reader would hang here: the alarm fails the test. */
	alarm(20);
	pm_jitcap__events(c, b.data, b.len);
	tap_ok(read(g.entered[0], &x, 1) == 1, "the reader is in our map, its clock held");
	pm_buf__reset(&b);
	for (i = 0; i < PM_JITCAP_QUEUE + 10; i++) {
		put_mmap2(&b, NO_PID + i, "//anon");
		put_exit(&b, NO_PID + i);
	}
	pm_jitcap__events(c, b.data, b.len);
	pm_jitcap__stats(c, &st);
	tap_ok(st.processes == PM_JITCAP_QUEUE + 11 && st.deferred == 10 && !st.maps,
	       "%d exits handed on while the reader is held: the queue's %d taken, 10 left for "
	       "the end (%llu)", PM_JITCAP_QUEUE + 10, PM_JITCAP_QUEUE,
	       (unsigned long long)st.deferred);
	tap_ok(write(g.go[1], &x, 1) == 1, "the reader let go");
	pm_jitcap__finish(c);
	alarm(0);
	pm_jitcap__stats(c, &st);
	tap_ok(st.maps == 1 && st.entries == 100 && !st.skipped && !st.refused && !st.cut,
	       "at the end: our map read, 100 names, nothing skipped");
	ok = pm_jitcap__any(c) && !pm_jitcap__encode(c, &out);
	tap_ok(ok && out.len > 100 * 40 && *(uint64_t *)out.data == PM_JITSYM_FORMAT,
	       "the names encoded: %zu bytes", out.len);
	unlink(map);
	pm_buf__exit(&b);
	pm_buf__exit(&out);
	pm_jitcap__delete(c);
}

struct told {
	int refused_efbig;
	int other;
};

static void tell(void *arg, const struct pm_warning *w)
{
	struct told *t = arg;

	if (w->kind == PM_WARN_JITDUMP_REFUSED && w->err == EFBIG && strstr(w->dso, "/jit-"))
		t->refused_efbig++;
	else
		t->other++;
}

static void test_sparse_marker(void)
{
	struct told told = { 0 };
	struct pm_jitcap *c = pm_jitcap__new(tell, &told);
	struct pm_jitcap_stats st;
	struct pm_buf b = { 0 };
	int32_t pid = getpid();
	char path[96];

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, pid);
	tap_ok(c && !write_jitdump(path, 4, 64ULL << 30), "a sparse jitdump as our marker");
	put_mmap2(&b, pid, path);
	put_exit(&b, pid);
	pm_jitcap__events(c, b.data, b.len);
	pm_jitcap__finish(c);
	pm_jitcap__stats(c, &st);
	tap_ok(st.refused == 1 && !st.jitdumps && !pm_jitcap__any_code(c) &&
	       told.refused_efbig == 1 && !told.other,
	       "refused at once, counted, told as a sparse file (-EFBIG)");
	unlink(path);
	pm_buf__exit(&b);
	pm_jitcap__delete(c);
}

/* A jitcap deleted with exits still queued: no wait, no leak (ASan's build tells). */
static void test_delete_early(void)
{
	struct pm_jitcap *c = pm_jitcap__new(NULL, NULL);
	struct pm_buf b = { 0 };
	int i;

	for (i = 0; i < 50; i++) {
		put_mmap2(&b, NO_PID + i, "//anon");
		put_exit(&b, NO_PID + i);
	}
	if (c)
		pm_jitcap__events(c, b.data, b.len);
	pm_jitcap__delete(c);
	pm_buf__exit(&b);
	tap_ok(c != NULL, "deleted with exits queued");
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	test_sparse();
	test_map_bounds();
	test_jitdump_bounds();
	test_queue();
	test_sparse_marker();
	test_delete_early();
	rmdir(dir);
	return tap_done();
}
