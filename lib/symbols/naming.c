// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "symbols/demangle.h"
#include "symbols/elf.h"
#include "base/file.h"
#include "symbols/kallsyms.h"
#include "export/folded.h"
#include "base/hashtab.h"
#include "symbols/jitcode.h"
#include "symbols/jitsym.h"
#include "symbols/naming.h"
#include "format/perf_data.h"
#include "symbols/perfmap.h"
#include "symbols/symarchive.h"
#include "dwarf/unwind.h"

struct pm_namer {
	struct pm_reader *r;
	struct pm_machine *machine;
	struct pm_jitsyms *jit;		/* names of JIT code, filled by the loaders */
	bool jit_copy_read;		/* the recording's copy of the perf maps taken in */
	struct pm_jitcode *jitcode;	/* jitdump files met (marker mappings), NULL before */
	bool jitcode_full;		/* the table's bound reached: said once */
	bool jitcode_copy_bad;		/* the recording's copy of the jitdumps unreadable: said */
	struct pm_hashtab jitdump_pids;	/* processes whose jitdump was read: once each */
	struct pm_hashtab map_pids;	/* the pids of the perf maps in /tmp */
	int map_pids_listed;		/* 0: not yet; 1: listed; -1: /tmp unlisted, try each */
	pm_warn_fn *warn;
	void *warn_arg;
	int kernel_syms;		/* 0: not decided yet, 1: loaded, -1: none */
	unsigned char kernel_id[PM_BUILD_ID_SIZE];
	size_t kernel_id_len;		/* the recorded kernel's, 0 if unknown */
	struct pm_symarchive *archive;	/* the recording's symbols, until the machine takes them */
	bool archive_kernel;		/* they include the kernel's */
	struct pm_buf stack;		/* the folded stack being built */
	struct pm_buf label;		/* one frame's label, before escaping */
	struct pm_named_frame *chain;	/* the frames of the last sample asked for */
	size_t nr_chain;
	struct pm_namer_opts opts;
	struct pm_demangler *dm;	/* NULL: names as recorded */
	struct pm_unwinder *uw;		/* made on the first dwarf sample */
	struct pm_unwind_frame uf[PM_UNWIND_MAX_FRAMES];
	struct pm_unwind_stats ustats;
	/* /proc/kallsyms read on a thread of its own while records are read. */
	struct {
		pthread_t thread;
		bool started;
		struct pm_kallsyms *ks;
		int err;		/* errno when ks is NULL */
		bool done;		/* set by the thread, atomically, as it ends */
	} prefetch;
};

static void namer__warn(struct pm_namer *n, struct pm_warning w)
{
	if (n->warn)
		n->warn(n->warn_arg, &w);
}

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
static void namer__load_jit(void *arg, struct pm_jitsyms *t, int32_t pid)
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
	err = pm_perfmap__read(fd, t, pid, path, dso_short, &st);
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
static void namer__jitdump(struct pm_namer *n, const struct perf_event_header *h, size_t body_len)
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

struct pm_namer *pm_namer__new(struct pm_reader *r, pm_warn_fn *warn, void *warn_arg)
{
	struct pm_namer *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	pm_hashtab__init(&n->jitdump_pids, NULL, NULL);
	pm_hashtab__init(&n->map_pids, NULL, NULL);
	n->machine = pm_machine__new();
	if (!n->machine) {
		free(n);
		return NULL;
	}
	n->dm = pm_demangler__new();
	n->jit = pm_jitsyms__new();
	if (!n->dm || !n->jit) {
		pm_namer__delete(n);
		return NULL;
	}
	pm_machine__set_jitsyms(n->machine, n->jit);
	pm_jitsyms__set_loader(n->jit, namer__load_jit, n);
	n->r = r;
	n->warn = warn;
	n->warn_arg = warn_arg;
	return n;
}

