// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/buildid.h"
#include "record/hostinfo.h"
#include "record/jitcap.h"
#include "format/perf_data.h"
#include "record/recfile.h"
#include "record/synth.h"
#include "record/tracing.h"

static void recfile__note(struct pm_recfile *f, enum pm_recfile_note what, const char *path,
			  int err)
{
	if (f->note)
		f->note(f->note_arg, what, path, err);
}

/*
 * A new temporary output beside path (ours: the recfile closes it), or
 * pipe_fd for "-" (borrowed: never closed here).  The fd, 0 or -errno.
 */
static int recfile__create(struct pm_recfile *f, bool *borrowed)
{
	int err;

	*borrowed = !strcmp(f->path, "-");
	if (*borrowed) {
		if (isatty(f->pipe_fd)) {
			recfile__note(f, PM_RECFILE_CREATE_FAILED, f->path, -ENOTTY);
			return -ENOTTY;
		}
		/* A deeper pipe absorbs a slow reader; best effort. */
		fcntl(f->pipe_fd, F_SETPIPE_SZ, 1 << 20);
		return f->pipe_fd;
	}
	err = pm_output__create(&f->file, f->path);
	if (err) {
		recfile__note(f, PM_RECFILE_CREATE_FAILED, f->path, err);
		return err;
	}
	/*
	 * Held until the fd closes after the last write, so archive refuses
	 * the file while it grows.  A file system without locks still records
	 * (archive cannot lock there either, and refuses every file).
	 */
	pm_output__lock(f->file.fd);
	/* pmdata writes through it from now on: one copy of the fd, in f->out. */
	err = f->file.fd;
	f->file.fd = -1;
	return err;
}

/* The output fd closed, once, unless borrowed; rotations and snapshots start another. */
static void recfile__close(struct pm_recfile *f)
{
	if (f->owned)
		close(f->out.fd);
	f->owned = false;
	f->out.fd = -1;
}

static int recfile__tracing_blob(const struct pm_recfile *f, struct pm_buf *blob)
{
	const struct pm_evlist *l = f->evlist;
	const char **names = calloc(l->nr ? l->nr : 1, sizeof(*names));
	size_t i, nr = 0;
	int err;

	if (!names)
		return -ENOMEM;
	for (i = 0; i < l->nr; i++)
		if (l->events[i].tracepoint)
			names[nr++] = l->events[i].tracepoint;
	err = pm_tracing__data(blob, names, nr);
	free(names);
	return err;
}

static int cmdline_feature(struct pm_buf *b, int argc, char **argv)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int i;

	exe[n > 0 ? n : 0] = '\0';
	if (pm_buf__append_u32(b, (uint32_t)argc) ||
	    pm_buf__append_perf_string(b, n > 0 ? exe : argv[0]))
		return -ENOMEM;
	for (i = 1; i < argc; i++)
		if (pm_buf__append_perf_string(b, argv[i]))
			return -ENOMEM;
	return 0;
}

/* The host facts that can be read; one that cannot is left out, not faked. */
static void host_features(struct pm_features *feat)
{
	static const int host[] = { HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_ARCH, HEADER_NRCPUS,
				    HEADER_CPUDESC, HEADER_CPUID, HEADER_TOTAL_MEM };
	size_t i;

	for (i = 0; i < sizeof(host) / sizeof(host[0]); i++) {
		struct pm_buf tmp = { 0 };

		if (!pm_hostinfo__feature(&tmp, host[i]))
			*pm_features__add(feat, host[i]) = tmp;
		else
			pm_buf__exit(&tmp);
	}
}

/* Features known only at the end: build ids, files' and JIT names, and sample times. */
static int final_features(const struct pm_recfile *f, struct pm_features *feat)
{
	struct pm_buf *b;
	int err = 0;

	if (f->build_ids) {
		struct pm_buf tmp = { 0 };

		err = pm_build_ids__write(f->build_ids, &tmp, 0);
		if (!err && tmp.len)
			*pm_features__add(feat, HEADER_BUILD_ID) = tmp;
		else
			pm_buf__exit(&tmp);
	}
	if (!err && f->build_ids && pm_build_ids__any_symbols(f->build_ids))
		err = pm_build_ids__encode_symbols(f->build_ids,
						   pm_features__add(feat, HEADER_PMREC_SYMBOLS));
	if (!err && f->jitcap && pm_jitcap__any(f->jitcap))
		err = pm_jitcap__encode(f->jitcap, pm_features__add(feat, HEADER_PMREC_JIT_SYMBOLS));
	if (!err && f->jitcap && pm_jitcap__any_code(f->jitcap))
		err = pm_jitcap__encode_code(f->jitcap, pm_features__add(feat, HEADER_PMREC_JIT_CODE));
	if (!err) {
		b = pm_features__add(feat, HEADER_SAMPLE_TIME);
		if (pm_buf__append_u64(b, f->stats->first_time) ||
		    pm_buf__append_u64(b, f->stats->last_time))
			err = -ENOMEM;
	}
	return err;
}

