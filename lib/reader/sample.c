// SPDX-License-Identifier: GPL-2.0
/* Record layouts: sizes, sample_id trailers, SAMPLE fields, type names. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "reader/reader_int.h"

struct record_type {
	const char *name;
	const char *alias;	/* perf's shorter name of some user types */
	uint16_t min_body;	/* fixed payload, without header and trailer */
};

static const struct record_type record_types[PERF_RECORD_HEADER_MAX] = {
	[PERF_RECORD_MMAP] = { "MMAP", NULL, 32 },
	[PERF_RECORD_LOST] = { "LOST", NULL, 16 },
	[PERF_RECORD_COMM] = { "COMM", NULL, 8 },
	[PERF_RECORD_EXIT] = { "EXIT", NULL, 24 },
	[PERF_RECORD_THROTTLE] = { "THROTTLE", NULL, 24 },
	[PERF_RECORD_UNTHROTTLE] = { "UNTHROTTLE", NULL, 24 },
	[PERF_RECORD_FORK] = { "FORK", NULL, 24 },
	[PERF_RECORD_READ] = { "READ", NULL, 16 },
	[PERF_RECORD_SAMPLE] = { "SAMPLE", NULL, 0 },
	[PERF_RECORD_MMAP2] = { "MMAP2", NULL, 64 },
	[PERF_RECORD_AUX] = { "AUX", NULL, 24 },
	[PERF_RECORD_ITRACE_START] = { "ITRACE_START", NULL, 8 },
	[PERF_RECORD_LOST_SAMPLES] = { "LOST_SAMPLES", NULL, 8 },
	[PERF_RECORD_SWITCH] = { "SWITCH", NULL, 0 },
	[PERF_RECORD_SWITCH_CPU_WIDE] = { "SWITCH_CPU_WIDE", NULL, 8 },
	[PERF_RECORD_NAMESPACES] = { "NAMESPACES", NULL, 16 },
	[PERF_RECORD_KSYMBOL] = { "KSYMBOL", NULL, 16 },
	[PERF_RECORD_BPF_EVENT] = { "BPF_EVENT", NULL, 16 },
	[PERF_RECORD_CGROUP] = { "CGROUP", NULL, 8 },
	[PERF_RECORD_TEXT_POKE] = { "TEXT_POKE", NULL, 12 },
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = { "AUX_OUTPUT_HW_ID", NULL, 8 },
	[PERF_RECORD_HEADER_ATTR] = { "HEADER_ATTR", "ATTR", PERF_ATTR_SIZE_VER0 },
	[PERF_RECORD_HEADER_EVENT_TYPE] = { "HEADER_EVENT_TYPE", "EVENT_TYPE", 72 },
	/* 4: perfs before the record's padding wrote 12 bytes, the data after them. */
	[PERF_RECORD_HEADER_TRACING_DATA] = { "HEADER_TRACING_DATA", "TRACING_DATA", 4 },
	[PERF_RECORD_HEADER_BUILD_ID] = { "HEADER_BUILD_ID", "BUILD_ID", 28 },
	[PERF_RECORD_FINISHED_ROUND] = { "FINISHED_ROUND", NULL, 0 },
	[PERF_RECORD_ID_INDEX] = { "ID_INDEX", NULL, 8 },
	[PERF_RECORD_AUXTRACE_INFO] = { "AUXTRACE_INFO", NULL, 8 },
	[PERF_RECORD_AUXTRACE] = { "AUXTRACE", NULL, 40 },
	[PERF_RECORD_AUXTRACE_ERROR] = { "AUXTRACE_ERROR", NULL, 40 },
	[PERF_RECORD_THREAD_MAP] = { "THREAD_MAP", NULL, 8 },
	[PERF_RECORD_CPU_MAP] = { "CPU_MAP", NULL, 2 },
	[PERF_RECORD_STAT_CONFIG] = { "STAT_CONFIG", NULL, 8 },
	[PERF_RECORD_STAT] = { "STAT", NULL, 40 },
	[PERF_RECORD_STAT_ROUND] = { "STAT_ROUND", NULL, 16 },
	[PERF_RECORD_EVENT_UPDATE] = { "EVENT_UPDATE", NULL, 16 },
	[PERF_RECORD_TIME_CONV] = { "TIME_CONV", NULL, 24 },
	[PERF_RECORD_HEADER_FEATURE] = { "HEADER_FEATURE", "FEATURE", 8 },
	[PERF_RECORD_COMPRESSED] = { "COMPRESSED", NULL, 0 },
	[PERF_RECORD_FINISHED_INIT] = { "FINISHED_INIT", NULL, 0 },
};

