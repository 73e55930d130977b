/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_REC_INFO_H
#define PMREC_REC_INFO_H

/*
 * What a record says about itself beyond its body: the decoded sample, or
 * the sample_id trailer of another kernel record, completed by the pid/tid
 * and time some bodies carry (FORK, EXIT, THROTTLE...), as perf shows them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reader/reader.h"

struct pm_rec_info {
	struct pm_sample s;
	size_t body_len;	/* payload before the sample_id trailer */
	bool has_time, has_cpu, has_pid;
	uint64_t time;
	uint32_t cpu;
	int32_t pid, tid;
};

/* 0, or the reader's error for a malformed sample or trailer. */
int pm_rec_info__compute(struct pm_rec_info *in, struct pm_reader *r,
			 const struct pm_record *rec);
/* The same on a thread that decodes while another reads (pm_reader__decode_sample). */
int pm_rec_info__decode(struct pm_rec_info *in, const struct pm_reader *r,
			const struct pm_record *rec, struct pm_reader_error *e);

#endif
