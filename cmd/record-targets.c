// SPDX-License-Identifier: GPL-2.0
/* pmrec record's targets: the CPUs, and the tasks of -p, -t, -u or -G. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "record/cgroup.h"
#include "record.h"

/* Every thread of each process of a -p list, or each thread of a -t list. */
static int record__parse_tasks(struct record *rec, const char *list, bool threads)
{
	struct pm_target_error e = { 0 };
	int err = pm_target__add_list(&rec->targets, list, threads, &e);

	if (err == -EINVAL)
		error("bad %s '%s'", threads ? "thread id" : "process id",
		      e.token ? e.token : list);
	else if (err == -ESRCH)
		error("no such %s %llu", threads ? "thread" : "process", e.id);
	else if (err && err != -ENOMEM)
		error("cannot list the threads of process %llu: %s", e.id, strerror(e.err));
	free(e.token);
	return err;
}

/*
 * -u: the threads of the user's processes running now, as perf record 6.1
 * lists them (their children follow by inheritance); not pmrec's own.
 */
static int record__add_user(struct record *rec)
{
	const struct record_opts *o = rec->opts;
	int err = pm_target__add_uid(&rec->targets, o->uid, getpid());

	if (err == -ESRCH)
		error("user '%s' (uid %u) has no process to record", o->uid_str,
		      (unsigned int)o->uid);
	else if (err)
		error("cannot list the processes of user '%s': %s", o->uid_str, strerror(-err));
	return err ? PM_EXIT_FAILURE : 0;
}

/* -G: the cgroup's directory, found as perf finds it. */
static int record__open_cgroup(struct record *rec)
{
	const char *name = rec->opts->cgroup;
	struct pm_cgroup_error e;
	int fd = pm_cgroup__open(name, &e);

	if (fd >= 0) {
		rec->cgroup_fd = fd;
		return 0;
	}
	if (fd == -EINVAL) {
		error("bad cgroup name '%s': a path under the cgroup hierarchy, without '..'",
		      name);
		return PM_EXIT_USAGE;
	}
	if (fd == -ENOENT && !e.path[0]) {
		error("cannot find cgroup '%s': no perf_event cgroup hierarchy is mounted", name);
		hint("mount cgroup2 (mount -t cgroup2 none /sys/fs/cgroup) or a v1 hierarchy "
		     "with the perf_event controller (mount -t cgroup -o perf_event none DIR)");
	} else if (e.path[0]) {
		error("cannot open cgroup '%s' ('%s'): %s", name, e.path, strerror(-fd));
	} else {
		error("cannot find the cgroup hierarchy for '%s': %s", name, strerror(-fd));
	}
	return PM_EXIT_FAILURE;
}

/*
 * The CPUs, then the tasks: a -p/-t list, a user's, the workload's (added
 * once it is forked), or every task (-1), of one cgroup with -G.  Returns
 * an exit status, or 0.
 */
int record__setup_targets(struct record *rec)
{
	struct record_opts *o = rec->opts;
	struct pm_cpumap online;
	size_t i;
	int err;

	err = pm_cpumap__online(&online);
	if (err) {
		error("cannot read the online CPUs: %s", strerror(-err));
		return err;
	}
	if (o->cpu_list) {
		err = pm_cpumap__parse(&rec->cpus, o->cpu_list);
		if (err) {
			error("bad CPU list '%s' (use e.g. 0,2-3)", o->cpu_list);
			pm_cpumap__exit(&online);
			return PM_EXIT_USAGE;
		}
		for (i = 0; i < rec->cpus.nr; i++)
			if (!pm_cpumap__has(&online, rec->cpus.cpus[i])) {
				error("CPU %d is not online (online CPUs: 0-%d)", rec->cpus.cpus[i],
				      online.cpus[online.nr - 1]);
				pm_cpumap__exit(&online);
				return PM_EXIT_USAGE;
			}
		pm_cpumap__exit(&online);
	} else {
		rec->cpus = online;
	}
	if (o->pid_list || o->tid_list) {
		err = record__parse_tasks(rec, o->pid_list ? o->pid_list : o->tid_list, !o->pid_list);
		return err == -EINVAL ? PM_EXIT_USAGE : err ? PM_EXIT_FAILURE : 0;
	}
	if (o->uid_str)
		return record__add_user(rec);
	if (o->workload && !o->system_wide && !o->cpu_list)
		return 0;	/* the child's pid is added once it is forked */
	if (!o->workload && !o->system_wide && !o->cpu_list) {
		error("nothing to record: give -a, -C, -p, -t or a command");
		return PM_EXIT_USAGE;
	}
	if (o->cgroup && (err = record__open_cgroup(rec)))
		return err;
	return pm_target__add(&rec->targets, -1) ? PM_EXIT_FAILURE : 0;
}
