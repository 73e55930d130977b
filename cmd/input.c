// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands that read a recording (dump, report, annotate, archive)
 * share: opening the input, the naming options, and the wording of the
 * warnings and faults lib/ reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "base/file.h"
#include "symbols/debuginfod.h"

/* The warnings that need no detail. */
static const char *const plain_warnings[] = {
	[PM_WARN_OTHER_KERNEL] = "recorded on another kernel: kernel addresses are not named",
	[PM_WARN_UNKNOWN_KERNEL] = "the file does not say which kernel it was recorded on (no "
				   "OSRELEASE or build id): kernel addresses are named from the "
				   "running kernel",
	[PM_WARN_OVERLOADED] = "too many mappings for the input's size: addresses after that "
			       "point are not named",
	[PM_WARN_JITDUMP_FULL] = "more JIT code than pmrec keeps names for: later code stays "
				 "unnamed",
};

/* Why a perf map or a jitdump file was refused: perf's rules on who may name code. */
static const char *jit_refused(int err)
{
	return err == ELOOP ? "it is a symbolic link" :
	       err == EPERM ? "owned by another user than root or the reader (perf's rule)" :
	       err == EINVAL ? "not a regular file" :
	       err == EFBIG ? "it is mostly holes (a sparse file, which no runtime writes)" :
	       strerror(err);
}

/* A JIT file read in part at one of pmrec's bounds (err: which), or left out of the copy. */
static void jit_cut(struct pm_cmd_msg *m, const char *file, const char *what,
		    const struct pm_warning *w)
{
	if (w->err == E2BIG)
		pm_cmd_msg__add(m, "%s '%s' is not copied: the recording's copy of JIT code is "
				"full", file, w->dso);
	else
		pm_cmd_msg__add(m, "%s '%s' is read in part (%s): its first %llu %s are used",
				file, w->dso, w->err == ETIME ?
				"reading it takes longer than pmrec gives a file" :
				"it is larger than pmrec reads", (unsigned long long)w->size, what);
}

/* The names of JIT code: perf maps, jitdump files and the recording's copy of them. */
static void warn_jit(struct pm_cmd_msg *m, const struct pm_warning *w)
{
	unsigned long long size = w->size, off = w->offset;

	switch (w->kind) {
	case PM_WARN_JIT_MAP_REFUSED:
		pm_cmd_msg__add(m, "perf map '%s' is not read: %s", w->dso, jit_refused(w->err));
		break;
	case PM_WARN_JIT_MAP_MALFORMED:
		pm_cmd_msg__add(m, "perf map '%s': %llu malformed lines skipped (not START SIZE "
				"NAME)", w->dso, size);
		break;
	case PM_WARN_JIT_MAP_TRUNCATED:
		if (w->err) {
			jit_cut(m, "perf map", "names", w);
			break;
		}
		pm_cmd_msg__add(m, "perf map '%s' is larger than pmrec reads: its first %llu names "
				"are used", w->dso, size);
		break;
	case PM_WARN_JIT_COPY_BAD:
		pm_cmd_msg__add(m, "the recording's copy of the JIT names cannot be read in full: "
				"%s", w->err == EBADMSG ? "malformed" :
				w->err == EPROTO ? "another format version" :
				w->err == E2BIG ? "more names than pmrec keeps" : strerror(w->err));
		break;
	case PM_WARN_JITDUMP_REFUSED:
		pm_cmd_msg__add(m, "jitdump '%s' is not read: %s; its JIT code stays unnamed",
				w->dso, jit_refused(w->err));
		break;
	case PM_WARN_JITDUMP_BAD:
		pm_cmd_msg__add(m, "jitdump '%s' is malformed at offset %llu (0x%llx): %s; the "
				"%llu code loads before it are used", w->dso, off, off, w->why, size);
		break;
	case PM_WARN_JITDUMP_TRUNCATED:
		if (w->err) {
			jit_cut(m, "jitdump", "code loads", w);
			break;
		}
		pm_cmd_msg__add(m, "jitdump '%s' loads more code than pmrec keeps: its first %llu "
				"code loads are used", w->dso, size);
		break;
	case PM_WARN_JITDUMP_UNTIMED:
		pm_cmd_msg__add(m, "jitdump '%s'%s: code is named by its last load, whatever the "
				"sample's time", w->dso, w->err ?
				" times its code by the CPU's counter, which pmrec does not convert" :
				": the recording was not timed by the monotonic clock (record with "
				"-k mono)");
		break;
	case PM_WARN_JIT_SKIPPED:
		pm_cmd_msg__add(m, "the perf maps and jitdumps of %llu processes, if any, are not "
				"read: the recording's end gives them a time, and it ran out; their "
				"JIT code stays unnamed", size);
		break;
	case PM_WARN_JIT_NAMES:
		pm_cmd_msg__add(m, "JIT code names: %llu from ", size);
		if (w->dso && w->why)
			pm_cmd_msg__add(m, "the recording's copy of '%s' (%s)", w->dso, w->why);
		else if (w->dso)
			pm_cmd_msg__add(m, "'%s'", w->dso);
		else
			pm_cmd_msg__add(m, "the recording (the perf maps pmrec record copied)");
		break;
	default:
		break;
	}
}

