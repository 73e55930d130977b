/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_BUILTIN_H
#define PMREC_BUILTIN_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/naming.h"
#include "profile/profile.h"
#include "reader/reader.h"
#include "base/buf.h"
#include "base/warning.h"

/* Exit status shared by every command (documented in pmrec(1)). */
enum {
	PM_EXIT_OK = 0,
	PM_EXIT_FAILURE = 1,
	/* diff's gate: a row grew over its --fail-above. */
	PM_EXIT_GATE = 3,
	PM_EXIT_USAGE = 64,
	/* The reader of `-o -` closed the pipe: 128 + SIGPIPE, as a shell shows it. */
	PM_EXIT_EPIPE = 141,
};

/*
 * Messages (cmd/message.c), one line each on stderr, after the name of the
 * command that runs ("pmrec report: "): the one place that writes it.
 * error() says what failed, note() what was done (summaries, --verbose),
 * warning() and warning_at() add "warning: ", after where (an input's name)
 * for warning_at.  hint() indents a line under the message it explains.
 */
void pm_cmd__set_name(const char *name);

/*
 * Opens /dev/null on whichever of fds 0, 1 and 2 is closed, before any
 * other file is opened (as git and coreutils do): else the first file a
 * command opens would get the fd, and its messages or output would be
 * written into it (`pmrec archive FILE 2>&-` wrote its summary into the
 * recording).  0, or -errno when /dev/null cannot be had.
 */
int pm_cmd__open_std_fds(void);
/* Whether fd (0, 1 or 2) was closed when pmrec started. */
bool pm_cmd__std_fd_was_closed(int fd);
__attribute__((format(printf, 1, 2))) void error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void warning_at(const char *where, const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void hint(const char *fmt, ...);

/* A message made in pieces (a list), said at once with error("...%s", text). */
struct pm_cmd_msg {
	struct pm_buf b;
	bool oom;		/* a piece did not fit: the rest is left out */
};

__attribute__((format(printf, 2, 3)))
void pm_cmd_msg__add(struct pm_cmd_msg *m, const char *fmt, ...);
/* What was added, "" if nothing. */
const char *pm_cmd_msg__text(const struct pm_cmd_msg *m);
void pm_cmd_msg__exit(struct pm_cmd_msg *m);

/* argv[0] is the command's name ("pmrec record"), as messages show it. */
int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/*
 * --sort's list of keys (cmd/sort-keys.c) into keys (room for
 * PM_PROFILE_KEY__NR), *nr of them: each one of allowed (bits 1 << key),
 * none twice.  Exits with a usage error naming valid otherwise.
 */
void pm_cmd__parse_sort(struct argp_state *state, const char *arg, unsigned int allowed,
			const char *valid, enum pm_profile_key *keys, size_t *nr);

/*
 * Input of the commands that read a recording (cmd/input.c).  input is
 * the name messages give the input (NULL: none).
 */
void pm_cmd__warn(const char *input, const struct pm_warning *w);
bool pm_cmd__stdin_is_pipe(void);
/* report's and annotate's: stdin if it is a pipe, else pmrec.data, else perf.data. */
const char *pm_cmd__default_input(void);
/*
 * Opens path ("-": stdin) into r; *name is what messages call it, *fd the
 * descriptor to close (-1 for stdin).  Says why it failed to open, and
 * that a file is unfinished.  0 or a negative errno (the reader's error).
 */
int pm_cmd__open_input(struct pm_reader *r, const char *path, const char **name, int *fd);
/* The reason of a failure to read: the reader's error with its offset, or ENOMEM. */
void pm_cmd__input_error(const char *input, struct pm_reader *r, int err);
/* No event named event in input: says so, with the n names name(arg, i) it has. */
void pm_cmd__no_event(const char *input, const char *event, size_t n,
		      const char *(*name)(const void *arg, size_t i), const void *arg);
/* The recording lost n samples: a profile of input misses them. */
void pm_cmd__lost_samples(const char *input, uint64_t n);
/*
 * --no-demangle, --no-inline, --no-unwind, --kallsyms and --verbose, one copy for the commands
 * that name frames: a child parser whose input is a struct pm_namer_opts.
 */
extern const struct argp pm_cmd__naming_argp;
/* Its --kallsyms alone (annotate), the same child input. */
extern const struct argp pm_cmd__kallsyms_argp;
/* The user's cache of the running kernel's symbols: $XDG_CACHE_HOME/pmrec, ~/.cache/pmrec. */
const char *pm_cmd__kallsyms_cache_dir(void);

#endif
