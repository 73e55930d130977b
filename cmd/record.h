/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CMD_RECORD_H
#define PMREC_CMD_RECORD_H

/*
 * pmrec record, in five files: record.c runs the phases, record-loop.c
 * the loop of the recording, record-options.c parses the command line,
 * record-targets.c sets up the CPUs and tasks, record-report.c words the
 * messages.  sigwatch.c sets up the signals and polling, for top too.
 */
#include <argp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "record/buildid.h"
#include "format/clock.h"
#include "record/control.h"
#include "record/cpumap.h"
#include "record/drain.h"
#include "record/event.h"
#include "record/evset.h"
#include "record/recfile.h"
#include "record/target.h"
#include "record/workload.h"
#include "record/zsink.h"

#define DEFAULT_MMAP_PAGES 128
#define DEFAULT_BUFFER_SIZE (64ULL << 20)

struct record_opts {
	const char *output;
	const char *cpu_list;
	const char *pid_list;
	const char *tid_list;
	const char *uid_str;		/* -u as given, and the user it names */
	uid_t uid;
	const char *cgroup;		/* -G */
	bool system_wide;
	bool no_inherit;
	bool quiet;
	int verbose;
	uint64_t freq;
	uint64_t period;
	bool callchain;
	bool dwarf;
	uint32_t dwarf_stack;
	size_t mmap_pages;
	int comp_level;			/* -z: zstd level, 0 for none */
	const char *control;		/* --control=fifo:CTL[,ACK] or fd:CTL[,ACK] */
	long delay_ms;			/* -D: 0 none, -1 until "enable" */
	uint64_t buffer_size;		/* staging buffer bytes; 0: the drain writes */
	double duration;
	uint64_t max_size;		/* --max-size in bytes, 0 for none */
	const char *max_size_arg;
	enum pm_event_mode mode;	/* --all-user, --all-kernel */
	bool sample_addr;		/* -d */
	bool switch_events;
	bool use_clockid;		/* -k */
	int32_t clockid;
	bool off_cpu;			/* --off-cpu: sched_switch on every switch */
	int realtime;
	bool overwrite;
	enum { SWITCH_NONE, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME } switch_kind;
	uint64_t switch_size;		/* bytes */
	double switch_time;		/* seconds */
	unsigned int switch_max_files;
	bool timestamp_filename;
	bool no_buildid;
	bool buildid_mmap;
	enum pm_recfile_synth synth;
	bool sync;
	char **workload;
	int nr_workload;
	struct pm_evlist evlist;
};

struct record {
	struct record_opts *opts;
	struct pm_cpumap cpus;
	struct pm_target targets;
	struct pm_drain *drain;		/* the rings, their fds and what they carried */
	struct pm_recfile rf;		/* the output file */
	struct pm_clock_ref clock;	/* -k: the clock's wall-clock reference */
	int sigfd;
	sigset_t oldmask;
	struct pm_workload work;
	int stop_signal;
	bool switch_requested;
	int64_t next_switch;		/* CLOCK_MONOTONIC ns of the next TIME switch */
	struct pm_build_ids *build_ids;	/* NULL with --no-buildid */
	struct pm_jitcap *jitcap;	/* copies of perf maps; NULL for streams and --overwrite */
	struct pm_filecap *filecap;	/* files not here, kept; NULL as jitcap, or -B */
	int stop_signals;		/* stop signals received */
	rlim_t nofile_needed;		/* counted before the events opened */
	struct pm_zsink zsink;		/* -z */
	struct pm_control ctl;		/* --control */
	int epfd;			/* sigfd and the control fd, for the loop; or -1 */
	int64_t enable_at;		/* -D: CLOCK_MONOTONIC ns of the enable, or 0 */
	int loop_err;			/* a snapshot asked on the control channel failed */
	int cgroup_fd;			/* -G's cgroup directory, or -1 */
	bool size_stopped;		/* --max-size ended the recording */
	int64_t phase_at;		/* -vv: CLOCK_MONOTONIC ns the last phase ended */
	int64_t phase_cpu;		/* -vv: the process's CPU ns then, all threads */
};

extern const struct argp record_argp;
/*
 * -C, -p, -t, -e, -F, -c, -g and --call-graph, parsed by the one parser
 * record uses too, for pmrec top: its input is a struct record_opts.
 */
extern const struct argp record_sampling_argp;
/*
 * -u and -G alone, parsed as record parses them, for pmrec agent (which
 * words them): a parser whose input is a struct record_opts.
 */
error_t record__parse_owner(int key, char *arg, struct argp_state *state);

/*
 * Signals and polling, as record and top watch them (cmd/sigwatch.c).
 * sigwatch__open blocks set (the mask before in old, unless NULL), ignores
 * SIGPIPE and returns a signalfd reading set, nonblocking, or -errno;
 * sigwatch__next is the next signal it holds, 0 when none.
 * sigwatch__epoll returns an epoll set readable when one of the nr fds is
 * (each event's data.fd), or -errno.
 */
int sigwatch__open(const sigset_t *set, sigset_t *old);
int sigwatch__next(int sigfd);
int sigwatch__epoll(const int *fds, size_t nr);

/*
 * The loop (cmd/record-loop.c).  record__watch blocks the stop signals
 * into rec->sigfd and opens --control: 0 or an exit status (said why).
 * record__record drains until a stop, record__drain_stop drains what is
 * left (a second stop signal cuts it short): 0 or a negative errno.
 * record__handle_signals reads the signals that came: true to stop.
 */
struct pm_evset record__evset(const struct record *rec);
int record__watch(struct record *rec);
int record__record(struct record *rec);
/* -vv: how long the phase just ended took, since the last one (or the start). */
void record__phase(struct record *rec, const char *what);
/* Every event on; system-wide, the file holds the samples from here on (pm_drain__open_window). */
void record__enable(struct record *rec);
int record__drain_stop(struct record *rec);
bool record__handle_signals(struct record *rec);
/* --overwrite: a snapshot file of the rings' newest records.  0 or a negative errno. */
int record__snapshot(struct record *rec);

int record__setup_targets(struct record *rec);
int record__add_off_cpu(struct record_opts *o);
void record__report_evset_error(const struct record *rec, const struct pm_evset_error *e);
void record__warn_halved(const struct record *rec, size_t wanted_pages);
int record__check_output(const char *path);
int record__check_stdout(int flags);
void record__file_note(void *arg, enum pm_recfile_note what, const char *path, int err);
void record__summary(struct record *rec, uint64_t lost_samples);
int record__write_failed(struct record *rec, int err);

#endif
