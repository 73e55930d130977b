// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec archive: puts into a recording the symbols that name its samples
 * on another machine (lib/export/archive.c), as a pmrec feature section that
 * perf skips.  Run where the recording was made, after it.
 *
 * Why a post-pass and not `record --embed-symbols`: the recorder does not
 * decode samples (that is what keeps its CPU cost low), so it could only
 * embed every mapped file and the whole of kallsyms; reading the samples
 * afterwards finds the few files and kernel functions they touch.  The
 * numbers are in pmrec-archive(1).
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "export/archive.h"
#include "builtin.h"
#include "format/perf_data.h"
#include "reader/pipeline.h"
#include "symbols/symarchive.h"

struct archive_opts {
	const char *input;
	bool quiet, all;
	struct pm_namer_opts naming;
};

enum { OPT_ALL = 256 };

static const struct argp_option archive_options[] = {
	{ .name = "quiet", .key = 'q', .doc = "Print no summary" },
	{ .name = "all", .key = OPT_ALL,
	  .doc = "Every mapped file and all of kallsyms, sampled or not: what recording "
		 "them would take (larger; see pmrec-archive(1))" },
	{ 0 },
};

static error_t archive_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct archive_opts *o = state->input;

	switch (key) {
	case 'q':
		o->quiet = true;
		break;
	case OPT_ALL:
		o->all = true;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->naming;
		break;
	case ARGP_KEY_ARG:
		if (o->input)
			argp_error(state, "only one file can be given");
		o->input = arg;
		break;
	case ARGP_KEY_END:
		if (!o->input)
			argp_error(state, "no file given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child archive_children[] = {
	{ .argp = &pm_cmd__naming_argp },
	{ 0 },
};

static const struct argp archive_argp = {
	.options = archive_options,
	.children = archive_children,
	.parser = archive_parse_opt,
	.args_doc = "FILE",
	.doc = "Put into FILE, a perf.data file recorded on this machine, the symbols that "
	       "name its samples on another machine: those of each sampled file (by build "
	       "id) and of the sampled kernel functions.\v"
	       "pmrec report and dump use them where the files or the kernel are not the "
	       "recorded ones; perf ignores them.  Exit status: 0 ok, 1 error, 64 usage "
	       "error.  See pmrec-archive(1).",
};

struct archive {
	struct archive_opts opts;
	struct pm_reader *r;
	struct pm_archive *a;
	struct pm_buf payload;
	struct pm_archive_stats st;
};

static void archive__warn(void *arg, const struct pm_warning *w)
{
	const struct archive *ar = arg;

	/* A warning of naming that does not change what is archived. */
	if (w->kind == PM_WARN_DSO_REFUSED || w->kind == PM_WARN_SYMBOL_SOURCE)
		return;
	pm_cmd__warn(ar->opts.input, w);
}

/* Reads the samples: which files and kernel functions they touch. */
static int archive__collect(struct archive *ar, struct pm_pipeline *p)
{
	struct pm_consumer c = { pm_archive__consume, NULL };
	int err;

	p->r = ar->r;
	p->names = true;
	p->kallsyms = true;
	p->naming = ar->opts.naming;
	p->naming.verbose = false;
	p->queue_size = 128 << 20;
	p->warn = archive__warn;
	p->warn_arg = ar;
	err = pm_pipeline__setup(p);
	if (err)
		return err;
	ar->a = pm_archive__new(p->namer, archive__warn, ar);
	if (!ar->a)
		return -ENOMEM;
	c.ctx = ar->a;
	p->consumers = &c;
	p->nr_consumers = 1;
	err = pm_pipeline__records(p);
	pm_pipeline__end(p);
	if (!err && ar->opts.all)
		err = pm_archive__add_all(ar->a);
	return err;
}

static int archive__run(struct archive *ar, int fd)
{
	struct pm_pipeline p = { 0 };
	int err;

	err = pm_reader__open_fd(ar->r, fd);
	if (err) {
		pm_cmd__input_error(ar->opts.input, ar->r, err);
		return err;
	}
	if (pm_reader__is_pipe(ar->r) || pm_reader__is_unfinished(ar->r)) {
		error("%s: %s", ar->opts.input, pm_reader__is_pipe(ar->r) ?
		      "a pipe-mode file has no feature sections to hold symbols; record to a "
		      "file, or convert it with perf inject -i FILE -o NEW" :
		      "the recording was not finished (data size 0)");
		return -EINVAL;
	}
	err = archive__collect(ar, &p);
	if (!err)
		err = pm_archive__build(ar->a, &ar->payload, &ar->st);
	if (err == -EFBIG)
		error("%s: the symbols exceed %u MB, which readers refuse", ar->opts.input,
		      PM_SYMARCHIVE_MAX_SIZE >> 20);
	else if (err)
		pm_cmd__input_error(ar->opts.input, ar->r, err);
	if (!err) {
		err = pm_archive__replace(ar->r, fd, ar->opts.input, HEADER_PMREC_SYMBOLS,
					  ar->payload.data, ar->payload.len);
		if (err)
			error("cannot write to '%s': %s", ar->opts.input,
			      err == -EBUSY ? "it was replaced while archive read it" :
			      strerror(-err));
	}
	pm_pipeline__exit(&p);
	return err;
}

static void archive__summary(const struct archive *ar)
{
	const struct pm_archive_stats *st = &ar->st;

	char missed[64] = "";

	if (st->files_missed)
		snprintf(missed, sizeof(missed), "; %llu files left out (see above)",
			 (unsigned long long)st->files_missed);
	note("%s: %llu files (%llu symbols) and %llu kernel symbols, %llu bytes%s",
	     ar->opts.input, (unsigned long long)st->files, (unsigned long long)st->file_syms,
	     (unsigned long long)st->kernel_syms, (unsigned long long)st->bytes, missed);
}

int cmd_archive(int argc, char **argv)
{
	struct archive ar = { 0 };
	int fd, err;

	if (argp_parse(&archive_argp, argc, argv, 0, NULL, &ar.opts))
		return PM_EXIT_USAGE;
	/* The user names the file, a link included; only a regular file is replaced. */
	fd = pm_archive__open(ar.opts.input);
	if (fd == -EBUSY) {
		error("%s: a recording is still being written to it (or archived)",
		      ar.opts.input);
		hint("archive it once the recording ends");
		return PM_EXIT_FAILURE;
	}
	if (fd < 0) {
		error("cannot open '%s': %s", ar.opts.input,
		      fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return PM_EXIT_FAILURE;
	}
	ar.r = pm_reader__new();
	if (!ar.r) {
		error("out of memory");
		close(fd);
		return PM_EXIT_FAILURE;
	}
	err = archive__run(&ar, fd);
	if (!err && !ar.opts.quiet)
		archive__summary(&ar);
	pm_archive__delete(ar.a);
	pm_buf__exit(&ar.payload);
	pm_reader__delete(ar.r);
	close(fd);
	return err ? PM_EXIT_FAILURE : PM_EXIT_OK;
}
