// SPDX-License-Identifier: GPL-2.0
/*
 * idlekids: keep N idle processes around, for the cost of /proc synthesis.
 *
 *   idlekids N READY
 *
 * Forks N children that sleep in pause(), then creates the file READY and
 * waits for SIGTERM, SIGINT or SIGHUP.  On that signal it kills and reaps
 * every child and exits 0.  Each child also asks for SIGKILL when its parent
 * dies (PR_SET_PDEATHSIG), so none outlives idlekids even after a SIGKILL.
 *
 * Exit status: 0 after a clean stop, 1 when a fork failed (the children
 * already made are killed first).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t *kids;
static long nkids;

static void kill_all(void)
{
	long i;

	for (i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	pid_t parent = getpid(), pid;
	sigset_t set, old;
	long n, i;
	int fd, sig;

	if (argc != 3 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: idlekids N READY\n");
		return 64;
	}
	kids = calloc(n, sizeof(*kids));
	if (!kids)
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "idlekids: fork %ld: %s\n", i, strerror(errno));
			kill_all();
			return 1;
		}
		if (pid == 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			for (;;)
				pause();
		}
		kids[nkids++] = pid;
	}
	fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	while (sigwait(&set, &sig))
		;
	kill_all();
	return 0;
}
