// SPDX-License-Identifier: GPL-2.0
/*
 * barefds: runs COMMAND with only stdin, stdout and stderr open, so that a
 * test of fd limits sees what CI's clean environment sees, not the fds the
 * caller's shell happened to leave open (those give pmrec a spare slot).
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: barefds COMMAND [ARG]...\n");
		return 2;
	}
	if (syscall(SYS_close_range, 3U, ~0U, 0U)) {
		perror("barefds: close_range");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
