/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_FUZZ_BUDGET_H
#define PMREC_FUZZ_BUDGET_H

/*
 * A heap budget for the fuzz harnesses: the bytes the code under test has
 * allocated and not freed while one input runs may not pass
 * FUZZ_BUDGET_PER_BYTE times the input size plus a constant.  A hostile
 * input that multiplies memory (sections shared by many headers, a name
 * copied for every symbol, bookkeeping per record) fails at once, at the
 * allocation that passes the budget, as a "reader contract broken" abort,
 * long before libFuzzer's -rss_limit_mb would see it, and whatever the
 * input size.  Counted through the sanitizer allocator's hooks: every
 * fuzz build has AddressSanitizer; a replay driver built without it (as
 * t0530 may build it) runs without a budget.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_HAVE_ASAN 1
#endif
#endif

#ifdef FUZZ_HAVE_ASAN
/* From <sanitizer/allocator_interface.h>, which gcc does not install. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
					      void (*free_hook)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);

#define FUZZ_BUDGET_PER_BYTE 32

static int64_t fuzz_budget_live;	/* bytes live since armed, atomically */
static int64_t fuzz_budget_peak;
static int64_t fuzz_budget_limit;
static int fuzz_budget_armed;

static void fuzz_budget__over(int64_t live)
{
	char msg[200];
	int n;

	__atomic_store_n(&fuzz_budget_armed, 0, __ATOMIC_SEQ_CST);
	n = snprintf(msg, sizeof(msg),
		     "%s:%d: reader contract broken: heap budget: %lld bytes live, over %lld\n",
		     __FILE__, __LINE__, (long long)live, (long long)fuzz_budget_limit);
	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
		n = 0;
	abort();
}

static void fuzz_budget__malloc_hook(const volatile void *ptr, size_t size)
{
	int64_t live;

	(void)ptr;
	if (!__atomic_load_n(&fuzz_budget_armed, __ATOMIC_RELAXED))
		return;
	live = __atomic_add_fetch(&fuzz_budget_live, (int64_t)size, __ATOMIC_RELAXED);
	if (live > __atomic_load_n(&fuzz_budget_peak, __ATOMIC_RELAXED))
		__atomic_store_n(&fuzz_budget_peak, live, __ATOMIC_RELAXED);
	if (live > fuzz_budget_limit)
		fuzz_budget__over(live);
}

static void fuzz_budget__free_hook(const volatile void *ptr)
{
	if (!ptr || !__atomic_load_n(&fuzz_budget_armed, __ATOMIC_RELAXED))
		return;
	__atomic_sub_fetch(&fuzz_budget_live,
			   (int64_t)__sanitizer_get_allocated_size(ptr),
			   __ATOMIC_RELAXED);
}

static void fuzz_budget__install(void)
{
	static int done;

	if (!done)
		__sanitizer_install_malloc_and_free_hooks(fuzz_budget__malloc_hook,
							  fuzz_budget__free_hook);
	done = 1;
}

/* Arms the budget for one input of size bytes; extra is the constant part. */
static void fuzz_budget__arm(size_t size, int64_t extra)
{
	fuzz_budget__install();
	fuzz_budget_live = fuzz_budget_peak = 0;
	fuzz_budget_limit = (int64_t)size * FUZZ_BUDGET_PER_BYTE + extra;
	__atomic_store_n(&fuzz_budget_armed, 1, __ATOMIC_SEQ_CST);
}

/* Disarms it; returns the peak of live bytes. */
static int64_t fuzz_budget__disarm(void)
{
	__atomic_store_n(&fuzz_budget_armed, 0, __ATOMIC_SEQ_CST);
	return fuzz_budget_peak;
}

#else

static void fuzz_budget__arm(size_t size, int64_t extra)
{
	(void)size;
	(void)extra;
}

static int64_t fuzz_budget__disarm(void)
{
	return 0;
}

#endif

#endif
