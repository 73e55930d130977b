/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_REPORT_EXPORT_H
#define PMREC_REPORT_EXPORT_H

/*
 * The output file of report's exports (--flamegraph, --pprof, --speedscope),
 * one rule for the three (cmd/report-export.c).
 */
#include "base/file.h"

/* Writes one export with write(out, ...): 0 or a negative errno. */
typedef int report_export_fn(void *arg, pm_write_fn *write, void *out);

/*
 * Writes path ("-": stdout) start to end with fn(arg, ...), as
 * pm_outfile writes (lib/base/output.h): a file appears whole or not at
 * all.  0 when written; 1 when the output is a pipe whose reader went
 * away (| head), which is no failure and says nothing, as report's table;
 * else a negative errno, said.
 */
int report_export__write(const char *path, report_export_fn *fn, void *arg);

#endif
