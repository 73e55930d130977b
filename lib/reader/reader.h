/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_READER_H
#define PMREC_READER_H

/*
 * perf.data reader: file mode and pipe mode, written by pmrec or perf 6.x.
 * The layout rules it checks are in lib/README.md, "the perf.data layout
 * perf enforces", from tools/perf/util/header.c and session.c.
 *
 * The reader streams the data once.  Every length and offset is checked
 * against what was read; a fault is reported as a negative errno plus a
 * struct pm_reader_error (byte offset and reason) and is sticky.
 *
 *	r = pm_reader__new();
 *	err = pm_reader__open(r, path);		// "-" reads stdin
 *	while ((err = pm_reader__next(r, &rec)) > 0)
 *		... pm_reader__parse_sample(r, &rec, &s) ...
 *	if (err < 0)
 *		... pm_reader__error(r)->offset, ->reason ...
 *	pm_reader__delete(r);
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "format/clock.h"
#include "format/perf_data.h"
#include "base/cursor.h"
#include "format/tpformat.h"

struct pm_reader;

/*
 * The largest zstd window (log2 bytes) a recording's COMPRESSED records may
 * ask for: zstd's default maximum, which perf -z 22, its top level, writes.
 * The decompressor allocates that much once, whatever the file's size (a
 * 128-byte frame may ask for it); a larger window is a corrupt record.
 */
#define PM_ZSTD_WINDOW_LOG_MAX 27

struct pm_reader_error {
	uint64_t offset;	/* byte offset in the file or stream */
	int err;		/* negative errno */
	char reason[192];
};

/* One event (attr) of the recording. */
struct pm_evsel {
	struct perf_event_attr attr;	/* zero-extended when shorter on disk */
	int idx;			/* position in attr order */
	uint64_t *ids;
	size_t nr_ids;
	char *name;			/* EVENT_DESC / EVENT_UPDATE name or NULL */
	char *derived_name;		/* cache of pm_evsel__name() */
	const struct pm_tp_event *tp;	/* tracepoint format, if known */
};

/*
 * A record as returned by pm_reader__next().  data is 8-byte aligned and
 * holds header.size bytes; it stays valid until the next call.
 */
struct pm_record {
	uint64_t offset;
	const struct perf_event_header *header;
	const void *data;
	/* HEADER_TRACING_DATA blob / AUXTRACE payload following the record. */
	uint64_t extra_size;
};

/* Bits of sample_type that make up the sample_id trailer. */
#define PM_SAMPLE_ID_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

struct pm_regs {
	uint64_t abi;
	uint64_t nr;
	const uint64_t *regs;
};

/*
 * A decoded SAMPLE, or the sample_id trailer of another kernel record.
 * fields says which members are valid (PERF_SAMPLE_* bits); pointers point
 * into the record.  Members a record lacks are 0.  The decoder writes each
 * member instead of clearing the whole first: gcc clears these 280 bytes
 * with a rep stos, 17.6 ns a sample against 4.1 ns for vector stores on an
 * EPYC.  The narrow members come last, so that no padding lies between
 * members.
 */
struct pm_sample {
	const struct pm_evsel *evsel;
	uint64_t fields;
	uint64_t id, ip, time, addr, stream_id, period;
	uint64_t callchain_nr;
	const uint64_t *callchain;
	const unsigned char *raw;
	uint64_t branch_nr;
	uint64_t branch_hw_idx;		/* valid if branch_has_hw_idx */
	const uint64_t *branches;	/* branch_nr x {from, to, flags} */
	struct pm_regs regs_user, regs_intr;
	uint64_t stack_user_size, stack_user_dyn_size;
	const unsigned char *stack_user;
	uint64_t weight, data_src, transaction, phys_addr, cgroup;
	uint64_t data_page_size, code_page_size;
	uint64_t aux_size;
	const unsigned char *aux;
	const uint64_t *read;		/* read_format values, read_nr u64s */
	size_t read_nr;
	uint32_t pid, tid, cpu;
	uint32_t raw_size;
	bool branch_has_hw_idx;
};

struct pm_reader *pm_reader__new(void);
void pm_reader__delete(struct pm_reader *r);

/* path "-" or NULL reads stdin.  Reads the header, attrs and features. */
int pm_reader__open(struct pm_reader *r, const char *path);
int pm_reader__open_fd(struct pm_reader *r, int fd);

/* 1 with a record, 0 at the end, negative errno on a fault. */
int pm_reader__next(struct pm_reader *r, struct pm_record *rec);

/*
 * fn(arg) is called before a record changes what the reader knows of the
 * events (HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE, HEADER_TRACING_DATA):
 * a caller whose other thread reads that (parses samples, names events)
 * lets it finish first.  NULL: none.
 */
void pm_reader__set_sync(struct pm_reader *r, void (*fn)(void *arg), void *arg);

const struct pm_reader_error *pm_reader__error(const struct pm_reader *r);

bool pm_reader__is_pipe(const struct pm_reader *r);
/* A file read from a regular file: pm_reader__feature_read is a pread then (any thread). */
bool pm_reader__seekable(const struct pm_reader *r);
/* File mode: data.size was 0, the records are scanned up to end of file. */
bool pm_reader__is_unfinished(const struct pm_reader *r);
/* The events' sample_id_all: records other than samples carry a time (and ids). */
bool pm_reader__sample_id_all(const struct pm_reader *r);
/* File mode from a pipe: features after the data cannot be read first. */
bool pm_reader__features_skipped(const struct pm_reader *r);
/*
 * Once the end is read: the bytes of a record that the compressed data
 * ended inside, and where (the last COMPRESSED record).  perf record -z
 * can leave what zstd still held unwritten; perf's reader drops the piece.
 */
