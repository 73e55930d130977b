// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "record/cpumap.h"
#include "record/hostinfo.h"
#include "format/perf_data.h"
#include "base/smallfile.h"

#define CPU_SYSFS "/sys/devices/system/cpu"

/*
 * Reads /proc/cpuinfo up to the end of the first processor's block: the
 * rest repeats it per CPU and can be large.  Returns a malloc'ed string.
 */
static int read_cpuinfo_head(char **out)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap), *p;
	ssize_t n;
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		if (cap - len < 4096) {
			p = realloc(buf, cap *= 2);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += n;
		buf[len] = '\0';
		if (strstr(buf, "\n\n"))
			break;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/*
 * The value of the first "key<blanks>: value" line of cpuinfo whose key is
 * exactly key, copied into val.  -ENOENT when there is none.
 */
static int cpuinfo_value(const char *info, const char *key, char *val,
			 size_t size)
{
	size_t klen = strlen(key), n;
	const char *line, *p, *eol;

	for (line = info; *line; line = *eol ? eol + 1 : eol) {
		eol = strchrnul(line, '\n');
		if (strncmp(line, key, klen))
			continue;
		p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		if (*p == ' ')
			p++;
		n = eol - p < (ptrdiff_t)size ? (size_t)(eol - p) : size - 1;
		memcpy(val, p, n);
		val[n] = '\0';
		return 0;
	}
	return -ENOENT;
}

/* perf squashes every run of white space into one blank (branding strings). */
static void squash_spaces(char *s)
{
	char *w = s;
	bool in_space = false;

	for (; *s; s++) {
		if (*s == ' ' || (*s >= '\t' && *s <= '\r')) {
			if (!in_space)
				*w++ = ' ';
			in_space = true;
		} else {
			*w++ = *s;
			in_space = false;
		}
	}
	*w = '\0';
}

static int feat_cpudesc(struct pm_buf *out)
{
	char *info, desc[256];
	int err = read_cpuinfo_head(&info);

	if (err)
		return err;
	err = cpuinfo_value(info, "model name", desc, sizeof(desc));
	free(info);
	if (err)
		return err == -ENOENT ? -EOPNOTSUPP : err;
	squash_spaces(desc);
	return pm_buf__append_perf_string(out, desc);
}

/* perf's x86 id: vendor,family,model,stepping (the kernel decodes the same). */
static int feat_cpuid(struct pm_buf *out)
{
	char *info, vendor[64], family[16], model[16], stepping[16];
	char id[128];
	int err = read_cpuinfo_head(&info);

	if (err)
		return err;
	if (cpuinfo_value(info, "vendor_id", vendor, sizeof(vendor)) ||
	    cpuinfo_value(info, "cpu family", family, sizeof(family)) ||
	    cpuinfo_value(info, "model", model, sizeof(model)) ||
	    cpuinfo_value(info, "stepping", stepping, sizeof(stepping)))
		err = -EOPNOTSUPP;
	free(info);
	if (err)
		return err;
	snprintf(id, sizeof(id), "%s,%s,%s,%s", vendor, family, model,
		 stepping);
	return pm_buf__append_perf_string(out, id);
}

static int feat_total_mem(struct pm_buf *out)
{
	char buf[4096], *p;
	unsigned long long kb;
	int err;

	/* MemTotal is the first line; perf stores it in kB, as printed. */
	err = pm_read_small("/proc/meminfo", buf, sizeof(buf));
	if (err)
		return err;
	p = strstr(buf, "MemTotal:");
	if (!p || sscanf(p + 9, "%llu", &kb) != 1)
		return -EINVAL;
	return pm_buf__append_u64(out, kb);
}

/*
 * perf's nr_cpus_avail is the highest present CPU + 1, not the count of
 * possible CPUs: CPU_TOPOLOGY has one entry per CPU up to it.
 */
static int cpus_avail(uint32_t *nr)
{
	struct pm_cpumap present;
	char buf[4096];
	int err;

	err = pm_read_small(CPU_SYSFS "/present", buf, sizeof(buf));
	if (!err)
		err = pm_cpumap__parse(&present, buf);
	if (err)
		return err;
	*nr = (uint32_t)present.cpus[present.nr - 1] + 1;
	pm_cpumap__exit(&present);
	return 0;
}

static int feat_nrcpus(struct pm_buf *out)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t avail;
	int err;

	if (online < 0)
		return -errno;
	err = cpus_avail(&avail);
	if (err)
		return err;
	if (pm_buf__append_u32(out, avail) ||
	    pm_buf__append_u32(out, (uint32_t)online))
		return -ENOMEM;
	return 0;
}

/* Distinct cpu list strings in first-seen order, as perf builds them. */
struct str_list {
	char **s;
	uint32_t nr;
};