void pm_namer__set_opts(struct pm_namer *n, const struct pm_namer_opts *o)
{
	n->opts = *o;
	if (o->no_demangle) {
		pm_demangler__delete(n->dm);
		n->dm = NULL;
	}
	if (n->uw)
		pm_unwinder__set_demangle(n->uw, n->dm);
}

void pm_namer__unwind_stats(const struct pm_namer *n, struct pm_unwind_stats *st)
{
	*st = n->ustats;
}

/* The prefetched kallsyms, waited for, else read now; NULL with *err (an errno) if none. */
static struct pm_kallsyms *namer__take_kallsyms(struct pm_namer *n, int *err)
{
	struct pm_kallsyms *ks;

	if (!n->prefetch.started) {
		ks = pm_kallsyms__load(n->opts.kallsyms);
		*err = ks ? 0 : errno;
		return ks;
	}
	pthread_join(n->prefetch.thread, NULL);
	n->prefetch.started = false;
	ks = n->prefetch.ks;
	n->prefetch.ks = NULL;
	*err = n->prefetch.err;
	return ks;
}

void pm_namer__delete(struct pm_namer *n)
{
	int err;

	if (!n)
		return;
	if (n->prefetch.started)
		pm_kallsyms__delete(namer__take_kallsyms(n, &err));
	pm_unwinder__delete(n->uw);
	pm_demangler__delete(n->dm);
	pm_machine__delete(n->machine);
	pm_hashtab__exit(&n->jitdump_pids);
	pm_hashtab__exit(&n->map_pids);
	pm_jitcode__delete(n->jitcode);
	pm_jitsyms__delete(n->jit);
	pm_buf__exit(&n->stack);
	pm_buf__exit(&n->label);
	free(n->chain);
	free(n);
}

/* A BUILD_ID entry: what a binary was when it was recorded. */
static int namer__expect(struct pm_namer *n, const struct pm_build_id_entry *e)
{
	if (strnlen(e->filename, e->filename_max) == e->filename_max)
		return 0;
	if (e->cpumode == PERF_RECORD_MISC_KERNEL) {
		if (!strcmp(e->filename, "[kernel.kallsyms]")) {
			memcpy(n->kernel_id, e->id, e->id_len);
			n->kernel_id_len = e->id_len;
		}
		return 0;
	}
	return pm_machine__expect_build_id(n->machine, e->filename, e->id, e->id_len);
}

/* The symbols the recording carries, handed to the machine. */
static int namer__read_archive(struct pm_namer *n)
{
	struct pm_symarchive_error e = { 0 };
	struct pm_symarchive *a;
	struct pm_cursor c;

	if (pm_reader__feature(n->r, HEADER_PMREC_SYMBOLS, &c))
		return 0;
	a = pm_symarchive__decode(c.p, c.len, c.base, &e);
	if (!a && errno == ENOMEM)
		return -ENOMEM;
	if (!a) {
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_BAD_SYMBOLS, .why = e.reason,
						    .offset = e.offset });
		return 0;
	}
	n->archive_kernel = pm_symarchive__has_kernel(a);
	n->archive = a;
	pm_machine__set_archive(n->machine, a);
	return 0;
}

int pm_namer__read_build_ids(struct pm_namer *n)
{
	struct pm_build_id_entry e;
	struct pm_cursor c;
	int err = 0;

	if (!pm_reader__feature(n->r, HEADER_BUILD_ID, &c))
		while (!err && pm_build_id_entry__next(&c, &e) > 0)
			err = namer__expect(n, &e);
	return err ?: namer__read_archive(n);
}

