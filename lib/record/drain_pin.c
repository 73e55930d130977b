// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's thread moved to a CPU while it opens, enables, disables or
 * closes that CPU's events.  The kernel does each of those on the event's
 * CPU: called from another one, it sends a cross-CPU call and spins until
 * it is done.  One CPU at a time, that is a wait per event at the start and
 * as many at the end, with the events enabled meanwhile; on a large, busy
 * or emulated machine the waits add up to seconds (issue 43: 20 s of
 * system time at 64 CPUs, and the samples of a 2 s workload spread over
 * 22 s).  From the event's own CPU every call is local, and the one move
 * per CPU does not wait for the CPU it leaves (perf does the same).  Up to
 * PM_DRAIN_PIN_RINGS rings it never moves: there a round of moves costs
 * more than the calls it saves (drain.h).
 *
 * With many rings, a round of moves is split among movers: threads that
 * each take every Nth ring and move from CPU to CPU, all at once
 * (drain__each_ring).  One thread per CPU was measured to cost far more
 * than it saves (bench/RESULTS.md: 190-340 s of system time at 64
 * emulated CPUs); a few movers each wait for their own CPUs at the same
 * time.
 *
 * The move outranks a mask the user gave (taskset) for those moments
 * only: the thread's own affinity is back as soon as the batch is done;
 * the movers exit with theirs.
 * Where the affinity cannot be read or set (a cpuset without that CPU),
 * the calls are made from where the thread is, as before.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

#include "record/drain_int.h"

/* Up to this many CPUs in a mask (the kernel's CONFIG_NR_CPUS maximum). */
#define PIN_MAX_CPUS 8192

static int pin__save_home(struct pm_drain *d)
{
	struct pm_drain_pin *p = &d->pin;
	size_t n;
	int err = -EINVAL;

	/* The kernel refuses a mask shorter than its own count of CPU ids. */
	for (n = 1024; n <= PIN_MAX_CPUS && err == -EINVAL; n *= 2) {
		p->size = CPU_ALLOC_SIZE(n);
		p->home = CPU_ALLOC(n);
		p->one = CPU_ALLOC(n);
		err = p->home && p->one ? d->ops->get_affinity(d->ops->arg, p->home, p->size) :
					  -ENOMEM;
		if (err)
			drain__pin_exit(d);
	}
	return err;
}

void drain__pin(struct pm_drain *d, int cpu)
{
	struct pm_drain_pin *p = &d->pin;

	if (p->off || cpu < 0 || cpu == p->cpu || !d->ops->set_affinity)
		return;
	if (!p->home && pin__save_home(d)) {
		p->off = true;
		return;
	}
	if ((size_t)cpu >= 8 * p->size)
		return;
	CPU_ZERO_S(p->size, p->one);
	CPU_SET_S((size_t)cpu, p->size, p->one);
	if (!d->ops->set_affinity(d->ops->arg, p->one, p->size))
		p->cpu = cpu;
}

void drain__unpin(struct pm_drain *d)
{
	struct pm_drain_pin *p = &d->pin;

	if (p->cpu < 0)
		return;
	/* Failing that, the thread stays where it is: it still works from there. */
	d->ops->set_affinity(d->ops->arg, p->home, p->size);
	p->cpu = -1;
}

struct batch {
	struct pm_drain *d;
	const bool *which;
	void (*fn)(struct pm_drain *d, size_t ring, void *ctx);
	void *ctx;
	size_t movers;
};

static bool batch__has(const struct batch *b, size_t ring)
{
	return b->which[ring];
}

/* Mover t: the batch's rings t, t + movers, ..., each from its CPU. */
static void batch__move_along(void *arg, size_t t)
{
	const struct batch *b = arg;
	struct pm_drain *d = b->d;
	size_t size = d->pin.size, i, k = 0;
	cpu_set_t *one = CPU_ALLOC(8 * size);

	for (i = 0; i < d->nr_rings; i++) {
		int cpu = d->rings[i].cpu;

		if (!batch__has(b, i) || k++ % b->movers != t)
			continue;
		/* Failing the move, the calls are made from where the mover is. */
		if (one && cpu >= 0 && (size_t)cpu < 8 * size) {
			CPU_ZERO_S(size, one);
			CPU_SET_S((size_t)cpu, size, one);
			d->ops->set_affinity(d->ops->arg, one, size);
		}
		b->fn(d, i, b->ctx);
	}
	CPU_FREE(one);
}

size_t drain__movers(struct pm_drain *d, size_t rings)
{
	size_t n = (rings + d->pin.per_mover - 1) / d->pin.per_mover;

	if (d->pin.off || !d->ops->run_threads || !d->ops->set_affinity || n < 2)
		return 1;
	/* The movers' masks are the size of the engine's own. */
	if (!d->pin.home && pin__save_home(d)) {
		d->pin.off = true;
		return 1;
	}
	return n < PM_DRAIN_MAX_MOVERS ? n : PM_DRAIN_MAX_MOVERS;
}

void drain__each_ring(struct pm_drain *d, const bool *which,
		      void (*fn)(struct pm_drain *d, size_t ring, void *ctx), void *ctx)
{
	/* Taken before any mover runs: the rings' states change under them. */
	bool *sel = calloc(d->nr_rings ? d->nr_rings : 1, sizeof(*sel));
	struct batch b = { .d = d, .which = sel, .fn = fn, .ctx = ctx };
	bool ran[PM_DRAIN_MAX_MOVERS] = { false };
	size_t i, t, n = 0;

	/* A retired ring has no fd left: nothing to move there for. */
	for (i = 0; i < d->nr_rings; i++) {
		bool has = (!which || which[i]) && d->rings[i].state != PM_DRAIN_RETIRED;

		if (sel)
			sel[i] = has;
		n += has;
	}
	if (!sel) {
		/* Out of memory: one ring after the other, from where the thread is. */
		for (i = 0; i < d->nr_rings; i++)
			if ((!which || which[i]) && d->rings[i].state != PM_DRAIN_RETIRED)
				fn(d, i, ctx);
		return;
	}
	b.movers = drain__movers(d, n);
	if (b.movers > 1)
		d->ops->run_threads(d->ops->arg, b.movers, batch__move_along, &b, ran);
	/* What no mover did, the engine's thread does, moving itself. */
	for (i = 0, t = 0; i < d->nr_rings; i++) {
		if (!batch__has(&b, i))
			continue;
		if (b.movers > 1 && ran[t++ % b.movers])
			continue;
		drain__pin(d, d->rings[i].cpu);
		fn(d, i, ctx);
	}
	drain__unpin(d);
	free(sel);
}

void drain__pin_exit(struct pm_drain *d)
{
	struct pm_drain_pin *p = &d->pin;

	CPU_FREE(p->home);
	CPU_FREE(p->one);
	p->home = NULL;
	p->one = NULL;
}
