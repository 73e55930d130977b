/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CPUMAP_H
#define PMREC_CPUMAP_H

/* CPU lists in the kernel's syntax ("0,2-3"), kept sorted and unique. */
#include <stdbool.h>
#include <stddef.h>

struct pm_cpumap {
	int *cpus;
	size_t nr;
};

/* -EINVAL on a syntax error, -ERANGE on a CPU number >= 4096. */
int pm_cpumap__parse(struct pm_cpumap *m, const char *list);
/* The online CPUs, from /sys/devices/system/cpu/online. */
int pm_cpumap__online(struct pm_cpumap *m);
bool pm_cpumap__has(const struct pm_cpumap *m, int cpu);
void pm_cpumap__exit(struct pm_cpumap *m);

#endif