int pm_namer__track(struct pm_namer *n, const struct pm_record *rec, size_t body_len)
{
	struct pm_build_id_entry e;
	uint32_t type = rec->header->type;

	if (type == PERF_RECORD_HEADER_BUILD_ID)
		return pm_build_id_entry__decode(rec->data, rec->header->size, &e) ? 0 :
										 namer__expect(n, &e);
	/* exec: the process's old files are gone from its address space. */
	if (n->uw && type == PERF_RECORD_COMM && (rec->header->misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    body_len >= 4) {
		int32_t pid;

		/* rec->data starts at the header: the pid is the body's first field. */
		memcpy(&pid, (const char *)rec->data + sizeof(*rec->header), sizeof(pid));
		pm_unwinder__forget(n->uw, pid);
	}
	if (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2)
		namer__jitdump(n, rec->header, body_len);
	if (type < PERF_RECORD_USER_TYPE_START)
		return pm_machine__event(n->machine, rec->header, body_len);
	return 0;
}

/* The perf string of a feature, or NULL. */
static const char *feature_string(struct pm_reader *r, int feat)
{
	struct pm_cursor c;
	const void *p;
	uint32_t len;

	if (pm_reader__feature(r, feat, &c) || pm_cursor__u32(&c, &len) ||
	    pm_cursor__bytes(&c, len, &p) || !len || !memchr(p, '\0', len))
		return NULL;
	return p;
}

enum kernel_match { KERNEL_SAME, KERNEL_OTHER, KERNEL_UNKNOWN };

/*
 * kallsyms names the recording's kernel addresses if this is its kernel,
 * by build id, else by release.  A file that says neither (a recording
 * killed before its features were written) is named from this kernel, as
 * perf does, with a warning.
 */
static enum kernel_match namer__same_kernel(struct pm_namer *n)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	struct utsname u;
	const char *rel;
	size_t len;

	if (n->kernel_id_len)
		return !pm_elf__kernel_build_id(id, &len) && len == n->kernel_id_len &&
		       !memcmp(id, n->kernel_id, len) ? KERNEL_SAME : KERNEL_OTHER;
	rel = feature_string(n->r, HEADER_OSRELEASE);
	if (!rel)
		return KERNEL_UNKNOWN;
	return !uname(&u) && !strcmp(rel, u.release) ? KERNEL_SAME : KERNEL_OTHER;
}

static void *namer__prefetch(void *arg)
{
	struct pm_namer *n = arg;

	n->prefetch.ks = pm_kallsyms__load(n->opts.kallsyms);
	n->prefetch.err = n->prefetch.ks ? 0 : errno;
	__atomic_store_n(&n->prefetch.done, true, __ATOMIC_RELEASE);
	return NULL;
}

void pm_namer__prefetch_kallsyms(struct pm_namer *n)
{
	size_t i, nr = pm_reader__nr_evsels(n->r);
	bool kernel = !nr;

	for (i = 0; i < nr; i++)
		kernel |= !pm_reader__evsel(n->r, i)->attr.exclude_kernel;
	if (!kernel || n->kernel_syms || n->prefetch.started ||
	    (!n->opts.kallsyms && namer__same_kernel(n) == KERNEL_OTHER))
		return;
	n->prefetch.started = !pthread_create(&n->prefetch.thread, NULL, namer__prefetch, n);
}

bool pm_namer__kernel_pending(const struct pm_namer *n)
{
	return n->prefetch.started && !__atomic_load_n(&n->prefetch.done, __ATOMIC_ACQUIRE);
}

static void namer__source(struct pm_namer *n, const char *dso, const char *why)
{
	if (n->opts.verbose)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_SYMBOL_SOURCE, .dso = dso,
						    .why = why });
}

/* The kernel's symbols from the recording itself, if it has them. */
static bool namer__embedded_kallsyms(struct pm_namer *n, const char *why)
{
	struct pm_kallsyms *ks;

	if (!n->archive_kernel)
		return false;
	ks = pm_symarchive__kallsyms(n->archive);
	if (!ks)
		return false;
	pm_machine__set_kallsyms(n->machine, ks);
	n->kernel_syms = 1;
	namer__source(n, "[kernel.kallsyms]", why);
	return true;
}

/*
 * kallsyms of this kernel if it is the recorded one (or the file the user
 * named), else the recording's own kernel symbols, else none.
 */
