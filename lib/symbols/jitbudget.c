// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <time.h>

#include "symbols/jitbudget.h"

uint64_t pm_jit__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t pm_jit_limits__now(const struct pm_jit_limits *lim)
{
	return lim && lim->clock ? lim->clock(lim->clock_arg) : pm_jit__now();
}

void pm_jit_budget__start(struct pm_jit_budget *b, const struct pm_jit_limits *lim,
			  uint64_t max_bytes)
{
	*b = (struct pm_jit_budget){ 0 };
	if (lim)
		b->lim = *lim;
	if (!b->lim.max_bytes || b->lim.max_bytes > max_bytes)
		b->lim.max_bytes = max_bytes;
	if (!b->lim.max_nsec)
		b->lim.max_nsec = PM_JIT_READ_NSEC;
	b->end = pm_jit_limits__now(&b->lim) + b->lim.max_nsec;
	if (b->lim.deadline && b->lim.deadline < b->end)
		b->end = b->lim.deadline;
}

uint64_t pm_jit_budget__left(const struct pm_jit_budget *b)
{
	return b->lim.max_bytes - b->bytes;
}

int pm_jit_budget__charge(struct pm_jit_budget *b, uint64_t n)
{
	if (n > pm_jit_budget__left(b))
		return -EFBIG;
	if (pm_jit_limits__now(&b->lim) > b->end)
		return -ETIME;
	b->bytes += n;
	return 0;
}

bool pm_jit__sparse(const struct stat *st)
{
	uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;

	return size > PM_JIT_SPARSE_MIN && (uint64_t)st->st_blocks * 512 < size / PM_JIT_SPARSE_RATIO;
}
