// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/event.h"
#include "record/tracing.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* perf's names and aliases; the first name of a config is the canonical one. */
static const struct named_event named_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define NR_NAMED (sizeof(named_events) / sizeof(named_events[0]))

const char *pm_event__builtin_name(uint32_t type, uint64_t config)
{
	size_t i;

	for (i = 0; i < NR_NAMED; i++)
		if (named_events[i].type == type && named_events[i].config == config)
			return named_events[i].name;
	return NULL;
}

static const struct named_event *find_named(const char *name)
{
	size_t i;

	for (i = 0; i < NR_NAMED; i++)
		if (!strcmp(named_events[i].name, name))
			return &named_events[i];
	return NULL;
}

/* u: user only, k: kernel only, h: hypervisor; "uk" means both. */
static int apply_modifiers(struct perf_event_attr *attr, const char *mod)
{
	bool u = false, k = false, h = false;

	for (; *mod; mod++) {
		switch (*mod) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		default: return -EINVAL;
		}
	}
	attr->exclude_user = !u;
	attr->exclude_kernel = !k;
	attr->exclude_hv = !h;
	return 0;
}

static bool is_modifier(const char *s)
{
	return *s && strspn(s, "ukh") == strlen(s);
}

static bool is_tp_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static struct pm_event *evlist__grow(struct pm_evlist *l)
{
	struct pm_event *n = realloc(l->events, (l->nr + 1) * sizeof(*n));

	if (!n)
		return NULL;
	l->events = n;
	memset(&n[l->nr], 0, sizeof(n[0]));
	return &n[l->nr];
}

/* One event: NAME[:MOD] or SYS:NAME[:MOD]. */
static int evlist__parse_one(struct pm_evlist *l, char *spec)
{
	char *parts[3] = { spec, NULL, NULL };
	const struct named_event *ne;
	struct pm_event *ev;
	const char *mod = NULL;
	uint64_t id;
	int nr = 1, err;

	while (nr < 3 && (parts[nr] = strchr(parts[nr - 1], ':')))
		*parts[nr]++ = '\0', nr++;
	if (strchr(parts[nr - 1], ':'))
		return -EINVAL;
	ev = &l->events[l->nr];
	ev->attr.size = sizeof(ev->attr);
	ne = find_named(parts[0]);
	if (ne && nr <= 2) {
		ev->attr.type = ne->type;
		ev->attr.config = ne->config;
		mod = nr == 2 ? parts[1] : NULL;
		if (mod && !is_modifier(mod))
			return -EINVAL;
		if (asprintf(&ev->name, "%s%s%s", pm_event__builtin_name(ne->type, ne->config), mod ? ":" : "", mod ? mod : "") < 0)
			return -ENOMEM;
	} else if (nr >= 2 && is_tp_word(parts[0]) && is_tp_word(parts[1])) {
		mod = nr == 3 ? parts[2] : NULL;
		if (mod && !is_modifier(mod))
			return -EINVAL;
		err = pm_tracing__event_id(parts[0], parts[1], &id);
		if (err)
			return err;
		ev->attr.type = PERF_TYPE_TRACEPOINT;
		ev->attr.config = id;
		if (asprintf(&ev->tracepoint, "%s:%s", parts[0], parts[1]) < 0)
			return -ENOMEM;
		ev->name = strdup(ev->tracepoint);
		if (!ev->name)
			return -ENOMEM;
	} else {
		return -ENOENT;
	}
	if (mod)
		apply_modifiers(&ev->attr, mod);
	l->nr++;
	return 0;
}

static int evlist__add_one(struct pm_evlist *l, char *spec)
{
	int err;

	if (!evlist__grow(l))
		return -ENOMEM;
	err = evlist__parse_one(l, spec);

	/* A half-built event was never counted: drop what it allocated. */
	if (err) {
		free(l->events[l->nr].name);
		free(l->events[l->nr].tracepoint);
		l->events[l->nr].name = NULL;
		l->events[l->nr].tracepoint = NULL;
	}
	return err;
}

int pm_evlist__add(struct pm_evlist *l, const char *spec, char **bad)
{
	char *copy = strdup(spec), *tok, *save = NULL;
	int err = 0;

	*bad = NULL;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *name = strdup(tok);

		if (!name) {
			err = -ENOMEM;
			break;
		}
		err = evlist__add_one(l, tok);
		if (err) {
			*bad = name;
			break;
		}
		free(name);
	}
	if (!err && !l->nr)
		err = -ENOENT, *bad = strdup(spec);
	free(copy);
	return err;
}

int pm_evlist__set_filter(struct pm_evlist *l, const char *filter)
{
	struct pm_event *ev;

	if (!l->nr || !l->events[l->nr - 1].tracepoint)
		return -EINVAL;
	ev = &l->events[l->nr - 1];
	free(ev->filter);
	ev->filter = strdup(filter);
	return ev->filter ? 0 : -ENOMEM;
}

