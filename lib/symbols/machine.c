// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "base/buf.h"
#include "base/cache.h"
#include "base/hashtab.h"
#include "symbols/jitsym.h"
#include "symbols/machine.h"
#include "symbols/vdso.h"
#include "symbols/machine_int.h"
#include "format/perf_data.h"
#include "format/record_body.h"
#include "symbols/symarchive.h"

#define RESOLVE_BITS 12
#define RESOLVE_SLOTS (1u << RESOLVE_BITS)

struct pm_resolved {
	uint64_t ip, gen;	/* gen 0: empty */
	int32_t pid;
	uint16_t cpumode;
	struct pm_frame f;
};

/* What any input may cost beyond its own size, and per input byte. */
#define WORK_BASE (1ULL << 30)
#define WORK_PER_BYTE 256
/* vm.max_map_count's default: no real process has more mappings. */
#define MAX_MAPS 65530

struct pm_machine *pm_machine__new(void)
{
	struct pm_machine *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->dsos = pm_dso_cache__new();
	m->resolved = calloc(RESOLVE_SLOTS, sizeof(*m->resolved));
	if (!m->dsos || !m->resolved) {
		pm_dso_cache__delete(m->dsos);
		free(m->resolved);
		free(m);
		return NULL;
	}
	pm_hashtab__init(&m->proc_idx, NULL, NULL);
	pm_hashtab__init(&m->comm_idx, NULL, NULL);
	pm_hashtab__init(&m->noted, NULL, NULL);
	m->gen = 1;
	m->allowance = WORK_BASE;
	return m;
}

void pm_machine__delete(struct pm_machine *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_procs; i++)
		free(m->procs[i].maps);
	free(m->procs);
	pm_hashtab__exit(&m->proc_idx);
	free(m->comms);
	pm_hashtab__exit(&m->comm_idx);
	for (i = 0; i < m->nr_expects; i++)
		free(m->expects[i].path);
	free(m->expects);
	free(m->reported);
	pm_hashtab__exit(&m->noted);
	for (i = 0; i < m->nr_notes; i++)
		free(m->notes[i]);
	free(m->notes);
	pm_symarchive__delete(m->archive);
	for (i = 0; i < m->nr_modules; i++)
		free(m->modules[i].name);
	free(m->modules);
	pm_kallsyms__delete(m->ks);
	pm_dso_cache__delete(m->dsos);
	free(m->resolved);
	free(m);
}

void pm_machine__set_kallsyms(struct pm_machine *m, struct pm_kallsyms *ks)
{
	m->gen++;
	pm_kallsyms__delete(m->ks);
	m->ks = ks;
}

void pm_machine__set_locator(struct pm_machine *m, struct pm_locator *l)
{
	m->gen++;
	pm_dso_cache__set_locator(m->dsos, l);
}

void pm_machine__set_archive(struct pm_machine *m, struct pm_symarchive *a)
{
	m->gen++;
	pm_symarchive__delete(m->archive);
	m->archive = a;
}

int pm_machine__expect_build_id(struct pm_machine *m, const char *path,
				const unsigned char *id, size_t len)
{
	struct pm_expect *e;

	if (!len)
		return 0;
	if (pm_array__grow((void **)&m->expects, &m->cap_expects, m->nr_expects, sizeof(*e)))
		return -ENOMEM;
	e = &m->expects[m->nr_expects];
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	e->len = (uint8_t)(len > PM_BUILD_ID_SIZE ? PM_BUILD_ID_SIZE : len);
	memcpy(e->id, id, e->len);
	m->nr_expects++;
	m->expects_sorted = false;
	return 0;
}

static int expect__cmp(const void *a, const void *b)
{
	return strcmp(((const struct pm_expect *)a)->path, ((const struct pm_expect *)b)->path);
}

const struct pm_expect *machine__expected(struct pm_machine *m, const char *path)
{
	struct pm_expect key = { .path = (char *)path };

	if (!m->nr_expects)
		return NULL;
	if (!m->expects_sorted) {
		qsort(m->expects, m->nr_expects, sizeof(*m->expects), expect__cmp);
		m->expects_sorted = true;
	}
	return bsearch(&key, m->expects, m->nr_expects, sizeof(key), expect__cmp);
}

void pm_machine__set_jitsyms(struct pm_machine *m, struct pm_jitsyms *jit)
{
	m->gen++;
	m->jit = jit;
}

