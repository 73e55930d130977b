/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_FOLDED_H
#define PMREC_FOLDED_H

/*
 * Folded stacks ("comm;outer;...;inner WEIGHT"), the input format of
 * FlameGraph's flamegraph.pl, inferno and speedscope: one entry per
 * distinct stack, weights summed.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "symbols/symname.h"

struct pm_folded;

/* Longer names are cut to this many bytes, the last three "...". */
#define PM_FOLDED_NAME_MAX PM_SYM_NAME_MAX

/*
 * Appends the n bytes of name (a comm or a frame name) to a folded stack
 * being built, made safe for the format: ';' (the frame separator) becomes
 * ':', as FlameGraph's stackcollapse scripts do, and what a terminal must
 * not see (pm_utf8__safe_run: controls, C1, bidi, invalid UTF-8; newlines
 * would start a line of their own) becomes one '?' a sequence.  Other
 * bytes, spaces and UTF-8 included, are kept: the weight is the last
 * space-separated field.  A name longer than PM_FOLDED_NAME_MAX is cut (a
 * crafted file can name a function with megabytes, and every stack holding
 * it is stored).  The caller adds the ';' between names.  0 or -ENOMEM.
 */
int pm_folded__append_name(struct pm_buf *stack, const char *name, size_t n);

struct pm_folded_entry {
	const char *stack;		/* not NUL-terminated */
	size_t len;
	uint64_t weight;
};

struct pm_folded *pm_folded__new(void);
void pm_folded__delete(struct pm_folded *f);
/* Adds weight to the stack of len bytes (copied).  0 or -ENOMEM. */
int pm_folded__add(struct pm_folded *f, const char *stack, size_t len, uint64_t weight);
/*
 * The entries sorted by stack, so output is the same for the same input
 * (valid until the next add).  Returns the count; *out is NULL on ENOMEM.
 */
size_t pm_folded__sorted(struct pm_folded *f, const struct pm_folded_entry **out);

#endif
