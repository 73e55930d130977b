// SPDX-License-Identifier: GPL-2.0
/*
 * The output file's life, read back by the reader: a rotation boundary
 * loses and repeats nothing, --switch-max-files prunes the oldest, a
 * failed write rolled back leaves exactly what was committed, the output
 * fd is closed by the recfile alone (never a borrowed pipe_fd), the
 * features kept in an unfinished file are there at every commit, and the
 * output is locked from its creation to its close.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/reader.h"
#include "base/cursor.h"
#include "record/recfile.h"
#include "tap.h"

static char dir[256];

struct notes {
	int kept;
	int failed;
};

static void note(void *arg, enum pm_recfile_note what, const char *path, int err)
{
	struct notes *n = arg;

	if (what == PM_RECFILE_KEPT)
		n->kept++;
	else if (what != PM_RECFILE_NO_KERNEL_MAP)
		n->failed++;
}

struct fixture {
	struct pm_evlist evlist;
	struct pm_target targets;
	struct pm_drain_stats stats;
	struct notes notes;
	struct pm_recfile f;
	char path[300];
};

static void fixture__init(struct fixture *x, const char *name, unsigned int max_files)
{
	static char *argv[] = { "pmrec", "record", NULL };
	struct pm_event_config cfg = { .period = 1000 };
	char *bad = NULL;

	memset(x, 0, sizeof(*x));
	pm_evlist__add(&x->evlist, "cpu-clock", &bad);
	pm_evlist__config(&x->evlist, &cfg);
	pm_evlist__add_id(&x->evlist, 0, 42);
	pm_target__add(&x->targets, -1);
	snprintf(x->path, sizeof(x->path), "%s/%s", dir, name);
	x->f = (struct pm_recfile){
		.path = x->path,
		.evlist = &x->evlist,
		.targets = &x->targets,
		.synth = PM_RECFILE_SYNTH_NO,
		.stats = &x->stats,
		.argc = 2,
		.argv = argv,
		.max_files = max_files,
		.note = note,
		.note_arg = &x->notes,
	};
}

static void fixture__exit(struct fixture *x)
{
	pm_recfile__exit(&x->f);
	pm_target__exit(&x->targets);
	pm_evlist__exit(&x->evlist);
}

/* SAMPLEs of cpu-clock (IDENTIFIER IP TID TIME CPU PERIOD) with times first..last. */
static int write_samples(struct pm_recfile *f, uint64_t first, uint64_t last)
{
	uint64_t t;
	int err = 0;

	for (t = first; t <= last && !err; t++) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 56 };
		uint64_t body[6] = { 42, 0xffffffff81000000ULL, 7 | (7ULL << 32), t, 0, 1000 };
		struct iovec iov[2] = { { &h, sizeof(h) }, { body, sizeof(body) } };

		err = pm_recfile__writev(f, iov, 2);
	}
	return err ? err : pm_recfile__commit(f);
}

/* The sample times of a file, as the reader sees them, in order, as a string. */
static int read_times(const char *path, char *out, size_t len)
{
	struct pm_reader *r = pm_reader__new();
	struct pm_record rec;
	int err;

	out[0] = '\0';
	err = pm_reader__open(r, path);
	while (!err && pm_reader__next(r, &rec) > 0) {
		struct pm_sample s;

		if (rec.header->type != PERF_RECORD_SAMPLE)
			continue;
		err = pm_reader__parse_sample(r, &rec, &s);
		if (!err)
			snprintf(out + strlen(out), len - strlen(out), "%s%llu", out[0] ? "," : "",
				 (unsigned long long)s.time);
	}
	if (!err && pm_reader__error(r))
		err = pm_reader__error(r)->err;
	pm_reader__delete(r);
	return err;
}

/* The SAMPLE_TIME feature of a finished file: "first-last", or "" without one. */
static void sample_time(const char *path, char *out, size_t len)
{
	struct pm_reader *r = pm_reader__new();
	struct pm_cursor c;
	uint64_t first, last;

	out[0] = '\0';
	if (!pm_reader__open(r, path) && !pm_reader__feature(r, HEADER_SAMPLE_TIME, &c) &&
	    !pm_cursor__u64(&c, &first) && !pm_cursor__u64(&c, &last))
		snprintf(out, len, "%llu-%llu", (unsigned long long)first, (unsigned long long)last);
	pm_reader__delete(r);
}

