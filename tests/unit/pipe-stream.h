/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_TEST_PIPE_STREAM_H
#define PMREC_TEST_PIPE_STREAM_H

/*
 * The small pipe-mode streams of test-dumper and test-pipeline: a pipe
 * header, one cpu-clock attr (id 1), then records appended by the test.
 */
#include <stdint.h>

#include "base/buf.h"
#include "format/perf_data.h"

/* A test whose samples carry more (call chains) defines it first. */
#ifndef SAMPLE_TYPE
#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD)
#endif

static struct pm_buf stream;

static inline void put_header_misc(uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	pm_buf__append(&stream, &h, sizeof(h));
}

static inline void put_header(uint32_t type, uint16_t size)
{
	put_header_misc(type, 0, size);
}

static inline void put_sample(uint64_t time, uint32_t cpu, uint32_t pid)
{
	put_header(PERF_RECORD_SAMPLE, 48);
	pm_buf__append_u64(&stream, 0x1000 + time);
	pm_buf__append_u32(&stream, pid);
	pm_buf__append_u32(&stream, pid);
	pm_buf__append_u64(&stream, time);
	pm_buf__append_u32(&stream, cpu);
	pm_buf__append_u32(&stream, 0);
	pm_buf__append_u64(&stream, 1);
}

/* The pipe header and the attr record. */
static inline void put_prologue(void)
{
	struct perf_pipe_file_header ph = { .magic = PERF_MAGIC2, .size = PERF_PIPE_HEADER_SIZE };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = PM_FILE_ATTR_SIZE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1,
		.sample_type = SAMPLE_TYPE, .sample_id_all = 1, .exclude_guest = 1,
	};

	pm_buf__append(&stream, &ph, sizeof(ph));
	put_header(PERF_RECORD_HEADER_ATTR, 8 + PM_FILE_ATTR_SIZE + 8);
	pm_buf__append(&stream, &attr, PM_FILE_ATTR_SIZE);
	pm_buf__append_u64(&stream, 1);
}

/*
 * The records from byte from on, as perf record -z writes them: one
 * COMPRESSED record holding a zstd frame of one raw block (zstd's stored
 * form, which every decoder reads: no compressor needed here).  At most
 * 64 KiB of records.
 */
static inline void compress_from(size_t from)
{
	size_t len = stream.len - from;
	unsigned char frame[] = {
		0x28, 0xb5, 0x2f, 0xfd,		/* magic */
		0, 0x38,			/* no content size nor checksum, 128 KiB window */
		(unsigned char)(len << 3 | 1), (unsigned char)(len >> 5), (unsigned char)(len >> 13),
	};
	struct pm_buf records = { 0 };

	pm_buf__append(&records, stream.data + from, len);
	stream.len = from;
	put_header(PERF_RECORD_COMPRESSED, (uint16_t)(8 + sizeof(frame) + len));
	pm_buf__append(&stream, frame, sizeof(frame));
	pm_buf__append(&stream, records.data, len);
	pm_buf__exit(&records);
}

#endif