static int str_list__add(struct str_list *l, const char *s)
{
	char **p;
	uint32_t i;

	for (i = 0; i < l->nr; i++) {
		if (!strcmp(l->s[i], s))
			return 0;
	}
	p = realloc(l->s, (l->nr + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	l->s = p;
	l->s[l->nr] = strdup(s);
	if (!l->s[l->nr])
		return -ENOMEM;
	l->nr++;
	return 0;
}

static int str_list__write(const struct str_list *l, struct pm_buf *out)
{
	uint32_t i;

	if (pm_buf__append_u32(out, l->nr))
		return -ENOMEM;
	for (i = 0; i < l->nr; i++) {
		if (pm_buf__append_perf_string(out, l->s[i]))
			return -ENOMEM;
	}
	return 0;
}

static void str_list__exit(struct str_list *l)
{
	uint32_t i;

	for (i = 0; i < l->nr; i++)
		free(l->s[i]);
	free(l->s);
}

/*
 * Adds cpu's topology/name (or topology/old, from kernels before the rename)
 * to l; a CPU without the file is skipped, as perf does.
 */
static int add_cpu_list(struct str_list *l, int cpu, const char *name,
			const char *old)
{
	char path[128], buf[4096];
	int err;

	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/topology/%s", cpu, name);
	err = pm_read_small(path, buf, sizeof(buf));
	if (err == -ENOENT && old) {
		snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/topology/%s",
			 cpu, old);
		err = pm_read_small(path, buf, sizeof(buf));
	}
	if (err)
		return err == -ENOENT ? 0 : err;
	return str_list__add(l, buf);
}

/* topology/name of cpu as a number; -1 when unknown (offline CPU). */
static uint32_t cpu_topology_id(int cpu, const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/topology/%s", cpu, name);
	if (pm_read_small(path, buf, sizeof(buf)))
		return UINT32_MAX;
	return (uint32_t)strtol(buf, NULL, 10);
}

/* perf writes die lists only where the kernel has dies: x86_64 and s390x. */
static bool has_dies(void)
{
	struct utsname uts;

	if (uname(&uts) || (strcmp(uts.machine, "x86_64") &&
			    strcmp(uts.machine, "s390x")))
		return false;
	return !access(CPU_SYSFS "/cpu0/topology/die_cpus_list", F_OK);
}

static int feat_cpu_topology(struct pm_buf *out)
{
	struct str_list pkgs = { 0 }, dies = { 0 }, cores = { 0 };
	struct pm_cpumap online = { 0 };
	bool dies_on = has_dies();
	uint32_t avail, cpu;
	int err;

	err = cpus_avail(&avail);
	if (!err)
		err = pm_cpumap__online(&online);
	if (err)
		return err;
	for (cpu = 0; cpu < avail && !err; cpu++) {
		if (!pm_cpumap__has(&online, (int)cpu))
			continue;
		err = add_cpu_list(&pkgs, cpu, "package_cpus_list",
				   "core_siblings_list");
		if (!err && dies_on)
			err = add_cpu_list(&dies, cpu, "die_cpus_list", NULL);
		if (!err)
			err = add_cpu_list(&cores, cpu, "core_cpus_list",
					   "thread_siblings_list");
	}
	if (!err)
		err = str_list__write(&pkgs, out);
	if (!err)
		err = str_list__write(&cores, out);
	for (cpu = 0; cpu < avail && !err; cpu++) {
		if (pm_buf__append_u32(out, cpu_topology_id(cpu, "core_id")) ||
		    pm_buf__append_u32(out, cpu_topology_id(cpu,
						"physical_package_id")))
			err = -ENOMEM;
	}
	/* The reader takes the die part from the bytes left in the section. */
	if (!err && dies.nr)
		err = str_list__write(&dies, out);
	for (cpu = 0; cpu < avail && !err && dies.nr; cpu++) {
		if (pm_buf__append_u32(out, cpu_topology_id(cpu, "die_id")))
			err = -ENOMEM;
	}
	str_list__exit(&pkgs);
	str_list__exit(&dies);
	str_list__exit(&cores);
	pm_cpumap__exit(&online);
	return err;
}

int pm_hostinfo__feature(struct pm_buf *out, int feat)
{
	size_t start = out->len;
	struct utsname uts;
	int err;

	switch (feat) {
	case HEADER_HOSTNAME:
	case HEADER_OSRELEASE:
	case HEADER_ARCH:
		if (uname(&uts))
			return -errno;
		err = pm_buf__append_perf_string(out,
			feat == HEADER_HOSTNAME ? uts.nodename :
			feat == HEADER_OSRELEASE ? uts.release : uts.machine);
		break;
	case HEADER_NRCPUS:
		err = feat_nrcpus(out);
		break;
	case HEADER_CPUDESC:
		err = feat_cpudesc(out);
		break;
	case HEADER_CPUID:
		err = feat_cpuid(out);
		break;
	case HEADER_TOTAL_MEM:
		err = feat_total_mem(out);
		break;
	case HEADER_CPU_TOPOLOGY:
		err = feat_cpu_topology(out);
		break;
	default:
		return -EOPNOTSUPP;
	}
	/* A half-written payload would shift every feature after it. */
	if (err)
		out->len = start;
	return err;
}
