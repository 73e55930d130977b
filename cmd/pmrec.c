// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec: command dispatch.  Commands are matched by exact name only, so a new
 * command can never change what an existing abbreviation meant.  When the
 * first word is an option, the command is "record", as with `perf record`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "record/zsink.h"

struct cmd_struct {
	const char *name;
	const char *argv0;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd_struct commands[] = {
	{ .name = "record", .argv0 = "pmrec record", .fn = cmd_record,
	  .summary = "record samples into a perf.data file (the default)" },
	{ .name = "dump", .argv0 = "pmrec dump", .fn = cmd_dump,
	  .summary = "print the records of a perf.data file or stream" },
	{ .name = "report", .argv0 = "pmrec report", .fn = cmd_report,
	  .summary = "show the profile: hottest functions and call graphs" },
	{ .name = "annotate", .argv0 = "pmrec annotate", .fn = cmd_annotate,
	  .summary = "show where in a function the samples are: instructions, lines" },
	{ .name = "top", .argv0 = "pmrec top", .fn = cmd_top,
	  .summary = "the hottest functions now, refreshed live (no file)" },
	{ .name = "diff", .argv0 = "pmrec diff", .fn = cmd_diff,
	  .summary = "what changed between two recordings, and a gate for CI" },
	{ .name = "agent", .argv0 = "pmrec agent", .fn = cmd_agent,
	  .summary = "profile continuously, each window sent to Pyroscope or a pprof file" },
	{ .name = "archive", .argv0 = "pmrec archive", .fn = cmd_archive,
	  .summary = "put the symbols of the sampled files and kernel into a recording" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: pmrec [--version] [--help] [COMMAND] [OPTIONS] [-- WORKLOAD...]\n\n"
		     "commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-8s %s\n", "help", "show a command's options");
	fprintf(out, "\n'pmrec COMMAND --help' lists a command's options; "
		     "man pmrec-COMMAND has the details.\n");
}

static void version(void)
{
	printf("pmrec %s\n", PMREC_VERSION);
	printf("features: perf-data-file perf-data-pipe libelf overwrite switch-output zstd\n");
	printf("libraries: %s\n", pm_zsink__lib_version());
}

static const struct cmd_struct *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int not_a_command(const char *name)
{
	error("'%s' is not a pmrec command; see 'pmrec --help'", name);
	return PM_EXIT_USAGE;
}

static int run(const struct cmd_struct *cmd, int argc, char **argv)
{
	argv[0] = (char *)cmd->argv0;
	pm_cmd__set_name(cmd->argv0);
	return cmd->fn(argc, argv);
}

static unsigned std_fds_closed;

int pm_cmd__open_std_fds(void)
{
	int fd, got;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free fd: this one, as the ones below are open. */
		got = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (got < 0)
			return -errno;
		if (got != fd) {
			close(got);
			return -EBADF;
		}
		std_fds_closed |= 1u << fd;
	}
	return 0;
}

bool pm_cmd__std_fd_was_closed(int fd)
{
	return std_fds_closed & (1u << fd);
}

int main(int argc, char **argv)
{
	const struct cmd_struct *cmd;
	char *help_argv[] = { NULL, "--help", NULL };

	/* Nothing is said if this fails: fd 2 may be what is missing. */
	if (pm_cmd__open_std_fds())
		return PM_EXIT_FAILURE;
	if (argc < 2) {
		usage(stderr);
		return PM_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		version();
		return PM_EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return PM_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return PM_EXIT_OK;
		}
		cmd = find_command(argv[2]);
		if (!cmd)
			return not_a_command(argv[2]);
		return run(cmd, 2, help_argv);
	}
	cmd = find_command(argv[1]);
	if (cmd)
		return run(cmd, argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return run(&commands[0], argc, argv);
	return not_a_command(argv[1]);
}
