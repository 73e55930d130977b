// SPDX-License-Identifier: GPL-2.0
/*
 * record -k: perf's clock names (perf 6.1's parse_clockid as the oracle),
 * the CLOCKID and CLOCK_DATA payloads byte by byte, and the reference
 * pair read at the start.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format/clock.h"
#include "tap.h"

static void test_names(void)
{
	static const struct {
		const char *s;
		int32_t clockid;
	} good[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "mono", CLOCK_MONOTONIC },
		{ "MONO", CLOCK_MONOTONIC }, { "CLOCK_MONOTONIC", CLOCK_MONOTONIC },
		{ "clock_mono", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "raw", CLOCK_MONOTONIC_RAW }, { "CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME }, { "real", CLOCK_REALTIME },
		{ "boottime", CLOCK_BOOTTIME }, { "boot", CLOCK_BOOTTIME },
		{ "Clock_BootTime", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
		{ "CLOCK_TAI", CLOCK_TAI }, { "1", 1 }, { "11", 11 }, { "-2", -2 },
	};
	static const char *const bad[] = { "", "foo", "monotonic ", "CLOCK_", "1x", "mono1",
					   "99999999999", "CLOCK_1", "taii" };
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int32_t id = -100;

		tap_ok(!pm_clock__parse(good[i].s, &id) && id == good[i].clockid, "'%s' is clock %d",
		       good[i].s, good[i].clockid);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int32_t id;

		tap_ok(pm_clock__parse(bad[i], &id) == -EINVAL, "'%s' is refused", bad[i]);
	}
	tap_ok(!strcmp(pm_clock__name(CLOCK_MONOTONIC), "monotonic") &&
	       !strcmp(pm_clock__name(CLOCK_MONOTONIC_RAW), "monotonic_raw") &&
	       !strcmp(pm_clock__name(CLOCK_BOOTTIME), "boottime") &&
	       !pm_clock__name(CLOCK_THREAD_CPUTIME_ID), "perf's canonical names, none for others");
}

static void test_reference(void)
{
	struct pm_clock_ref ref;
	struct timespec before, after;
	uint64_t b, a;

	clock_gettime(CLOCK_MONOTONIC, &before);
	tap_ok(!pm_clock__reference(CLOCK_MONOTONIC, &ref), "the monotonic clock is read");
	clock_gettime(CLOCK_MONOTONIC, &after);
	b = (uint64_t)before.tv_sec * 1000000000ULL + (uint64_t)before.tv_nsec;
	a = (uint64_t)after.tv_sec * 1000000000ULL + (uint64_t)after.tv_nsec;
	tap_ok(ref.clockid == CLOCK_MONOTONIC && ref.res_ns >= 1 && ref.clock_ns >= b &&
	       ref.clock_ns <= a, "its time is read then, with its resolution");
	tap_ok(ref.wall_ns > 1500000000ULL * 1000000000ULL, "the wall clock is since the epoch");
	tap_ok(pm_clock__reference(12345, &ref) == -EINVAL, "a clock that does not exist: -EINVAL");
}

static void test_payloads(void)
{
	struct pm_clock_ref ref = { .clockid = 4, .res_ns = 1, .wall_ns = 0x1122334455667788ULL,
				    .clock_ns = 0x0102030405060708ULL };
	static const unsigned char want[24] = {
		1, 0, 0, 0, 4, 0, 0, 0,
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
		8, 7, 6, 5, 4, 3, 2, 1,
	};
	struct pm_buf b = { 0 };

	tap_ok(!pm_clock__data_feature(&ref, &b) && b.len == 24 && !memcmp(b.data, want, 24),
	       "CLOCK_DATA: version 1, clockid, wall ns, clock ns (little-endian)");
	pm_buf__exit(&b);
	tap_ok(!pm_clock__clockid_feature(&ref, &b) && b.len == 8 &&
	       !memcmp(b.data, "\1\0\0\0\0\0\0\0", 8), "CLOCKID: the resolution in ns");
	pm_buf__exit(&b);
}

int main(void)
{
	test_names();
	test_reference();
	test_payloads();
	return tap_done();
}
