/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_WORKLOAD_H
#define PMREC_WORKLOAD_H

/*
 * The recorded command.  It is forked first so events can name its pid, and
 * held on a pipe until every event and ring exists: pmrec's own set-up is
 * never sampled, and enable_on_exec catches the first instructions of the
 * command.
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct pm_workload {
	pid_t pid;			/* 0: none */
	int status;			/* waitpid's, once it exited */
	bool running;			/* forked and not reaped */
	int go_fd;			/* written once to let it exec */
	int err_fd;			/* its exec errno, or EOF on success */
};

/* Forks argv, held; the child gets mask and SIGPIPE's default back. */
int pm_workload__fork(struct pm_workload *w, char **argv, const sigset_t *mask);
/* Lets it exec: 0 once exec succeeded, else minus the child's errno. */
int pm_workload__start(struct pm_workload *w);
/* Reaps it if it exited, without waiting; returns whether it still runs. */
bool pm_workload__reap(struct pm_workload *w);
/* Waits for it to exit. */
void pm_workload__wait(struct pm_workload *w);
/* Its exit status as a shell reports it (128+N for signal N); -1 if it has none. */
int pm_workload__exit_status(const struct pm_workload *w);

#endif
