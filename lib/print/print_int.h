/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PRINT_INT_H
#define PMREC_PRINT_INT_H

/* Internal to the printers (lib/print/): one function per part of a record. */
#include <linux/perf_event.h>

#include "base/emit.h"
#include "print/print.h"
#include "reader/rec_info.h"
#include "format/record_body.h"

/* Shared by the record and header printers. */
extern const char *const pm_cpumode_names[8];
void pm_print__attr(struct pm_emit *em, const struct perf_event_attr *attr);
void pm_print__build_id_entry(struct pm_emit *em, const struct pm_build_id_entry *e);

/* The body of a record, after the common columns. */
void pm_print__sample(struct pm_printer *p, const struct pm_record *rec,
		      const struct pm_rec_info *in);
void pm_print__kernel_record(struct pm_printer *p, const struct pm_record *rec,
			     const struct pm_rec_info *in);
void pm_print__user_record(struct pm_printer *p, const struct pm_record *rec);

#endif
