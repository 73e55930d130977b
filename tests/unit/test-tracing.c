// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/record/tracing.c against the live tracefs (needs root). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "record/tracing.h"

static char tracefs[PATH_MAX];

/* Reads a whole tracefs file into a NUL-terminated malloc'ed string. */
static char *slurp(const char *rel, size_t *lenp)
{
	char path[PATH_MAX + 64];
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tracefs, rel);
	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

/* A cursor over the blob that fails (sets bad) instead of overrunning. */
struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static const void *take(struct cursor *c, size_t n)
{
	const void *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint64_t take_u64(struct cursor *c)
{
	const void *p = take(c, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

static uint32_t take_u32(struct cursor *c)
{
	const void *p = take(c, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

static const char *take_str(struct cursor *c)
{
	const unsigned char *nul;

	if (c->bad || !(nul = memchr(c->p, '\0', c->end - c->p))) {
		c->bad = true;
		return "";
	}
	return take(c, nul - c->p + 1);
}

/* The contents of a sized file, compared with tracefs's rel. */
static bool take_file(struct cursor *c, const char *rel)
{
	uint64_t size = take_u64(c);
	const void *p = take(c, size);
	size_t len;
	char *want = slurp(rel, &len);
	bool ok = p && want && len == size && !memcmp(p, want, len);

	free(want);
	return ok;
}

static void test_ids(void)
{
	char *want = slurp("events/sched/sched_switch/id", NULL);
	uint64_t id = 0;
	int err;

	err = pm_tracing__event_id("sched", "sched_switch", &id);
	tap_ok(!err && want && id == strtoull(want, NULL, 10),
	       "sched:sched_switch id %llu matches its id file",
	       (unsigned long long)id);
	free(want);
	err = pm_tracing__event_id("sched", "no_such_event", &id);
	tap_ok(err == -ENOENT, "unknown event gives -ENOENT (%d)", err);
	err = pm_tracing__event_id("no_such_sys", "x", &id);
	tap_ok(err == -ENOENT, "unknown system gives -ENOENT (%d)", err);
	err = pm_tracing__event_id("..", "x", &id);
	tap_ok(err == -EINVAL, "system '..' is rejected (%d)", err);
	err = pm_tracing__event_id("sched", "../x", &id);
	tap_ok(err == -EINVAL, "name '../x' is rejected (%d)", err);
	err = pm_tracing__event_id("sched/../sched", "sched_switch", &id);
	tap_ok(err == -EINVAL, "a system with '/' is rejected (%d)", err);
	err = pm_tracing__event_id("", "sched_switch", &id);
	tap_ok(err == -EINVAL, "an empty system is rejected (%d)", err);
}

static void test_blob(void)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					       'c', 'i', 'n', 'g' };
	const char *events[] = {
		"sched:sched_switch",
		"raw_syscalls:sys_enter",
		"sched:sched_wakeup",
		"sched:sched_switch",
	};
	struct pm_buf b = { 0 };
	struct cursor c;
	const unsigned char *hdr;
	const char *sys;
	uint32_t nr_sys, n;
	uint64_t size;
	bool formats_ok;
	int err;

	err = pm_tracing__data(&b, events, 4);
	tap_ok(!err, "pm_tracing__data = %d (%zu bytes)", err, b.len);
	if (err)
		return;
	c = (struct cursor){ .p = b.data, .end = b.data + b.len };
	tap_ok(!memcmp(take(&c, 10), magic, 10) && !memcmp(take(&c, 4), "0.6", 4),
	       "blob starts with the magic and version 0.6");
	hdr = take(&c, 2);
	tap_ok(hdr && hdr[0] == 0 && hdr[1] == sizeof(long) &&
	       take_u32(&c) == (uint32_t)sysconf(_SC_PAGESIZE),
	       "little endian, long size, page size");
	tap_ok(!strcmp(take_str(&c), "header_page") &&
	       take_file(&c, "events/header_page"),
	       "header_page holds events/header_page");
	tap_ok(!strcmp(take_str(&c), "header_event") &&
	       take_file(&c, "events/header_event"),
	       "header_event holds events/header_event");
	tap_ok(take_u32(&c) == 0, "no ftrace formats");

	nr_sys = take_u32(&c);
	tap_ok(nr_sys == 2, "two systems (%u)", nr_sys);
	sys = take_str(&c);
	n = take_u32(&c);
	formats_ok = !strcmp(sys, "sched") && n == 2 &&
		     take_file(&c, "events/sched/sched_switch/format") &&
		     take_file(&c, "events/sched/sched_wakeup/format");
	tap_ok(formats_ok, "sched: sched_switch then sched_wakeup, once each");
	sys = take_str(&c);
	n = take_u32(&c);
	formats_ok = !strcmp(sys, "raw_syscalls") && n == 1 &&
		     take_file(&c, "events/raw_syscalls/sys_enter/format");
	tap_ok(formats_ok, "raw_syscalls: sys_enter");
	tap_ok(take_u32(&c) == 0 && take_u32(&c) == 0, "no kallsyms, no printk");
	size = take_u64(&c);
	tap_ok(!c.bad && size == 0 && c.p == c.end,
	       "empty saved cmdlines end the blob exactly");

	pm_buf__reset(&b);
	pm_buf__append_u32(&b, 7);
	err = pm_tracing__data(&b, (const char *[]){ "sched:nope" }, 1);
	tap_ok(err == -ENOENT && b.len == 4,
	       "unknown event fails (%d) and appends nothing", err);
	err = pm_tracing__data(&b, (const char *[]){ "sched_switch" }, 1);
	tap_ok(err == -EINVAL && b.len == 4, "event without system rejected");
	err = pm_tracing__data(&b, (const char *[]){ "sched:../../x" }, 1);
	tap_ok(err == -EINVAL && b.len == 4, "event '../../x' rejected");
	pm_buf__exit(&b);
}

int main(void)
{
	int err = pm_tracing__dir(tracefs, sizeof(tracefs));

	if (err && geteuid()) {
		printf("1..0 # SKIP tracefs not mounted and not root\n");
		return 0;
	}
	tap_ok(!err, "tracefs at '%s' (%d)", tracefs, err);
	if (err)
		return tap_done();
	test_ids();
	test_blob();
	return tap_done();
}
