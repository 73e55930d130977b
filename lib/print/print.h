/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PRINT_H
#define PMREC_PRINT_H

/*
 * The printers of `pmrec dump`: one line per record, text or JSON Lines
 * (pm_emit), every field of every record type perf 6.x writes, and the
 * file header.  The output format is described in pmrec-dump(1).
 *
 * Text: "OFFSET TIME CPU PID/TID TYPE key=value...", '-' for what the
 * record does not carry; JSON: one object per record with the same keys.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/emit.h"
#include "symbols/naming.h"
#include "reader/reader.h"
#include "reader/rec_info.h"

struct pm_printer {
	struct pm_emit *em;
	struct pm_reader *r;		/* for event names and tracepoint formats */
	struct pm_namer *namer;		/* NULL: addresses are not named */
	bool raw;			/* the record bytes under (text) or in (JSON) it */
	struct pm_buf name;		/* a frame name being built */
};

/* One record and its info (pm_rec_info__compute). */
void pm_printer__record(struct pm_printer *p, const struct pm_record *rec,
			const struct pm_rec_info *in);
void pm_printer__exit(struct pm_printer *p);

/* The file header, events and features: text "# key : value", or one JSON object. */
void pm_header__print(struct pm_emit *em, struct pm_reader *r);

/* perf's name of a record type, or "UNKNOWN_<type>" written in buf. */
const char *pm_record_type__label(uint32_t type, char *buf, size_t len);

#endif