const char *pm_record_type__name(uint32_t type)
{
	return type < PERF_RECORD_HEADER_MAX ? record_types[type].name : NULL;
}

int pm_record_type__from_name(const char *name)
{
	int i;

	for (i = 0; i < PERF_RECORD_HEADER_MAX; i++) {
		const struct record_type *t = &record_types[i];

		if (t->name && (!strcasecmp(t->name, name) ||
				(t->alias && !strcasecmp(t->alias, name))))
			return i;
	}
	return -1;
}

static const char *const feature_names[HEADER_LAST_FEATURE] = {
	[HEADER_TRACING_DATA] = "TRACING_DATA",
	[HEADER_BUILD_ID] = "BUILD_ID",
	[HEADER_HOSTNAME] = "HOSTNAME",
	[HEADER_OSRELEASE] = "OSRELEASE",
	[HEADER_VERSION] = "VERSION",
	[HEADER_ARCH] = "ARCH",
	[HEADER_NRCPUS] = "NRCPUS",
	[HEADER_CPUDESC] = "CPUDESC",
	[HEADER_CPUID] = "CPUID",
	[HEADER_TOTAL_MEM] = "TOTAL_MEM",
	[HEADER_CMDLINE] = "CMDLINE",
	[HEADER_EVENT_DESC] = "EVENT_DESC",
	[HEADER_CPU_TOPOLOGY] = "CPU_TOPOLOGY",
	[HEADER_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[HEADER_BRANCH_STACK] = "BRANCH_STACK",
	[HEADER_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[HEADER_GROUP_DESC] = "GROUP_DESC",
	[HEADER_AUXTRACE] = "AUXTRACE",
	[HEADER_STAT] = "STAT",
	[HEADER_CACHE] = "CACHE",
	[HEADER_SAMPLE_TIME] = "SAMPLE_TIME",
	[HEADER_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
	[HEADER_CLOCKID] = "CLOCKID",
	[HEADER_DIR_FORMAT] = "DIR_FORMAT",
	[HEADER_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[HEADER_BPF_BTF] = "BPF_BTF",
	[HEADER_COMPRESSED] = "COMPRESSED",
	[HEADER_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
	[HEADER_CLOCK_DATA] = "CLOCK_DATA",
	[HEADER_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	[HEADER_PMU_CAPS] = "PMU_CAPS",
};

const char *pm_feature__name(int feat)
{
	if (feat == HEADER_PMREC_JIT_SYMBOLS)
		return "PMREC_JIT_SYMBOLS";
	if (feat == HEADER_PMREC_SYMBOLS)
		return "PMREC_SYMBOLS";
	if (feat == HEADER_PMREC_JIT_CODE)
		return "PMREC_JIT_CODE";
	return feat >= 0 && feat < HEADER_LAST_FEATURE ? feature_names[feat] : NULL;
}

static bool type_has_trailer(uint32_t type)
{
	return type != PERF_RECORD_SAMPLE && type < PERF_RECORD_USER_TYPE_START;
}

static const uint64_t *record__u64(const struct pm_record *rec, size_t byte_off)
{
	return (const uint64_t *)((const unsigned char *)rec->data + byte_off);
}

/* Records whose payload holds a u64 count of fixed-size entries. */
static int record__check_nr(struct pm_reader *r, const struct pm_record *rec,
			    size_t nr_off, size_t entry, size_t body)
{
	uint64_t nr = *record__u64(rec, 8 + nr_off);

	if (nr > (body - nr_off - 8) / entry)
		return reader__fail(r, rec->offset + 8 + nr_off, -EBADMSG,
				    "%s: %llu entries do not fit in the record (size %u)",
				    pm_record_type__name(rec->header->type),
				    (unsigned long long)nr, rec->header->size);
	return 0;
}

/*
 * Checks that the fixed part of every known record type (and its counted
 * arrays) lies inside the record, so printers can read it directly.
 */
int reader__check_record(struct pm_reader *r, const struct pm_record *rec)
{
	uint32_t type = rec->header->type;
	size_t body = rec->header->size - sizeof(struct perf_event_header);
	size_t trailer = type_has_trailer(type) ? r->trailer_size : 0;

	/* A SAMPLE has no fixed part: it is checked when decoded. */
	if (type == PERF_RECORD_SAMPLE || type >= PERF_RECORD_HEADER_MAX || !record_types[type].name)
		return 0;
	if (body < trailer || body - trailer < record_types[type].min_body)
		return reader__fail(r, rec->offset, -EBADMSG,
				    "%s record too short (size %u)",
				    record_types[type].name, rec->header->size);
	body -= trailer;
	switch (type) {
	case PERF_RECORD_NAMESPACES:
		return record__check_nr(r, rec, 8, 16, body);
	case PERF_RECORD_ID_INDEX:
		return record__check_nr(r, rec, 0, 32, body);
	case PERF_RECORD_THREAD_MAP:
		return record__check_nr(r, rec, 0, 24, body);
	case PERF_RECORD_STAT_CONFIG:
		return record__check_nr(r, rec, 0, 16, body);
	default:
		return 0;
	}
}

struct pm_evsel *pm_reader__evsel_of(const struct pm_reader *r, const struct pm_record *rec,
				     int *err)
{
	size_t words = (rec->header->size - sizeof(struct perf_event_header)) / 8;
	const uint64_t *body = record__u64(rec, sizeof(struct perf_event_header));
	struct pm_evsel *e;
	uint64_t id;

	*err = 0;
	if (!r->nr_evsels)
		return NULL;
	if (r->nr_evsels == 1)
		return r->evsels[0];
	if (rec->header->type == PERF_RECORD_SAMPLE) {
		if (r->id_pos < 0 || (size_t)r->id_pos >= words)
			return r->evsels[0];
		id = body[r->id_pos];
	} else {
		if (!type_has_trailer(rec->header->type) || !r->sample_id_all || r->is_pos < 0 ||
		    (size_t)r->is_pos > words)
			return r->evsels[0];
		id = body[words - (size_t)r->is_pos];
	}
	if (!id)
		return r->evsels[0];
	e = pm_reader__evsel_by_id(r, id);
	if (!e)
		*err = -ENOENT;
	return e;
}

/* Reads the fields of a SAMPLE in kernel order, bounded by the record. */
struct sample_cursor {
	const unsigned char *p;
	size_t len, pos;
};

static int sc__u64(struct sample_cursor *c, uint64_t *v)
{
	if (c->len - c->pos < 8)
		return -EBADMSG;
	*v = *(const uint64_t *)(c->p + c->pos);
	c->pos += 8;
	return 0;
}

/* n u64 words; *p is 8-aligned since records and the cursor are. */
static int sc__words(struct sample_cursor *c, uint64_t n, const uint64_t **p)
{
	if (n > (c->len - c->pos) / 8)
		return -EBADMSG;
	*p = (const uint64_t *)(c->p + c->pos);
	c->pos += (size_t)n * 8;
	return 0;
}

static int sc__bytes(struct sample_cursor *c, uint64_t n, const unsigned char **p)
{
	if (n > c->len - c->pos)
		return -EBADMSG;
	*p = c->p + c->pos;
	c->pos += (size_t)n;
	return 0;
}

static int sample__read_values(struct sample_cursor *c, const struct perf_event_attr *attr,
			       struct pm_sample *s)
{
	uint64_t fmt = attr->read_format, nr = 1, per = 1;
	size_t start = c->pos;
	uint64_t words;
	const uint64_t *p;

	per += !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	words = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (fmt & PERF_FORMAT_GROUP) {
		if (sc__u64(c, &nr) || nr > (c->len - c->pos) / 8 / per)
			return -EBADMSG;
		if (sc__words(c, words + nr * per, &p))
			return -EBADMSG;
	} else if (sc__words(c, words + per, &p)) {
		return -EBADMSG;
	}
	s->read = (const uint64_t *)(c->p + start);
	s->read_nr = (c->pos - start) / 8;
	return 0;
}

static int sample__regs(struct sample_cursor *c, uint64_t mask, struct pm_regs *regs)
{
	if (sc__u64(c, &regs->abi))
		return -EBADMSG;
	regs->nr = regs->abi ? (uint64_t)__builtin_popcountll(mask) : 0;
	return sc__words(c, regs->nr, &regs->regs);
}

/* The sample_type bits after the call chain that samples seldom have. */
#define SAMPLE_RARE_TAIL (PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | \
			  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | \
			  PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR | \
			  PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | \
			  PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* The members of the SAMPLE_RARE_TAIL fields, 0: a sample without any is done. */
static void sample__clear_rare(struct pm_sample *s)
{
	s->raw = NULL;
	s->raw_size = 0;
	s->branch_nr = s->branch_hw_idx = 0;
	s->branch_has_hw_idx = false;
	s->branches = NULL;
	s->regs_user = s->regs_intr = (struct pm_regs){ 0 };
	s->stack_user_size = s->stack_user_dyn_size = 0;
	s->stack_user = NULL;
	s->weight = s->data_src = s->transaction = s->phys_addr = s->cgroup = 0;
	s->data_page_size = s->code_page_size = 0;
	s->aux_size = 0;
	s->aux = NULL;
}

static int sample__parse_tail(struct sample_cursor *c, const struct perf_event_attr *attr,
			      struct pm_sample *s)
{
	uint64_t type = attr->sample_type;
	uint32_t raw_size;

	s->callchain_nr = 0;
	s->callchain = NULL;
	if ((type & PERF_SAMPLE_CALLCHAIN) &&
	    (sc__u64(c, &s->callchain_nr) || sc__words(c, s->callchain_nr, &s->callchain)))
		return -EBADMSG;
	sample__clear_rare(s);
	if (!(type & SAMPLE_RARE_TAIL))
		return 0;
	if (type & PERF_SAMPLE_RAW) {
		if (c->len - c->pos < 4)
			return -EBADMSG;
		memcpy(&raw_size, c->p + c->pos, 4);
		c->pos += 4;
		s->raw_size = raw_size;
		if (sc__bytes(c, raw_size, &s->raw) || (c->pos & 7))
			return -EBADMSG;
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		if (sc__u64(c, &s->branch_nr))
			return -EBADMSG;
		s->branch_has_hw_idx = attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
		if (s->branch_has_hw_idx && sc__u64(c, &s->branch_hw_idx))
			return -EBADMSG;
		if (s->branch_nr > UINT64_MAX / 3 || sc__words(c, s->branch_nr * 3, &s->branches))
			return -EBADMSG;
	}
	if ((type & PERF_SAMPLE_REGS_USER) && sample__regs(c, attr->sample_regs_user, &s->regs_user))
		return -EBADMSG;
	if (type & PERF_SAMPLE_STACK_USER) {
		if (sc__u64(c, &s->stack_user_size) ||
		    sc__bytes(c, s->stack_user_size, &s->stack_user) || (c->pos & 7))
			return -EBADMSG;
		if (s->stack_user_size && sc__u64(c, &s->stack_user_dyn_size))
			return -EBADMSG;
	}
	if ((type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && sc__u64(c, &s->weight))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_DATA_SRC) && sc__u64(c, &s->data_src))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_TRANSACTION) && sc__u64(c, &s->transaction))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_REGS_INTR) && sample__regs(c, attr->sample_regs_intr, &s->regs_intr))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_PHYS_ADDR) && sc__u64(c, &s->phys_addr))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_CGROUP) && sc__u64(c, &s->cgroup))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_DATA_PAGE_SIZE) && sc__u64(c, &s->data_page_size))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_CODE_PAGE_SIZE) && sc__u64(c, &s->code_page_size))
		return -EBADMSG;
	if (type & PERF_SAMPLE_AUX) {
		if (sc__u64(c, &s->aux_size) || sc__bytes(c, s->aux_size, &s->aux))
			return -EBADMSG;
	}
	return 0;
}

