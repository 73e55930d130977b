/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_BUILTIN_H
#define PMREC_BUILTIN_H

#include <argp.h>
#include <stdbool.h>

#include "symbols/naming.h"
#include "profile/profile.h"
#include "reader/reader.h"
#include "base/warning.h"

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
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_archive(int argc, char **argv);

/*
 * --sort's list of keys (cmd/sort-keys.c) into keys (room for
 * PM_PROFILE_KEY__NR), *nr of them: each one of allowed (bits 1 << key),
 * none twice.  Exits with a usage error naming valid otherwise.
 */
void pm_cmd__parse_sort(struct argp_state *state, const char *arg, unsigned int allowed,
			const char *valid, enum pm_profile_key *keys, size_t *nr);

/*
 * Input of the commands that read a recording (cmd/input.c).  cmd is the
 * message prefix ("pmrec dump"), input the name messages give the input (NULL: none).
 */
void pm_cmd__warn(const char *cmd, const char *input, const struct pm_warning *w);
bool pm_cmd__stdin_is_pipe(void);
/*
 * Opens path ("-": stdin) into r; *name is what messages call it, *fd the
 * descriptor to close (-1 for stdin).  Says why it failed to open, and
 * that a file is unfinished.  0 or a negative errno (the reader's error).
 */
int pm_cmd__open_input(const char *cmd, struct pm_reader *r, const char *path,
		       const char **name, int *fd);
/* The reason of a failure to read: the reader's error with its offset, or ENOMEM. */
void pm_cmd__input_error(const char *cmd, const char *input, struct pm_reader *r, int err);
/*
 * --no-demangle, --no-inline, --no-unwind, --kallsyms and --verbose, one copy for the commands
 * that name frames: a child parser whose input is a struct pm_namer_opts.
 */
extern const struct argp pm_cmd__naming_argp;
/* Its --kallsyms alone (annotate), the same child input. */
extern const struct argp pm_cmd__kallsyms_argp;

#endif
