/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_READER_INT_H
#define PMREC_READER_INT_H

/*
 * Internals shared by the reader's files (reader.c, open.c, feature.c,
 * stream.c, evsel.c, sample.c, zstd.c); not for cmd/.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/hashtab.h"
#include "format/perf_data.h"
#include "reader/reader.h"
#include "reader/input.h"
#include "format/tpformat.h"

/* Largest record: header.size is a u16. */
#define PM_RECORD_MAX 65536
/*
 * Events and sample ids a reader holds, in all (a 4096-CPU machine with 256
 * events has a million ids): what a hostile input can make it allocate is
 * bounded, a few tens of MiB.
 */
#define PM_ATTRS_MAX 65536u
#define PM_IDS_MAX (1u << 20)
/* Metadata a reader keeps in memory; real ones are far smaller. */
#define TRACING_DATA_MAX (256u << 20)
#define PREFIX_MAX (64u << 20)
#define FEATURE_MAX (64u << 20)

struct pm_feat_slot {
	uint64_t offset;
	uint64_t size;
	unsigned char *data;	/* loaded payload, or NULL */
	bool present;
};

struct pm_reader {
	struct pm_input in;
	int fd;
	bool own_fd;
	bool opened;
	bool pipe;
	bool unfinished;
	bool features_skipped;
	struct perf_file_header header;
	uint64_t data_end;
	/* Non-seekable file mode: bytes [prefix_off, +prefix_len) of the file. */
	unsigned char *prefix;
	uint64_t prefix_off;
	size_t prefix_len;

	uint64_t *rec;		/* aligned copy of the current record */

	struct pm_evsel **evsels;
	size_t nr_evsels;
	size_t cap_evsels;
	struct pm_hashtab ids;	/* sample id -> its pm_evsel */
	/*
	 * The same, as an array over [id_lo, id_lo + id_span), while the ids
	 * lie close together: the kernel numbers a session's events in turn,
	 * and every record asks for its event, twice on the way to a report.
	 * Once they spread too far (or no memory), id_span is 0 for good and
	 * the table answers alone.
	 */
	struct pm_evsel **id_dense;
	uint64_t id_lo;
	size_t id_span;
	bool id_sparse;
	size_t nr_evsel_ids;	/* ids of all events, repeats included */
	/* From the first attr (perf does the same): u64 index of the id. */
	int id_pos;		/* in a SAMPLE from the start, -1 if none */
	int is_pos;		/* in a trailer from the end, -1 if none */
	bool sample_id_all;
	size_t trailer_size;

	void (*sync)(void *arg);	/* see pm_reader__set_sync */
	void *sync_arg;

	struct pm_feat_slot feat[HEADER_FEAT_BITS];
	uint64_t feat_bytes;	/* file mode: feature payloads loaded */
	struct pm_tp_data tp;
	bool has_tp;

	/*
	 * PERF_RECORD_COMPRESSED: one zstd stream through the file; what it
	 * gave and was not returned yet is unz[unz_start..unz_end), from the
	 * record at unz_off.
	 */
	void *dstream;
	unsigned char *unz;
	size_t unz_cap, unz_start, unz_end;
	uint64_t unz_off;
	/* Bytes of a record the compressed data ended inside (at unz_off). */
	size_t unz_unflushed;
	size_t unz_hint;	/* zstd's last return: where in a frame it stopped */

	int status;		/* sticky fault, 0 if none */
	struct pm_reader_error err;
	/* File-mode metadata faults, reported after the last record. */
	int deferred_status;
	struct pm_reader_error deferred;
};

int reader__fail(struct pm_reader *r, uint64_t offset, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Describes a fault in *e, not in the reader: returns err. */
int reader_error__set(struct pm_reader_error *e, uint64_t offset, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Like reader__fail, but only reported once all records are out. */
void reader__defer(struct pm_reader *r, uint64_t offset, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* evsel.c */
void reader__init_ids(struct pm_reader *r);
/*
 * Fails (as reader__fail, at offset) when one more event with nr_ids ids
 * would pass PM_ATTRS_MAX or PM_IDS_MAX.
 */
int reader__room_for_evsel(struct pm_reader *r, uint64_t nr_ids, uint64_t offset);
/* ids may be unaligned; NULL only when out of memory. */
struct pm_evsel *reader__add_evsel(struct pm_reader *r, const void *attr, size_t attr_len,
				   const void *ids, size_t nr_ids);
void reader__delete_evsels(struct pm_reader *r);
int reader__set_tracing(struct pm_reader *r, const void *blob, size_t size,
			uint64_t offset);
int reader__apply_event_desc(struct pm_reader *r, const void *p, size_t len,
			     uint64_t offset);
int reader__set_name(struct pm_evsel *e, const char *name, size_t len);

/* open.c */
/* Loads feature feat of a file, once: 0, or the reader's fault. */
int reader__load_feature(struct pm_reader *r, int feat);
/* n bytes the input announced, into *out (malloc'ed): how many came, or -errno. */
ssize_t reader__read_alloc(struct pm_reader *r, size_t n, unsigned char **out);

/* feature.c: a pipe's feature record, kept (nothing if out of memory). */
void reader__store_feature(struct pm_reader *r, uint64_t feat, const void *p,
			   size_t len, uint64_t offset);

/* stream.c: what a record tells the reader (attrs, features, names). */
int reader__process(struct pm_reader *r, const struct pm_record *rec);

/* zstd.c */
/*
 * Most bytes one COMPRESSED record may give (with what the previous left):
 * more is taken for a decompression bomb.  perf's own records give at most
 * a ring's worth.
 */
#define PM_UNZ_MAX (64u << 20)
/* Bytes a cut zstd block still lacks at the end of the data, 0 if none is cut. */
size_t reader__unpack_missing(const struct pm_reader *r);
/* A record of the decompressed data: 1, or 0 when none is complete. */
int reader__next_unpacked(struct pm_reader *r, struct pm_record *rec);
/* Decompresses a COMPRESSED record after what is left. */
int reader__unpack(struct pm_reader *r, const struct pm_record *rec);
void reader__exit_unpack(struct pm_reader *r);

/* sample.c */
int reader__check_record(struct pm_reader *r, const struct pm_record *rec);

#endif
