// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands that read a recording (dump, report) share: opening
 * the input, the naming options, and the wording of the warnings and
 * faults lib/ reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "base/file.h"

void pm_cmd__warn(const char *cmd, const char *input, const struct pm_warning *w)
{
	if (input)
		fprintf(stderr, "%s: %s: ", cmd, input);
	else
		fprintf(stderr, "%s: ", cmd);
	switch (w->kind) {
	case PM_WARN_OTHER_KERNEL:
		fputs("recorded on another kernel: kernel addresses are not named", stderr);
		break;
	case PM_WARN_UNKNOWN_KERNEL:
		fputs("the file does not say which kernel it was recorded on (no OSRELEASE or "
		      "build id): kernel addresses are named from the running kernel", stderr);
		break;
	case PM_WARN_NO_KALLSYMS:
		fprintf(stderr, "cannot read kernel symbols from '%s': %s%s",
			w->dso ? w->dso : "/proc/kallsyms",
			w->err == ENOENT ? "no text symbols in it" : strerror(w->err),
			w->err == EACCES ? " (addresses hidden by "
			"kernel.kptr_restrict; run as root or set it to 0)" : "");
		break;
	case PM_WARN_DSO_REFUSED:
		fprintf(stderr, "%s is not used for symbols: %s", w->dso, w->why);
		break;
	case PM_WARN_OVERLOADED:
		fputs("too many mappings for the input's size: addresses after that point are "
		      "not named", stderr);
		break;
	case PM_WARN_QUEUE_FULL:
		fprintf(stderr, "more than %llu bytes of records between two FINISHED_ROUND "
			"records (at offset %llu); printing the oldest early, so time order may "
			"break (see --queue-size)", (unsigned long long)w->size,
			(unsigned long long)w->offset);
		break;
	case PM_WARN_BAD_SYMBOLS:
		fprintf(stderr, "offset 0x%llx: the symbols embedded in the recording are not "
			"used: %s", (unsigned long long)w->offset, w->why);
		break;
	case PM_WARN_NOT_ARCHIVED:
		fprintf(stderr, "%s is not archived: %s", w->dso, w->why);
		break;
	case PM_WARN_SYMBOL_SOURCE:
		fprintf(stderr, "%s: %s", w->dso, w->why);
		break;
	case PM_WARN_UNFLUSHED:
		fprintf(stderr, "the compressed data ends inside a record (%llu bytes, after the "
			"COMPRESSED record at offset %llu): its writer did not flush the rest; "
			"that record is left out, as perf leaves it out",
			(unsigned long long)w->size, (unsigned long long)w->offset);
		break;
	case PM_WARN_JIT_MAP_REFUSED:
		fprintf(stderr, "perf map '%s' is not read: %s", w->dso,
			w->err == ELOOP ? "it is a symbolic link" :
			w->err == EPERM ? "owned by another user than root or the reader (perf's rule)" :
			w->err == EINVAL ? "not a regular file" : strerror(w->err));
		break;
	case PM_WARN_JIT_MAP_MALFORMED:
		fprintf(stderr, "perf map '%s': %llu malformed lines skipped (not START SIZE NAME)",
			w->dso, (unsigned long long)w->size);
		break;
	case PM_WARN_JIT_MAP_TRUNCATED:
		fprintf(stderr, "perf map '%s' is larger than pmrec reads: its first %llu names are used",
			w->dso, (unsigned long long)w->size);
		break;
	case PM_WARN_JIT_COPY_BAD:
		fprintf(stderr, "the recording's copy of the JIT names cannot be read in full: %s",
			w->err == EBADMSG ? "malformed" : w->err == EPROTO ? "another format version" :
			w->err == E2BIG ? "more names than pmrec keeps" : strerror(w->err));
		break;
	case PM_WARN_JITDUMP_REFUSED:
		fprintf(stderr, "jitdump '%s' is not read: %s; its JIT code stays unnamed", w->dso,
			w->err == ELOOP ? "it is a symbolic link" :
			w->err == EPERM ? "owned by another user than root or the reader (perf's rule)" :
			w->err == EINVAL ? "not a regular file" : strerror(w->err));
		break;
	case PM_WARN_JITDUMP_BAD:
		fprintf(stderr, "jitdump '%s' is malformed at offset %llu (0x%llx): %s; the %llu code "
			"loads before it are used", w->dso, (unsigned long long)w->offset,
			(unsigned long long)w->offset, w->why, (unsigned long long)w->size);
		break;
	case PM_WARN_JITDUMP_TRUNCATED:
		fprintf(stderr, "jitdump '%s' loads more code than pmrec keeps: its first %llu code "
			"loads are used", w->dso, (unsigned long long)w->size);
		break;
	case PM_WARN_JITDUMP_UNTIMED:
		if (w->err)
			fprintf(stderr, "jitdump '%s' times its code by the CPU's counter, which pmrec "
				"does not convert: code is named by its last load, whatever the "
				"sample's time", w->dso);
		else
			fprintf(stderr, "jitdump '%s': the recording was not timed by the monotonic "
				"clock (record with -k mono): code is named by its last load, whatever "
				"the sample's time", w->dso);
		break;
	case PM_WARN_JITDUMP_FULL:
		fprintf(stderr, "more JIT code than pmrec keeps names for: later code stays unnamed");
		break;
	case PM_WARN_JIT_NAMES:
		if (w->dso && w->why)
			fprintf(stderr, "JIT code names: %llu from the recording's copy of '%s' (%s)",
				(unsigned long long)w->size, w->dso, w->why);
		else if (w->dso)
			fprintf(stderr, "JIT code names: %llu from '%s'", (unsigned long long)w->size,
				w->dso);
		else
			fprintf(stderr, "JIT code names: %llu from the recording (the perf maps pmrec "
				"record copied)", (unsigned long long)w->size);
		break;
	}
	fputc('\n', stderr);
}

