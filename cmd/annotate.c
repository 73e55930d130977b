// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec annotate: where in a function the samples are.  For the named
 * functions, or the hottest ones, each instruction with its share of the
 * function's samples, under the source lines it was made from, as `perf
 * annotate --stdio` shows it; or one JSON document.
 *
 * This file holds the options, the messages and the order of the phases:
 * the records are read and named by the pipeline (lib/reader/pipeline.c), counted
 * by function and address (lib/profile/annotate.c), each function disassembled and
 * given its lines (lib/profile/annotate_code.c) and printed (lib/print/annotate_print.c).
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/annotate.h"
#include "profile/libcapstone.h"
#include "print/annotate_print.h"
#include "builtin.h"
#include "reader/pipeline.h"

#define QUEUE_SIZE (128u << 20)
/* Names shown when the one asked for has no samples. */
#define NEAREST 3

struct annotate_opts {
	const char *input;
	const char *kcore;
	struct pm_namer_opts naming;
	const char **syms;
	size_t nr_syms;
	double percent_limit;
	bool json;
	bool no_source;
};

struct annotate {
	struct annotate_opts opts;
	struct pm_reader *r;
	const char *name;		/* of the input, for messages */
	int fd;
	struct pm_pipeline pipe;
	struct pm_annotate_sink sink;
	struct pm_dso_cache *dsos;
	struct pm_sources sources;
	struct pm_out out;
	struct pm_annotate_print print;
	struct pm_annotate_kernel kernel;
};

enum {
	OPT_STDIO = 0x100,
	OPT_JSON,
	OPT_PERCENT_LIMIT,
	OPT_NO_SOURCE,
	OPT_KCORE,
};

static const struct argp_option annotate_options[] = {
	{ .name = "input", .key = 'i', .arg = "FILE",
	  .doc = "read FILE (default: pmrec.data, else perf.data; - for stdin)" },
	{ .name = "stdio", .key = OPT_STDIO,
	  .doc = "text as perf annotate --stdio lays it out (the default)" },
	{ .name = "json", .key = OPT_JSON, .doc = "one JSON document" },
	{ .name = "percent-limit", .key = OPT_PERCENT_LIMIT, .arg = "PCT",
	  .doc = "without SYMBOL: the functions with at least PCT % of the samples (default 1)" },
	{ .name = "no-source", .key = OPT_NO_SOURCE,
	  .doc = "do not read source files: show file:line above the instructions" },
	{ .name = "kcore", .key = OPT_KCORE, .arg = "FILE",
	  .doc = "read kernel code from FILE, a copy of the recorded kernel's /proc/kcore "
		 "(perf record --kcore's kcore_dir/kcore), with --kallsyms naming the "
		 "kallsyms copied with it (default: /proc/kcore, when this is the recorded "
		 "kernel)" },
	{ 0 }
};

static error_t annotate_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct annotate_opts *o = state->input;
	const char **syms;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->naming;
		break;
	case 'i':
		o->input = arg;
		break;
	case OPT_KCORE:
		o->kcore = arg;
		break;
	case ARGP_KEY_END:
		/* A copy's functions are bounded by its own kernel's symbols, not this one's. */
		if (o->kcore && !o->naming.kallsyms)
			argp_error(state, "--kcore needs --kallsyms: the kallsyms copied with the "
				   "kcore (perf.data/kcore_dir/kallsyms)");
		break;
	case OPT_STDIO:
		o->json = false;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_NO_SOURCE:
		o->no_source = true;
		break;
	case OPT_PERCENT_LIMIT:
		o->percent_limit = strtod(arg, &end);
		if (end == arg || *end || !(o->percent_limit >= 0 && o->percent_limit <= 100))
			argp_error(state, "bad --percent-limit '%s' (a percentage, 0 to 100)", arg);
		break;
	case ARGP_KEY_ARG:
		syms = realloc(o->syms, (o->nr_syms + 1) * sizeof(*syms));
		if (!syms)
			argp_failure(state, PM_EXIT_FAILURE, ENOMEM, "out of memory");
		o->syms = syms;
		o->syms[o->nr_syms++] = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child annotate_children[] = {
	{ .argp = &pm_cmd__kallsyms_argp },
	{ 0 }
};

static const struct argp annotate_argp = {
	.options = annotate_options,
	.parser = annotate_parse_opt,
	.children = annotate_children,
	.args_doc = "[SYMBOL...]",
	.doc = "Show where in the named functions (by default the hottest ones) the samples "
	       "of a recording are: each instruction with its share of the function's "
	       "samples, under the source lines it comes from.",
};

static void annotate__warn(void *arg, const struct pm_warning *w)
{
	const struct annotate *an = arg;

	pm_cmd__warn(an->name, w);
}

/* Reads the input into the sink; says why it failed.  0 or a negative errno. */
static int annotate__read(struct annotate *an)
{
	const char *path = an->opts.input ? an->opts.input : pm_cmd__default_input();
	struct pm_consumer c = { .record = pm_annotate_sink__record, .ctx = &an->sink };
	struct pm_pipeline *p = &an->pipe;
	int err;

	err = pm_cmd__open_input(an->r, path, &an->name, &an->fd);
	if (err) {
		if (an->fd >= 0)
			pm_cmd__input_error(an->name, an->r, err);
		return err;
	}
	*p = (struct pm_pipeline){
		.r = an->r,
		.names = true,
		.queue_size = QUEUE_SIZE,
		.consumers = &c,
		.nr_consumers = 1,
		.warn = annotate__warn,
		.warn_arg = an,
		.naming = an->opts.naming,
	};
	err = pm_pipeline__setup(p);
	if (!err) {
		an->sink.namer = p->namer;
		/* The files the samples were named from, found once. */
		if (p->namer)
			pm_dso_cache__set_locator(an->dsos, pm_namer__locator(p->namer));
		err = pm_pipeline__records(p);
		pm_pipeline__end(p);
	}
	if (err)
		pm_cmd__input_error(an->name, an->r, err);
	pm_annotate_sink__sort(&an->sink);
	return err;
}

/* Edit distance of the first 64 bytes of a and b: enough to rank near names. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strnlen(a, 64), lb = strnlen(b, 64), row[65], i, j, prev, cur;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			row[j] = a[i - 1] == b[j - 1] ? prev :
				 1 + (prev < row[j] ? (prev < row[j - 1] ? prev : row[j - 1]) :
					  (row[j] < row[j - 1] ? row[j] : row[j - 1]));
			prev = cur;
		}
	}
	return row[lb];
}

/* No function of that name has samples: say so, with the nearest names that do. */
static void annotate__say_unknown(const struct annotate *an, const char *sym)
{
	const struct pm_annotate_sink *k = &an->sink;
	size_t best[NEAREST], dist[NEAREST], nr = 0, i, pos, d;
	struct pm_cmd_msg m = { 0 };

	/* The NEAREST closest, closest first, kept by insertion. */
	for (i = 0; i < k->nr_funcs; i++) {
		d = distance(sym, k->funcs[i].sym);
		if (nr < NEAREST)
			pos = nr++;
		else if (d < dist[NEAREST - 1])
			pos = NEAREST - 1;
		else
			continue;
		for (; pos > 0 && dist[pos - 1] > d; pos--) {
			best[pos] = best[pos - 1];
			dist[pos] = dist[pos - 1];
		}
		best[pos] = i;
		dist[pos] = d;
	}
	for (i = 0; i < nr; i++)
		pm_cmd_msg__add(&m, "%s'%s'", i ? ", " : "; nearest functions with samples: ",
				k->funcs[best[i]].sym);
	error("%s: no samples in '%s'%s", an->name, sym, pm_cmd_msg__text(&m));
	pm_cmd_msg__exit(&m);
}

static void say_build_id(struct pm_cmd_msg *m, const unsigned char *id, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		pm_cmd_msg__add(m, "%02x", id[i]);
	if (!len)
		pm_cmd_msg__add(m, "none");
}

/* Why kcore could not be read: what the kernel or the file lacks. */
static void annotate__say_kcore(const struct annotate *an, const struct pm_annotate_error *e,
				struct pm_cmd_msg *m)
{
	const char *path = an->opts.kcore;

	if (!path && e->err == -ENOENT)
		pm_cmd_msg__add(m, "this kernel has no /proc/kcore (it was built without "
				"CONFIG_PROC_KCORE); give a copy with --kcore and --kallsyms");
	else if (!path && (e->err == -EPERM || e->err == -EACCES))
		pm_cmd_msg__add(m, "reading /proc/kcore needs CAP_SYS_RAWIO (root), and a kernel "
				"not in lockdown");
	else if (e->err == -ENOEXEC)
		pm_cmd_msg__add(m, "%s is not an ELF64 core file of kernel memory (kcore)",
				path ? path : "/proc/kcore");
	else
		pm_cmd_msg__add(m, "%s: %s", path ? path : "/proc/kcore", strerror(-e->err));
}

static void annotate__say_kernel(const struct annotate *an, const struct pm_annotate_error *e,
				 struct pm_cmd_msg *m)
{
	switch (e->why) {
	case PM_ANNOTATE_KCORE:
		annotate__say_kcore(an, e, m);
		break;
	case PM_ANNOTATE_KCORE_RANGE:
		pm_cmd_msg__add(m, "no segment of %s holds its code at 0x%llx (is --kallsyms the "
				"kcore's kernel's?)", an->opts.kcore ? an->opts.kcore : "/proc/kcore",
				(unsigned long long)e->addr);
		break;
	case PM_ANNOTATE_KERNEL_OTHER:
		pm_cmd_msg__add(m, "the recording is another kernel's (build id ");
		say_build_id(m, an->kernel.id, an->kernel.id_len);
		pm_cmd_msg__add(m, " recorded, %s has ", an->opts.kcore ? an->opts.kcore :
				"the running kernel");
		say_build_id(m, e->build_id, e->build_id_len);
		pm_cmd_msg__add(m, ")");
		break;
	case PM_ANNOTATE_NO_KALLSYMS:
		pm_cmd_msg__add(m, "no kernel symbols (give the recorded kernel's with --kallsyms)");
		break;
	default:
		break;
	}
}

static void annotate__say_error(const struct annotate *an, const struct pm_annotate_func *f,
				const struct pm_annotate_error *e, int err)
{
	struct pm_cmd_msg m = { 0 };

	switch (e->why) {
	case PM_ANNOTATE_BUILD_ID:
		pm_cmd_msg__add(&m, "the file is not the one recorded (build id ");
		say_build_id(&m, f->build_id, f->build_id_len);
		pm_cmd_msg__add(&m, " recorded, ");
		say_build_id(&m, e->build_id, e->build_id_len);
		pm_cmd_msg__add(&m, " now)");
		break;
	case PM_ANNOTATE_NO_CODE:
		pm_cmd_msg__add(&m, "no code for it in the file: %s", strerror(-err));
		break;
	case PM_ANNOTATE_KCORE:
	case PM_ANNOTATE_KCORE_RANGE:
	case PM_ANNOTATE_KERNEL_OTHER:
	case PM_ANNOTATE_NO_KALLSYMS:
		annotate__say_kernel(an, e, &m);
		break;
	case PM_ANNOTATE_NO_SYMBOL:
		pm_cmd_msg__add(&m, "no symbol of the file covers its samples");
		break;
	case PM_ANNOTATE_TOO_LARGE:
		pm_cmd_msg__add(&m, "the function is larger than 256 KiB");
		break;
	case PM_ANNOTATE_ARCH:
		pm_cmd_msg__add(&m, "not an x86-64 or arm64 file");
		break;
	case PM_ANNOTATE_KERNEL:
		pm_cmd_msg__add(&m, "kernel and module code is not read (only user-space files)");
		break;
	case PM_ANNOTATE_DISASM:
		pm_cmd_msg__add(&m, "the disassembler failed");
		break;
	case PM_ANNOTATE_NO_DISASSEMBLER:
		pm_cmd_msg__add(&m, "the disassembler, %s, is not installed (Debian: %s)",
				PM_LIBCAPSTONE_SONAME, PM_LIBCAPSTONE_PACKAGE);
		break;
	default:
		pm_cmd_msg__add(&m, "%s", strerror(-err));
		break;
	}
	error("cannot annotate '%s' in '%s': %s", f->sym, f->dso, pm_cmd_msg__text(&m));
	pm_cmd_msg__exit(&m);
}

/* Annotates and prints f.  0, 1 if it cannot be annotated, or a negative errno of the output. */
static int annotate__one(struct annotate *an, const struct pm_annotate_func *f)
{
	struct pm_annotate_error e;
	struct pm_annotation a;
	int err;

	/* The kernel's symbols are read on its first function only. */
	if (f->kernel && !an->kernel.ks) {
		an->kernel.kcore = an->opts.kcore;
		an->kernel.ks = pm_namer__kallsyms(an->sink.namer);
		an->kernel.id_len = pm_namer__kernel_build_id(an->sink.namer, &an->kernel.id);
	}
	err = pm_annotation__build(&a, f, an->dsos, &an->kernel, &e);
	if (err == -ENOMEM) {
		pm_annotation__exit(&a);
		return err;
	}
	if (err) {
		annotate__say_error(an, f, &e, err);
		pm_annotation__exit(&a);
		return 1;
	}
	err = pm_annotate_print__one(&an->print, &a);
	pm_annotation__exit(&a);
	return err;
}

/* The source files not shown because the binary's owner could not read them. */
static void annotate__say_withheld(const struct annotate *an)
{
	struct pm_source_owner who;
	const char *path;
	size_t i;

	for (i = 0; pm_sources__withheld(&an->sources, i, &path, &who); i++)
		note("note: source file '%s' not shown: the binary's owner (uid %u) cannot read it",
		     path, (unsigned)who.uid);
}

/* The functions asked for, or the hottest.  Exit status. */
static int annotate__all(struct annotate *an)
{
	const struct pm_annotate_sink *k = &an->sink;
	double limit = an->opts.percent_limit;
	int ret = PM_EXIT_OK, err = 0;
	size_t i, j, found;

	pm_annotate_print__begin(&an->print);
	for (i = 0; i < an->opts.nr_syms && err >= 0; i++) {
		for (j = found = 0; j < k->nr_funcs && err >= 0; j++) {
			if (strcmp(k->funcs[j].sym, an->opts.syms[i]))
				continue;
			found++;
			err = annotate__one(an, &k->funcs[j]);
			ret = err ? PM_EXIT_FAILURE : ret;
		}
		if (!found) {
			annotate__say_unknown(an, an->opts.syms[i]);
			ret = PM_EXIT_FAILURE;
		}
	}
	for (j = 0; !an->opts.nr_syms && j < k->nr_funcs && err >= 0; j++) {
		if (100.0 * (double)k->funcs[j].period < limit * (double)k->period)
			break;
		err = annotate__one(an, &k->funcs[j]);
	}
	if (err >= 0)
		err = pm_annotate_print__end(&an->print);
	if (!an->opts.nr_syms && !k->nr_funcs && err >= 0)
		error("%s: no samples in named functions", an->name);
	annotate__say_withheld(an);
	if (err == -ENOMEM)
		error("out of memory");
	/* The reader of stdout went away (| head): not a failure. */
	if (err == -EPIPE)
		return ret;
	/* What is left is the output's: a full disk, a closed stdout. */
	if (err < 0 && err != -ENOMEM)
		error("write error: %s", strerror(-err));
	return err < 0 ? PM_EXIT_FAILURE : ret;
}

static void annotate__exit(struct annotate *an)
{
	if (an->fd >= 0)
		close(an->fd);
	pm_pipeline__exit(&an->pipe);
	pm_annotate_kernel__exit(&an->kernel);
	pm_annotate_sink__exit(&an->sink);
	pm_sources__exit(&an->sources);
	pm_dso_cache__delete(an->dsos);
	pm_reader__delete(an->r);
	pm_out__exit(&an->out);
	free(an->opts.syms);
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate an = { .opts = { .percent_limit = 1 }, .fd = -1 };
	int ret;

	pm_annotate_sink__init(&an.sink);
	if (argp_parse(&annotate_argp, argc, argv, 0, NULL, &an.opts)) {
		annotate__exit(&an);
		return PM_EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);
	an.r = pm_reader__new();
	an.dsos = pm_dso_cache__new();
	if (!an.r || !an.dsos || pm_out__init_fd(&an.out, STDOUT_FILENO, 1 << 16)) {
		error("out of memory");
		annotate__exit(&an);
		return PM_EXIT_FAILURE;
	}
	an.print = (struct pm_annotate_print){ .out = &an.out, .json = an.opts.json,
					       .sources = an.opts.no_source ? NULL : &an.sources };
	ret = annotate__read(&an) ? PM_EXIT_FAILURE : PM_EXIT_OK;
	if (ret == PM_EXIT_OK) {
		an.print.event = an.sink.evsel < 0 ? "" :
				 pm_evsel__name(pm_reader__evsel(an.r, (size_t)an.sink.evsel));
		an.print.total_period = an.sink.period;
		ret = annotate__all(&an);
	}
	annotate__exit(&an);
	return ret;
}