/* A name may change with the mappings or with the JIT names: both only grow. */
static uint64_t machine__gen(const struct pm_machine *m)
{
	return m->gen + (m->jit ? pm_jitsyms__generation(m->jit) : 0);
}

static bool machine__charge(struct pm_machine *m, uint64_t bytes)
{
	m->work += bytes;
	if (m->work > m->allowance)
		m->overloaded = true;
	return !m->overloaded;
}

static struct pm_proc *machine__proc(struct pm_machine *m, int32_t pid, bool create)
{
	uint64_t idx;

	if (pm_hashtab__find_int(&m->proc_idx, (uint32_t)pid, &idx))
		return &m->procs[idx];
	if (!create || pm_array__grow((void **)&m->procs, &m->cap_procs, m->nr_procs, sizeof(*m->procs)) ||
	    pm_hashtab__insert_int(&m->proc_idx, (uint32_t)pid, m->nr_procs))
		return NULL;
	m->procs[m->nr_procs] = (struct pm_proc){ .pid = pid };
	return &m->procs[m->nr_procs++];
}

/* Index of the first map that ends after addr. */
static uint32_t proc__first_after(const struct pm_proc *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A new mapping replaces whatever it overlaps, as mmap(MAP_FIXED) does. */
static int proc__insert(struct pm_machine *m, struct pm_proc *p, const struct pm_map *nm)
{
	struct pm_map repl[3];
	uint32_t i = proc__first_after(p, nm->start), j = i, n = 0, nr;

	while (j < p->nr && p->maps[j].start < nm->end)
		j++;
	if (i < j && p->maps[i].start < nm->start) {
		repl[n] = p->maps[i];
		repl[n++].end = nm->start;
	}
	repl[n++] = *nm;
	if (i < j && p->maps[j - 1].end > nm->end) {
		repl[n] = p->maps[j - 1];
		repl[n].pgoff += nm->end - repl[n].start;
		repl[n++].start = nm->end;
	}
	nr = p->nr - (j - i) + n;
	if (nr > MAX_MAPS || !machine__charge(m, (uint64_t)(p->nr - j) * sizeof(*nm)))
		return 0;
	if (nr > p->cap) {
		uint32_t cap = p->cap ? p->cap : 8;
		struct pm_map *maps;

		while (cap < nr)
			cap *= 2;
		maps = realloc(p->maps, (size_t)cap * sizeof(*maps));
		if (!maps)
			return -ENOMEM;
		p->maps = maps;
		p->cap = cap;
	}
	memmove(p->maps + i + n, p->maps + j, (size_t)(p->nr - j) * sizeof(*nm));
	memcpy(p->maps + i, repl, n * sizeof(*nm));
	p->nr = nr;
	return 0;
}

/* The file name of a mapping, if NUL-terminated inside the body. */
static const char *mmap__name(const struct pm_mmap_body *mb)
{
	return mb->filename_max && memchr(mb->filename, '\0', mb->filename_max) ? mb->filename :
										     NULL;
}

static int machine__mmap(struct pm_machine *m, const struct perf_event_header *h,
			 size_t body_len)
{
	struct pm_mmap_body mb;
	struct pm_map nm = { 0 };
	struct pm_proc *p;
	uint64_t dev = 0;
	const char *name;

	if (pm_mmap_body__decode(h, body_len, &mb))
		return 0;
	name = mmap__name(&mb);
	if (!name)
		return 0;
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL &&
	    !strncmp(name, "[kernel.kallsyms]", 17) && mb.addr + mb.len > mb.addr) {
		m->ktext.start = mb.addr;
		m->ktext.end = mb.addr + mb.len;
		m->ktext.pgoff = mb.pgoff;
		return 0;
	}
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
		return 0;
	nm.start = mb.addr;
	nm.end = mb.addr + mb.len;
	nm.pgoff = mb.pgoff;
	if (nm.end <= nm.start)
		return 0;
	if (mb.has_build_id) {
		nm.id_len = mb.build_id_len;
		memcpy(nm.id, mb.build_id, nm.id_len);
	} else if (mb.v2) {
		dev = makedev(mb.maj, mb.min);
	}
	/* The recorded "[vdso]" id is the native vDSO's, as perf's. */
	if (!strcmp(name, PM_VDSO_NAME) && !pm_vdso__is_native(name, mb.addr))
		name = PM_VDSO32_NAME;
	p = machine__proc(m, mb.pid, true);
	if (!p)
		return -ENOMEM;
	nm.dso = nm.id_len ? pm_dso_cache__findnew_id(m->dsos, name, nm.id, nm.id_len) :
			     pm_dso_cache__findnew(m->dsos, name, dev, mb.ino);
	if (!nm.dso)
		return -ENOMEM;
	return proc__insert(m, p, &nm);
}