#define SAMPLE_HEAD (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* Set bits of v, inline: without -mpopcnt, __builtin_popcountll is a libgcc call. */
static unsigned int bits__count(uint64_t v)
{
	v -= (v >> 1) & 0x5555555555555555ULL;
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned int)((v * 0x0101010101010101ULL) >> 56);
}

/* The next 8-byte field if the sample has it, else 0. */
static uint64_t head__take(const unsigned char **p, uint64_t has)
{
	uint64_t v = 0;

	if (has) {
		memcpy(&v, *p, 8);
		*p += 8;
	}
	return v;
}

/*
 * The fixed fields before READ: each 8 bytes, so one check bounds them all
 * and a short record fails at the first field it cuts.  Writes id, ip,
 * pid, tid, time, addr, stream_id, cpu, and period if sampled.
 */
static int sample__parse_head(struct sample_cursor *c, uint64_t type, struct pm_sample *s)
{
	size_t size = (size_t)bits__count(type & SAMPLE_HEAD) * 8;
	const unsigned char *p = c->p + c->pos;
	uint64_t id;

	if (c->len - c->pos < size) {
		c->pos += (c->len - c->pos) & ~(size_t)7;
		return -EBADMSG;
	}
	c->pos += size;
	id = head__take(&p, type & PERF_SAMPLE_IDENTIFIER);
	s->ip = head__take(&p, type & PERF_SAMPLE_IP);
	s->pid = s->tid = 0;
	if (type & PERF_SAMPLE_TID) {
		memcpy(&s->pid, p, 4);
		memcpy(&s->tid, p + 4, 4);
		p += 8;
	}
	s->time = head__take(&p, type & PERF_SAMPLE_TIME);
	s->addr = head__take(&p, type & PERF_SAMPLE_ADDR);
	s->id = (type & PERF_SAMPLE_ID) ? head__take(&p, 1) : id;
	s->stream_id = head__take(&p, type & PERF_SAMPLE_STREAM_ID);
	s->cpu = 0;
	if (type & PERF_SAMPLE_CPU) {
		memcpy(&s->cpu, p, 4);
		p += 8;
	}
	if (type & PERF_SAMPLE_PERIOD)
		s->period = head__take(&p, 1);
	return 0;
}