static void namer__load_kallsyms(struct pm_namer *n)
{
	enum kernel_match m = n->opts.kallsyms ? KERNEL_SAME : namer__same_kernel(n);
	struct pm_kallsyms *ks;
	int err;

	n->kernel_syms = -1;
	if (m == KERNEL_OTHER) {
		if (!namer__embedded_kallsyms(n, "named from the symbols embedded in the "
					     "recording (recorded on another kernel)"))
			namer__warn(n, (struct pm_warning){ .kind = PM_WARN_OTHER_KERNEL });
		return;
	}
	ks = namer__take_kallsyms(n, &err);
	if (!ks) {
		if (!namer__embedded_kallsyms(n, "named from the symbols embedded in the "
					     "recording (no kernel symbols readable here)"))
			namer__warn(n, (struct pm_warning){ .kind = PM_WARN_NO_KALLSYMS, .err = err,
							    .dso = n->opts.kallsyms });
		return;
	}
	if (m == KERNEL_UNKNOWN)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_UNKNOWN_KERNEL });
	pm_machine__set_kallsyms(n->machine, ks);
	n->kernel_syms = 1;
	namer__source(n, "[kernel.kallsyms]", n->opts.kallsyms ? "named from the file given with "
		      "--kallsyms" : "named from /proc/kallsyms (the recorded kernel runs here)");
}

void pm_namer__resolve(struct pm_namer *n, int32_t pid, uint16_t cpumode, uint64_t ip,
		       struct pm_frame *f)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL && !n->kernel_syms)
		namer__load_kallsyms(n);
	pm_machine__resolve(n->machine, pid, cpumode, ip, f);
	f->linkage = f->sym;
	if (f->sym && n->dm)
		f->sym = pm_demangler__name(n->dm, f->sym);
	if (f->refused_now)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_DSO_REFUSED, .dso = f->dso,
						    .why = f->refusal });
	if (f->source_now)
		namer__source(n, f->dso, f->source);
}

int pm_namer__mapping(struct pm_namer *n, int32_t pid, uint16_t cpumode, uint64_t ip,
		      const struct pm_frame *f, struct pm_mapping *out)
{
	int err;

	if (cpumode != PERF_RECORD_MISC_KERNEL)
		return pm_machine__mapping(n->machine, pid, cpumode, ip, out);
	/* A module has no range here, only its name. */
	if (f->dso && strcmp(f->dso, "[kernel.kallsyms]")) {
		*out = (struct pm_mapping){ .path = f->dso };
		return 0;
	}
	err = pm_machine__mapping(n->machine, pid, cpumode, ip, out);
	if (err && !f->dso)
		return err;
	out->path = "[kernel.kallsyms]";
	memcpy(out->build_id, n->kernel_id, n->kernel_id_len);
	out->build_id_len = n->kernel_id_len;
	return 0;
}

struct pm_jitsyms *pm_namer__jitsyms(struct pm_namer *n)
{
	return n->jit;
}

int pm_namer__file_at(struct pm_namer *n, int32_t pid, uint64_t ip, struct pm_dso **dso,
		      unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	return pm_machine__file_at(n->machine, pid, ip, dso, id, len);
}

int pm_namer__for_each_file(struct pm_namer *n, pm_file_fn *fn, void *arg)
{
	return pm_machine__for_each_file(n->machine, fn, arg);
}

const struct pm_kallsyms *pm_namer__kallsyms(struct pm_namer *n)
{
	if (!n->kernel_syms)
		namer__load_kallsyms(n);
	return pm_machine__kallsyms(n->machine);
}

size_t pm_namer__kernel_build_id(const struct pm_namer *n, const unsigned char **id)
{
	*id = n->kernel_id;
	return n->kernel_id_len;
}

const struct pm_symarchive *pm_namer__archive(const struct pm_namer *n)
{
	return pm_machine__archive(n->machine);
}

bool pm_namer__overloaded(const struct pm_namer *n)
{
	return pm_machine__overloaded(n->machine);
}