/* The timestamped files beside path, oldest first (their names sort by time). */
static int stamped(const char *name, char files[][600], int max)
{
	struct dirent **list;
	int i, n, nr = 0;

	n = scandir(dir, &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (!strncmp(list[i]->d_name, name, strlen(name)) &&
		    list[i]->d_name[strlen(name)] == '.' && nr < max)
			snprintf(files[nr++], 600, "%s/%s", dir, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return nr;
}

static void test_rotation(void)
{
	struct fixture x;
	char files[4][600], times[256];
	bool created;
	int err, n;

	fixture__init(&x, "rot.data", 0);
	err = pm_recfile__start(&x.f, &created);
	if (!err)
		err = pm_recfile__publish(&x.f);
	if (!err)
		err = write_samples(&x.f, 1, 3);
	x.stats.first_time = 1;
	x.stats.last_time = 3;
	if (!err)
		err = pm_recfile__rotate(&x.f);
	tap_ok(!err && x.stats.first_time == 0, "rotate: the next file starts with its own times");
	if (!err)
		err = write_samples(&x.f, 4, 5);
	x.stats.first_time = 4;
	x.stats.last_time = 5;
	if (!err)
		err = pm_recfile__finalize(&x.f, NULL);
	if (!err)
		err = pm_recfile__stamp(&x.f, x.path);
	tap_ok(!err && x.notes.kept == 2 && x.f.nr_files == 2 && !x.notes.failed,
	       "two timestamped files kept");
	n = stamped("rot.data", files, 4);
	tap_ok(n == 2, "two files on disk");
	if (n == 2) {
		err = read_times(files[0], times, sizeof(times));
		tap_ok(!err && !strcmp(times, "1,2,3"), "the first file holds 1,2,3 (%s)", times);
		err = read_times(files[1], times, sizeof(times));
		tap_ok(!err && !strcmp(times, "4,5"), "the second holds 4,5: nothing lost or repeated (%s)",
		       times);
		sample_time(files[0], times, sizeof(times));
		tap_ok(!strcmp(times, "1-3"), "the first was finished with its own times (%s)", times);
		sample_time(files[1], times, sizeof(times));
		tap_ok(!strcmp(times, "4-5"), "and so was the second (%s)", times);
	}
	fixture__exit(&x);
}

static void test_max_files(void)
{
	struct fixture x;
	char files[4][600], times[256];
	bool created;
	int err, i, n;

	fixture__init(&x, "max.data", 1);
	err = pm_recfile__start(&x.f, &created);
	if (!err)
		err = pm_recfile__publish(&x.f);
	for (i = 0; i < 3 && !err; i++) {
		err = write_samples(&x.f, 10 * (uint64_t)i + 1, 10 * (uint64_t)i + 2);
		if (!err)
			err = pm_recfile__rotate(&x.f);
	}
	n = stamped("max.data", files, 4);
	tap_ok(!err && n == 1 && x.f.nr_files == 3 && x.f.nr_kept == 1,
	       "--switch-max-files 1: the newest file only");
	if (n == 1) {
		err = read_times(files[0], times, sizeof(times));
		tap_ok(!err && !strcmp(times, "21,22"), "and it is the newest (%s)", times);
	}
	fixture__exit(&x);
}

static void test_rollback(void)
{
	struct fixture x;
	char times[256];
	bool created;
	int err;

	fixture__init(&x, "cut.data", 0);
	err = pm_recfile__start(&x.f, &created);
	if (!err)
		err = pm_recfile__publish(&x.f);
	if (!err)
		err = write_samples(&x.f, 1, 2);
	if (!err) {
		/* A pass that the disk took only in part, then ENOSPC. */
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 56 };

		err = pmdata__write(&x.f.out, &h, sizeof(h));
	}
	tap_ok(!err && pmdata__rollback(&x.f.out) == 0, "rolled back to the last commit");
	err = read_times(x.path, times, sizeof(times));
	tap_ok(!err && !strcmp(times, "1,2"), "the file reads exactly the committed samples (%s)",
	       times);
	fixture__exit(&x);
}

/* The recfile closes the file it created, once, at its exit; never the pipe_fd it was lent. */
static void test_fd_owner(void)
{
	struct fixture x;
	bool created;
	int err, fd, p[2];

	fixture__init(&x, "owned.data", 0);
	err = pm_recfile__start(&x.f, &created);
	fd = x.f.out.fd;
	fixture__exit(&x);
	tap_ok(!err && fd > STDERR_FILENO && fcntl(fd, F_GETFD) < 0 && errno == EBADF,
	       "the file's fd is closed by pm_recfile__exit");

	if (pipe(p)) {
		tap_ok(0, "pipe: %s", strerror(errno));
		return;
	}
	fixture__init(&x, "pipe.data", 0);
	x.f.path = "-";
	x.f.pipe_fd = p[1];
	err = pm_recfile__start(&x.f, &created);
	fixture__exit(&x);
	tap_ok(!err && fcntl(p[1], F_GETFD) >= 0, "the pipe_fd it was lent stays open");
	close(p[0]);
	close(p[1]);
}

/* True when feature id of the file at path is len bytes of fill (or of the string s). */
static bool has_feature(const char *path, int id, const char *s, size_t len, int fill)
{
	struct pm_reader *r = pm_reader__new();
	struct pm_cursor c;
	bool ok = false;
	size_t i;

	if (!pm_reader__open(r, path) && !pm_reader__feature(r, id, &c) && c.len == len) {
		ok = true;
		for (i = 0; i < len && ok; i++)
			ok = c.p[i] == (s ? (unsigned char)s[i] : (unsigned char)fill);
	}
	pm_reader__delete(r);
	return ok;
}

/*
 * An unfinished file, as a kill leaves it: a kept feature larger than one
 * filler record can cover, then a second one kept while the first is in
 * place; every commit leaves both readable and the data whole.
 */
static void test_kept_features(void)
{
	static char big[100000];
	struct pm_buf desc = { 0 }, host = { 0 };
	struct fixture x;
	char times[256];
	bool created;
	int err;

	memset(big, 0x5a, sizeof(big));
	pm_buf__append(&desc, big, sizeof(big));
	pm_buf__append(&host, "killed-host", 11);
	fixture__init(&x, "kept.data", 0);
	err = pm_recfile__start(&x.f, &created);
	if (!err)
		err = pm_recfile__publish(&x.f);
	if (!err)
		err = pmdata__keep_feature(&x.f.out, HEADER_CPUDESC, &desc);
	if (!err)
		err = write_samples(&x.f, 1, 2);
	tap_ok(!err && has_feature(x.path, HEADER_CPUDESC, NULL, sizeof(big), 0x5a),
	       "a 100 kB kept feature is read after a commit");
	err = read_times(x.path, times, sizeof(times));
	tap_ok(!err && !strcmp(times, "1,2"), "the data reads whole (%s)", times);
	err = pmdata__keep_feature(&x.f.out, HEADER_HOSTNAME, &host);
	if (!err)
		err = write_samples(&x.f, 3, 4);
	tap_ok(!err && has_feature(x.path, HEADER_CPUDESC, NULL, sizeof(big), 0x5a) &&
	       has_feature(x.path, HEADER_HOSTNAME, "killed-host", 11, 0),
	       "a second kept feature joins the first");
	err = read_times(x.path, times, sizeof(times));
	tap_ok(!err && !strcmp(times, "1,2,3,4"),
	       "the old copies became records the reader skips (%s)", times);
	pm_buf__exit(&desc);
	pm_buf__exit(&host);
	fixture__exit(&x);
}

/* Whether another open of path finds it locked (pm_output__lock). */
static bool locked(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), err;

	if (fd < 0)
		return false;
	err = pm_output__lock(fd);
	close(fd);
	return err == -EBUSY;
}

