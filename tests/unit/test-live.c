// SPDX-License-Identifier: GPL-2.0
/*
 * The live profile (pmrec top's sink) fed passes by hand, as the drain
 * hands them: records whole or split by a ring's wrap across two spans,
 * the kernel's LOST records counted, a malformed sample counted as
 * unprocessed, intervals apart, a decayed interval holding 7/8 of the
 * last one, zero emptying the interval under way, and the namer made anew
 * once enough processes exited.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "profile/live.h"
#include "tap.h"

#define ID 42

struct fixture {
	struct pm_evlist evlist;
	struct pm_live *live;
	struct pm_drain_sink sink;
};

static int fixture__init_exits(struct fixture *x, bool decay, size_t max_exits)
{
	struct pm_event_config cfg = { .period = 1000 };
	char *bad = NULL;

	memset(x, 0, sizeof(*x));
	if (pm_evlist__add(&x->evlist, "cpu-clock", &bad))
		return -1;
	pm_evlist__config(&x->evlist, &cfg);
	pm_evlist__add_id(&x->evlist, 0, ID);
	x->live = pm_live__new(&(struct pm_live_config){ .evlist = &x->evlist, .decay = decay,
							  .max_exits = max_exits });
	if (!x->live || pm_live__start(x->live))
		return -1;
	x->sink = pm_live__sink(x->live);
	return 0;
}

static int fixture__init(struct fixture *x, bool decay)
{
	return fixture__init_exits(x, decay, 0);
}

static void fixture__exit(struct fixture *x)
{
	pm_live__delete(x->live);
	pm_evlist__exit(&x->evlist);
}

/* A user SAMPLE of cpu-clock (IDENTIFIER IP TID TIME CPU PERIOD), 56 bytes, at p. */
static void sample(unsigned char *p, uint64_t ip, uint64_t time)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
				       .size = 56 };
	uint64_t body[6] = { ID, ip, 7 | (7ULL << 32), time, 1, 1000 };

	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), body, sizeof(body));
}

/* One pass of n samples of ip, times from time on. */
static void pass(struct fixture *x, int n, uint64_t ip, uint64_t time)
{
	unsigned char buf[56];
	struct iovec iov = { buf, sizeof(buf) };
	int i;

	for (i = 0; i < n; i++) {
		sample(buf, ip, time + (uint64_t)i);
		x->sink.writev(x->sink.arg, &iov, 1);
	}
}

static void test_split_and_lost(void)
{
	struct fixture x;
	struct pm_live_counts c;
	struct pm_profile *p;
	size_t trailer;
	/* A span ending 24 bytes into the second sample, the rest in the next span. */
	_Alignas(8) unsigned char a[56 + 24], b[32 + 64], bad[16];
	struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	struct iovec iov[4];
	_Alignas(8) unsigned char two[112];
	uint64_t lost[2] = { ID, 5 };
	struct perf_event_header lh = { .type = PERF_RECORD_LOST };
	struct perf_event_header sh = { .type = PERF_RECORD_SAMPLE, .size = 16 };

	if (!tap_ok(!fixture__init(&x, false), "live profile started"))
		return;
	trailer = pm_evlist__trailer_size(&x.evlist);
	lh.size = (uint16_t)(sizeof(lh) + sizeof(lost) + trailer);
	sample(two, 0x1000, 100);
	sample(two + 56, 0x2000, 101);
	memcpy(a, two, sizeof(a));
	memset(b, 0, sizeof(b));
	memcpy(b, two + sizeof(a), 32);
	memcpy(b + 32, &lh, sizeof(lh));
	memcpy(b + 32 + sizeof(lh), lost, sizeof(lost));
	memset(bad, 0, sizeof(bad));
	memcpy(bad, &sh, sizeof(sh));
	iov[0] = (struct iovec){ a, sizeof(a) };
	iov[1] = (struct iovec){ b, 32 + lh.size };
	iov[2] = (struct iovec){ bad, sizeof(bad) };
	iov[3] = (struct iovec){ &round, sizeof(round) };
	tap_ok(x.sink.writev(x.sink.arg, iov, 4) == 0, "a pass is never failed");
	tap_ok(!pm_live__interval(x.live, &p, &c), "interval ends");
	tap_ok(c.samples == 2, "both samples taken, the split one too (%llu)",
	       (unsigned long long)c.samples);
	tap_ok(c.lost == 5, "the LOST record's count (%llu)", (unsigned long long)c.lost);
	tap_ok(c.unprocessed == 1, "the short sample unprocessed (%llu)",
	       (unsigned long long)c.unprocessed);
	tap_ok(c.first_time == 100 && c.last_time == 101, "sample times %llu..%llu",
	       (unsigned long long)c.first_time, (unsigned long long)c.last_time);
	tap_ok(pm_profile__samples(p, 0) == 2 && pm_profile__period(p, 0) == 2000,
	       "the profile holds them");
	pass(&x, 3, 0x1000, 200);
	tap_ok(!pm_live__interval(x.live, &p, &c), "second interval ends");
	tap_ok(c.samples == 3 && !c.lost && pm_profile__samples(p, 0) == 3,
	       "the next interval counts alone");
	pass(&x, 4, 0x1000, 300);
	tap_ok(!pm_live__zero(x.live), "zero");
	pass(&x, 1, 0x1000, 400);
	tap_ok(!pm_live__interval(x.live, &p, &c), "third interval ends");
	tap_ok(pm_profile__samples(p, 0) == 1, "zero empties the interval under way (%llu)",
	       (unsigned long long)pm_profile__samples(p, 0));
	fixture__exit(&x);
}

