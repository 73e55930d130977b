// SPDX-License-Identifier: GPL-2.0
/*
 * The names of JIT code for the namer: perf maps (the recording's copy,
 * else /tmp/perf-PID.map) and jitdump files (met by their marker mapping).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/cursor.h"
#include "base/hashtab.h"
#include "format/perf_data.h"
#include "format/record_body.h"
#include "reader/reader.h"
#include "symbols/jitcode.h"
#include "symbols/jitdump.h"
#include "symbols/jitsym.h"
#include "symbols/naming.h"
#include "symbols/naming_int.h"
#include "symbols/perfmap.h"

/* Where JIT names came from is said with --verbose only. */
static void namer__jit_names(struct pm_namer *n, struct pm_warning w)
{
	if (n->opts.verbose)
		namer__warn(n, w);
}

/* pm_jitsym_read_fn for the recording's copy of the perf maps. */
static int namer__read_jit_piece(void *arg, uint64_t off, void *buf, size_t len)
{
	return pm_reader__feature_read(arg, HEADER_PMREC_JIT_SYMBOLS, off, buf, len);
}

/*
 * The recording's copy of the perf maps: tens of MB for a big JIT, read in
 * pieces; from a file, each name when a lookup finds its code (a pread).
 */
static void namer__read_jit_copy(struct pm_namer *n)
{
	size_t before = pm_jitsyms__count(n->jit);
	uint64_t size;
	int err;

	n->jit_copy_read = true;
	if (pm_reader__feature_size(n->r, HEADER_PMREC_JIT_SYMBOLS, &size))
		return;
	if (pm_reader__seekable(n->r)) {
		err = pm_jitsyms__decode_lazy(n->jit, size, namer__read_jit_piece, n->r);
	} else {
		err = pm_jitsyms__decode_from(n->jit, size, namer__read_jit_piece, n->r);
		pm_reader__feature_drop(n->r, HEADER_PMREC_JIT_SYMBOLS);
	}
	if (err)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JIT_COPY_BAD, .err = -err });
	namer__jit_names(n, (struct pm_warning){ .kind = PM_WARN_JIT_NAMES,
					    .size = pm_jitsyms__count(n->jit) - before });
}

/* Whether pid may have a perf map in /tmp (listed once: most asked for do not exist). */
static bool namer__map_listed(struct pm_namer *n, int32_t pid)
{
	if (!n->map_pids_listed)
		n->map_pids_listed = pm_perfmap__list_tmp(&n->map_pids) ? -1 : 1;
	return n->map_pids_listed < 0 || pm_hashtab__find_int(&n->map_pids, (uint32_t)pid, NULL);
}

/*
 * Names for the JIT code of a process met for the first time: the
 * recording's copy of its perf map, else /tmp/perf-PID.map as it is now
 * (perf's rule: owned by root or by whoever reads it).
 */
void namer__load_jit(void *arg, struct pm_jitsyms *t, int32_t pid)
{
	struct pm_perfmap_stats st;
	struct pm_namer *n = arg;
	char path[64], dso_short[32];
	int fd, err;

	if (!n->jit_copy_read) {
		namer__read_jit_copy(n);
		if (pm_jitsyms__has_pid(t, pid))
			return;
	}
	if (!namer__map_listed(n, pid))
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	/* perf's short name for a perf map's code. */
	snprintf(dso_short, sizeof(dso_short), "[JIT] tid %d", pid);
	fd = pm_perfmap__open(-1, path, geteuid(), geteuid());
	if (fd == -ENOENT)
		return;
	if (fd < 0) {
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_REFUSED, .dso = path,
						    .err = -fd });
		return;
	}
	err = pm_perfmap__read(fd, t, pid, path, dso_short, NULL, &st);
	close(fd);
	if (err)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_REFUSED, .dso = path,
						    .err = -err });
	if (st.malformed)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_MALFORMED, .dso = path,
						    .size = st.malformed });
	if (st.truncated)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JIT_MAP_TRUNCATED, .dso = path,
						    .size = st.added });
	namer__jit_names(n, (struct pm_warning){ .kind = PM_WARN_JIT_NAMES, .dso = path,
					    .size = st.added });
}

/*
 * jitdump times compare with the samples' only when every event was timed
 * by CLOCK_MONOTONIC (record -k mono), as perf inject --jit requires.
 */
static bool namer__monotonic(struct pm_namer *n)
{
	size_t i, nr = pm_reader__nr_evsels(n->r);

	for (i = 0; i < nr; i++) {
		const struct perf_event_attr *a = &pm_reader__evsel(n->r, i)->attr;

		if (!a->use_clockid || a->clockid != CLOCK_MONOTONIC)
			return false;
	}
	return nr > 0;
}

