/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_TAP_H
#define PMREC_TAP_H

/* Minimal TAP producer for the C unit tests (run by prove). */
#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failed;

__attribute__((format(printf, 2, 3)))
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	return cond;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
