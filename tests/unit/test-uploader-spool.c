// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's spool: windows written and read back oldest first, the bound
 * on disk (the oldest dropped, never the one being sent), files a previous
 * run left found again, a write cut short removed, and every file that is
 * not the spool's own (another name, a symlink, a second link, another
 * owner) neither counted nor removed; an unsafe or shared directory refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/uploader.h"
#include "tap.h"

static char dir[64];

static struct pm_pyroscope_window window(int64_t from, size_t len)
{
	struct pm_pyroscope_window w = { .from = from, .until = from + 1, .len = len };

	w.data = malloc(len);
	memset(w.data, (int)(from & 0xff), len);
	return w;
}

static bool exists(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

static void touch(const char *name, size_t len)
{
	char path[128], *buf = calloc(1, len + 1);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fwrite(buf, 1, len, f);
	fclose(f);
	free(buf);
}

/* Three 5000-byte windows (8 KiB on disk each) in 20 KiB: the oldest goes. */
static void test_bound(void)
{
	struct pm_spool_found f;
	struct pm_spool *s = NULL;
	uint64_t dropped = 0;
	int i, err = pm_spool__open(&s, dir, 20480, &f);

	tap_ok(!err && f.windows == 0, "an empty spool made (%d)", err);
	if (err)
		return;
	for (i = 0; i < 3; i++) {
		struct pm_pyroscope_window w = window(100 + i, 5000);

		err |= pm_spool__put(s, &w, &dropped);
		free(w.data);
	}
	tap_ok(!err && pm_spool__nr(s) == 2 && dropped == 1, "2 kept, 1 dropped (%zu, %llu)",
	       pm_spool__nr(s), (unsigned long long)dropped);
	tap_ok(!exists("pmrec-agent-100-101.pb.gz") && exists("pmrec-agent-101-102.pb.gz"),
	       "the oldest file removed, the next kept");
	tap_ok(pm_spool__head_from(s) == 101, "the oldest kept is the head");
	pm_spool__delete(s);
}

/* The window being sent is not dropped for room, and leaves only when done. */
static void test_take(void)
{
	struct pm_pyroscope_window w, got;
	struct pm_spool_found f;
	struct pm_spool *s = NULL;
	uint64_t dropped = 0;
	int err = pm_spool__open(&s, dir, 20480, &f);

	tap_ok(!err && f.windows == 2 && f.bytes == 16384,
	       "a new run finds the 2 windows left (%llu bytes)", (unsigned long long)f.bytes);
	if (err)
		return;
	err = pm_spool__take(s, &got);
	tap_ok(!err && got.from == 101 && got.len == 5000 && ((char *)got.data)[0] == 101,
	       "the oldest read back whole");
	if (!err)
		free(got.data);
	w = window(103, 5000);
	err = pm_spool__put(s, &w, &dropped);
	free(w.data);
	tap_ok(!err && dropped == 1 && pm_spool__head_from(s) == 101 &&
	       exists("pmrec-agent-101-102.pb.gz") && !exists("pmrec-agent-102-103.pb.gz"),
	       "room made past the window taken");
	pm_spool__untake(s);
	tap_ok(pm_spool__head_from(s) == 101, "a retry keeps it the head");
	if (!pm_spool__take(s, &got))
		free(got.data);
	pm_spool__done(s);
	tap_ok(pm_spool__nr(s) == 1 && !exists("pmrec-agent-101-102.pb.gz"),
	       "sent: its file removed");
	if (!pm_spool__take(s, &got))
		free(got.data);
	pm_spool__done(s);
	pm_spool__delete(s);
}

/* Files the spool did not write stay, and are not counted. */
static void test_foreign(void)
{
	struct pm_spool_found f;
	struct pm_spool *s = NULL, *again = NULL;
	char path[128], target[128];
	int err, bad;

	touch("pmrec-agent-5-6.pb.gz.tmpAbC123", 10);
	touch("pmrec-agent-07-8.pb.gz", 10);
	touch("notes.txt", 10);
	touch("pmrec-agent-9-10.pb.gz", 10);
	snprintf(target, sizeof(target), "%s/pmrec-agent-9-10.pb.gz", dir);
	snprintf(path, sizeof(path), "%s/pmrec-agent-11-12.pb.gz", dir);
	bad = link(target, path);
	snprintf(path, sizeof(path), "%s/pmrec-agent-13-14.pb.gz", dir);
	bad |= symlink("/etc/passwd", path);
	touch("pmrec-agent-15-16.pb.gz", 10);
	snprintf(path, sizeof(path), "%s/pmrec-agent-15-16.pb.gz", dir);
	bad |= chown(path, 65534, 65534);
	tap_ok(!bad, "the foreign files made");
	err = pm_spool__open(&s, dir, 20480, &f);
	tap_ok(!err && f.windows == 0, "nothing counted: a padded name, a second link, a "
	       "symlink, another owner (%llu)", (unsigned long long)f.windows);
	tap_ok(!exists("pmrec-agent-5-6.pb.gz.tmpAbC123"), "a write cut short removed");
	tap_ok(exists("pmrec-agent-07-8.pb.gz") && exists("notes.txt") &&
	       exists("pmrec-agent-9-10.pb.gz") && exists("pmrec-agent-11-12.pb.gz") &&
	       exists("pmrec-agent-13-14.pb.gz") && exists("pmrec-agent-15-16.pb.gz"),
	       "every other file left as it was");
	err = pm_spool__open(&again, dir, 20480, &f);
	tap_ok(err == -EBUSY, "a second spool on the directory refused (%d)", err);
	pm_spool__delete(again);
	pm_spool__delete(s);
	chmod(dir, 0770);
	err = pm_spool__open(&s, dir, 20480, &f);
	tap_ok(err == -EPERM, "a directory others may write refused (%d)", err);
	if (!err)
		pm_spool__delete(s);
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "/tmp/test-spool.%d", (int)getpid());
	test_bound();
	tap_ok(!access(dir, F_OK), "the directory made");
	test_take();
	if (geteuid() == 0)
		test_foreign();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		tap_ok(0, "%s", cmd);
	return tap_done();
}
