/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CGROUP_H
#define PMREC_CGROUP_H

/*
 * -G NAME: the cgroup a system-wide recording is limited to.  As perf
 * finds it: under the first cgroup v1 hierarchy mounted with the
 * perf_event controller, else under the last cgroup2 mount (where
 * perf_event is always available), NAME being a path below that mount.
 */
#include <stddef.h>
#include <stdio.h>

/*
 * The mount point for perf_event cgroups, from a /proc/self/mounts listing
 * (octal escapes such as \040 decoded) into buf.  0, -ENOENT when no
 * hierarchy is mounted, -ENAMETOOLONG.
 */
int pm_cgroup__find_mount(FILE *mounts, char *buf, size_t len);

struct pm_cgroup_error {
	char path[4096];		/* the mount point, or the cgroup's path under it */
};

/*
 * Opens NAME's directory (O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC), the
 * "pid" of a PERF_FLAG_PID_CGROUP event.  A fd, or: -EINVAL for an empty
 * NAME or one with a ".." component, -ENOENT (e->path empty) when no
 * perf_event hierarchy is mounted, or open(2)'s -errno with e->path the
 * directory tried.
 */
int pm_cgroup__open(const char *name, struct pm_cgroup_error *e);

#endif
