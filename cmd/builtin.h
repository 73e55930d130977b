/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_BUILTIN_H
#define PMREC_BUILTIN_H

/* Exit status shared by every command (documented in pmrec(1)). */
enum {
	PM_EXIT_OK = 0,
	PM_EXIT_FAILURE = 1,
	PM_EXIT_USAGE = 64,
	/* The reader of `-o -` closed the pipe: 128 + SIGPIPE, as a shell shows it. */
	PM_EXIT_EPIPE = 141,
};

/* argv[0] is the command's name ("pmrec record"), as messages show it. */
int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);

#endif