/* A new process starts with its parent's mappings; a new thread shares them. */
static int machine__set_comm(struct pm_machine *m, int32_t tid, const char *comm, size_t len)
{
	struct pm_comm *c;
	uint64_t idx;

	if (!pm_hashtab__find_int(&m->comm_idx, (uint32_t)tid, &idx)) {
		if (pm_array__grow((void **)&m->comms, &m->cap_comms, m->nr_comms, sizeof(*c)) ||
		    pm_hashtab__insert_int(&m->comm_idx, (uint32_t)tid, m->nr_comms))
			return -ENOMEM;
		idx = m->nr_comms++;
	}
	c = &m->comms[idx];
	c->tid = tid;
	len = strnlen(comm, len < sizeof(c->comm) - 1 ? len : sizeof(c->comm) - 1);
	memcpy(c->comm, comm, len);
	c->comm[len] = '\0';
	return 0;
}

static int machine__fork(struct pm_machine *m, const struct perf_event_header *h,
			 size_t body_len)
{
	struct pm_proc *parent, *child;
	struct pm_fork_body fb;
	const char *comm;
	size_t n;

	if (pm_fork_body__decode(h, body_len, &fb))
		return 0;
	/*
	 * The kernel reports a name only at exec and prctl: a new thread or
	 * process goes by its parent's until then, as perf's thread__fork
	 * names it.
	 */
	comm = pm_machine__comm(m, fb.ptid);
	if (comm) {
		char name[sizeof(((struct pm_comm *)0)->comm)] = { 0 };

		/* The table may move under comm; "swapper" (pid 0's) is shorter than a slot. */
		memcpy(name, comm, strnlen(comm, sizeof(name)));
		if (machine__set_comm(m, fb.tid, name, sizeof(name)))
			return -ENOMEM;
	}
	if (fb.pid == fb.ppid)
		return 0;
	parent = machine__proc(m, fb.ppid, false);
	child = machine__proc(m, fb.pid, true);
	if (!child)
		return -ENOMEM;
	/* machine__proc may have moved the array. */
	parent = machine__proc(m, fb.ppid, false);
	n = parent ? parent->nr : 0;
	if (!machine__charge(m, n * sizeof(struct pm_map)))
		return 0;
	if (n > child->cap) {
		struct pm_map *maps = realloc(child->maps, n * sizeof(*maps));

		if (!maps)
			return -ENOMEM;
		child->maps = maps;
		child->cap = (uint32_t)n;
	}
	if (n)
		memcpy(child->maps, parent->maps, n * sizeof(*child->maps));
	child->nr = (uint32_t)n;
	return 0;
}

static int machine__comm(struct pm_machine *m, const struct perf_event_header *h,
			 size_t body_len)
{
	struct pm_comm_body cb;

	if (pm_comm_body__decode(h, body_len, &cb))
		return 0;
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* exec replaced the address space; its new mappings follow. */
		struct pm_proc *p = machine__proc(m, cb.pid, false);

		if (p)
			p->nr = 0;
	}
	return machine__set_comm(m, cb.tid, cb.comm, cb.comm_max);
}

int pm_machine__event(struct pm_machine *m, const struct perf_event_header *h,
		      size_t body_len)
{
	if (m->overloaded)
		return 0;
	m->allowance += (uint64_t)h->size * WORK_PER_BYTE;
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		m->gen++;
		return machine__mmap(m, h, body_len);
	case PERF_RECORD_COMM:
		m->gen++;
		return machine__comm(m, h, body_len);
	case PERF_RECORD_FORK:
		m->gen++;
		return machine__fork(m, h, body_len);
	default:
		return 0;
	}
}

const char *pm_machine__comm(const struct pm_machine *m, int32_t tid)
{
	uint64_t idx;

	if (pm_hashtab__find_int(&m->comm_idx, (uint32_t)tid, &idx))
		return m->comms[idx].comm;
	/* perf names the idle task, which no COMM names, at the start of a session. */
	return tid == 0 ? "swapper" : NULL;
}

