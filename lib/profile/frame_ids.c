// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "base/cache.h"
#include "format/perf_data.h"
#include "profile/frame_ids.h"

#define SEEN_BITS 12

int pm_frame_ids__init(struct pm_frame_ids *fi, pm_frame_id_fn *fn, void *arg)
{
	*fi = (struct pm_frame_ids){ .fn = fn, .arg = arg };
	fi->seen = calloc(1u << SEEN_BITS, sizeof(*fi->seen));
	return fi->seen ? 0 : -ENOMEM;
}

void pm_frame_ids__exit(struct pm_frame_ids *fi)
{
	free(fi->seen);
	fi->seen = NULL;
}

static struct pm_frame_seen *frame_ids__slot(struct pm_frame_ids *fi, int32_t pid,
					     const struct pm_named_frame *fr)
{
	uint64_t h = pm_cache__mix(pm_cache__mix(fr->lookup, fr->ip),
				   (uint64_t)(uint32_t)pid << 16 | fr->cpumode);

	return &fi->seen[pm_cache__slot(h, SEEN_BITS)];
}

int pm_frame_ids__get(struct pm_frame_ids *fi, struct pm_namer *n, int32_t pid,
		      struct pm_named_frame *fr, uint32_t *id)
{
	struct pm_frame_seen *e = NULL;
	int err;

	/*
	 * The kernel's names are every process's: named once for all of them,
	 * where a recording of many short processes named its kernel frames
	 * again in each.
	 */
	if (fr->cpumode == PERF_RECORD_MISC_KERNEL)
		pid = -1;
	if (!fr->inlined) {
		e = frame_ids__slot(fi, pid, fr);
		if (e->gen == pm_namer__generation_of(n, pid) && e->ip == fr->ip &&
		    e->lookup == fr->lookup && e->pid == pid && e->cpumode == fr->cpumode) {
			*id = e->id;
			return 0;
		}
	}
	pm_namer__name(n, pid, fr);
	err = fi->fn(fi->arg, pid, fr, id);
	if (err || !e)
		return err;
	/* The generation after naming: naming may refuse a file, and start one. */
	*e = (struct pm_frame_seen){ .ip = fr->ip, .lookup = fr->lookup,
				     .gen = pm_namer__generation_of(n, pid), .pid = pid,
				     .cpumode = fr->cpumode, .id = *id };
	return 0;
}

int pm_frame_ids__chain(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
			struct pm_named_frame **nf, size_t *nr)
{
	int err = pm_namer__chain(n, cpumode, s, nf, nr);

	if (!err && *nr > PM_PROFILE_MAX_FRAMES)
		*nr = PM_PROFILE_MAX_FRAMES;
	return err;
}