/* The output is locked from its creation to its close, each file of a rotation. */
static void test_lock(void)
{
	char files[2][600];
	struct fixture x;
	bool created;
	int err;

	fixture__init(&x, "lock.data", 0);
	err = pm_recfile__start(&x.f, &created);
	tap_ok(!err && locked(x.f.file.tmp), "the temporary file is locked from its creation");
	if (!err)
		err = pm_recfile__publish(&x.f);
	tap_ok(!err && locked(x.path), "published, it is still locked");
	if (!err)
		err = write_samples(&x.f, 1, 2);
	if (!err)
		err = pm_recfile__rotate(&x.f);
	tap_ok(!err && stamped("lock.data", files, 2) == 1 && !locked(files[0]) &&
	       locked(x.path), "rotated: the finished file is free, the next one locked");
	if (!err)
		err = pm_recfile__finalize(&x.f, NULL);
	tap_ok(!err && locked(x.path), "finished but open: still locked");
	fixture__exit(&x);
	tap_ok(!locked(x.path), "closed: free");
}

static void remove_dir(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char path[600];

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/test-recfile.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	test_rotation();
	test_max_files();
	test_rollback();
	test_fd_owner();
	test_kept_features();
	test_lock();
	if (!getenv("KEEP"))
		remove_dir();
	return tap_done();
}
