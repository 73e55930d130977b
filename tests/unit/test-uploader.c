// SPDX-License-Identifier: GPL-2.0
/*
 * The uploader without a server: the series name, a push that returns at
 * once whatever the network does, the memory bound (the oldest dropped, or
 * spooled), close within its grace (what is left spooled), and every
 * window counted once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export/uploader.h"
#include "tap.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct pm_pyroscope_window window(int64_t from)
{
	return (struct pm_pyroscope_window){
		.from = from, .until = from + 1, .data = calloc(1, 64), .len = 64,
	};
}

static void test_series(void)
{
	char *s = pm_pyroscope__series("app", "h1", "env=prod,team=x");

	tap_ok(s && !strcmp(s, "app{hostname=h1,service_name=app,env=prod,team=x}"),
	       "series with tags: %s", s ? s : "(null)");
	free(s);
	s = pm_pyroscope__series("app", "h1", NULL);
	tap_ok(s && !strcmp(s, "app{hostname=h1,service_name=app}"), "series without tags");
	free(s);
}

/* Port 9 on 127.0.0.1 (discard) is closed on test machines: refused at once. */
static void test_unreachable(void)
{
	struct pm_uploader_counts c;
	struct pm_uploader *u = pm_uploader__new(&(struct pm_uploader_config){
		.server = { .server = "http://127.0.0.1:9", .name = "t{hostname=h,service_name=t}",
			    .sample_rate = 97, .timeout_ms = 500 },
		.max_windows = 2, .backoff_min_ms = 50, .backoff_max_ms = 100,
	});
	double t0, took;
	int i;

	tap_ok(u != NULL, "uploader made");
	if (!u)
		return;
	t0 = now();
	for (i = 0; i < 5; i++) {
		struct pm_pyroscope_window w = window(1000 + i);

		pm_uploader__push(u, &w);
	}
	took = now() - t0;
	tap_ok(took < 0.1, "5 pushes return at once (%.3f s)", took);
	pm_uploader__counts(u, &c);
	tap_ok(c.queued <= 2, "at most 2 queued (%llu)", (unsigned long long)c.queued);
	tap_ok(c.dropped >= 3, "the oldest dropped for room (%llu)", (unsigned long long)c.dropped);
	t0 = now();
	pm_uploader__close(u, 300, &c);
	took = now() - t0;
	tap_ok(took < 1.5, "close within its grace and a try (%.3f s)", took);
	tap_ok(c.windows == 5 && c.sent == 0 && c.dropped + c.rejected == 5 && !c.queued,
	       "every window counted once: %llu given, %llu dropped",
	       (unsigned long long)c.windows, (unsigned long long)c.dropped);
	tap_ok(c.retries >= 1 && *c.last_error, "tries failed and said why: %s", c.last_error);
}

/* With a spool, what memory has no room for and what close leaves go there. */
static void test_spool(void)
{
	char dir[64], cmd[96];
	struct pm_spool_found f;
	struct pm_spool *s = NULL;
	struct pm_uploader_counts c;
	struct pm_uploader *u;
	int i;

	snprintf(dir, sizeof(dir), "/tmp/test-uploader.%d", (int)getpid());
	if (pm_spool__open(&s, dir, 1 << 20, &f)) {
		tap_ok(0, "spool made in %s", dir);
		return;
	}
	u = pm_uploader__new(&(struct pm_uploader_config){
		.server = { .server = "http://127.0.0.1:9", .name = "t{hostname=h,service_name=t}",
			    .sample_rate = 97, .timeout_ms = 500 },
		.max_windows = 2, .backoff_min_ms = 50, .backoff_max_ms = 100, .spool = s,
	});
	tap_ok(u != NULL, "uploader with a spool made");
	if (!u)
		return;
	for (i = 0; i < 5; i++) {
		struct pm_pyroscope_window w = window(1000 + i);

		pm_uploader__push(u, &w);
	}
	pm_uploader__counts(u, &c);
	tap_ok(c.spooled >= 3 && !c.dropped && c.queued + c.in_spool == 5,
	       "the oldest spooled for room, none dropped (%llu spooled, %llu queued)",
	       (unsigned long long)c.spooled, (unsigned long long)c.queued);
	pm_uploader__close(u, 200, &c);
	tap_ok(c.spooled == 5 && c.in_spool == 5 && !c.dropped && !c.queued,
	       "at close, memory goes to the spool too (%llu in the spool)",
	       (unsigned long long)c.in_spool);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	tap_ok(!system(cmd), "%s", cmd);
}

int main(void)
{
	test_series();
	test_unreachable();
	test_spool();
	pm_uploader__close(NULL, 0, NULL);
	return tap_done();
}
