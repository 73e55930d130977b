// SPDX-License-Identifier: GPL-2.0
/*
 * -G's lookup of the perf_event cgroup hierarchy in a mounts listing, as
 * perf does it (a v1 hierarchy with the controller first, else cgroup2),
 * and the names it refuses before opening anything.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record/cgroup.h"
#include "tap.h"

static int find(const char *mounts, char *buf, size_t len)
{
	FILE *f = fmemopen((void *)mounts, strlen(mounts), "r");
	int err;

	if (!f)
		return -errno;
	err = pm_cgroup__find_mount(f, buf, len);
	fclose(f);
	return err;
}

#define HYBRID \
	"sysfs /sys sysfs rw,nosuid 0 0\n" \
	"cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n" \
	"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"

static void test_find_mount(void)
{
	char buf[256];
	int err;

	err = find(HYBRID, buf, sizeof(buf));
	tap_ok(!err && !strcmp(buf, "/sys/fs/cgroup/unified"),
	       "no v1 perf_event hierarchy: the cgroup2 mount");
	err = find(HYBRID "none /tmp/p\\040e cgroup rw,perf_event,relatime 0 0\n"
		   "cgroup2 /other cgroup2 rw 0 0\n", buf, sizeof(buf));
	tap_ok(!err && !strcmp(buf, "/tmp/p e"),
	       "a v1 hierarchy with perf_event wins over cgroup2, its \\040 decoded");
	err = find("none /a cgroup rw,perf_event_x 0 0\ncgroup2 /b cgroup2 rw 0 0\n"
		   "cgroup2 /c cgroup2 rw 0 0\n", buf, sizeof(buf));
	tap_ok(!err && !strcmp(buf, "/c"), "options match whole words; the last cgroup2 mount");
	err = find("sysfs /sys sysfs rw 0 0\ncgroup /x cgroup rw,cpu 0 0\nbroken\n", buf, sizeof(buf));
	tap_ok(err == -ENOENT, "no hierarchy at all: -ENOENT");
	err = find(HYBRID, buf, 8);
	tap_ok(err == -ENAMETOOLONG, "a mount point longer than the buffer: -ENAMETOOLONG");
}

static void test_bad_names(void)
{
	struct pm_cgroup_error e;

	tap_ok(pm_cgroup__open("", &e) == -EINVAL, "an empty name is refused");
	tap_ok(pm_cgroup__open("../etc", &e) == -EINVAL && pm_cgroup__open("a/../../b", &e) == -EINVAL &&
	       pm_cgroup__open("a/..", &e) == -EINVAL, "a name with a .. component is refused");
	tap_ok(pm_cgroup__open("/no-such-cgroup-pmrec-test/x", &e) < 0,
	       "a missing cgroup is an error");
}

int main(void)
{
	test_find_mount();
	test_bad_names();
	return tap_done();
}