const char *pm_namer__comm(const struct pm_namer *n, int32_t tid)
{
	return pm_machine__comm(n->machine, tid);
}

int pm_frame__label(struct pm_buf *b, const char *sym, const char *dso, bool in_file,
		    uint64_t dsoff)
{
	const char *base;
	char off[24];
	int err;

	if (sym)
		return pm_buf__append(b, sym, strlen(sym));
	if (!dso)
		return pm_buf__append(b, "[unknown]", 9);
	base = pm_path__base(dso);
	if (in_file) {
		snprintf(off, sizeof(off), "+0x%" PRIx64, dsoff);
		return pm_buf__append(b, base, strlen(base)) ?: pm_buf__append(b, off, strlen(off));
	}
	if (base[0] == '[')
		return pm_buf__append(b, base, strlen(base));
	err = pm_buf__append(b, "[", 1) ?: pm_buf__append(b, base, strlen(base));
	return err ?: pm_buf__append(b, "]", 1);
}

/*
 * A frame's label in a folded stack.  Names come from the recording (a
 * comm is whatever a process calls itself): escaped, none can add a frame
 * or a line.
 */
static int frame__fold(struct pm_namer *n, struct pm_buf *b, const struct pm_frame *f)
{
	n->label.len = 0;
	return pm_frame__label(&n->label, f->sym, f->dso, f->in_file, f->dsoff) ?:
	       pm_folded__append_name(b, (const char *)n->label.data, n->label.len);
}

void pm_chain_walk__init(struct pm_chain_walk *w, const struct pm_sample *s, uint16_t cpumode)
{
	*w = (struct pm_chain_walk){ .ips = s->callchain, .nr = s->callchain_nr,
				     .cpumode = cpumode, .first = true };
}

bool pm_chain_walk__next(struct pm_chain_walk *w, uint64_t *ip, uint64_t *lookup,
			 uint16_t *cpumode)
{
	while (w->i < w->nr) {
		uint64_t v = w->ips[w->i++];

		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			w->cpumode = v == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL :
				     v == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER :
				     PERF_RECORD_MISC_CPUMODE_UNKNOWN;
			w->first = true;
			continue;
		}
		*ip = v;
		*lookup = w->first ? v : v - 1;
		*cpumode = w->cpumode;
		w->first = false;
		return true;
	}
	return false;
}

static int namer__reserve(struct pm_namer *n, size_t nr)
{
	struct pm_named_frame *c;

	if (nr <= n->nr_chain)
		return 0;
	c = realloc(n->chain, nr * sizeof(*c));
	if (!c)
		return -ENOMEM;
	n->chain = c;
	n->nr_chain = nr;
	return 0;
}

static int namer__push(struct pm_namer *n, size_t *nr, struct pm_named_frame fr)
{
	if (*nr == n->nr_chain && namer__reserve(n, n->nr_chain * 2 + 16))
		return -ENOMEM;
	n->chain[(*nr)++] = fr;
	return 0;
}

/* The unwound user frames of s, after the *nr frames already in n->chain. */
static int namer__unwind(struct pm_namer *n, const struct pm_sample *s, size_t *nr)
{
	const char *const *inl;
	size_t i, j, nr_uf, nr_inl;
	bool partial;
	int err;

	if (!n->uw) {
		n->uw = pm_unwinder__new(n->machine);
		if (!n->uw)
			return -ENOMEM;
		pm_unwinder__set_demangle(n->uw, n->dm);
	}
	err = pm_unwinder__unwind(n->uw, s, n->uf, &nr_uf, &partial);
	if (err)
		return err;
	n->ustats.unwound++;
	n->ustats.partial += partial;
	for (i = 0; i < nr_uf && !err; i++) {
		struct pm_named_frame fr = { .ip = n->uf[i].ip, .lookup = n->uf[i].lookup,
					     .cpumode = PERF_RECORD_MISC_USER, .unwound = true };

		nr_inl = 0;
		if (!n->opts.no_inline)
			err = pm_unwinder__inlined(n->uw, (int32_t)s->pid, fr.lookup, &inl, &nr_inl);
		for (j = 0; j < nr_inl && !err; j++) {
			struct pm_named_frame in = fr;

			in.inlined = true;
			in.f.sym = inl[j];
			err = namer__push(n, nr, in);
		}
		if (!err)
			err = namer__push(n, nr, fr);
	}
	return err;
}

