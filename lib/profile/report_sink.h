/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_REPORT_SINK_H
#define PMREC_REPORT_SINK_H

/*
 * Turns the records of a recording, taken in time order, into profile
 * samples: each sample's frames named by the namer (innermost first, as
 * pm_namer__frames gives them, DWARF-unwound ones included), its thread's
 * command name at that time, its event.  `report` plugs it into the
 * pipeline (pipeline.h) as a consumer; flame graphs and pprof read the
 * profile it builds.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "symbols/naming.h"
#include "profile/frame_ids.h"
#include "profile/profile.h"
#include "reader/reader.h"
#include "reader/rec_info.h"
#include "dwarf/srcline.h"

/*
 * Where a sample went: the next one of the same thread, CPU, event, mode
 * and address (an ip_only sink) or call chain, under the same naming
 * generation of its process (which its COMMs start too), goes there,
 * without naming its frames or finding its context and stack again.
 */
struct pm_sink_repeat {
	uint64_t key, gen;		/* the ip, or the chain's hash; gen 0: empty */
	uint64_t pos;			/* a chain's addresses in the sink's chains */
	uint32_t nr;			/* how many (0: an ip_only sample's) */
	int32_t pid, tid, cpu;
	int evsel;
	uint16_t cpumode;
	struct pm_profile_place at;
};

/*
 * While /proc/kallsyms is still being read (pm_namer__kernel_pending),
 * samples wait, in their order (the profile keeps perf's order of first
 * appearance): user frames named at once, as the mappings are then, kernel
 * frames kept as indexes into the pending addresses until the symbols are in.
 * A sample of the same context and frames as one waiting joins it, so that
 * what waits grows with the distinct stacks, not with the samples: bounded,
 * a full wait stops the sink until the symbols are in.
 */
struct pm_sink_deferred {
	uint64_t time, last_time;	/* the earliest and latest sample's */
	uint64_t period;		/* summed */
	uint64_t samples;
	int32_t pid, tid, cpu;
	uint32_t event, nr_frames;
	uint32_t first_id;		/* in deferred_ids */
	uint32_t comm;			/* offset + 1 in comms; 0: none */
};

struct pm_sink_pending {
	uint64_t ip, lookup;		/* a kernel frame not named yet */
	uint32_t id;			/* its profile id, once named */
};

struct pm_report_sink {
	struct pm_profile *profile;	/* the caller's */
	struct pm_reader *r;		/* the caller's */
	struct pm_namer *namer;		/* the caller's; set before the first record */
	/*
	 * Name the sample's ip alone, not its call chain: a table without
	 * call graphs or children needs no more, and naming is most of the cost.
	 */
	bool ip_only;
	/*
	 * A frame per address, not per function (pprof): frames keep their
	 * address, mapping, build id, linkage name and inlining.
	 */
	bool addrs;
	/*
	 * Samples' CPUs left out (-1), where no output tells them apart: a
	 * thread then has one tree and one repeat slot per stack, not one
	 * per CPU it ran on (perf's hist entries have no CPU either, unless
	 * sorted by it).
	 */
	bool any_cpu;
	/* Gives frames their source line (the srcline key); NULL: none.  The sink's once set. */
	struct pm_srclines *srclines;
	/* Profile event of each evsel (by pm_evsel.idx), registered in attr order. */
	uint32_t *event_of;
	size_t nr_events;
	uint32_t *ids;			/* the profile's frame ids of a sample */
	size_t cap_ids;
	struct pm_named_frame ip;	/* the frame of an ip_only sample */
	struct pm_frame_ids frames;	/* the profile's frame ids, by address */
	struct pm_sink_repeat *repeat;	/* by thread and address or chain (a cache) */
	/*
	 * 1 << repeat_bits slots are used, and the ring holds chain_pool
	 * addresses; tests lower them, before the first record, so that every
	 * key shares one slot and the ring wraps.
	 */
	unsigned int repeat_bits;
	uint32_t chain_pool;
	/*
	 * The repeat slots' chains, written in turn round a ring of
	 * SINK_CHAIN_POOL addresses: a slot's chain is there while no more
	 * than that was written since it.
	 */
	uint64_t *chains;
	size_t chains_populated;	/* bytes faulted in, on the first lap */
	uint64_t chains_written;
	uint64_t nr_repeated;		/* samples placed by the repeat slots (tests) */
	struct pm_sink_deferred *deferred;
	size_t nr_deferred, cap_deferred;
	uint32_t *deferred_ids;		/* a pending frame: its index, top bit set */
	size_t nr_deferred_ids, cap_deferred_ids;
	/* SINK_WAIT_SLOTS each, index + 1: the waiting sample by context and frames, */
	uint32_t *deferred_slot;
	/* and the pending frame by address. */
	uint32_t *pending_slot;
	struct pm_buf comms;		/* of the deferred samples */
	size_t last_comm;		/* offset + 1 of the last one added; 0: none */
	struct pm_sink_pending *pending;
	size_t nr_pending, cap_pending;
};

/* Registers the input's events with the profile, in attr order.  0 or -ENOMEM. */
int pm_report_sink__init(struct pm_report_sink *k, struct pm_reader *r,
			 struct pm_profile *p);
void pm_report_sink__exit(struct pm_report_sink *k);

/*
 * Adds the samples still waiting for the kernel's symbols (waiting for
 * them if need be): call it after the last record.  0 or -ENOMEM.
 */
int pm_report_sink__finish(struct pm_report_sink *k);

/*
 * The profile's frame ids of sample s's call chain (at least one: an
 * [unknown] frame for none), named now, waiting for the kernel's symbols
 * if need be: for samples the sink does not add itself (off-CPU spans).
 * *ids is valid until the next call into the sink.  0 or a negative errno.
 */
int pm_report_sink__stack(struct pm_report_sink *k, const struct pm_record *rec,
			  const struct pm_sample *s, const uint32_t **ids, size_t *nr);
/*
 * Counts the samples of evsel idx in profile event ev instead of their own
 * (report's wall-clock view: clock samples as time).  0 or -ENOMEM.
 */
int pm_report_sink__redirect(struct pm_report_sink *k, int idx, uint32_t ev);

/* A pm_consume_fn: arg is the sink.  0, -EINVAL or -ENOMEM. */
int pm_report_sink__record(void *arg, const struct pm_record *rec,
			   const struct pm_rec_info *in);

#endif