static int sample__decode(const struct pm_reader *r, const struct pm_record *rec,
			  struct pm_sample *s, struct pm_reader_error *fault)
{
	struct sample_cursor c = {
		.p = (const unsigned char *)rec->data + sizeof(struct perf_event_header),
		.len = rec->header->size - sizeof(struct perf_event_header),
	};
	struct pm_evsel *e;
	uint64_t type;
	int err;

	e = pm_reader__evsel_of(r, rec, &err);
	if (!e) {
		*s = (struct pm_sample){ 0 };
		return reader_error__set(fault, rec->offset, -EBADMSG,
					 err ? "SAMPLE with an id that matches no event" :
					       "SAMPLE before any event attr");
	}
	type = e->attr.sample_type;
	s->evsel = e;
	s->fields = type;
	s->period = e->attr.freq ? 0 : e->attr.sample_period;
	s->read = NULL;
	s->read_nr = 0;
	if (sample__parse_head(&c, type, s) || (type & PERF_SAMPLE_READ &&
						sample__read_values(&c, &e->attr, s)) ||
	    sample__parse_tail(&c, &e->attr, s))
		return reader_error__set(fault,
					 rec->offset + sizeof(struct perf_event_header) + c.pos,
					 -EBADMSG,
					 "SAMPLE (size %u) does not match sample_type 0x%llx of event '%s'",
					 rec->header->size, (unsigned long long)type,
					 pm_evsel__name(e));
	return 0;
}