static void namer__jitcode_full(struct pm_namer *n, int err, const char *path)
{
	if (err != -E2BIG || n->jitcode_full)
		return;
	n->jitcode_full = true;
	namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JITDUMP_FULL, .dso = path });
}

/* What one jitdump gave (from the recording's copy: why, else NULL), or why it gave nothing. */
static void namer__jitdump_said(struct pm_namer *n, const char *path, bool timed,
				const struct pm_jitcode_stats *st, const char *why)
{
	if (st->bad)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JITDUMP_BAD, .dso = path,
						    .offset = st->err.offset, .why = st->err.why,
						    .size = st->loads });
	if (st->truncated)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JITDUMP_TRUNCATED, .dso = path,
						    .size = st->loads });
	if (!timed || st->arch_time)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JITDUMP_UNTIMED, .dso = path,
						    .err = st->arch_time });
	namer__jit_names(n, (struct pm_warning){ .kind = PM_WARN_JIT_NAMES, .dso = path,
					    .size = st->loads + st->moves, .why = why });
}

/* The recording's copy of process pid's jitdump at path (pmrec record), if it has one. */
static bool namer__jitdump_copy(struct pm_namer *n, int32_t pid, const char *path,
				struct pm_jitcode_copy *cp)
{
	struct pm_cursor c;
	int err = pm_reader__feature(n->r, HEADER_PMREC_JIT_CODE, &c);

	if (err)
		return false;
	err = pm_jitcode__copy_find(c.p + c.pos, pm_cursor__left(&c), pid, path, cp);
	if (err && err != -ENOENT && !n->jitcode_copy_bad) {
		n->jitcode_copy_bad = true;
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JIT_COPY_BAD, .err = -err });
	}
	return !err;
}

/* The file at path (fd, or why not) if it is the one copied, else the copy; or why neither. */
static void namer__jitdump_read(struct pm_namer *n, int fd, const struct pm_jitcode_copy *cp,
				int32_t pid, const char *path)
{
	bool timed = namer__monotonic(n);
	struct pm_jitcode_stats st;
	const char *why;
	int err = pm_jitcode__read_either(n->jitcode, fd, cp, pid, path, timed, &st, &why);

	if (err == -E2BIG)
		namer__jitcode_full(n, err, path);
	else if (err)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_JITDUMP_REFUSED, .dso = path,
						    .err = -err });
	else
		namer__jitdump_said(n, path, timed, &st, why);
}

/*
 * An executable mapping of a file named jit-PID.dump: a runtime's jitdump
 * marker (perf inject --jit's rule).  The file is read now, as it is at
 * report time, with the owner rule of perf maps.
 */
void namer__jitdump(struct pm_namer *n, const struct perf_event_header *h, size_t body_len)
{
	struct pm_jitcode_copy cp;
	struct pm_mmap_body m;
	char path[4096];
	size_t len;
	bool copy;
	int fd;

	if (pm_mmap_body__decode(h, body_len, &m) || (m.v2 && !(m.prot & PROT_EXEC)) ||
	    (!m.v2 && (h->misc & PERF_RECORD_MISC_MMAP_DATA)))
		return;
	len = strnlen(m.filename, m.filename_max);
	if (len >= sizeof(path))
		return;
	memcpy(path, m.filename, len);
	path[len] = '\0';
	if (pm_jitdump__marker_pid(path) < 0 ||
	    pm_hashtab__find_int(&n->jitdump_pids, (uint32_t)m.pid, NULL))
		return;
	if (!n->jitcode && !(n->jitcode = pm_jitcode__new(n->jit)))
		return;
	/* A runtime maps its marker once; a second mapping (-p's synthesized one too) adds nothing. */
	if (pm_hashtab__insert_int(&n->jitdump_pids, (uint32_t)m.pid, 0))
		return;
	/*
	 * The file as it is now if it is the one recorded, else the copy
	 * record made of it (gone, replaced, refused: the copy is silent).
	 */
	copy = namer__jitdump_copy(n, m.pid, path, &cp);
	fd = pm_perfmap__open(-1, path, geteuid(), geteuid());
	namer__jitdump_read(n, fd, copy ? &cp : NULL, m.pid, path);
	if (fd >= 0)
		close(fd);
}

void pm_namer__time(struct pm_namer *n, uint64_t time)
{
	if (n->jitcode)
		namer__jitcode_full(n, pm_jitcode__advance(n->jitcode, time), NULL);
}