bool pm_machine__overloaded(const struct pm_machine *m)
{
	return m->overloaded;
}

uint64_t pm_machine__generation(const struct pm_machine *m)
{
	return machine__gen(m);
}

static const char *machine__module(struct pm_machine *m, const char *module)
{
	char *s;
	size_t i;

	for (i = 0; i < m->nr_modules; i++)
		if (m->modules[i].key == module)
			return m->modules[i].name;
	if (pm_array__grow((void **)&m->modules, &m->cap_modules, m->nr_modules, sizeof(*m->modules)) ||
	    asprintf(&s, "[%s]", module) < 0)
		return module;
	m->modules[m->nr_modules++] = (struct pm_module){ .key = module, .name = s };
	return s;
}

/* The user mapping of process pid that covers addr, or NULL (none, or overloaded). */
static struct pm_map *machine__map_at(struct pm_machine *m, int32_t pid, uint64_t addr)
{
	struct pm_proc *p = m->overloaded ? NULL : machine__proc(m, pid, false);
	uint32_t i;

	if (!p)
		return NULL;
	i = proc__first_after(p, addr);
	if (i == p->nr || p->maps[i].start > addr)
		return NULL;
	return &p->maps[i];
}

static void machine__resolve(struct pm_machine *m, int32_t pid, uint16_t cpumode, uint64_t ip,
			     struct pm_frame *f);

void pm_machine__resolve(struct pm_machine *m, int32_t pid, uint16_t cpumode, uint64_t ip,
			 struct pm_frame *f)
{
	uint64_t h = pm_cache__mix(ip, (uint64_t)(uint32_t)pid << 16 | cpumode);
	struct pm_resolved *e = &m->resolved[pm_cache__slot(h, RESOLVE_BITS)];

	if (e->gen == machine__gen(m) && e->ip == ip && e->pid == pid && e->cpumode == cpumode) {
		*f = e->f;
		return;
	}
	machine__resolve(m, pid, cpumode, ip, f);
	/*
	 * After the naming: a refusal or JIT names loaded start a generation,
	 * and this entry is of the new one.
	 */
	*e = (struct pm_resolved){ .ip = ip, .gen = machine__gen(m), .pid = pid,
				   .cpumode = cpumode, .f = *f };
	/* A refusal, a source, is said once. */
	e->f.refused_now = false;
	e->f.source_now = false;
}

/* Names ip from the JIT names of pid, if any covers it. */
static bool machine__jit_name(struct pm_machine *m, int32_t pid, uint64_t ip,
			      const struct pm_map *map, struct pm_frame *f)
{
	struct pm_jitsym js;

	if (!m->jit || pm_jitsyms__find(m->jit, pid, ip, &js))
		return false;
	f->sym = js.name;
	f->off = ip - js.start;
	f->dso = js.dso ? js.dso : map ? pm_dso__path(map->dso) : NULL;
	f->dso_short = js.dso_short;
	f->jit = true;
	return true;
}

static void machine__resolve(struct pm_machine *m, int32_t pid, uint16_t cpumode, uint64_t ip,
			     struct pm_frame *f)
{
	struct pm_map *map;
	int err;

	memset(f, 0, sizeof(*f));
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		const char *module;

		if (m->ks && !pm_kallsyms__find(m->ks, ip, &f->sym, &module, &f->off))
			f->dso = module ? machine__module(m, module) : "[kernel.kallsyms]";
		/* perf's kernel map is the recorded text, named or not (another kernel's). */
		else if (ip >= m->ktext.start && ip < m->ktext.end)
			f->dso = "[kernel.kallsyms]";
		return;
	}
	map = cpumode == PERF_RECORD_MISC_USER ? machine__map_at(m, pid, ip) : NULL;
	if (cpumode == PERF_RECORD_MISC_USER && (!map || pm_jitsym__anon_mapping(pm_dso__path(map->dso))) &&
	    machine__jit_name(m, pid, ip, map, f))
		return;
	if (!map)
		return;
	f->dso = pm_dso__path(map->dso);
	/* perf's map_ip: anonymous memory keeps the address itself (no file to look in). */
	f->in_file = !pm_jitsym__anon_mapping(f->dso);
	f->dsoff = f->in_file ? ip - map->start + map->pgoff : 0;
	if (map->state == MAP_UNCHECKED)
		machine__check(m, map, f);
	if (map->state == MAP_REFUSED)
		return;
	if (map->state == MAP_EMBEDDED) {
		if (pm_symtab__find(map->emb, ip - map->start + map->pgoff, &f->sym, &f->off))
			f->sym = NULL;
		return;
	}
	err = pm_dso__resolve(map->dso, map->start, map->pgoff, ip, &f->sym, &f->off);
	if (err == -ESTALE)
		machine__refuse(m, map, "the file was replaced since the recording", f);
	if (err)
		f->sym = NULL;
}

