// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/cpumap.h"
#include "base/smallfile.h"

#define PM_MAX_CPU 4096

static int parse_num(const char **p, int *out)
{
	long v = 0;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v >= PM_MAX_CPU)
			return -ERANGE;
		(*p)++;
	}
	*out = (int)v;
	return 0;
}

int pm_cpumap__parse(struct pm_cpumap *m, const char *list)
{
	unsigned char *set = calloc(PM_MAX_CPU, 1);
	const char *p = list;
	int lo, hi, cpu, err = 0;

	m->cpus = NULL;
	m->nr = 0;
	if (!set)
		return -ENOMEM;
	while (*p && *p != '\n') {
		err = parse_num(&p, &lo);
		if (err)
			goto out;
		hi = lo;
		if (*p == '-') {
			p++;
			err = parse_num(&p, &hi);
			if (err)
				goto out;
			if (hi < lo) {
				err = -EINVAL;
				goto out;
			}
		}
		for (cpu = lo; cpu <= hi; cpu++)
			set[cpu] = 1;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n') {
			err = -EINVAL;
			goto out;
		}
	}
	for (cpu = 0; cpu < PM_MAX_CPU; cpu++)
		m->nr += set[cpu];
	if (!m->nr) {
		err = -EINVAL;
		goto out;
	}
	m->cpus = malloc(m->nr * sizeof(*m->cpus));
	if (!m->cpus) {
		err = -ENOMEM;
		goto out;
	}
	m->nr = 0;
	for (cpu = 0; cpu < PM_MAX_CPU; cpu++)
		if (set[cpu])
			m->cpus[m->nr++] = cpu;
out:
	if (err)
		m->nr = 0;
	free(set);
	return err;
}

int pm_cpumap__online(struct pm_cpumap *m)
{
	char buf[4096];
	int err = pm_read_small("/sys/devices/system/cpu/online", buf, sizeof(buf));

	return err ? err : pm_cpumap__parse(m, buf);
}

bool pm_cpumap__has(const struct pm_cpumap *m, int cpu)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (m->cpus[i] == cpu)
			return true;
	return false;
}

void pm_cpumap__exit(struct pm_cpumap *m)
{
	free(m->cpus);
	m->cpus = NULL;
	m->nr = 0;
}