size_t pm_reader__unflushed(const struct pm_reader *r, uint64_t *offset);
/* A COMPRESSED record was met: the records come out of zstd from there on. */
bool pm_reader__inflating(const struct pm_reader *r);
/* The file header (pipe mode: only magic and size are set). */
const struct perf_file_header *pm_reader__header(const struct pm_reader *r);

size_t pm_reader__nr_evsels(const struct pm_reader *r);
struct pm_evsel *pm_reader__evsel(const struct pm_reader *r, size_t idx);
struct pm_evsel *pm_reader__evsel_by_id(const struct pm_reader *r, uint64_t id);

/*
 * Payload of header feature feat (file section or pipe HEADER_FEATURE),
 * with the offset it was read from.  -ENOENT when absent.
 */
int pm_reader__feature(struct pm_reader *r, int feat, struct pm_cursor *c);
/*
 * Frees a file's feature payload once its reader has taken it in (a large
 * one: the JIT names); a later pm_reader__feature reads it again.  Streams
 * keep theirs: it was their only copy.
 */
void pm_reader__feature_drop(struct pm_reader *r, int feat);
/*
 * A large payload in pieces, never whole in memory (a file's copy of 100k
 * JIT names is 9 MB): its size (-ENOENT when absent), and len bytes of it
 * from byte off into buf (-EINVAL past its end, -EBADMSG past the file's,
 * or what pm_reader__feature returns when it must be read whole first: a
 * file read from a pipe).
 */
int pm_reader__feature_size(struct pm_reader *r, int feat, uint64_t *size);
int pm_reader__feature_read(struct pm_reader *r, int feat, uint64_t off, void *buf, size_t len);

/*
 * The sample clock's reference (record -k): CLOCK_DATA's clockid and
 * wall-clock pair, and CLOCKID's resolution (0 without it), so a sample
 * time t is at wall-clock ref->wall_ns + (t - ref->clock_ns).  -ENOENT
 * without CLOCK_DATA, -EBADMSG for a version other than 1 or a short one.
 */
int pm_reader__clock_data(struct pm_reader *r, struct pm_clock_ref *ref);

/* Event formats from the tracing data, or NULL if there were none. */
const struct pm_tp_data *pm_reader__tracing(const struct pm_reader *r);

/*
 * The event a record belongs to (section 5.4 of the format doc).  NULL when
 * there is no attr yet, or a sample id is unknown (-ENOENT via *err).
 */
struct pm_evsel *pm_reader__evsel_of(const struct pm_reader *r, const struct pm_record *rec,
				     int *err);

/* Decodes a SAMPLE record; on a fault, sets the reader error too. */
int pm_reader__parse_sample(struct pm_reader *r, const struct pm_record *rec,
			    struct pm_sample *s);
/*
 * pm_reader__parse_sample and pm_reader__parse_id for a thread that decodes
 * records while another reads them: the reader is left alone, a fault is
 * described in *e.  Reader state they read (events, ids) must not change
 * meanwhile (pm_reader__set_sync).
 */
int pm_reader__decode_sample(const struct pm_reader *r, const struct pm_record *rec,
			     struct pm_sample *s, struct pm_reader_error *e);
int pm_reader__decode_id(const struct pm_reader *r, const struct pm_record *rec,
			 struct pm_sample *s, size_t *body_len, struct pm_reader_error *e);
/*
 * A fault found by pm_reader__decode_*() becomes the reader's error, in
 * place of any it has: the record was read before any the reader failed on.
 */
void pm_reader__set_error(struct pm_reader *r, const struct pm_reader_error *e);
/* The same for a fault found on the reading thread: the reader keeps its first.  Its errno. */
int pm_reader__fault(struct pm_reader *r, const struct pm_reader_error *e);
/*
 * The time of a SAMPLE without decoding the rest, as perf does to queue
 * records: 1 and *time, 0 when its event does not sample the time, or the
 * error of pm_reader__parse_sample.  A fault past the time field is found
 * when the record is decoded.
 */
int pm_reader__sample_time(struct pm_reader *r, const struct pm_record *rec, uint64_t *time);
/*
 * Decodes the sample_id trailer of a non-SAMPLE kernel record (s->fields is
 * 0 when it has none) and returns in *body_len the payload length before it.
 */
int pm_reader__parse_id(struct pm_reader *r, const struct pm_record *rec,
			struct pm_sample *s, size_t *body_len);

/* perf's name of a record type ("SAMPLE", "MMAP2", ...), NULL if unknown. */
const char *pm_record_type__name(uint32_t type);
/* Type for a name (case-insensitive), or -1. */
int pm_record_type__from_name(const char *name);
/* perf's feature name ("HOSTNAME", ...), pmrec's for its own, NULL if unknown. */
const char *pm_feature__name(int feat);

/* EVENT_DESC/EVENT_UPDATE name, else one derived from type and config. */
const char *pm_evsel__name(struct pm_evsel *e);

#endif
