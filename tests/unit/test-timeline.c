// SPDX-License-Identifier: GPL-2.0
/*
 * lib/timeline: columns that double until the samples fit, every sample in
 * the column its time falls in (before the first sample too), weights kept;
 * a profile's observer sees what the time filter keeps; and the flame
 * graph's time strip: only with a timeline, its columns' data summing to
 * the frames' weights, wall-clock labels with a clock reference.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "export/flamegraph.h"
#include "profile/profile.h"
#include "tap.h"
#include "profile/timeline.h"

static uint64_t sum_period(const struct pm_timeline *t)
{
	struct pm_timeline_entry e;
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < pm_timeline__nr_entries(t); i++) {
		pm_timeline__entry(t, i, &e);
		s += e.period;
	}
	return s;
}

/* Whether the entry of (column of time, node) holds at least period. */
static bool holds(const struct pm_timeline *t, uint64_t time, uint32_t node, uint64_t period)
{
	struct pm_timeline_entry e;
	size_t i;

	for (i = 0; i < pm_timeline__nr_entries(t); i++) {
		pm_timeline__entry(t, i, &e);
		if (e.node == node && pm_timeline__column_start(t, e.column) <= time &&
		    time - pm_timeline__column_start(t, e.column) < pm_timeline__column_width(t))
			return e.period >= period;
	}
	return false;
}

static void test_columns(void)
{
	struct pm_timeline *t;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	struct pm_timeline_entry e;
	bool all = true;
	uint64_t i;

	errno = 0;
	tap_ok(!pm_timeline__new(PM_TIMELINE_COLUMNS_MIN - 1) && errno == EINVAL, "too few columns: EINVAL");
	tap_ok(!pm_timeline__new(PM_TIMELINE_COLUMNS_MAX + 1), "too many columns: refused");
	t = pm_timeline__new(8);
	if (!t)
		return;
	/* 100 samples 100 ns apart from 1 ms, then one 50 ns before the first. */
	for (i = 0; i < 100; i++)
		pm_timeline__observe(t, (uint32_t)(i % 3), 1000000 + i * 100, 1, 10 + i);
	pm_timeline__observe(t, 7, 999950, 1, 5);
	tap_ok(!pm_timeline__error(t), "no error");
	/* 9950 ns in at most 8 columns of a power of two: 2048 ns. */
	tap_ok(pm_timeline__column_width(t) == 2048, "columns of 2048 ns (%llu)",
	       (unsigned long long)pm_timeline__column_width(t));
	for (i = 0; i < pm_timeline__nr_entries(t); i++) {
		pm_timeline__entry(t, i, &e);
		lo = e.column < lo ? e.column : lo;
		hi = e.column > hi ? e.column : hi;
	}
	tap_ok(hi - lo + 1 <= 8 && hi - lo + 1 > 4, "columns %lld to %lld", (long long)lo, (long long)hi);
	tap_ok(lo == -1 && pm_timeline__column_start(t, -1) == 1000000 - 2048,
	       "the sample before the origin: column -1, from 2048 ns before it");
	tap_ok(sum_period(t) == 5 + 100 * 10 + 99 * 100 / 2u, "every period kept");
	for (i = 0; i < 100; i++)
		all &= holds(t, 1000000 + i * 100, (uint32_t)(i % 3), 10 + i);
	tap_ok(all && holds(t, 999950, 7, 5), "every sample in the column of its time");
	pm_timeline__delete(t);
}

static const struct pm_profile_frame fa[] = { { .dso = "p", .sym = "a" }, { .dso = "p", .sym = "main" } };
static const struct pm_profile_frame fb[] = { { .dso = "p", .sym = "b" }, { .dso = "p", .sym = "main" } };

/* Samples of a (period 10) at 1 s + i ms for i < 100, of b (period 30) from 100 ms on. */
static struct pm_profile *build(struct pm_timeline *t, const uint64_t (*slice)[2])
{
	struct pm_profile *p = pm_profile__new();
	uint64_t i;
	int ok = p && pm_profile__add_event(p, "cpu-clock") == 0 &&
		 (!slice || !pm_profile__set_time_filter(p, slice, 1));

