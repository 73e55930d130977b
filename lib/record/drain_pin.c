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
 * The move outranks a mask the user gave (taskset) for those moments
 * only: the thread's own affinity is back as soon as the batch is done.
 * Where the affinity cannot be read or set (a cpuset without that CPU),
 * the calls are made from where the thread is, as before.
 */
#include <errno.h>
#include <sched.h>
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

void drain__pin_exit(struct pm_drain *d)
{
	struct pm_drain_pin *p = &d->pin;

	CPU_FREE(p->home);
	CPU_FREE(p->one);
	p->home = NULL;
	p->one = NULL;
}
