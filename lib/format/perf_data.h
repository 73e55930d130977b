/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_PERF_DATA_H
#define PMREC_PERF_DATA_H

/*
 * On-disk layout of perf.data as perf 6.1 reads it, shared by the writer and
 * the reader.  The rules perf enforces on it (header sizes, attr.size at
 * most 128, the feature table right after the data, pipe mode) are in
 * lib/README.md, from perf's tools/perf/util/header.c.
 */
#include <linux/perf_event.h>
#include <linux/types.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" little-endian */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define PERF_FILE_HEADER_SIZE 104
#define PERF_PIPE_HEADER_SIZE 16
/* perf 6.1 rejects attrs larger than PERF_ATTR_SIZE_VER7. */
#define PM_FILE_ATTR_SIZE 128

struct perf_file_section {
	__u64 offset;
	__u64 size;
};

struct perf_file_header {
	__u64 magic;
	__u64 size;
	__u64 attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	__u64 adds_features[4];
};

struct perf_pipe_file_header {
	__u64 magic;
	__u64 size;
};

/* GNU build ids are SHA-1 sized; longer ones are truncated, as perf does. */
#define PM_BUILD_ID_SIZE 20

/* MMAP2 record offsets (from the header): file ids at 40, name at 72. */
#define PM_MMAP2_IDS_OFF 40
#define PM_MMAP2_NAME_OFF 72

/*
 * Whether an MMAP2 record of at least PM_MMAP2_NAME_OFF bytes really holds
 * a build id.  Linux (up to 6.18 at least) leaves PERF_RECORD_MISC_MMAP_BUILD_ID
 * set in the side-band record it hands to every other session after one
 * with attr.build_id, whose records then carry maj/min/ino under that flag:
 * a size byte over 20 or non-zero reserved bytes give such a record away.
 */
static inline int pm_mmap2__has_build_id(const void *rec)
{
	const unsigned char *p = (const unsigned char *)rec + PM_MMAP2_IDS_OFF;
	const struct perf_event_header *h = (const struct perf_event_header *)rec;

	return (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && p[0] <= PM_BUILD_ID_SIZE && !p[1] && !p[2] &&
	       !p[3];
}

/* Feature ids (bit numbers in adds_features). */
enum {
	HEADER_RESERVED = 0,
	HEADER_TRACING_DATA = 1,
	HEADER_BUILD_ID = 2,
	HEADER_HOSTNAME = 3,
	HEADER_OSRELEASE = 4,
	HEADER_VERSION = 5,
	HEADER_ARCH = 6,
	HEADER_NRCPUS = 7,
	HEADER_CPUDESC = 8,
	HEADER_CPUID = 9,
	HEADER_TOTAL_MEM = 10,
	HEADER_CMDLINE = 11,
	HEADER_EVENT_DESC = 12,
	HEADER_CPU_TOPOLOGY = 13,
	HEADER_NUMA_TOPOLOGY = 14,
	HEADER_BRANCH_STACK = 15,
	HEADER_PMU_MAPPINGS = 16,
	HEADER_GROUP_DESC = 17,
	HEADER_AUXTRACE = 18,
	HEADER_STAT = 19,
	HEADER_CACHE = 20,
	HEADER_SAMPLE_TIME = 21,
	HEADER_MEM_TOPOLOGY = 22,
	HEADER_CLOCKID = 23,
	HEADER_DIR_FORMAT = 24,
	HEADER_BPF_PROG_INFO = 25,
	HEADER_BPF_BTF = 26,
	HEADER_COMPRESSED = 27,
	HEADER_CPU_PMU_CAPS = 28,
	HEADER_CLOCK_DATA = 29,
	HEADER_HYBRID_TOPOLOGY = 30,
	HEADER_PMU_CAPS = 31,
	HEADER_LAST_FEATURE = 32,
	/*
	 * pmrec's own features, from the top of the bitmap down (perf skips
	 * bits it does not know in a file): the names of JIT code, copied
	 * from the recorded processes' perf maps (lib/symbols/jitsym.h's format).
	 */
	HEADER_PMREC_JIT_SYMBOLS = 240,
	HEADER_FEAT_BITS = 256,
};

/*
 * pmrec's own features, high in the bitmap where perf's numbering will not
 * reach: perf skips the bits it does not know in a file.
 */
enum {
	/* Symbols for other machines (lib/symbols/symarchive.h), written by `pmrec archive`. */
	HEADER_PMREC_SYMBOLS = 241,
	/*
	 * The code the recorded processes' jitdump files load, with its times
	 * (lib/symbols/jitcode.h's format), copied by pmrec record.
	 */
	HEADER_PMREC_JIT_CODE = 242,
};

/* Record types perf itself synthesizes (never produced by the kernel). */
enum {
	PERF_RECORD_USER_TYPE_START = 64,
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
	PERF_RECORD_HEADER_MAX = 83,
};

/* EVENT_UPDATE sub-types. */
enum {
	PERF_EVENT_UPDATE__UNIT = 0,
	PERF_EVENT_UPDATE__SCALE = 1,
	PERF_EVENT_UPDATE__NAME = 2,
	PERF_EVENT_UPDATE__CPUS = 3,
};

/* Callchain context markers: values >= PERF_CONTEXT_MAX are not addresses. */
#define PM_CALLCHAIN_IS_CONTEXT(ip) ((__u64)(ip) >= (__u64)PERF_CONTEXT_MAX)

#endif