static void test_decay(void)
{
	struct fixture x;
	struct pm_live_counts c;
	struct pm_profile *p;

	if (!tap_ok(!fixture__init(&x, true), "decaying live profile started"))
		return;
	pass(&x, 16, 0x1000, 100);
	pass(&x, 1, 0x2000, 200);
	pm_live__interval(x.live, &p, &c);
	tap_ok(pm_profile__samples(p, 0) == 17, "first interval: its own samples");
	pm_live__interval(x.live, &p, &c);
	tap_ok(c.samples == 0 && pm_profile__samples(p, 0) == 14 &&
	       pm_profile__period(p, 0) == 14000,
	       "next: 7/8 of 16, the single sample gone (%llu samples, %llu period)",
	       (unsigned long long)pm_profile__samples(p, 0),
	       (unsigned long long)pm_profile__period(p, 0));
	pass(&x, 2, 0x1000, 300);
	pm_live__interval(x.live, &p, &c);
	tap_ok(c.samples == 2 && pm_profile__samples(p, 0) == 12 + 2,
	       "then 7/8 of 14 and the interval's own (%llu)",
	       (unsigned long long)pm_profile__samples(p, 0));
	pm_live__zero(x.live);
	pm_live__interval(x.live, &p, &c);
	tap_ok(pm_profile__samples(p, 0) == 0, "zero forgets the past");
	fixture__exit(&x);
}

/* An EXIT of thread tid of process pid, with its sample_id trailer (zero). */
static void exit_record(struct fixture *x, uint32_t pid, uint32_t tid)
{
	_Alignas(8) unsigned char buf[256] = { 0 };
	size_t size = sizeof(struct perf_event_header) + 24 + pm_evlist__trailer_size(&x->evlist);
	struct perf_event_header h = { .type = PERF_RECORD_EXIT, .size = (uint16_t)size };
	uint32_t body[4] = { pid, 1, tid, 1 };
	struct iovec iov = { buf, size };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), body, sizeof(body));
	x->sink.writev(x->sink.arg, &iov, 1);
}

static void test_renewal(void)
{
	struct fixture x;
	struct pm_live_counts c;
	struct pm_profile *p;

	if (!tap_ok(!fixture__init_exits(&x, false, 2), "live profile with max_exits 2"))
		return;
	exit_record(&x, 100, 101);
	exit_record(&x, 100, 100);
	pm_live__interval(x.live, &p, &c);
	pm_live__interval(x.live, &p, &c);
	tap_ok(c.renewals == 0, "one process exited: the namer stays");
	exit_record(&x, 200, 200);
	pass(&x, 1, 0x1000, 100);
	pm_live__interval(x.live, &p, &c);
	tap_ok(c.samples == 1 && c.renewals == 0, "a second one: renewed at the next start");
	pass(&x, 2, 0x1000, 200);
	pm_live__interval(x.live, &p, &c);
	tap_ok(c.renewals == 1, "renewed once (%llu)", (unsigned long long)c.renewals);
	tap_ok(c.samples == 2 && pm_profile__samples(p, 0) == 2, "samples taken after it");
	fixture__exit(&x);
}

int main(void)
{
	test_split_and_lost();
	test_decay();
	test_renewal();
	return tap_done();
}