/* -k: the clock's resolution (when known, as perf) and its wall-clock reference. */
static int recfile__clock_features(const struct pm_clock_ref *clock, struct pm_features *feat)
{
	int err = 0;

	if (clock->res_ns)
		err = pm_clock__clockid_feature(clock, pm_features__add(feat, HEADER_CLOCKID));
	return err ?: pm_clock__data_feature(clock, pm_features__add(feat, HEADER_CLOCK_DATA));
}

/* Header features; SAMPLE_TIME only at the end, when times are known. */
static int recfile__features(const struct pm_recfile *f, struct pm_features *feat, bool final)
{
	int err;

	host_features(feat);
	if (pm_buf__append_perf_string(pm_features__add(feat, HEADER_VERSION), "pmrec " PMREC_VERSION))
		return -ENOMEM;
	err = cmdline_feature(pm_features__add(feat, HEADER_CMDLINE), f->argc, f->argv);
	if (!err)
		err = pm_features__event_desc(pm_features__add(feat, HEADER_EVENT_DESC), f->evlist);
	if (!err && pm_evlist__has_tracepoints(f->evlist))
		err = recfile__tracing_blob(f, pm_features__add(feat, HEADER_TRACING_DATA));
	if (!err && f->zsink)
		err = pm_zsink__feature(f->zsink, pm_features__add(feat, HEADER_COMPRESSED));
	if (!err && f->clock)
		err = recfile__clock_features(f->clock, feat);
	if (!err && final)
		err = final_features(f, feat);
	return err;
}

/* Pipe mode: attrs, features, tracing data and names come before any sample. */
static int recfile__pipe_prologue(struct pm_recfile *f)
{
	struct pm_features feat = { 0 };
	int err = recfile__features(f, &feat, false);

	if (!err)
		err = pmdata__pipe_features(&f->out, &feat);
	if (!err && pm_features__has(&feat, HEADER_TRACING_DATA))
		err = pmdata__pipe_tracing(&f->out, &feat.payload[HEADER_TRACING_DATA]);
	if (!err)
		err = pmdata__pipe_event_names(&f->out, f->evlist);
	pm_features__exit(&feat);
	return err;
}

/*
 * The tracepoint formats are in the feature section, which comes only at
 * the end: perf refuses a file with tracepoints and no formats, so they
 * are kept after the data of an unfinished file too.
 */
static int recfile__keep_tracing(struct pm_recfile *f)
{
	struct pm_buf blob = { 0 };
	int err = recfile__tracing_blob(f, &blob);

	if (!err)
		err = pmdata__keep_feature(&f->out, HEADER_TRACING_DATA, &blob);
	pm_buf__exit(&blob);
	return err;
}

/* The processes behind the -p/-t threads, each synthesized once. */
static int recfile__synth_targets(struct pm_recfile *f, struct pm_buf *b, size_t trailer)
{
	const struct pm_target *t = f->targets;
	size_t i, j;
	int err = 0;

	for (i = 0; i < t->nr && !err; i++) {
		pid_t pid = pm_tgid_of(t->tids[i]);
		bool seen = false;
		bool denied = false;

		for (j = 0; j < i && !seen; j++)
			seen = pm_tgid_of(t->tids[j]) == pid;
		if (!seen)
			err = pm_synth__task(b, pid, trailer, f->synth == PM_RECFILE_SYNTH_ALL, &denied);
		if (err == -ENOENT || err == -ESRCH)
			err = 0;
		if (denied) {
			char path[32];

			snprintf(path, sizeof(path), "/proc/%d/maps", pid);
			recfile__note(f, PM_RECFILE_MAPS_DENIED, path, -EACCES);
		}
	}
	return err;
}

/*
 * Writes whole records in chunks, committing each, so a disk that fills
 * during the prologue still leaves a file perf reads.
 */
static int recfile__write_committed(struct pm_recfile *f, const struct pm_buf *b)
{
	size_t start = 0, off = 0;
	int err = 0;

	while (!err && off < b->len) {
		const struct perf_event_header *h = (const void *)(b->data + off);

		off += h->size;
		if (off - start >= 65536 || off >= b->len) {
			err = pmdata__write(&f->out, b->data + start, off - start);
			if (!err)
				err = pmdata__commit(&f->out);
			start = off;
		}
	}
	return err;
}

