/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_FRAME_IDS_H
#define PMREC_FRAME_IDS_H

/*
 * The naming front end of what turns samples into stacks (the report sink,
 * speedscope): a sample's call chain from the namer, innermost first, at
 * most PM_PROFILE_MAX_FRAMES deep, and each frame's id, named once per
 * (process, address, lookup address, mode) while the process's naming
 * generation holds (pm_namer__generation_of: other processes' mappings
 * do not end it).  Hot code comes back sample after sample, and a call
 * graph names every caller again: an id found here skips naming,
 * demangling and interning.  What an id stands for is the caller's (a profile's frame, a
 * speedscope frame): the caller's function makes it from the named frame.
 */
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "reader/reader.h"
#include "symbols/naming.h"

/* A frame named before: its id, while its process's naming generation holds. */
struct pm_frame_seen {
	uint64_t ip, lookup, gen;	/* gen 0: empty */
	int32_t pid;
	uint16_t cpumode;
	uint32_t id;
};

/* The id of frame fr of process pid, just named.  0 or a negative errno. */
typedef int pm_frame_id_fn(void *arg, int32_t pid, const struct pm_named_frame *fr,
			   uint32_t *id);

struct pm_frame_ids {
	pm_frame_id_fn *fn;
	void *arg;
	struct pm_frame_seen *seen;	/* a direct-mapped cache (cache.h) */
};

/* 0 or -ENOMEM. */
int pm_frame_ids__init(struct pm_frame_ids *fi, pm_frame_id_fn *fn, void *arg);
void pm_frame_ids__exit(struct pm_frame_ids *fi);

/*
 * The id of frame fr of process pid: named by n and made by the caller's
 * function unless met under this naming generation of pid (kernel frames:
 * of any process, and named as pid -1's).  An inlined frame is
 * always made again: its name comes with it, and one address has several.
 */
int pm_frame_ids__get(struct pm_frame_ids *fi, struct pm_namer *n, int32_t pid,
		      struct pm_named_frame *fr, uint32_t *id);

/*
 * Sample s's call chain (cpumode: its record's), innermost first, cut to
 * PM_PROFILE_MAX_FRAMES frames; *nf is valid until the namer's next chain.
 * 0 or a negative errno.
 */
int pm_frame_ids__chain(struct pm_namer *n, uint16_t cpumode, const struct pm_sample *s,
			struct pm_named_frame **nf, size_t *nr);

#endif
