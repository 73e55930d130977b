// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lib/record/hostinfo.c: every payload decodes as perf reads it. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "record/hostinfo.h"
#include "format/perf_data.h"
#include "tap.h"

/* A bounds-checked reader over one payload. */
struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static uint32_t take_u32(struct cursor *c)
{
	uint32_t v = 0;

	if (c->bad || c->end - c->p < 4) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 4);
	c->p += 4;
	return v;
}

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

/* A perf string: u32 len (a multiple of 64), NUL-terminated within len. */
static const char *take_string(struct cursor *c)
{
	uint32_t len = take_u32(c);
	const char *s = (const char *)c->p;

	if (c->bad || !len || len % 64 || (uint32_t)(c->end - c->p) < len ||
	    !memchr(s, '\0', len)) {
		c->bad = true;
		return "";
	}
	c->p += len;
	return s;
}

static bool feature(struct pm_buf *b, int feat, struct cursor *c)
{
	int err;

	pm_buf__reset(b);
	err = pm_hostinfo__feature(b, feat);
	*c = (struct cursor){ .p = b->data, .end = b->data + b->len,
			      .bad = err != 0 };
	return !err;
}

static bool at_end(const struct cursor *c)
{
	return !c->bad && c->p == c->end;
}

static void test_strings(struct pm_buf *b)
{
	static const struct {
		int feat;
		const char *name;
	} feats[] = {
		{ HEADER_HOSTNAME, "HOSTNAME" },
		{ HEADER_OSRELEASE, "OSRELEASE" },
		{ HEADER_ARCH, "ARCH" },
	};
	struct utsname uts;
	const char *want, *s;
	struct cursor c;
	size_t i;

	uname(&uts);
	for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		want = feats[i].feat == HEADER_HOSTNAME ? uts.nodename :
		       feats[i].feat == HEADER_OSRELEASE ? uts.release :
		       uts.machine;
		feature(b, feats[i].feat, &c);
		s = take_string(&c);
		tap_ok(at_end(&c) && !strcmp(s, want), "%s is '%s'",
		       feats[i].name, want);
	}
}

static uint32_t test_nrcpus(struct pm_buf *b)
{
	uint32_t avail, online;
	struct cursor c;

	feature(b, HEADER_NRCPUS, &c);
	avail = take_u32(&c);
	online = take_u32(&c);
	tap_ok(at_end(&c) && avail >= online && online >= 1,
	       "NRCPUS avail %u >= online %u >= 1", avail, online);
	return avail;
}

static void test_cpu(struct pm_buf *b)
{
	struct cursor c;
	const char *s;
	int commas = 0;

	if (!feature(b, HEADER_CPUDESC, &c)) {
		tap_ok(1, "# SKIP no model name in /proc/cpuinfo");
	} else {
		s = take_string(&c);
		tap_ok(at_end(&c) && *s && !strstr(s, "  ") && !strchr(s, '\t'),
		       "CPUDESC '%s' has single blanks", s);
	}
#if defined(__x86_64__) || defined(__i386__)
	feature(b, HEADER_CPUID, &c);
	s = take_string(&c);
	for (const char *p = s; *p; p++)
		commas += *p == ',';
	tap_ok(at_end(&c) && commas == 3, "CPUID '%s' is vendor,family,model,stepping",
	       s);
#else
	(void)commas;
	tap_ok(1, "# SKIP CPUID format is checked on x86 only");
#endif
}

static void test_mem(struct pm_buf *b)
{
	struct cursor c;
	uint64_t kb;

	feature(b, HEADER_TOTAL_MEM, &c);
	kb = take_u64(&c);
	tap_ok(at_end(&c) && kb > 0, "TOTAL_MEM %llu kB",
	       (unsigned long long)kb);
}

/* Parsed like perf's process_cpu_topology, with nr_cpus_avail from NRCPUS. */
static void test_topology(struct pm_buf *b, uint32_t avail)
{
	uint32_t nr, i, sockets, threads, dies = 0;
	bool ids_ok = true;
	struct cursor c;

	tap_ok(feature(b, HEADER_CPU_TOPOLOGY, &c), "CPU_TOPOLOGY written");
	sockets = nr = take_u32(&c);
	for (i = 0; i < nr; i++)
		take_string(&c);
	threads = nr = take_u32(&c);
	for (i = 0; i < nr; i++)
		take_string(&c);
	tap_ok(!c.bad && sockets >= 1 && threads >= 1,
	       "%u sibling socket and %u sibling thread lists", sockets,
	       threads);
	for (i = 0; i < avail; i++) {
		take_u32(&c);
		if (take_u32(&c) == UINT32_MAX)
			ids_ok = false;
	}
	tap_ok(!c.bad && ids_ok, "core and socket ids for %u CPUs", avail);
	if (c.p != c.end) {
		dies = nr = take_u32(&c);
		for (i = 0; i < nr; i++)
			take_string(&c);
		for (i = 0; i < avail; i++)
			take_u32(&c);
	}
	tap_ok(at_end(&c), "payload size is exact (%u die lists)", dies);
}

int main(void)
{
	struct pm_buf b = { 0 };
	uint32_t avail;
	int err;

	test_strings(&b);
	avail = test_nrcpus(&b);
	test_cpu(&b);
	test_mem(&b);
	test_topology(&b, avail);

	pm_buf__reset(&b);
	pm_buf__append_u32(&b, 1);
	err = pm_hostinfo__feature(&b, HEADER_BUILD_ID);
	tap_ok(err == -EOPNOTSUPP && b.len == 4,
	       "other features give -EOPNOTSUPP and append nothing");
	pm_buf__exit(&b);
	return tap_done();
}
