// SPDX-License-Identifier: GPL-2.0
/*
 * The namer: made and ended, fed by the records and build ids that shape
 * the address spaces, and asked for one address's name and mapping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashtab.h"
#include "dwarf/unwind.h"
#include "format/perf_data.h"
#include "symbols/demangle.h"
#include "symbols/jitcode.h"
#include "symbols/jitsym.h"
#include "symbols/kallsyms.h"
#include "symbols/locate.h"
#include "symbols/naming.h"
#include "symbols/vdso.h"
#include "symbols/naming_int.h"
#include "symbols/symarchive.h"

void namer__warn(struct pm_namer *n, struct pm_warning w)
{
	if (n->warn)
		n->warn(n->warn_arg, &w);
}

void namer__source(struct pm_namer *n, const char *dso, const char *why)
{
	if (n->opts.verbose)
		namer__warn(n, (struct pm_warning){ .kind = PM_WARN_SYMBOL_SOURCE, .dso = dso,
						    .why = why });
}

struct pm_namer *pm_namer__new(struct pm_reader *r, pm_warn_fn *warn, void *warn_arg)
{
	struct pm_namer *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	pm_hashtab__init(&n->jitdump_pids, NULL, NULL);
	pm_hashtab__init(&n->map_pids, NULL, NULL);
	pm_hashtab__init(&n->pid_steps, NULL, NULL);
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

int pm_namer__set_opts(struct pm_namer *n, const struct pm_namer_opts *o)
{
	struct pm_locator_opts lo = { .symfs = o->symfs, .buildid_dir = o->buildid_dir };
	struct pm_locator *l = pm_locator__new(&lo);

	if (!l)
		return -ENOMEM;
	pm_machine__set_locator(n->machine, l);
	pm_locator__delete(n->locator);
	n->locator = l;
	n->opts = *o;
	if (o->no_demangle) {
		pm_demangler__delete(n->dm);
		n->dm = NULL;
	}
	if (n->uw)
		pm_unwinder__set_demangle(n->uw, n->dm);
	return 0;
}

struct pm_locator *pm_namer__locator(struct pm_namer *n)
{
	return n->locator;
}

void pm_namer__unwind_stats(const struct pm_namer *n, struct pm_unwind_stats *st)
{
	*st = n->ustats;
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
	pm_locator__delete(n->locator);
	pm_hashtab__exit(&n->jitdump_pids);
	pm_hashtab__exit(&n->map_pids);
	pm_hashtab__exit(&n->pid_steps);
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
	n->vdso_id |= !strcmp(e->filename, PM_VDSO_NAME);
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
	return err ?: namer__expect_running_vdso(n) ?: namer__read_archive(n);
}

/*
 * A user MMAP, MMAP2, COMM or FORK changes the names of one process only
 * (the one it maps, names, or makes: the body's first field): the steps
 * it gives the machine's generation are that process's.  Any other step
 * (the kernel's map, the mappings' bound reached) is everyone's.
 */
static int namer__event(struct pm_namer *n, const struct pm_record *rec, size_t body_len)
{
	uint16_t mode = rec->header->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint64_t gen = pm_namer__generation(n), steps = 0;
	uint32_t type = rec->header->type;
	bool over = pm_machine__overloaded(n->machine);
	int32_t pid = -1;
	int err;

	err = pm_machine__event(n->machine, rec->header, body_len);
	if (err || pm_namer__generation(n) == gen || over != pm_machine__overloaded(n->machine) ||
	    body_len < sizeof(pid) || ((type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) &&
					mode != PERF_RECORD_MISC_USER) ||
	    (type != PERF_RECORD_MMAP && type != PERF_RECORD_MMAP2 && type != PERF_RECORD_COMM &&
	     type != PERF_RECORD_FORK))
		return err;
	/* rec->data starts at the header. */
	memcpy(&pid, (const char *)rec->data + sizeof(*rec->header), sizeof(pid));
	/* A process's count stays below 2^32; past it, its steps are everyone's. */
	if (pm_hashtab__find_int(&n->pid_steps, (uint32_t)pid, &steps) && steps >= UINT32_MAX / 2)
		return 0;
	pm_hashtab__delete_int(&n->pid_steps, (uint32_t)pid);
	steps += pm_namer__generation(n) - gen;
	if (pm_hashtab__insert_int(&n->pid_steps, (uint32_t)pid, steps))
		return -ENOMEM;
	n->record_steps += pm_namer__generation(n) - gen;
	return 0;
}

int pm_namer__track(struct pm_namer *n, const struct pm_record *rec, size_t body_len)
{
	struct pm_build_id_entry e;
	uint32_t type = rec->header->type;

	/* Most records: a sample names nothing new, the machine only counts its bytes. */
	if (type == PERF_RECORD_SAMPLE)
		return pm_machine__event(n->machine, rec->header, body_len);
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
		return namer__event(n, rec, body_len);
	return 0;
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