struct synth_flush {
	struct pm_recfile *f;
	size_t written;
};

/* Build ids of the files named in b, then b to the file; b is emptied. */
static int recfile__flush_synth(struct pm_buf *b, void *arg)
{
	struct synth_flush *fl = arg;
	int err = 0;

	if (fl->f->build_ids)
		err = pm_build_ids__add_events(fl->f->build_ids, b->data, b->len);
	if (fl->f->jitcap)
		pm_jitcap__events(fl->f->jitcap, b->data, b->len);
	if (!err)
		err = recfile__write_committed(fl->f, b);
	fl->written += b->len;
	pm_buf__reset(b);
	return err;
}

/* Kernel map, then COMM/MMAP2 of the tasks that exist before recording. */
static int recfile__synthesize(struct pm_recfile *f)
{
	size_t trailer = pm_evlist__trailer_size(f->evlist);
	struct synth_flush flushed = { .f = f };
	const struct pm_synth_sink sink = {
		.flush = recfile__flush_synth,
		.arg = &flushed,
		/* Small enough to stay in L2 while thousands of processes pass. */
		.flush_at = 256 * 1024,
	};
	bool all = f->targets->nr == 1 && f->targets->tids[0] == -1;
	struct pm_buf b = { 0 };
	int err;

	err = pm_synth__kernel_mmap(&b, trailer);
	if (err)
		recfile__note(f, PM_RECFILE_NO_KERNEL_MAP, NULL, err);
	err = 0;
	if (f->synth != PM_RECFILE_SYNTH_NO && all)
		err = pm_synth__all_tasks(&b, trailer, f->synth == PM_RECFILE_SYNTH_ALL, &sink);
	else if (f->synth != PM_RECFILE_SYNTH_NO && !f->workload)
		err = recfile__synth_targets(f, &b, trailer);
	if (err == -ENOENT || err == -ESRCH)
		err = 0;
	if (!err && (b.len || flushed.written)) {
		struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_INIT, .size = 8 };

		err = pm_buf__append(&b, &fin, sizeof(fin));
		if (!err)
			err = recfile__flush_synth(&b, &flushed);
	}
	pm_buf__exit(&b);
	return err;
}

/* A new stream; a file carries its COMPRESSED feature from the start. */
static int recfile__start_compressed(struct pm_recfile *f)
{
	struct pm_buf feat = { 0 };
	int err;

	pm_zsink__reset(f->zsink);
	if (f->out.pipe)
		return 0;
	err = pm_zsink__feature(f->zsink, &feat);
	if (!err)
		err = pmdata__keep_feature(&f->out, HEADER_COMPRESSED, &feat);
	pm_buf__exit(&feat);
	return err;
}

int pm_recfile__start(struct pm_recfile *f, bool *created)
{
	bool borrowed;
	int err, fd;

	*created = false;
	fd = recfile__create(f, &borrowed);
	if (fd < 0)
		return fd;
	*created = true;
	err = pmdata__start(&f->out, fd, borrowed, f->evlist);
	f->owned = !borrowed;
	if (!err && f->zsink)
		err = recfile__start_compressed(f);
	if (!err && f->out.pipe)
		err = recfile__pipe_prologue(f);
	else if (!err && pm_evlist__has_tracepoints(f->evlist))
		err = recfile__keep_tracing(f);
	if (!err)
		err = recfile__synthesize(f);
	if (!err)
		err = pmdata__commit(&f->out);
	return err;
}

