/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SPEEDSCOPE_INT_H
#define PMREC_SPEEDSCOPE_INT_H

/*
 * What the two halves of the speedscope exporter share: speedscope.c puts
 * the samples on their threads' lines, speedscope_json.c writes the lines
 * as the document.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/hashtab.h"
#include "base/intern.h"
#include "export/speedscope.h"
#include "profile/frame_ids.h"
#include "profile/offcpu.h"

/* The events of a thread whose tid is 0 (the idle task) are one thread per CPU. */
#define SS_IDLE_TID 0
/* The events made of off-CPU spans, as report names them: not evsels of the file. */
enum { SS_EV_OFFCPU = -1, SS_EV_WALL = -2 };
#define SS_NR_SYNTH 2

enum { SS_EVENT_UNSEEN, SS_EVENT_EXPORTED, SS_EVENT_SKIPPED };

/* A stack: its innermost frame under its caller's stack (node 0: the empty stack). */
struct ss_node {
	uint32_t parent, frame, depth;
};

struct ss_thread {
	int32_t pid, tid, cpu;		/* cpu: for the idle task, else -1 */
	int evsel;			/* or SS_EV_OFFCPU, SS_EV_WALL */
	char *comm;			/* the last one seen */
	uint32_t node;			/* the current run's stack; 0: none yet */
	uint64_t first;			/* the first run's start */
	uint64_t start, end;		/* the current run */
	uint64_t written;		/* the end of the last run in runs */
	uint64_t samples;
	struct pm_buf runs;		/* varints: stack, gap before, length */
};

struct ss_event {
	uint8_t state;
	bool timed;			/* periods in nanoseconds, samples with times */
	bool any, spanned;
	uint64_t first, last;		/* the runs' span over every thread of the event */
};

struct pm_speedscope {
	struct pm_reader *r;
	struct pm_namer *namer;
	struct pm_speedscope_opts o;
	struct ss_event *events;	/* by evsel idx */
	size_t nr_events;
	struct ss_event synth[SS_NR_SYNTH];	/* by -1 - SS_EV_* */
	struct pm_offcpu pair;		/* the spans of offcpu-time and wall-time */
	int off_on;			/* 0: not decided (first sample); 1: pairing; -1: not */
	bool off_ended;
	struct ss_thread *threads;
	size_t nr_threads, cap_threads;
	struct pm_hashtab thread_tab;	/* evsel, idle CPU, tid -> index */
	/* Frames by id: "label\0file", the file empty where none is known. */
	struct pm_intern frames;
	struct pm_frame_ids frame_ids;	/* named frames to frames */
	struct ss_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct pm_hashtab node_tab;	/* parent << 32 | frame -> node */
	struct pm_buf key;		/* scratch: a frame's key, a profile's name */
	uint64_t runs;
	uint32_t path[PM_PROFILE_MAX_FRAMES];	/* scratch: the frames a run enters */
};

struct ss_event *speedscope__event_at(struct pm_speedscope *s, int evsel);
/* Ends the off-CPU spans and every thread's last run, and spans each event.  0 or -ENOMEM. */
int speedscope__end(struct pm_speedscope *s);

#endif
