/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_LIST_H
#define PMREC_LIST_H

/*
 * Lists of ids as users write them on command lines: "0,2-3,8" for CPUs,
 * pids or tids.  Zero-initialize; pm_id_list__exit frees.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pm_id_range {
	int64_t lo, hi;
};

struct pm_id_list {
	struct pm_id_range *r;
	size_t nr;
};

/*
 * Appends the comma-separated numbers and lo-hi ranges of arg, each within
 * [0, max] with lo <= hi.  0, -EINVAL (a bad item, or no item at all; l
 * keeps the items before it) or -ENOMEM.
 */
int pm_id_list__parse(struct pm_id_list *l, const char *arg, int64_t max);
/* Whether v is in one of the ranges. */
bool pm_id_list__has(const struct pm_id_list *l, int64_t v);
void pm_id_list__exit(struct pm_id_list *l);

#endif
