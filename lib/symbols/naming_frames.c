// SPDX-License-Identifier: GPL-2.0
/*
 * A sample's frames: its call chain walked, its user stack unwound, each
 * frame named and labelled, the whole folded into a FlameGraph stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "dwarf/unwind.h"
#include "export/folded.h"
#include "symbols/machine.h"
#include "symbols/naming.h"
#include "symbols/naming_int.h"

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

bool pm_namer__chain_only(const struct pm_namer *n, const struct pm_sample *s)
{
	return n->opts.no_unwind || !pm_unwind__possible(s);
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

uint64_t pm_namer__generation_of(struct pm_namer *n, int32_t pid)
{
	uint64_t gen = pm_namer__generation(n), steps = 0;

	/* Steps change only with the generation: the last answer holds until it moves. */
	if (n->gen_of.gen == gen && n->gen_of.pid == pid)
		return n->gen_of.of;
	pm_hashtab__find_int(&n->pid_steps, (uint32_t)pid, &steps);
	n->gen_of.pid = pid;
	n->gen_of.gen = gen;
	n->gen_of.of = (gen - n->record_steps) << 32 | steps;
	return n->gen_of.of;
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