/* What debuginfod did, one line: what came, what did not, and why. */
static void warn_debuginfod(struct pm_cmd_msg *m, const struct pm_debuginfod_stats *st)
{
	pm_cmd_msg__add(m, "debuginfod: %u files fetched, %u from its cache (%.*f %s)",
			st->fetched, st->cached, st->bytes < 1000000 ? 0 : 1,
			st->bytes < 1000000 ? (double)st->bytes / 1e3 : (double)st->bytes / 1e6,
			st->bytes < 1000000 ? "kB" : "MB");
	if (st->failed)
		pm_cmd_msg__add(m, "; %u not had (%u not found, %u timed out%s%s)", st->failed,
				st->not_found, st->timed_out,
				st->first_error && st->first_error != -ETIMEDOUT ? "; first error: " :
										 "",
				st->first_error && st->first_error != -ETIMEDOUT ?
					strerror(-st->first_error) : "");
	if (st->unasked)
		pm_cmd_msg__add(m, "; %u not asked after a server timed out", st->unasked);
}

static void warn_input(struct pm_cmd_msg *m, const struct pm_warning *w)
{
	unsigned long long size = w->size, off = w->offset;

	switch (w->kind) {
	case PM_WARN_NO_KALLSYMS:
		pm_cmd_msg__add(m, "cannot read kernel symbols from '%s': %s%s",
				w->dso ? w->dso : "/proc/kallsyms",
				w->err == ENOENT ? "no text symbols in it" : strerror(w->err),
				w->err == EACCES ? " (addresses hidden by kernel.kptr_restrict; run "
				"as root or set it to 0)" : "");
		break;
	case PM_WARN_DSO_REFUSED:
		pm_cmd_msg__add(m, "%s is not used for symbols: %s", w->dso, w->why);
		break;
	case PM_WARN_QUEUE_FULL:
		pm_cmd_msg__add(m, "more than %llu bytes of records between two FINISHED_ROUND "
				"records (at offset %llu); printing the oldest early, so time order "
				"may break (see --queue-size)", size, off);
		break;
	case PM_WARN_BAD_SYMBOLS:
		pm_cmd_msg__add(m, "offset 0x%llx: the symbols embedded in the recording are not "
				"used: %s", off, w->why);
		break;
	case PM_WARN_NOT_ARCHIVED:
		pm_cmd_msg__add(m, "%s is not archived: %s", w->dso, w->why);
		break;
	case PM_WARN_SYMBOL_SOURCE:
		pm_cmd_msg__add(m, "%s: %s", w->dso, w->why);
		break;
	case PM_WARN_DEBUGINFOD:
		warn_debuginfod(m, w->data);
		break;
	case PM_WARN_UNFLUSHED:
		pm_cmd_msg__add(m, "the compressed data ends inside a record (%llu bytes, after the "
				"COMPRESSED record at offset %llu): its writer did not flush the "
				"rest; that record is left out, as perf leaves it out", size, off);
		break;
	default:
		warn_jit(m, w);
		break;
	}
}

void pm_cmd__warn(const char *input, const struct pm_warning *w)
{
	struct pm_cmd_msg m = { 0 };
	const char *text = NULL;

	if ((size_t)w->kind < sizeof(plain_warnings) / sizeof(plain_warnings[0]))
		text = plain_warnings[w->kind];
	if (!text) {
		warn_input(&m, w);
		text = pm_cmd_msg__text(&m);
	}
	if (input)
		error("%s: %s", input, text);
	else
		error("%s", text);
	pm_cmd_msg__exit(&m);
}

