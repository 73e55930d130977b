// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the frame front end (lib/profile/frame_ids.c): a frame is
 * made once per process, address, lookup address and mode while the
 * process's naming generation holds (a kernel frame: once for every
 * process), again after a record of that process (not another's) that may
 * change names,
 * always when inlined; evictions cost a remake, never a wrong id.  Prints
 * TAP.
 */
#include <stdint.h>
#include <string.h>

#include "format/perf_data.h"
#include "profile/frame_ids.h"
#include "reader/reader.h"
#include "symbols/naming.h"
#include "tap.h"

static unsigned int made;

/* An id that says which frame it is: its address and process. */
static int make(void *arg, int32_t pid, const struct pm_named_frame *fr, uint32_t *id)
{
	(void)arg;
	made++;
	*id = (uint32_t)(fr->ip * 7 + fr->lookup * 3 + (uint64_t)pid + fr->cpumode);
	return 0;
}

static uint32_t get(struct pm_frame_ids *fi, struct pm_namer *n, int32_t pid, uint64_t ip,
		    uint64_t lookup, uint16_t cpumode, bool inlined)
{
	struct pm_named_frame fr = { .ip = ip, .lookup = lookup, .cpumode = cpumode,
				     .inlined = inlined };
	uint32_t id = UINT32_MAX;

	return pm_frame_ids__get(fi, n, pid, &fr, &id) ? UINT32_MAX : id;
}

/* A COMM of process pid: a record that shapes its address space, so a new generation of it. */
static void comm(struct pm_namer *n, uint32_t pid)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[8];
	} r = { .h = { .type = PERF_RECORD_COMM, .size = sizeof(r) }, .pid = pid, .tid = pid,
		.comm = "x" };
	struct pm_record rec = { .header = &r.h, .data = &r };

	pm_namer__track(n, &rec, sizeof(r));
}

/* The kernel's map: everyone's names may change. */
static void kernel_map(struct pm_namer *n)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		char name[24];
	} r = { .h = { .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL,
		       .size = sizeof(r) },
		.pid = (uint32_t)-1, .addr = 0xffffffff81000000, .len = 0x1000000,
		.name = "[kernel.kallsyms]_text" };
	struct pm_record rec = { .header = &r.h, .data = &r };

	pm_namer__track(n, &rec, sizeof(r));
}

/* Whose generations a record changes: its process's alone, or everyone's. */
static void test_generation_of(struct pm_namer *n)
{
	uint64_t a = pm_namer__generation_of(n, 20), b = pm_namer__generation_of(n, 21);

	comm(n, 20);
	tap_ok(pm_namer__generation_of(n, 20) != a && pm_namer__generation_of(n, 21) == b &&
	       pm_namer__generation_of(n, 20) != 0,
	       "a COMM of one process: a new generation of it alone");
	a = pm_namer__generation_of(n, 20);
	kernel_map(n);
	tap_ok(pm_namer__generation_of(n, 20) != a && pm_namer__generation_of(n, 21) != b,
	       "the kernel's map: a new generation of every process");
}

int main(void)
{
	struct pm_reader *r = pm_reader__new();
	struct pm_namer *n = r ? pm_namer__new(r, NULL, NULL) : NULL;
	struct pm_frame_ids fi;
	uint64_t gen;
	bool right = true;
	uint32_t id, kid;
	int i;

	if (!n || pm_frame_ids__init(&fi, make, NULL)) {
		tap_ok(0, "set up");
		return tap_done();
	}
	id = get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, false);
	tap_ok(made == 1 && id == 0x1000 * 7 + 0x0fff * 3 + 10 + PERF_RECORD_MISC_USER,
	       "a frame met first is made");
	tap_ok(get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, false) == id && made == 1,
	       "met again, it is not made again");
	get(&fi, n, 11, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, false);
	get(&fi, n, 10, 0x1000, 0x1000, PERF_RECORD_MISC_USER, false);
	get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_KERNEL, false);
	tap_ok(made == 4, "another process, lookup address or mode is another frame");
	get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, true);
	get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, true);
	tap_ok(made == 6, "an inlined frame is made every time");
	/* The kernel frame read kallsyms, which renames everything: made again, once. */
	get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, false);
	made = 0;
	kid = get(&fi, n, 12, 0x2000, 0x1fff, PERF_RECORD_MISC_KERNEL, false);
	tap_ok(get(&fi, n, 13, 0x2000, 0x1fff, PERF_RECORD_MISC_KERNEL, false) == kid && made == 1 &&
	       kid == (uint32_t)(0x2000 * 7 + 0x1fff * 3 - 1 + PERF_RECORD_MISC_KERNEL),
	       "a kernel frame is every process's: made once, as process -1's");
	made = 0;
	gen = pm_namer__generation(n);
	comm(n, 1);
	tap_ok(pm_namer__generation(n) != gen &&
	       get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, false) == id && made == 0,
	       "another process's record: not made again");
	comm(n, 10);
	tap_ok(get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, false) == id && made == 1,
	       "a record of its own process makes it again");
	test_generation_of(n);
	for (i = 0; i < 20000; i++)
		if (get(&fi, n, 10, 0x100000 + 16 * (uint64_t)i, 0x100000 + 16 * (uint64_t)i - 1,
			PERF_RECORD_MISC_USER, false) !=
		    (uint32_t)((0x100000 + 16 * (uint64_t)i) * 7 +
			       (0x100000 + 16 * (uint64_t)i - 1) * 3 + 10 + PERF_RECORD_MISC_USER))
			right = false;
	made = 0;
	tap_ok(get(&fi, n, 10, 0x1000, 0x0fff, PERF_RECORD_MISC_USER, false) == id && right,
	       "more frames than slots: every id still right");
	pm_frame_ids__exit(&fi);
	pm_namer__delete(n);
	pm_reader__delete(r);
	return tap_done();
}