int pm_reader__decode_sample(const struct pm_reader *r, const struct pm_record *rec,
			     struct pm_sample *s, struct pm_reader_error *e)
{
	return sample__decode(r, rec, s, e);
}

int pm_reader__parse_sample(struct pm_reader *r, const struct pm_record *rec,
			    struct pm_sample *s)
{
	struct pm_reader_error e;

	return sample__decode(r, rec, s, &e) ? pm_reader__fault(r, &e) : 0;
}

int pm_reader__sample_time(struct pm_reader *r, const struct pm_record *rec, uint64_t *time)
{
	struct pm_sample s;
	struct pm_evsel *e;
	uint64_t type;
	size_t off;
	int err;

	e = pm_reader__evsel_of(r, rec, &err);
	if (!e)
		return pm_reader__parse_sample(r, rec, &s);
	type = e->attr.sample_type;
	if (!(type & PERF_SAMPLE_TIME))
		return 0;
	/* TIME comes after IDENTIFIER, IP and TID, each one u64. */
	off = sizeof(struct perf_event_header) + 8 * (!!(type & PERF_SAMPLE_IDENTIFIER) +
						      !!(type & PERF_SAMPLE_IP) +
						      !!(type & PERF_SAMPLE_TID));
	if (off + 8 > rec->header->size) {
		err = pm_reader__parse_sample(r, rec, &s);
		return err ? err : -EBADMSG;
	}
	memcpy(time, (const unsigned char *)rec->data + off, 8);
	return 1;
}

