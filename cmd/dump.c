// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec dump: prints the records of a perf.data file or stream, one line
 * per record (or one JSON object per line), then per-type counts.
 *
 * This file holds the options, the messages and the order of the phases;
 * the engine (reading in time order, filters, printers, symbols, stats) is
 * lib/print/dumper.c and what it calls.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "print/dumper.h"
#include "reader/reader.h"
#include "base/units.h"

#define OUT_BUF_SIZE (1u << 20)
#define DEFAULT_INPUT "pmrec.data"

struct dump_opts {
	const char *input;
	bool json;
	bool stats_only;
	bool header;
	bool raw;
	bool ordered;
	bool no_symbols;
	struct pm_namer_opts naming;
	enum pm_fold folded;
	uint64_t queue_size;	/* bytes of records held for time order */
	struct pm_dump_filter filter;
};

struct dump {
	struct dump_opts opts;
	struct pm_dumper dumper;
	struct pm_reader *r;
	const char *name;	/* of the input, for messages */
};

/* --- command line -------------------------------------------------------- */

enum {
	OPT_ORDERED = 256,
	OPT_SYMBOLS,
	OPT_NO_SYMBOLS,
	OPT_FOLDED,
	OPT_QUEUE_SIZE,
};

static const struct argp_option dump_options[] = {
	{ .name = "input", .key = 'i', .arg = "FILE",
	  .doc = "Read FILE (same as the FILE argument)" },
	{ .name = "json", .key = 'j', .doc = "JSON Lines: one object per record" },
	{ .name = "stats", .key = 's',
	  .doc = "Print only the counts per record type and per event" },
	{ .name = "header", .key = 'H',
	  .doc = "Print only the file header, events and features" },
	{ .name = "raw", .key = 'r', .doc = "Hex dump of each record under its line" },
	{ .name = "type", .key = 't', .arg = "TYPES",
	  .doc = "Only records of these types (comma-separated names, e.g. sample,comm; "
		 "case-insensitive; 'unknown' for unnamed types)" },
	{ .name = "cpu", .key = 'C', .arg = "CPUS",
	  .doc = "Only records from these CPUs (e.g. 0,2-3)" },
	{ .name = "pid", .key = 'p', .arg = "PIDS", .doc = "Only records of these pids" },
	{ .name = "ordered", .key = OPT_ORDERED,
	  .doc = "Time order, with perf's FINISHED_ROUND windows (default: file order)" },
	{ .name = "symbols", .key = OPT_SYMBOLS,
	  .doc = "Name sample and call-chain addresses: sym, symoff, dso, frames (default)" },
	{ .name = "no-symbols", .key = OPT_NO_SYMBOLS, .doc = "Do not name addresses" },
	{ .name = "folded", .key = OPT_FOLDED, .arg = "count|period", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "Print one 'comm;outer;...;inner N' line per distinct stack instead of records, "
		 "N = samples (default) or summed period: FlameGraph's input" },
	{ .name = "queue-size", .key = OPT_QUEUE_SIZE, .arg = "SIZE",
	  .doc = "Memory for records waiting to be put in time order (default 128M); "
		 "beyond it the oldest are printed early" },
	{ 0 },
};