bool pm_evlist__has_tracepoints(const struct pm_evlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (l->events[i].tracepoint)
			return true;
	return false;
}

/*
 * Every event uses IDENTIFIER and the same trailer bits (TID, TIME, CPU), so
 * perf maps any record to its event whatever the mix of sample types.
 */
#define PM_SAMPLE_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

size_t pm_evlist__trailer_size(const struct pm_evlist *l)
{
	/* {pid, tid} + time + {cpu, res} + identifier */
	return 4 * sizeof(uint64_t);
}

size_t pm_evlist__trailer_time_end(const struct pm_evlist *l)
{
	/* time, then {cpu, res} and identifier */
	return 3 * sizeof(uint64_t);
}

size_t pm_evlist__sample_time_offset(const struct pm_evlist *l)
{
	static const uint64_t before[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID };
	uint64_t type = l->nr ? l->events[0].attr.sample_type : 0;
	size_t i, off = sizeof(struct perf_event_header);

	if (!(type & PERF_SAMPLE_TIME))
		return 0;
	for (i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		if (type & before[i])
			off += sizeof(uint64_t);
	return off;
}

/* x86-64 user registers perf records for DWARF unwinding (all but segments). */
#define PM_DWARF_REGS_MASK 0xff0fffULL

void pm_evlist__config(struct pm_evlist *l, const struct pm_event_config *cfg)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		struct perf_event_attr *a = &l->events[i].attr;
		bool tp = l->events[i].tracepoint != NULL;

		a->size = sizeof(*a);
		a->sample_type = PM_SAMPLE_BASE;
		if (tp)
			a->sample_type |= PERF_SAMPLE_RAW;
		if (cfg->callchain)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (cfg->sample_addr)
			a->sample_type |= PERF_SAMPLE_ADDR;
		if (cfg->dwarf) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = PM_DWARF_REGS_MASK;
			a->sample_stack_user = cfg->dwarf_stack;
			a->exclude_callchain_user = 1;
		}
		a->read_format = PERF_FORMAT_ID | (cfg->lost_format ? PERF_FORMAT_LOST : 0);
		/* Tracepoints and fixed periods count events; the rest sample by rate. */
		if (l->events[i].every) {
			a->freq = 0;
			a->sample_period = 1;
		} else if (cfg->period || (tp && !cfg->freq)) {
			a->freq = 0;
			a->sample_period = cfg->period ? cfg->period : 1;
		} else {
			a->freq = 1;
			a->sample_freq = cfg->freq ? cfg->freq : 4000;
		}
		a->disabled = !l->events[i].immediate;
		a->inherit = cfg->inherit;
		a->enable_on_exec = cfg->enable_on_exec && !l->events[i].immediate;
		a->sample_id_all = 1;
		a->exclude_guest = 1;
		a->write_backward = cfg->overwrite;
		a->watermark = cfg->watermark ? 1 : 0;
		a->use_clockid = cfg->use_clockid;
		a->clockid = cfg->use_clockid ? cfg->clockid : 0;
		a->wakeup_watermark = cfg->watermark;
		/* As perf: the other exclude bits (hv, a :k or :u's) stay as named. */
		if (cfg->mode == PM_EVENT_MODE_USER)
			a->exclude_kernel = 1, a->exclude_user = 0;
		else if (cfg->mode == PM_EVENT_MODE_KERNEL)
			a->exclude_user = 1, a->exclude_kernel = 0;
		if (i == l->tracking) {
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
			a->build_id = cfg->build_id;
			/*
			 * DWARF unwinders place code through the file's first
			 * (non-exec) segment; -d's addresses are named through
			 * the data mappings.
			 */
			a->mmap_data = cfg->dwarf || cfg->sample_addr;
			a->context_switch = cfg->context_switch;
		}
	}
}

int pm_evlist__add_tracking(struct pm_evlist *l)
{
	char *bad = NULL;
	int err = pm_evlist__add(l, "dummy", &bad);

	free(bad);
	if (err)
		return err;
	/* It never samples: a period of one keeps it out of the tick's frequency work. */
	l->events[l->nr - 1].every = true;
	l->events[l->nr - 1].immediate = true;
	l->tracking = l->nr - 1;
	return 0;
}

int pm_evlist__add_id(struct pm_evlist *l, size_t idx, uint64_t id)
{
	struct pm_event *ev = &l->events[idx];
	uint64_t *n = realloc(ev->ids, (ev->nr_ids + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	ev->ids = n;
	ev->ids[ev->nr_ids++] = id;
	return 0;
}

void pm_evlist__exit(struct pm_evlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->events[i].name);
		free(l->events[i].tracepoint);
		free(l->events[i].filter);
		free(l->events[i].ids);
	}
	free(l->events);
	l->events = NULL;
	l->nr = 0;
	l->tracking = 0;
}