bool pm_cmd__stdin_is_pipe(void)
{
	struct stat st;

	return !fstat(STDIN_FILENO, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* stdin when it is a pipe, else pmrec.data, else perf.data (as perf report reads it). */
const char *pm_cmd__default_input(void)
{
	if (pm_cmd__stdin_is_pipe())
		return "-";
	return access("pmrec.data", F_OK) && !access("perf.data", F_OK) ? "perf.data" :
									  "pmrec.data";
}

int pm_cmd__open_input(struct pm_reader *r, const char *path, const char **name, int *fd)
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
			error("cannot open '%s': %s", path,
			      err == -EINVAL ? "not a file or a stream" : strerror(-err));
			return err;
		}
		err = pm_reader__open_fd(r, *fd);
	}
	if (!err && pm_reader__is_unfinished(r))
		error("%s: data size is 0, the recording was not finished; reading records up to "
		      "the end of the file", *name);
	if (!err && pm_reader__features_skipped(r))
		error("%s: file-mode data from a pipe: header features (event names, tracepoint "
		      "formats) are not read", *name);
	return err;
}

void pm_cmd__input_error(const char *input, struct pm_reader *r, int err)
{
	const struct pm_reader_error *e = pm_reader__error(r);

	if (e)
		error("%s: offset 0x%llx: %s", input, (unsigned long long)e->offset, e->reason);
	else if (err == -ENOMEM)
		error("out of memory");
}

void pm_cmd__no_event(const char *input, const char *event, size_t n,
		      const char *(*name)(const void *arg, size_t i), const void *arg)
{
	struct pm_cmd_msg m = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		pm_cmd_msg__add(&m, "%s '%s'", i ? "," : "", name(arg, i));
	error("%s: no event '%s'; the file has:%s", input, event,
	      n ? pm_cmd_msg__text(&m) : " no events");
	pm_cmd_msg__exit(&m);
}

void pm_cmd__lost_samples(const char *input, uint64_t n)
{
	warning_at(input, "%llu samples were lost while recording; the profile misses them",
		   (unsigned long long)n);
}

enum {
	OPT_NO_DEMANGLE = 0x2000,	/* clear of report-flame.c's keys */
	OPT_NO_INLINE,
	OPT_NO_UNWIND,
	OPT_KALLSYMS,
	OPT_SYMFS,
	OPT_BUILDID_DIR,
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

/*
 * Where the recorded files are found, for annotate too, which reads files
 * and kernel symbols but names no stacks.
 */
static const struct argp_option kallsyms_options[] = {
	{ .name = "kallsyms", .key = OPT_KALLSYMS, .arg = "FILE",
	  .doc = "Read the recorded kernel's symbols from FILE (a copy of its /proc/kallsyms) "
		 "instead of /proc/kallsyms" },
	{ .name = "symfs", .key = OPT_SYMFS, .arg = "DIR",
	  .doc = "Look for the recorded files under DIR first (DIR + the recorded path, else DIR + "
		 "its base name): another machine's tree, a chroot, a container image" },
	{ .name = "buildid-dir", .key = OPT_BUILDID_DIR, .arg = "DIR",
	  .doc = "perf's build-id cache to look in (default: $HOME/.debug)" },
	{ 0 },
};

const char *pm_cmd__kallsyms_cache_dir(void)
{
	static char dir[PATH_MAX];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(dir, sizeof(dir), "%s/pmrec", xdg);
	else if (home && home[0] == '/')
		n = snprintf(dir, sizeof(dir), "%s/.cache/pmrec", home);
	else
		return NULL;
	return n > 0 && (size_t)n < sizeof(dir) ? dir : NULL;
}

static error_t kallsyms_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct pm_namer_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		o->kallsyms_cache = pm_cmd__kallsyms_cache_dir();
		break;
	case OPT_KALLSYMS:
		o->kallsyms = arg;
		break;
	case OPT_SYMFS:
		o->symfs = arg;
		break;
	case OPT_BUILDID_DIR:
		o->buildid_dir = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
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
