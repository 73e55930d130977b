// SPDX-License-Identifier: GPL-2.0
/* The output file of report's exports: the one place of its rules and messages. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "base/output.h"
#include "report-export.h"

/* Only a pipe or a socket has a reader that can go away; a file's EPIPE is an error. */
static bool is_pipe(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

int report_export__write(const char *path, report_export_fn *fn, void *arg)
{
	bool out = !strcmp(path, "-");
	struct pm_outfile f;
	bool pipe;
	int err;

	err = pm_outfile__open(&f, path);
	if (err) {
		error("cannot create '%s': %s", path, strerror(-err));
		return err;
	}
	pipe = is_pipe(f.fd);
	err = pm_outfile__close(&f, path, fn(arg, pm_outfile__write, &f));
	if (err == -EPIPE && pipe)
		return 1;
	if (err == -ENOMEM)
		error("out of memory");
	else if (err)
		error("cannot write '%s': %s", out ? "<stdout>" : path, strerror(-err));
	return err;
}