static error_t dump_parse_opt(int key, char *arg, struct argp_state *state)
{
	struct dump_opts *o = state->input;

	switch (key) {
	case 'i':
		o->input = arg;
		break;
	case 'j':
		o->json = true;
		break;
	case 's':
		o->stats_only = true;
		break;
	case 'H':
		o->header = true;
		break;
	case 'r':
		o->raw = true;
		break;
	case 't':
		if (pm_dump_filter__parse_types(&o->filter, arg))
			argp_error(state, "unknown record type in '%s'", arg);
		break;
	case 'C':
		if (pm_id_list__parse(&o->filter.cpus, arg, INT32_MAX))
			argp_error(state, "bad CPU list '%s'", arg);
		break;
	case 'p':
		if (pm_id_list__parse(&o->filter.pids, arg, INT32_MAX))
			argp_error(state, "bad pid list '%s'", arg);
		break;
	case OPT_ORDERED:
		o->ordered = true;
		break;
	case OPT_SYMBOLS:
		o->no_symbols = false;
		break;
	case OPT_NO_SYMBOLS:
		o->no_symbols = true;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->naming;
		break;
	case OPT_QUEUE_SIZE: {
		bool suffixed;

		if (pm_units__parse_size(arg, &o->queue_size, &suffixed) || !o->queue_size)
			argp_error(state, "bad queue size '%s' (bytes, or a number with K, M or G)",
				   arg);
		break;
	}
	case OPT_FOLDED:
		if (!arg || !strcmp(arg, "count"))
			o->folded = PM_FOLD_COUNT;
		else if (!strcmp(arg, "period"))
			o->folded = PM_FOLD_PERIOD;
		else
			argp_error(state, "bad --folded '%s' (count or period)", arg);
		break;
	case ARGP_KEY_END:
		if (o->folded && (o->json || o->stats_only || o->header || o->raw))
			argp_error(state, "--folded is an output format of its own: it excludes "
				   "--json, --stats, --header and --raw");
		if (o->folded && o->no_symbols)
			argp_error(state, "--folded names frames: it excludes --no-symbols");
		break;
	case ARGP_KEY_ARG:
		if (o->input)
			argp_error(state, "only one input file can be given");
		o->input = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child dump_children[] = {
	{ .argp = &pm_cmd__naming_argp },
	{ 0 },
};

static const struct argp dump_argp = {
	.options = dump_options,
	.children = dump_children,
	.parser = dump_parse_opt,
	.args_doc = "[FILE | -]",
	.doc = "Print the records of a perf.data file or stream, one line each.\v"
	       "FILE defaults to pmrec.data, or to stdin when stdin is a pipe; '-' reads "
	       "stdin.  Exit status: 0 ok, 1 malformed input or I/O error, 64 usage error.  "
	       "See pmrec-dump(1) for the output format.",
};

/* --- entry point --------------------------------------------------------- */

static void dump__warn(void *arg, const struct pm_warning *w)
{
	const struct dump *d = arg;

	pm_cmd__warn(d->name, w);
}

static int dump__open(struct dump *d, int *fd)
{
	const char *path = d->opts.input;

	if (!path)
		path = pm_cmd__stdin_is_pipe() ? "-" : DEFAULT_INPUT;
	return pm_cmd__open_input(d->r, path, &d->name, fd);
}

static int dump__body(struct dump *d)
{
	struct pm_dumper *dd = &d->dumper;
	int err;

	if (d->opts.header) {
		err = pm_reader__is_pipe(d->r) ? pm_dumper__scan_pipe_header(d->r) : 0;
		if (!err)
			pm_header__print(&dd->em, d->r);
		return err;
	}
	err = pm_dumper__setup(dd);
	if (err)
		return err;
	/* Stats describe what was shown, up to a fault if any. */
	err = pm_dumper__records(dd);
	pm_dumper__summary(dd);
	return err;
}

static int dump__run(struct dump *d)
{
	struct pm_out *out = &d->dumper.em.out;
	int err, fd;

	err = dump__open(d, &fd);
	if (!err)
		err = dump__body(d);
	pm_out__flush(out);
	if (err)
		pm_cmd__input_error(d->name, d->r, err);
	if (fd >= 0)
		close(fd);
	if (out->err && out->err != -EPIPE) {
		error("write error: %s", strerror(-out->err));
		return PM_EXIT_FAILURE;
	}
	return err ? PM_EXIT_FAILURE : PM_EXIT_OK;
}

/* The engine's settings from the options. */
static void dump__configure(struct dump *d)
{
	struct dump_opts *o = &d->opts;

	d->dumper = (struct pm_dumper){
		.r = d->r,
		.em = { .json = o->json },
		.filter = o->filter,
		.raw = o->raw,
		.stats_only = o->stats_only,
		.ordered = o->ordered,
		/* Symbols only where addresses are printed. */
		.symbols = !o->no_symbols && !o->header && !(o->stats_only && !o->folded),
		.fold = o->folded,
		.naming = o->naming,
		.queue_size = o->queue_size,
		.warn = dump__warn,
		.warn_arg = d,
	};
}

int cmd_dump(int argc, char **argv)
{
	struct dump d = { .opts.queue_size = 128 << 20 };
	int ret;

	if (argp_parse(&dump_argp, argc, argv, 0, NULL, &d.opts))
		return PM_EXIT_USAGE;
	/* A closed stdout (`| head`) ends the dump quietly, not by SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	d.r = pm_reader__new();
	/* From here the dumper owns the filter. */
	dump__configure(&d);
	if (!d.r || pm_out__init_fd(&d.dumper.em.out, STDOUT_FILENO, OUT_BUF_SIZE)) {
		error("out of memory");
		ret = PM_EXIT_FAILURE;
	} else {
		ret = dump__run(&d);
	}
	pm_dumper__exit(&d.dumper);
	pm_out__exit(&d.dumper.em.out);
	pm_reader__delete(d.r);
	return ret;
}
