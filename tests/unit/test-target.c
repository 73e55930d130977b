// SPDX-License-Identifier: GPL-2.0
/* -u's listing of a user's threads from /proc, and where a process is in its exit. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "record/target.h"

static bool has(const struct pm_target *t, pid_t tid)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->tids[i] == tid)
			return true;
	return false;
}

/* A child that lives under uid until killed; as root only. */
static pid_t spawn_as(uid_t uid)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (setresuid(uid, uid, uid))
			_exit(1);
		c = 'x';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	/* Owned by uid from here on. */
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void *pause_thread(void *arg)
{
	pause();
	return arg;
}

/* A child whose main thread ends while another pauses: a zombie with two threads. */
static pid_t fork_main_ended(void)
{
	pthread_t t;
	pid_t child = fork();

	if (child == 0) {
		if (pthread_create(&t, NULL, pause_thread, NULL))
			_exit(1);
		pthread_exit(NULL);
	}
	return child;
}

/* Where a child running, a zombie, a reaped one and one whose main thread ended are. */
static void test_task_state(void)
{
	int running, main_ended = -1, tries;
	siginfo_t si;
	pid_t child;

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	running = pm_task__state(child);
	kill(child, SIGKILL);
	waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT);
	tap_ok(child > 0 && running == PM_TASK_RUNS && pm_task__state(getpid()) == PM_TASK_RUNS &&
	       pm_task__state(child) == PM_TASK_ENDED,
	       "task state: a process running runs, its zombie has ended");
	waitpid(child, NULL, 0);
	tap_ok(pm_task__state(child) == PM_TASK_ENDED, "task state: a process reaped has ended");

	child = fork_main_ended();
	/* Its main thread is a zombie once pthread_exit is through. */
	for (tries = 0; child > 0 && tries < 1000; tries++) {
		char path[64], buf[512] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = 0;
			fclose(f);
		}
		if (strstr(buf, ") Z ")) {
			main_ended = pm_task__state(child);
			break;
		}
		usleep(1000);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	tap_ok(main_ended == PM_TASK_RUNS,
	       "task state: a process whose main thread ended runs while another thread does");
}

int main(void)
{
	struct pm_target t = { 0 };
	const uid_t other = 0x7ffe1234;
	pid_t child;
	int err;

	err = pm_target__add_uid(&t, getuid(), 0);
	tap_ok(!err && has(&t, getpid()), "the user's processes include this one");
	pm_target__exit(&t);
	err = pm_target__add_uid(&t, getuid(), getpid());
	tap_ok(!err || err == -ESRCH, "skipping this process works");
	tap_ok(!has(&t, getpid()), "and leaves it out");
	pm_target__exit(&t);
	err = pm_target__add_uid(&t, other, 0);
	tap_ok(err == -ESRCH && t.nr == 0, "a user without processes: -ESRCH");
	pm_target__exit(&t);

	/* Making a process of another user takes root (make check runs as root). */
	test_task_state();
	if (geteuid() != 0)
		return tap_done();
	child = spawn_as(other);
	err = pm_target__add_uid(&t, other, 0);
	tap_ok(child > 0 && !err && t.nr == 1 && t.tids[0] == child,
	       "another user: exactly its one process's thread");
	pm_target__exit(&t);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return tap_done();
}
