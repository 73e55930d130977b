/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_JITDUMP_H
#define PMREC_JITDUMP_H

/*
 * jitdump files: what JIT runtimes (node --perf-prof, the JVM's perf
 * agents, .NET with DOTNET_PerfMapEnabled, wasmtime...) write to
 * jit-PID.dump to describe the code they generate, as perf's
 * tools/perf/util/jitdump.h defines it.  In the writer's byte order (a
 * swapped magic says the other one), unpadded:
 *
 *   header   u32 magic 0x4A695444 ("JiTD" read as a little-endian u32),
 *            u32 version, u32 total_size (the header's, records follow
 *            it), u32 elf_mach, u32 pad, u32 pid, u64 timestamp,
 *            u64 flags (bit 0: times are the CPU's timestamp counter,
 *            not the clock; other bits reserved)
 *   record   u32 id, u32 total_size (prefix included), u64 timestamp,
 *            then by id:
 *     0 CODE_LOAD       u32 pid, u32 tid, u64 vma, u64 code_addr,
 *                       u64 code_size, u64 code_index, the function's
 *                       name NUL-terminated, then code_size bytes of code
 *                       ending the record
 *     1 CODE_MOVE       u32 pid, u32 tid, u64 vma, u64 old_code_addr,
 *                       u64 new_code_addr, u64 code_size, u64 code_index
 *     2 CODE_DEBUG_INFO u64 code_addr, u64 nr_entry, then nr_entry of
 *                       { u64 addr, i32 line, i32 discriminator, file
 *                       NUL-terminated, "\xff" alone: the previous file },
 *                       for the CODE_LOAD that follows
 *     3 CODE_CLOSE      nothing: the runtime is done
 *     4 CODE_UNWINDING_INFO  u64 unwinding_size, u64 eh_frame_hdr_size,
 *                       u64 mapped_size, then the .eh_frame and
 *                       .eh_frame_hdr data, for the CODE_LOAD that follows
 *   Other ids are skipped, as perf skips them.
 *
 * Runtimes write the file while they run, and time their records with
 * CLOCK_MONOTONIC unless flag bit 0 says otherwise: with pmrec record
 * -k mono the times compare with the samples'.
 *
 * The parser works on bytes in memory and checks every size against the
 * record and the record against the file: a fault stops it with the
 * offset and the reason (struct pm_jitdump_error); the records before it
 * stay good.  It never allocates.  Every record's size is checked before
 * its bytes are needed, so a reader can hold one record at a time.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PM_JITDUMP_MAGIC 0x4A695444u
#define PM_JITDUMP_HEADER_SIZE 40
#define PM_JITDUMP_PREFIX_SIZE 16
#define PM_JITDUMP_FLAG_ARCH_TIMESTAMP 1ULL

enum pm_jitdump_type {
	PM_JIT_CODE_LOAD = 0,
	PM_JIT_CODE_MOVE = 1,
	PM_JIT_CODE_DEBUG_INFO = 2,
	PM_JIT_CODE_CLOSE = 3,
	PM_JIT_CODE_UNWINDING_INFO = 4,
};

struct pm_jitdump_header {
	uint32_t version, total_size, elf_mach, pid;
	uint64_t timestamp, flags;
};

struct pm_jitdump_error {
	uint64_t offset;		/* in the file */
	const char *why;		/* a static string */
};

/* One record; pointers are into the parsed bytes. */
struct pm_jitdump_rec {
	uint32_t type;			/* enum pm_jitdump_type, or an unknown id */
	uint32_t size;
	uint64_t offset;		/* of the record in the file */
	uint64_t time;
	union {
		struct {
			uint32_t pid, tid;
			uint64_t vma, code_addr, code_size, code_index;
			const char *name;	/* not NUL-terminated: name_len bytes */
			size_t name_len;
			const unsigned char *code;
		} load;
		struct {
			uint32_t pid, tid;
			uint64_t vma, old_addr, new_addr, code_size, code_index;
		} move;
		struct {
			uint64_t code_addr, nr_entry;	/* entries checked: pm_jitdump__next_line */
			const unsigned char *entries;
			size_t entries_len;
		} debug;
		struct {
			uint64_t unwinding_size, eh_frame_hdr_size, mapped_size;
			const unsigned char *data;	/* unwinding_size bytes */
		} unwind;
	};
};

/* One source line of a CODE_DEBUG_INFO record. */
struct pm_jitdump_line {
	uint64_t addr;
	int32_t line, discrim;
	const char *file;		/* file_len bytes, not NUL-terminated */
	size_t file_len;
};

struct pm_jitdump {
	const unsigned char *p;
	size_t len, pos;
	uint64_t base;			/* file offset of p[0] */
	bool swap;			/* written in the other byte order */
	struct pm_jitdump_header h;
	struct pm_jitdump_error err;
	uint64_t skipped;		/* records of unknown ids */
};

/*
 * Checks the header of the len bytes at p (which must outlive j).  0, or
 * -EBADMSG with j->err set.
 */
int pm_jitdump__init(struct pm_jitdump *j, const void *p, size_t len);
/*
 * Parses the file from a window of it from now on: len bytes at p, from
 * file offset base, records whole (a record cut by the window's end is
 * one cut by the file's); the header's facts and a fault are kept.  A
 * reader that reads one record at a time gives each its own window.
 */
void pm_jitdump__window(struct pm_jitdump *j, const void *p, size_t len, uint64_t base);
/* The total size a record prefix (16 bytes) says, in the file's byte order. */
uint32_t pm_jitdump__size_at(const struct pm_jitdump *j, const void *prefix);
/* The next known record: 1, 0 at the end, or -EBADMSG with j->err set. */
int pm_jitdump__next(struct pm_jitdump *j, struct pm_jitdump_rec *r);
/*
 * The lines of a CODE_DEBUG_INFO record r, one per call; *idx and *pos
 * start at 0, file names "\xff" resolve to the previous line's.  1, 0
 * after the nr_entry-th line, or -EBADMSG with j->err set (an entry runs
 * past the record).
 */
int pm_jitdump__next_line(struct pm_jitdump *j, const struct pm_jitdump_rec *r, uint64_t *idx,
			  size_t *pos, struct pm_jitdump_line *line);

/*
 * The pid N of a path whose last component is jit-N.dump (perf's marker
 * of a jitdump file: the runtime maps it executable so that the mapping
 * is recorded), else -1.
 */
int32_t pm_jitdump__marker_pid(const char *path);

#endif
