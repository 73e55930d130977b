/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PMDATA_H
#define PMREC_PMDATA_H

/*
 * The perf.data writer, file mode and pipe mode.
 *
 * File mode writes the header, ids and attrs first, with data.size 0 and no
 * features; after every drain pass pmdata__commit() stores the new data.size
 * so a recording killed at any moment is readable up to its last pass.  At
 * the end the feature section goes right after the data and the header is
 * rewritten with the feature bitmap.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "base/buf.h"
#include "record/event.h"
#include "format/perf_data.h"

struct pm_features {
	struct pm_buf payload[HEADER_FEAT_BITS];
	uint64_t mask[HEADER_FEAT_BITS / 64];	/* bit n: feature n is present */
};

struct pmdata {
	int fd;
	bool pipe;
	uint64_t data_offset;
	uint64_t data_size;		/* bytes of whole records written */
	uint64_t committed;		/* data.size last stored in the header */
	/*
	 * Features kept readable in an unfinished file (COMPRESSED: perf
	 * cannot decompress without it; TRACING_DATA: perf refuses a file
	 * with tracepoints without it): their table and payloads sit right
	 * after the committed data, in a placeholder of tail bytes counted in
	 * data_size, which the next commit turns into filler records.
	 */
	struct pm_features live;
	uint64_t tail;
	struct perf_file_header header;
};

/* Returns feature id's payload buffer and marks it present. */
struct pm_buf *pm_features__add(struct pm_features *f, int id);
static inline bool pm_features__has(const struct pm_features *f, int id)
{
	return f->mask[id / 64] & (1ULL << (id % 64));
}
void pm_features__exit(struct pm_features *f);

/*
 * Writes the file header and attrs (file) or the pipe header and HEADER_ATTRs;
 * d is zeroed first or was started before.
 */
int pmdata__start(struct pmdata *d, int fd, bool pipe, const struct pm_evlist *l);
/* Frees what the writer kept between files. */
void pmdata__exit(struct pmdata *d);
/* Writes whole records; on failure nothing partial is counted in data_size. */
int pmdata__writev(struct pmdata *d, const struct iovec *iov, int iovcnt);
int pmdata__write(struct pmdata *d, const void *buf, size_t len);
int pmdata__finished_round(struct pmdata *d);
/*
 * File mode: keeps feature id (payload, copied) after the committed data
 * from now on, with the features kept before, so a killed file still
 * carries them; pmdata__finish replaces them.
 */
int pmdata__keep_feature(struct pmdata *d, int id, const struct pm_buf *payload);
/*
 * File mode: stores data_size in the header (one pwrite, only if changed);
 * with kept features, first their new copy after the data, then the
 * filler over the old one.
 */
int pmdata__commit(struct pmdata *d);
/* Cuts the file back to the last committed data after a failed write. */
int pmdata__rollback(struct pmdata *d);
/* Pipe mode: HEADER_FEATURE records, HEADER_TRACING_DATA, EVENT_UPDATE names. */
int pmdata__pipe_features(struct pmdata *d, const struct pm_features *f);
int pmdata__pipe_tracing(struct pmdata *d, const struct pm_buf *blob);
/* A HEADER_TRACING_DATA record followed by blob, padded to 8 bytes. */
int pm_tracing_record(struct pm_buf *out, const struct pm_buf *blob);
int pmdata__pipe_event_names(struct pmdata *d, const struct pm_evlist *l);
/* File mode: feature section after the data, final header. */
int pmdata__finish(struct pmdata *d, const struct pm_features *f);

/* EVENT_DESC payload for l (attrs written at PM_FILE_ATTR_SIZE). */
int pm_features__event_desc(struct pm_buf *out, const struct pm_evlist *l);

#endif
