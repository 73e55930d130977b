// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/workload.h"

int pm_workload__fork(struct pm_workload *w, char **argv, const sigset_t *mask)
{
	int go[2], err[2];

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (w->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		sigprocmask(SIG_SETMASK, mask, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	w->running = true;
	return 0;
}

int pm_workload__start(struct pm_workload *w)
{
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	close(w->go_fd);
	w->go_fd = -1;
	/* The exec closes err_fd (O_CLOEXEC): EOF means it succeeded. */
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

bool pm_workload__reap(struct pm_workload *w)
{
	int status;

	if (w->running && waitpid(w->pid, &status, WNOHANG) == w->pid) {
		w->status = status;
		w->running = false;
	}
	return w->running;
}

void pm_workload__wait(struct pm_workload *w)
{
	if (w->running && waitpid(w->pid, &w->status, 0) == w->pid)
		w->running = false;
}

int pm_workload__exit_status(const struct pm_workload *w)
{
	if (w->pid <= 0 || w->running)
		return -1;
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return -1;
}