int pm_machine__mapping(struct pm_machine *m, int32_t pid, uint16_t cpumode, uint64_t ip,
			struct pm_mapping *out)
{
	const struct pm_expect *e;
	const unsigned char *id;
	struct pm_map *map;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		if (ip < m->ktext.start || ip >= m->ktext.end)
			return -ENOENT;
		out->start = m->ktext.start;
		out->end = m->ktext.end;
		out->pgoff = m->ktext.pgoff;
		return 0;
	}
	map = cpumode == PERF_RECORD_MISC_USER ? machine__map_at(m, pid, ip) : NULL;
	if (!map)
		return -ENOENT;
	*out = (struct pm_mapping){ .start = map->start, .end = map->end, .pgoff = map->pgoff,
				    .path = pm_dso__path(map->dso), .dso = map->dso };
	e = map->id_len ? NULL : machine__expected(m, out->path);
	if (map->id_len) {
		memcpy(out->build_id, map->id, map->id_len);
		out->build_id_len = map->id_len;
	} else if (e) {
		memcpy(out->build_id, e->id, e->len);
		out->build_id_len = e->len;
	} else if (map->state != MAP_REFUSED && !pm_dso__build_id(map->dso, &id, &len) &&
		   len <= PM_BUILD_ID_SIZE) {
		memcpy(out->build_id, id, len);
		out->build_id_len = len;
	}
	return 0;
}

int pm_machine__map(struct pm_machine *m, int32_t pid, uint64_t addr, struct pm_map_info *mi)
{
	const struct pm_map *map = machine__map_at(m, pid, addr);

	if (!map)
		return -ENOENT;
	/*
	 * An unchecked file is checked, and refused with a warning, when it
	 * is named; an embedded one has no file here to unwind with.
	 */
	if (map->state == MAP_REFUSED || map->state == MAP_EMBEDDED)
		return -ENOENT;
	*mi = (struct pm_map_info){ .start = map->start, .end = map->end, .pgoff = map->pgoff,
				    .dso = map->dso, .path = pm_dso__path(map->dso) };
	return 0;
}

int pm_machine__file_at(struct pm_machine *m, int32_t pid, uint64_t addr, struct pm_dso **dso,
			unsigned char id[PM_BUILD_ID_SIZE], size_t *len)
{
	const struct pm_map *map = machine__map_at(m, pid, addr);
	const struct pm_expect *e;

	if (!map)
		return -ENOENT;
	*dso = map->dso;
	*len = map->id_len;
	memcpy(id, map->id, map->id_len);
	e = map->id_len ? NULL : machine__expected(m, pm_dso__path(map->dso));
	if (e) {
		*len = e->len;
		memcpy(id, e->id, e->len);
		/* The build id decides which file it is (locate.h). */
		*dso = pm_dso_cache__findnew_id(m->dsos, pm_dso__path(map->dso), e->id, e->len) ?:
		       map->dso;
	}
	return 0;
}

int pm_machine__for_each_file(struct pm_machine *m, pm_file_fn *fn, void *arg)
{
	unsigned char id[PM_BUILD_ID_SIZE];
	struct pm_dso *dso;
	size_t i, len;
	uint32_t j;
	int err;

	for (i = 0; i < m->nr_procs; i++) {
		for (j = 0; j < m->procs[i].nr; j++) {
			err = pm_machine__file_at(m, m->procs[i].pid, m->procs[i].maps[j].start,
						  &dso, id, &len);
			err = err ?: fn(arg, dso, id, len);
			if (err)
				return err;
		}
	}
	return 0;
}

const struct pm_kallsyms *pm_machine__kallsyms(const struct pm_machine *m)
{
	return m->ks;
}

const struct pm_symarchive *pm_machine__archive(const struct pm_machine *m)
{
	return m->archive;
}