bool pm_cmd__stdin_is_pipe(void)
{
	struct stat st;

	return !fstat(STDIN_FILENO, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

int pm_cmd__open_input(const char *cmd, struct pm_reader *r, const char *path,
		       const char **name, int *fd)
{
	int err;

	*fd = -1;
	if (!strcmp(path, "-")) {
		*name = "<stdin>";
		err = pm_reader__open_fd(r, STDIN_FILENO);
	} else {
		*name = path;
		/* The user names the input: a link or a FIFO is theirs to give. */
		*fd = pm_file__open(path, O_RDONLY, PM_FILE_STREAM | PM_FILE_FOLLOW, 0, NULL);
		if (*fd < 0) {
			err = *fd;
			*fd = -1;
			fprintf(stderr, "%s: cannot open '%s': %s\n", cmd, path,
				err == -EINVAL ? "not a file or a stream" : strerror(-err));
			return err;
		}
		err = pm_reader__open_fd(r, *fd);
	}
	if (!err && pm_reader__is_unfinished(r))
		fprintf(stderr, "%s: %s: data size is 0, the recording was not finished; "
			"reading records up to the end of the file\n", cmd, *name);
	if (!err && pm_reader__features_skipped(r))
		fprintf(stderr, "%s: %s: file-mode data from a pipe: header features "
			"(event names, tracepoint formats) are not read\n", cmd, *name);
	return err;
}

void pm_cmd__input_error(const char *cmd, const char *input, struct pm_reader *r, int err)
{
	const struct pm_reader_error *e = pm_reader__error(r);

	if (e)
		fprintf(stderr, "%s: %s: offset 0x%llx: %s\n", cmd, input,
			(unsigned long long)e->offset, e->reason);
	else if (err == -ENOMEM)
		fprintf(stderr, "%s: out of memory\n", cmd);
}

enum {
	OPT_NO_DEMANGLE = 0x2000,	/* clear of report-flame.c's keys */
	OPT_NO_INLINE,
	OPT_NO_UNWIND,
	OPT_KALLSYMS,
};

static const struct argp_option naming_options[] = {
	{ .name = "no-demangle", .key = OPT_NO_DEMANGLE,
	  .doc = "Print C++ and Rust symbol names as recorded (mangled)" },
	{ .name = "no-inline", .key = OPT_NO_INLINE,
	  .doc = "Do not show functions inlined at a frame as frames of their own" },
	{ .name = "no-unwind", .key = OPT_NO_UNWIND,
	  .doc = "Do not unwind --call-graph dwarf stack copies: use the call chain only" },
	{ .name = "verbose", .key = 'v',
	  .doc = "Say where the names of each file and of the kernel come from: the file, "
		 "kallsyms, or the symbols embedded in the recording (pmrec archive)" },
	{ 0 },
};

/* --kallsyms alone, for annotate, which reads kernel symbols but names no stacks. */
static const struct argp_option kallsyms_options[] = {
	{ .name = "kallsyms", .key = OPT_KALLSYMS, .arg = "FILE",
	  .doc = "Read the recorded kernel's symbols from FILE (a copy of its /proc/kallsyms) "
		 "instead of /proc/kallsyms" },
	{ 0 },
};

static error_t kallsyms_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct pm_namer_opts *o = state->input;

	if (key != OPT_KALLSYMS)
		return ARGP_ERR_UNKNOWN;
	o->kallsyms = arg;
	return 0;
}

const struct argp pm_cmd__kallsyms_argp = {
	.options = kallsyms_options,
	.parser = kallsyms_parse_opt,
};

static const struct argp_child naming_children[] = {
	{ .argp = &pm_cmd__kallsyms_argp },
	{ 0 },
};

static error_t naming_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct pm_namer_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = o;
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_NO_DEMANGLE:
		o->no_demangle = true;
		break;
	case OPT_NO_INLINE:
		o->no_inline = true;
		break;
	case OPT_NO_UNWIND:
		o->no_unwind = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp pm_cmd__naming_argp = {
	.options = naming_options,
	.parser = naming_parse_opt,
	.children = naming_children,
};