/*
 * The sample's frames, innermost first, in n->chain, not yet named
 * (inlined frames have their name).
 */
static int namer__collect(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
			  size_t *nr)
{
	bool unwind = !n->opts.no_unwind && pm_unwind__possible(s);
	struct pm_chain_walk w;
	uint64_t ip, lookup;
	uint16_t mode;
	int err;

	*nr = 0;
	if (namer__reserve(n, s->callchain_nr + 1))
		return -ENOMEM;
	if (s->fields & PERF_SAMPLE_CALLCHAIN) {
		pm_chain_walk__init(&w, s, cpumode);
		/* With a stack copy, the chain gives the kernel frames only. */
		while (pm_chain_walk__next(&w, &ip, &lookup, &mode))
			if (!unwind || mode != PERF_RECORD_MISC_USER)
				n->chain[(*nr)++] = (struct pm_named_frame){
					.ip = ip, .lookup = lookup, .cpumode = mode };
	}
	if (unwind) {
		err = namer__unwind(n, s, nr);
		if (err)
			return err;
	}
	if (!*nr && (s->fields & PERF_SAMPLE_IP))
		n->chain[(*nr)++] = (struct pm_named_frame){ .ip = s->ip, .lookup = s->ip,
							     .cpumode = cpumode };
	return 0;
}

int pm_namer__count_unwind(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s)
{
	size_t nr;

	if (n->opts.no_unwind || !pm_unwind__possible(s))
		return 0;
	return namer__collect(n, cpumode, s, &nr);
}

int pm_namer__chain(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
		    struct pm_named_frame **frames, size_t *nr)
{
	int err = namer__collect(n, cpumode, s, nr);

	*frames = n->chain;
	return err;
}

void pm_namer__name(struct pm_namer *n, int32_t pid, struct pm_named_frame *fr)
{
	const char *inl = fr->f.sym;

	pm_namer__resolve(n, pid, fr->cpumode, fr->lookup, &fr->f);
	if (fr->inlined) {
		fr->f.sym = inl;
		fr->f.linkage = inl;
		fr->f.off = 0;
	}
}

uint64_t pm_namer__generation(const struct pm_namer *n)
{
	return pm_machine__generation(n->machine);
}

int pm_namer__frames(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
		     const struct pm_named_frame **frames, size_t *nr)
{
	size_t i;
	int err = namer__collect(n, cpumode, s, nr);

	if (err)
		return err;
	for (i = 0; i < *nr; i++)
		pm_namer__name(n, (int32_t)s->pid, &n->chain[i]);
	*frames = n->chain;
	return 0;
}

int pm_namer__fold(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
		   const char **stack, size_t *len)
{
	const char *comm = pm_machine__comm(n->machine, (int32_t)s->tid);
	struct pm_buf *b = &n->stack;
	const struct pm_named_frame *fr;
	char tid[16];
	size_t nr;
	int err;

	err = pm_namer__frames(n, cpumode, s, &fr, &nr);
	if (err)
		return err;
	if (!comm) {
		snprintf(tid, sizeof(tid), ":%d", (int32_t)s->tid);
		comm = tid;
	}
	b->len = 0;
	err = pm_folded__append_name(b, comm, strlen(comm));
	/* The chain is innermost first: name it backwards. */
	while (nr-- && !err) {
		err = pm_buf__append(b, ";", 1);
		if (!err)
			err = frame__fold(n, b, &fr[nr].f);
	}
	*stack = (const char *)b->data;
	*len = b->len;
	return err;
}