	if (ok && t)
		pm_profile__observe(p, pm_timeline__observe, t);
	for (i = 0; ok && i < 200; i++) {
		struct pm_profile_sample s = {
			.comm = "prog", .pid = 1, .tid = 1, .time = 1000000000 + i * 1000000,
			.period = i < 100 ? 10 : 30, .frames = i < 100 ? fa : fb, .nr_frames = 2,
		};

		ok = !pm_profile__add(p, &s);
	}
	if (!ok) {
		printf("Bail out! cannot build the profile\n");
		exit(1);
	}
	return p;
}

static void test_observer(void)
{
	static const uint64_t slice[1][2] = { { 1050000000, 1149999999 } };
	struct pm_timeline *t = pm_timeline__new(16);
	struct pm_profile *p = build(t, slice);

	tap_ok(pm_profile__observed(p), "observed");
	tap_ok(sum_period(t) == pm_profile__period(p, 0) && sum_period(t) == 50 * 10 + 50 * 30,
	       "the observer sees what the time filter keeps (%llu)", (unsigned long long)sum_period(t));
	pm_profile__delete(p);
	pm_timeline__delete(t);
}

static int to_buf(void *arg, const void *data, size_t len)
{
	return pm_buf__append(arg, data, len);
}

static char *draw(const struct pm_profile *p, const struct pm_flamegraph_opts *o)
{
	struct pm_buf b = { 0 };

	if (pm_flamegraph__write(p, o, to_buf, &b, NULL) || pm_buf__append(&b, "", 1)) {
		pm_buf__exit(&b);
		return NULL;
	}
	return (char *)b.data;
}

/* The sum of the weights in the strip's data (frame, weight, samples tuples). */
static uint64_t data_sum(const char *doc)
{
	const char *p = doc ? strstr(doc, "\"c\":[") : NULL, *end = p ? strstr(p, "],\"a\"") : NULL;
	unsigned long long f, w, s;
	uint64_t sum = 0;
	int n;

	for (p = p ? p + 5 : NULL; p && p < end; p++) {
		if (*p != '[' && *p != ',')
			continue;
		if (sscanf(p + 1, "%llu,%llu,%llu%n", &f, &w, &s, &n) == 3) {
			sum += w;
			p += n;
		}
	}
	return sum;
}

static void test_strip(void)
{
	struct pm_timeline *t = pm_timeline__new(16);
	struct pm_profile *p = build(t, NULL);
	struct pm_clock_ref clock = { .wall_ns = 1700000000000000000ULL, .clock_ns = 1000000000 };
	struct pm_flamegraph_opts o = { .min_width = 0.1 };
	char *plain = draw(p, &o), *strip, *wall;

	o.timeline = t;
	strip = draw(p, &o);
	o.clock = &clock;
	wall = draw(p, &o);
	tap_ok(plain && !strstr(plain, "strip"), "no timeline: no strip");
	tap_ok(strip && strstr(strip, "<g id=\"strip\" fg:t0=\"1000000000\" fg:tw=\"16777216\" fg:cols=\"12\""),
	       "a strip from the first sample, 12 columns of 2^24 ns");
	tap_ok(data_sum(strip) == 100 * 10 + 100 * 30, "its data sums to the root's weight");
	tap_ok(strip && strstr(strip, ">0.000 s</text>") && strstr(strip, ">0.201 s</text>"),
	       "relative labels");
	tap_ok(wall && strstr(wall, ">22:13:20.000</text>") &&
	       strstr(wall, "from 2023-11-14 22:13:20.000 UTC"), "wall-clock labels with a clock reference");
	free(plain);
	free(strip);
	free(wall);
	pm_profile__delete(p);
	pm_timeline__delete(t);
}

int main(void)
{
	test_columns();
	test_observer();
	test_strip();
	return tap_done();
}
