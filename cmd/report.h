/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CMD_REPORT_H
#define PMREC_CMD_REPORT_H

/*
 * pmrec report's options (cmd/report-options.c), which report.c runs: the
 * exports' own are in report-flame.c, report-pprof.c, report-speedscope.c
 * and report-offcpu.c.
 */
#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builtin.h"
#include "base/list.h"
#include "report-flame.h"
#include "report-pprof.h"
#include "report-speedscope.h"

enum report_color { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };
enum report_graph { GRAPH_DEFAULT, GRAPH_CALLER, GRAPH_CALLEE, GRAPH_NONE };

struct report_opts {
	const char *input;
	enum pm_profile_key keys[PM_PROFILE_KEY__NR];
	size_t nr_keys;
	int children;		/* -1: default (with call chains) */
	double percent_limit;
	bool percent_limit_set;
	size_t max_rows;
	bool show_samples;
	const char *event;
	enum report_graph graph;
	bool json;
	enum report_color color;
	long width;		/* -1: the terminal's */
	bool relative;
	/* Filters. */
	const char **comms;
	size_t nr_comms;
	struct pm_id_list pids, tids, cpus;
	uint64_t time[2];
	bool time_set;
	struct report_flame_opts flame;
	struct pm_namer_opts naming;
	struct report_pprof pprof;	/* with --pprof */
	bool wall;		/* --wall */
	struct report_speedscope_opts speedscope;
};

extern const struct argp report_argp;

#endif
