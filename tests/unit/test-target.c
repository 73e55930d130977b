// SPDX-License-Identifier: GPL-2.0
/* -u's listing of a user's threads from /proc. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
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
