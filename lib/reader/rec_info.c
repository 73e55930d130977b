// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "reader/rec_info.h"
#include "format/record_body.h"

static void rec_info__set_time(struct pm_rec_info *in, uint64_t time)
{
	if (!in->has_time) {
		in->time = time;
		in->has_time = true;
	}
}

/* Body pid/tid (and time) of the records that carry their own. */
static void rec_info__body_ids(struct pm_rec_info *in, const struct pm_record *rec)
{
	const unsigned char *b = (const unsigned char *)rec->data + 8;
	struct pm_fork_body fb;
	uint64_t time;
	int32_t ids[2];

	switch (rec->header->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_READ:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_NAMESPACES:
		memcpy(ids, b, sizeof(ids));
		in->pid = ids[0];
		in->tid = ids[1];
		in->has_pid = true;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (pm_fork_body__decode(rec->header, in->body_len, &fb))
			break;
		in->pid = fb.pid;
		in->tid = fb.tid;
		in->has_pid = true;
		rec_info__set_time(in, fb.time);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		memcpy(&time, b, sizeof(time));
		rec_info__set_time(in, time);
		break;
	default:
		break;
	}
}

int pm_rec_info__decode(struct pm_rec_info *in, const struct pm_reader *r,
			const struct pm_record *rec, struct pm_reader_error *e)
{
	uint32_t type = rec->header->type;
	int err;

	/* Not a memset of the whole: the decoders below write in->s. */
	if (type >= PERF_RECORD_USER_TYPE_START) {
		*in = (struct pm_rec_info){ .body_len = rec->header->size - 8 };
		return 0;
	}
	in->body_len = rec->header->size - 8;
	if (type == PERF_RECORD_SAMPLE)
		err = pm_reader__decode_sample(r, rec, &in->s, e);
	else
		err = pm_reader__decode_id(r, rec, &in->s, &in->body_len, e);
	if (err)
		return err;
	in->has_time = in->s.fields & PERF_SAMPLE_TIME;
	in->time = in->s.time;
	in->has_cpu = in->s.fields & PERF_SAMPLE_CPU;
	in->cpu = in->s.cpu;
	in->has_pid = in->s.fields & PERF_SAMPLE_TID;
	in->pid = (int32_t)in->s.pid;
	in->tid = (int32_t)in->s.tid;
	if (type != PERF_RECORD_SAMPLE)
		rec_info__body_ids(in, rec);
	return 0;
}

int pm_rec_info__compute(struct pm_rec_info *in, struct pm_reader *r,
			 const struct pm_record *rec)
{
	struct pm_reader_error e;

	return pm_rec_info__decode(in, r, rec, &e) ? pm_reader__fault(r, &e) : 0;
}
