/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_TARGET_H
#define PMREC_TARGET_H

/* The tasks a recording follows: -p processes, -t threads, a command, or all. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

struct pm_target {
	pid_t *tids;			/* -1 alone for system-wide */
	size_t nr;
};

enum pm_target_problem {
	PM_TARGET_BAD_ID,		/* not a positive number */
	PM_TARGET_NO_TASK,		/* no such process or thread */
	PM_TARGET_NO_THREADS,		/* its task directory could not be listed */
};

struct pm_target_error {
	enum pm_target_problem problem;
	char *token;			/* BAD_ID: the word, to free */
	unsigned long long id;
	int err;			/* NO_THREADS: positive errno */
};

int pm_target__add(struct pm_target *t, pid_t tid);
/*
 * Every thread of each process of a -p list (threads false) or each thread
 * of a -t list.  -EINVAL (BAD_ID), -ESRCH or another error with *e filled.
 */
int pm_target__add_list(struct pm_target *t, const char *list, bool threads,
			struct pm_target_error *e);
/*
 * Every thread of every process that uid owns (the owner of /proc/PID, as
 * perf record -u lists them), but process skip's.  Threads exit while they
 * are listed: the open leaves out those gone by then (pm_evset.skip_gone).
 * -ESRCH when uid owns no process; -errno when /proc cannot be read.
 */
int pm_target__add_uid(struct pm_target *t, uid_t uid, pid_t skip);
void pm_target__exit(struct pm_target *t);

/* The process (thread group) of a thread; tid itself when unknown. */
pid_t pm_tgid_of(pid_t tid);

enum pm_task_state {
	/* Its main thread runs, or has ended while others run. */
	PM_TASK_RUNS,
	/* It is in its exit: the kernel marks a thread so before perf writes its EXIT. */
	PM_TASK_EXITING,
	/* Every thread has ended (each EXIT written), or it is gone. */
	PM_TASK_ENDED,
};

/*
 * Where process pid is in its exit, from /proc: its main thread's state,
 * flags and thread count and, once that thread has ended with others left
 * (up to 64 of them; past that it runs), theirs.  -errno if /proc cannot
 * tell.
 */
int pm_task__state(pid_t pid);

/*
 * Raises the soft RLIMIT_NOFILE to need, up to the hard limit (perf does
 * the same).  Returns the new limit, or 0 when nothing changed.
 */
rlim_t pm_raise_nofile(rlim_t need);
/* Descriptors this process has open (from /proc/self/fd), 0 if unknown. */
unsigned int pm_count_open_fds(void);

#endif