int pm_recfile__publish(struct pm_recfile *f)
{
	return pm_output__publish(&f->file, f->path);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * --sync: the committed data reaches the disk at most a second after it
 * was written, whatever happens to the machine.  Pipes have nothing to sync.
 */
static int recfile__sync(struct pm_recfile *f, bool now)
{
	int64_t t;

	if (!f->sync || f->out.pipe)
		return 0;
	t = now_ns();
	if (!now && t - f->last_sync < 1000000000)
		return 0;
	f->last_sync = t;
	return fdatasync(f->out.fd) ? -errno : 0;
}

int pm_recfile__writev(void *arg, const struct iovec *iov, int iovcnt)
{
	struct pm_recfile *f = arg;
	int err;

	if (!f->zsink)
		return pmdata__writev(&f->out, iov, iovcnt);
	err = pm_zsink__compress(f->zsink, iov, iovcnt);
	return err ? err : pmdata__write(&f->out, f->zsink->out.data, f->zsink->out.len);
}

int pm_recfile__commit(void *arg)
{
	struct pm_recfile *f = arg;
	int err = pmdata__commit(&f->out);

	return err ? err : recfile__sync(f, false);
}

int pm_recfile__finalize(struct pm_recfile *f, const struct pm_buf *tail)
{
	struct pm_features feat = { 0 };
	int err = 0;

	if (tail && tail->len)
		err = pmdata__write(&f->out, tail->data, tail->len);
	if (!err)
		err = pmdata__commit(&f->out);
	if (!err && f->out.pipe && f->build_ids) {
		/* A stream has no feature section: the ids go out as records. */
		struct pm_buf ids = { 0 };

		err = pm_build_ids__write(f->build_ids, &ids, PERF_RECORD_HEADER_BUILD_ID);
		if (!err && ids.len)
			err = pmdata__write(&f->out, ids.data, ids.len);
		pm_buf__exit(&ids);
	}
	if (!err && !f->out.pipe) {
		err = recfile__features(f, &feat, true);
		if (!err)
			err = pmdata__finish(&f->out, &feat);
		if (!err)
			err = recfile__sync(f, true);
	}
	pm_features__exit(&feat);
	return err;
}

/* Remembers a timestamped file and deletes the oldest beyond max_files. */
static void recfile__keep(struct pm_recfile *f, const char *name)
{
	char **n;

	f->nr_files++;
	recfile__note(f, PM_RECFILE_KEPT, name, 0);
	if (!f->max_files)
		return;
	n = realloc(f->kept, (f->nr_kept + 1) * sizeof(*n));
	if (!n)
		return;
	f->kept = n;
	f->kept[f->nr_kept] = strdup(name);
	if (!f->kept[f->nr_kept])
		return;
	f->nr_kept++;
	while (f->nr_kept > f->max_files) {
		int err = pm_output__remove_own(f->kept[0]);

		if (err)
			recfile__note(f, PM_RECFILE_UNLINK_FAILED, f->kept[0], err);
		free(f->kept[0]);
		memmove(f->kept, f->kept + 1, --f->nr_kept * sizeof(*f->kept));
	}
}

int pm_recfile__stamp(struct pm_recfile *f, const char *from)
{
	char stamped[PATH_MAX], used[PATH_MAX];
	struct timespec now;
	int err;

	clock_gettime(CLOCK_REALTIME, &now);
	err = pm_output__timestamp_name(stamped, sizeof(stamped), f->path, &now);
	if (!err)
		err = pm_output__rename_unique(from, stamped, used, sizeof(used));
	if (err) {
		recfile__note(f, PM_RECFILE_STAMP_FAILED, from, err);
		return err;
	}
	recfile__keep(f, used);
	return 0;
}

int pm_recfile__rotate(struct pm_recfile *f)
{
	int err = pm_recfile__finalize(f, NULL);
	bool created;

	if (!err)
		err = pm_recfile__stamp(f, f->path);
	recfile__close(f);
	if (err)
		return err;
	f->stats->first_time = f->stats->last_time = 0;
	err = pm_recfile__start(f, &created);
	if (!err)
		err = pm_recfile__publish(f);
	return err;
}

int pm_recfile__snapshot(struct pm_recfile *f, const struct pm_buf *recs, uint64_t dropped)
{
	struct {
		struct perf_event_header h;
		uint64_t lost;
		uint64_t trailer[4];
	} ls = { .h = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(ls) }, .lost = dropped };
	struct pm_buf tail = { 0 };
	bool created;
	int err;

	err = pm_recfile__start(f, &created);
	if (!err && f->build_ids)
		err = pm_build_ids__add_events(f->build_ids, recs->data, recs->len);
	if (!err) {
		struct iovec iov = { .iov_base = recs->data, .iov_len = recs->len };

		err = pm_recfile__writev(f, &iov, 1);
	}
	if (!err && dropped)
		err = pm_buf__append(&tail, &ls, sizeof(ls));
	if (!err)
		err = pm_recfile__finalize(f, &tail);
	recfile__close(f);
	if (!err)
		err = pm_recfile__stamp(f, f->file.tmp);
	if (!err) {
		free(f->file.tmp);
		f->file.tmp = NULL;
	}
	pm_output__discard(&f->file);
	pm_buf__exit(&tail);
	return err;
}

int pm_recfile__rollback(struct pm_recfile *f)
{
	return pmdata__rollback(&f->out);
}

void pm_recfile__exit(struct pm_recfile *f)
{
	recfile__close(f);
	pmdata__exit(&f->out);
	pm_output__discard(&f->file);
	while (f->nr_kept)
		free(f->kept[--f->nr_kept]);
	free(f->kept);
	f->kept = NULL;
}
