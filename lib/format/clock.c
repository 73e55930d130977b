// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "format/clock.h"

static const struct {
	const char *name;
	int32_t clockid;
} clock_names[] = {
	/* perf's canonical names first: pm_clock__name returns the first match. */
	{ "monotonic", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
	{ "mono", CLOCK_MONOTONIC },
	{ "raw", CLOCK_MONOTONIC_RAW },
	{ "real", CLOCK_REALTIME },
	{ "boot", CLOCK_BOOTTIME },
};

#define NR_CLOCK_NAMES (sizeof(clock_names) / sizeof(clock_names[0]))

int pm_clock__parse(const char *s, int32_t *clockid)
{
	char *end;
	long v;
	size_t i;

	if (!s || !*s)
		return -EINVAL;
	/* A number is taken as is: the kernel says whether it knows the clock. */
	errno = 0;
	v = strtol(s, &end, 10);
	if (end != s) {
		if (errno || *end || v < INT32_MIN || v > INT32_MAX)
			return -EINVAL;
		*clockid = (int32_t)v;
		return 0;
	}
	if (!strncasecmp(s, "CLOCK_", 6))
		s += 6;
	for (i = 0; i < NR_CLOCK_NAMES; i++) {
		if (!strcasecmp(s, clock_names[i].name)) {
			*clockid = clock_names[i].clockid;
			return 0;
		}
	}
	return -EINVAL;
}

const char *pm_clock__name(int32_t clockid)
{
	size_t i;

	for (i = 0; i < NR_CLOCK_NAMES; i++)
		if (clock_names[i].clockid == clockid)
			return clock_names[i].name;
	return NULL;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

int pm_clock__reference(int32_t clockid, struct pm_clock_ref *ref)
{
	struct timespec res, wall, clk;

	*ref = (struct pm_clock_ref){ .clockid = clockid };
	if (!clock_getres(clockid, &res))
		ref->res_ns = ts_ns(&res);
	/* Back to back, so the pair says the same instant on both clocks. */
	if (clock_gettime(CLOCK_REALTIME, &wall) || clock_gettime(clockid, &clk))
		return -errno;
	ref->wall_ns = ts_ns(&wall);
	ref->clock_ns = ts_ns(&clk);
	return 0;
}

int pm_clock__clockid_feature(const struct pm_clock_ref *ref, struct pm_buf *out)
{
	return pm_buf__append_u64(out, ref->res_ns);
}

int pm_clock__data_feature(const struct pm_clock_ref *ref, struct pm_buf *out)
{
	if (pm_buf__append_u32(out, 1) || pm_buf__append_u32(out, (uint32_t)ref->clockid) ||
	    pm_buf__append_u64(out, ref->wall_ns) || pm_buf__append_u64(out, ref->clock_ns))
		return -ENOMEM;
	return 0;
}
