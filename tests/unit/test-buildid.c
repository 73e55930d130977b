// SPDX-License-Identifier: GPL-2.0
/* lib/buildid: BUILD_ID entries as perf reads them, deduplicated, never guessed. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/buildid.h"
#include "symbols/elf.h"
#include "format/perf_data.h"
#include "tap.h"

/* Number of entries in a BUILD_ID payload, checking each one's layout. */
static int count_entries(const struct pm_buf *b, uint32_t type, const char *path,
			 const unsigned char *id, int *found)
{
	size_t off = 0;
	int n = 0;

	*found = 0;
	while (off + 36 <= b->len) {
		uint32_t t;
		uint16_t misc, size;

		memcpy(&t, b->data + off, 4);
		memcpy(&misc, b->data + off + 4, 2);
		memcpy(&size, b->data + off + 6, 2);
		if (t != type || !(misc & 0x8000) || size < 36 || (size - 36) % 64 ||
		    off + size > b->len)
			return -1;
		if (path && !strcmp((const char *)b->data + off + 36, path) &&
		    b->data[off + 32] == PM_BUILD_ID_SIZE && !memcmp(b->data + off + 12, id, 20))
			(*found)++;
		off += size;
		n++;
	}
	return off == b->len ? n : -1;
}

int main(void)
{
	unsigned char id[PM_BUILD_ID_SIZE] = { 1, 2, 3 }, self_id[PM_BUILD_ID_SIZE];
	struct pm_build_ids *b = pm_build_ids__new();
	struct pm_buf out = { 0 };
	char self[PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t len;
	int found, count;

	pm_build_ids__add(b, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", id, sizeof(id));
	pm_build_ids__add(b, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", id, sizeof(id));
	pm_build_ids__add(b, PERF_RECORD_MISC_USER, "/bin/x", id, 0);
	pm_build_ids__write(b, &out, 0);
	count = count_entries(&out, 0, "[kernel.kallsyms]", id, &found);
	tap_ok(count == 1 && found == 1, "one entry for an id added twice, none without an id");

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (!tap_ok(n > 0 && !stat(self, &st) && !pm_elf__build_id(self, self_id, &len),
		    "own path, inode and build id"))
		return tap_done();
	pm_build_ids__add_file(b, self, st.st_dev, st.st_ino);
	pm_build_ids__add_file(b, self, st.st_dev, st.st_ino);
	pm_build_ids__add_file(b, "/usr/bin/env", 0, 0);
	pm_build_ids__add_file(b, "[vdso]", 1, 1);
	pm_build_ids__add_file(b, "/no/such/file", 1, 1);
	out.len = 0;
	pm_build_ids__write(b, &out, PERF_RECORD_HEADER_BUILD_ID);
	count = count_entries(&out, PERF_RECORD_HEADER_BUILD_ID, self, self_id, &found);
	tap_ok(count == 2 && found == 1,
	       "a mapped file's id is read once; no inode, [vdso] or a missing file: no entry (%d)",
	       count);

	pm_build_ids__delete(b);
	b = pm_build_ids__new();
	pm_build_ids__add_file(b, self, st.st_dev, st.st_ino + 1);
	out.len = 0;
	pm_build_ids__write(b, &out, 0);
	tap_ok(out.len == 0, "a file whose inode changed gets no entry");
	pm_build_ids__delete(b);

	{
		struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint8_t id_size, res1;
			uint16_t res2;
			unsigned char id[20];
			uint32_t prot, flags;
			char name[16];
			uint64_t trailer[4];
		} ev = { .h = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER |
						PERF_RECORD_MISC_MMAP_BUILD_ID, .size = sizeof(ev) },
			 .id_size = 20, .id = { 9, 9, 9 }, .name = "/lib/libq.so" };

		b = pm_build_ids__new();
		pm_build_ids__add_events(b, &ev, sizeof(ev));
		ev.id_size = 0;
		memcpy(ev.name, "/lib/libr.so", 13);
		pm_build_ids__add_events(b, &ev, sizeof(ev));
		out.len = 0;
		pm_build_ids__write(b, &out, 0);
		memcpy(id, ev.id, sizeof(id));
		count = count_entries(&out, 0, "/lib/libq.so", id, &found);
		tap_ok(count == 1 && found == 1,
		       "a kernel MMAP2's id is taken; one the kernel could not read is not");
		/* The flag leaked onto a maj/min/ino record (maj 254): not an id. */
		ev.id_size = 254;
		memcpy(ev.name, "/lib/libs.so", 13);
		pm_build_ids__add_events(b, &ev, sizeof(ev));
		out.len = 0;
		pm_build_ids__write(b, &out, 0);
		count = count_entries(&out, 0, "/lib/libq.so", id, &found);
		tap_ok(count == 1, "a build-id flag over device and inode gives no id (%d)", count);
		tap_ok(pm_build_ids__add_events(b, &ev, 4) == 0 &&
		       pm_build_ids__add_events(b, &ev, sizeof(ev) - 8) == -EINVAL,
		       "a partial trailing header is ignored, a record past the end rejected");
		pm_build_ids__delete(b);
	}
	pm_buf__exit(&out);
	return tap_done();
}