int pm_reader__decode_id(const struct pm_reader *r, const struct pm_record *rec,
			 struct pm_sample *s, size_t *body_len, struct pm_reader_error *e)
{
	size_t body = rec->header->size - sizeof(struct perf_event_header);
	struct sample_cursor c = { .p = rec->data, .len = rec->header->size };
	uint64_t type;
	int err;

	*s = (struct pm_sample){ 0 };
	*body_len = body;
	if (!type_has_trailer(rec->header->type) || !r->sample_id_all || !r->nr_evsels)
		return 0;
	if (body < r->trailer_size)
		return reader_error__set(e, rec->offset, -EBADMSG,
					 "record (type %u, size %u) too short for its sample_id trailer",
					 rec->header->type, rec->header->size);
	*body_len = body - r->trailer_size;
	type = r->evsels[0]->attr.sample_type & PM_SAMPLE_ID_BITS;
	/* The trailer ends the record, so it may start off 8-alignment. */
	c.pos = rec->header->size - r->trailer_size;
	if ((c.pos & 7) && r->trailer_size)
		return reader_error__set(e, rec->offset, -EBADMSG,
					 "record size %u is not a multiple of 8", rec->header->size);
	if (sample__parse_head(&c, type & ~PERF_SAMPLE_IDENTIFIER, s) ||
	    ((type & PERF_SAMPLE_IDENTIFIER) && sc__u64(&c, &s->id)))
		return reader_error__set(e, rec->offset, -EBADMSG, "bad sample_id trailer");
	s->fields = type;
	s->evsel = pm_reader__evsel_of(r, rec, &err);
	return 0;
}

int pm_reader__parse_id(struct pm_reader *r, const struct pm_record *rec, struct pm_sample *s,
			size_t *body_len)
{
	struct pm_reader_error e;

	return pm_reader__decode_id(r, rec, s, body_len, &e) ? pm_reader__fault(r, &e) : 0;
}
