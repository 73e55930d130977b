// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/smallfile.h"
#include "record/target.h"

int pm_target__add(struct pm_target *t, pid_t tid)
{
	pid_t *n = realloc(t->tids, (t->nr + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	t->tids = n;
	t->tids[t->nr++] = tid;
	return 0;
}

static int target__add_threads(struct pm_target *t, unsigned long long pid)
{
	char path[80];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%llu/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			err = pm_target__add(t, (pid_t)atoi(de->d_name));
	closedir(d);
	return err;
}

static int target__add_one(struct pm_target *t, const char *tok, bool threads,
			   struct pm_target_error *e)
{
	char path[64], *end;
	unsigned long long v;
	struct stat st;
	int err;

	errno = 0;
	v = strtoull(tok, &end, 10);
	if (errno || end == tok || *end || *tok == '-' || !v || v > INT_MAX) {
		*e = (struct pm_target_error){ .problem = PM_TARGET_BAD_ID, .token = strdup(tok) };
		return -EINVAL;
	}
	e->id = v;
	snprintf(path, sizeof(path), "/proc/%llu", v);
	if (stat(path, &st)) {
		e->problem = PM_TARGET_NO_TASK;
		return -ESRCH;
	}
	if (threads)
		return pm_target__add(t, (pid_t)v);
	err = target__add_threads(t, v);
	if (err && err != -ENOMEM) {
		e->problem = PM_TARGET_NO_THREADS;
		e->err = -err;
	}
	return err;
}

int pm_target__add_list(struct pm_target *t, const char *list, bool threads,
			struct pm_target_error *e)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save))
		err = target__add_one(t, tok, threads, e);
	free(copy);
	return err;
}

int pm_target__add_uid(struct pm_target *t, uid_t uid, pid_t skip)
{
	size_t before = t->nr;
	struct dirent *de;
	struct stat st;
	DIR *d = opendir("/proc");
	int err = 0, dfd;

	if (!d)
		return -errno;
	dfd = dirfd(d);
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || atoi(de->d_name) == skip)
			continue;
		if (fstatat(dfd, de->d_name, &st, 0) || st.st_uid != uid)
			continue;
		err = target__add_threads(t, strtoull(de->d_name, NULL, 10));
		/* It exited since readdir saw it. */
		if (err == -ENOENT)
			err = 0;
	}
	closedir(d);
	if (!err && t->nr == before)
		err = -ESRCH;
	return err;
}

void pm_target__exit(struct pm_target *t)
{
	free(t->tids);
	t->tids = NULL;
	t->nr = 0;
}

pid_t pm_tgid_of(pid_t tid)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (pm_read_small(path, buf, sizeof(buf)))
		return tid;
	p = strstr(buf, "\nTgid:");
	return p ? (pid_t)atoi(p + 6) : tid;
}

/*
 * The kernel's PF_EXITING (include/linux/sched.h), in /proc/PID/stat's
 * ninth field: do_exit sets it before perf_event_exit_task writes the EXIT.
 */
#define TASK_PF_EXITING 0x4u
/* Past this many threads left, a process whose main thread ended is taken as running. */
#define TASK_THREADS_LOOKED 64

/*
 * A task's state letter, flags and its process's thread count from its
 * stat file: 0, -ENOENT once it is gone, or -errno.
 */
static int task__stat(const char *path, char *state, unsigned long *flags, long *threads)
{
	char buf[1024], *p;
	int err = pm_read_small(path, buf, sizeof(buf));

	if (err == -ESRCH)
		return -ENOENT;
	if (err)
		return err;
	/*
	 * pid (comm) state ppid pgrp session tty_nr tpgid flags, six fault
	 * and time counts, four more, num_threads.  comm may hold ')'.
	 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld",
			 state, flags, threads) != 3)
		return -EINVAL;
	return 0;
}

static bool task__ended(char state)
{
	return state == 'Z' || state == 'X';
}

/*
 * The main thread has ended and others are left: the process is ending
 * once each of them is (a group exit, or the last one's own), else it runs.
 */
static int task__others_state(pid_t pid)
{
	struct pm_target t = { 0 };
	int err = target__add_threads(&t, (unsigned long long)pid), ret = PM_TASK_EXITING;
	unsigned long flags;
	char path[64], state;
	long threads;
	size_t i;

	if (err)
		return err == -ENOENT || err == -ESRCH ? PM_TASK_ENDED : err;
	for (i = 0; i < t.nr && ret == PM_TASK_EXITING; i++) {
		if (t.tids[i] == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)t.tids[i]);
		/* One gone since the listing has ended. */
		if (!task__stat(path, &state, &flags, &threads) && !task__ended(state) &&
		    !(flags & TASK_PF_EXITING))
			ret = PM_TASK_RUNS;
	}
	pm_target__exit(&t);
	return ret;
}

int pm_task__state(pid_t pid)
{
	char path[32], state;
	unsigned long flags;
	long threads;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	err = task__stat(path, &state, &flags, &threads);
	if (err == -ENOENT)
		return PM_TASK_ENDED;
	if (err)
		return err;
	/* A zombie main thread is counted until it is reaped. */
	if (task__ended(state)) {
		if (threads <= 1)
			return PM_TASK_ENDED;
		return threads > TASK_THREADS_LOOKED ? PM_TASK_RUNS : task__others_state(pid);
	}
	return flags & TASK_PF_EXITING ? PM_TASK_EXITING : PM_TASK_RUNS;
}

rlim_t pm_raise_nofile(rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	return setrlimit(RLIMIT_NOFILE, &rl) ? 0 : rl.rlim_cur;
}

unsigned int pm_count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned int n = 0;
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	/* The listing's own descriptor was open while it was read. */
	return n ? n - 1 : 0;
}
