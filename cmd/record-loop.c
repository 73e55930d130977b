// SPDX-License-Identifier: GPL-2.0
/*
 * pmrec record's loop: the drain engine polls and drains the rings while
 * this file decides when to stop (signals, --duration, --max-size, the
 * control channel's stop) and when to switch files or take a snapshot.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "builtin.h"
#include "record.h"
#include "record/filecap.h"

#define POLL_TIMEOUT_MS 100

/* Returns true when recording must stop. */
bool record__handle_signals(struct record *rec)
{
	bool stop = false;
	int sig;

	while ((sig = sigwatch__next(rec->sigfd))) {
		switch (sig) {
		case SIGCHLD:
			if (rec->work.pid > 0 && !pm_workload__reap(&rec->work))
				stop = true;
			break;
		case SIGUSR2:
			/* Several while one is handled coalesce into one request. */
			rec->switch_requested = true;
			break;
		default:
			if (!rec->stop_signal)
				rec->stop_signal = sig;
			rec->stop_signals++;
			stop = true;
			break;
		}
	}
	return stop;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* User and system time of every thread of pmrec's, those that ended too. */
static int64_t cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void record__phase(struct record *rec, const char *what)
{
	int64_t now, cpu;

	if (rec->opts->verbose < 2)
		return;
	now = now_ns();
	cpu = cpu_ns();
	if (rec->phase_at)
		note("%s: %.3f s, %.3f s CPU", what, (double)(now - rec->phase_at) / 1e9,
		     (double)(cpu - rec->phase_cpu) / 1e9);
	rec->phase_at = now;
	rec->phase_cpu = cpu;
}

/*
 * Overwrite mode: one complete, standalone perf.data file holding the rings'
 * newest records, with the processes alive now synthesized first.
 */
int record__snapshot(struct record *rec)
{
	struct pm_buf recs = { 0 };
	uint64_t dropped, samples;
	int err;

	err = pm_drain__snapshot(rec->drain, &recs, &samples, &dropped);
	if (!err)
		err = pm_recfile__snapshot(&rec->rf, &recs, dropped);
	if (!err) {
		pm_drain__count_snapshot(rec->drain, samples, dropped);
		if (rec->opts->verbose)
			note("snapshot of %llu samples, %llu dropped while paused",
			     (unsigned long long)samples, (unsigned long long)dropped);
	}
	pm_buf__exit(&recs);
	return err;
}

static int record__switch(struct record *rec)
{
	int err;

	rec->switch_requested = false;
	err = rec->opts->overwrite ? record__snapshot(rec) : pm_recfile__rotate(&rec->rf);
	if (rec->opts->switch_kind == SWITCH_TIME)
		rec->next_switch = now_ns() + (int64_t)(rec->opts->switch_time * 1e9);
	return err;
}

/* Switching is on with --switch-output or --overwrite; SIGUSR2 always triggers it. */
static bool record__switch_due(struct record *rec)
{
	const struct record_opts *o = rec->opts;

	if (!o->switch_kind && !o->overwrite)
		return false;
	if (rec->switch_requested)
		return true;
	if (o->switch_kind == SWITCH_SIZE)
		return rec->rf.out.data_size >= o->switch_size;
	if (o->switch_kind == SWITCH_TIME)
		return now_ns() >= rec->next_switch;
	return false;
}

struct loop {
	struct record *rec;
	int64_t deadline;		/* CLOCK_MONOTONIC ns of --duration's end, or 0 */
};

static bool loop__expired(void *arg, int *timeout_ms)
{
	const struct loop *l = arg;
	struct record *rec = l->rec;
	int64_t t = rec->opts->overwrite ? 1000 : POLL_TIMEOUT_MS, now = now_ns();

	if (l->deadline && now >= l->deadline)
		return true;
	/* --max-size: the file as the drain wrote it (no staging with it). */
	if (rec->opts->max_size &&
	    rec->rf.out.data_offset + rec->rf.out.data_size >= rec->opts->max_size) {
		rec->size_stopped = true;
		return true;
	}
	if (l->deadline && (l->deadline - now) / 1000000 < t)
		t = (l->deadline - now) / 1000000 + 1;
	if (rec->opts->switch_kind == SWITCH_TIME && (rec->next_switch - now) / 1000000 < t)
		t = (rec->next_switch - now) / 1000000 + 1;
	if (rec->enable_at && (rec->enable_at - now) / 1000000 < t)
		t = (rec->enable_at - now) / 1000000 + 1;
	*timeout_ms = t < 0 ? 0 : (int)t;
	return false;
}

/* One control word: done, then answered (an unknown one with an error line). */
static bool record__control_cmd(struct record *rec, enum pm_control_cmd cmd)
{
	const struct record_opts *o = rec->opts;
	char line[128];
	const char *nak = NULL;
	bool stop = false;
	int err;

	switch (cmd) {
	case PM_CONTROL_ENABLE:
		rec->enable_at = 0;
		pm_drain__ioctl_all(rec->drain, PERF_EVENT_IOC_ENABLE);
		break;
	case PM_CONTROL_DISABLE:
		pm_drain__ioctl_all(rec->drain, PERF_EVENT_IOC_DISABLE);
		break;
	case PM_CONTROL_SNAPSHOT:
		if (!o->overwrite && !o->switch_kind)
			nak = "snapshot needs --overwrite or --switch-output";
		else
			rec->loop_err = record__switch(rec);
		stop = rec->loop_err != 0;
		break;
	case PM_CONTROL_STOP:
		stop = true;
		break;
	case PM_CONTROL_PING:
	case PM_CONTROL_NONE:
		break;
	case PM_CONTROL_UNKNOWN:
		snprintf(line, sizeof(line), "unknown command '%s' ignored", rec->ctl.word);
		nak = line;
		break;
	}
	if (nak)
		error("control: %s", nak);
	err = pm_control__reply(&rec->ctl, nak);
	if (err) {
		error("control: cannot write to the ack channel: %s; no more acks", strerror(-err));
		rec->ctl.ack_fd = -1;
	}
	return stop;
}

/* Every complete word on the control channel, in order. */
static bool record__handle_control(struct record *rec)
{
	enum pm_control_cmd cmd;
	bool stop = false;
	int err;

	while (!stop && !(err = pm_control__next(&rec->ctl, &cmd)) && cmd != PM_CONTROL_NONE)
		stop = record__control_cmd(rec, cmd);
	if (!stop && err) {
		error("control: cannot read the control channel: %s", strerror(-err));
		stop = true;
	}
	return stop;
}

static bool loop__watched(void *arg)
{
	struct record *rec = ((struct loop *)arg)->rec;
	bool stop = record__handle_signals(rec);

	if (!stop && rec->ctl.ctl_fd >= 0)
		stop = record__handle_control(rec);
	return stop;
}

static int loop__tick(void *arg)
{
	struct record *rec = ((struct loop *)arg)->rec;

	/* Files replaced since they were mapped: held while their processes run. */
	if (rec->filecap)
		pm_filecap__poll(rec->filecap);
	if (rec->enable_at && now_ns() >= rec->enable_at) {
		rec->enable_at = 0;
		record__enable(rec);
	}
	return record__switch_due(rec) ? record__switch(rec) : 0;
}

/* The engine polls and drains; pmrec decides when to stop and to switch files. */
static int record__loop(struct record *rec)
{
	struct loop l = {
		.rec = rec,
		.deadline = rec->opts->duration > 0 ?
			now_ns() + (int64_t)(rec->opts->duration * 1e9) : 0,
	};
	const struct pm_drain_driver drv = {
		.expired = loop__expired,
		.watched = loop__watched,
		.tick = loop__tick,
		.arg = &l,
	};

	int err = pm_drain__loop(rec->drain, &drv);

	return err ? err : rec->loop_err;
}

struct stop_cut {
	struct record *rec;
	int signals;
};

/*
 * A stop signal during the final drain (a second Ctrl-C) means "at once":
 * what the rings still hold is left out, and the file is finished with
 * what was written.
 */
static bool record__stop_cut(void *arg)
{
	struct stop_cut *c = arg;

	record__handle_signals(c->rec);
	return c->rec->stop_signals > c->signals;
}

int record__drain_stop(struct record *rec)
{
	struct stop_cut cut = { .rec = rec, .signals = rec->stop_signals };

	return pm_drain__stop(rec->drain, record__stop_cut, &cut);
}

/*
 * --control: the loop watches one fd, so the signalfd and the control fd
 * go into an epoll set, readable when either is.
 */
static int record__open_control(struct record *rec)
{
	struct pm_control_error e;
	int err = pm_control__open(&rec->ctl, rec->opts->control, &e);

	if (err) {
		error("cannot open the %s '%s': %s", e.what, e.name, strerror(-err));
		if (err == -EBADF)
			hint("fd:CTL[,ACK] names fds pmrec inherits open");
		return err;
	}
	err = sigwatch__epoll((const int[]){ rec->sigfd, rec->ctl.ctl_fd }, 2);
	if (err < 0) {
		error("cannot watch the control channel: %s", strerror(-err));
		return err;
	}
	rec->epfd = err;
	return 0;
}

/*
 * Every signal whose default action ends the process, and that the kernel
 * does not raise for a fault of pmrec's own, stops the recording and
 * finalizes the file: dying of it would leave a file without features.
 */
static const int stop_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGVTALRM, SIGPROF,
	SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU,
};

static int record__block_signals(struct record *rec)
{
	sigset_t set;
	size_t i;
	int sig;

	sigemptyset(&set);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&set, stop_signals[i]);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(&set, sig);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR2);
	/* EFBIG is handled where it happens, as EPIPE: dying of SIGXFSZ would lose the file. */
	signal(SIGXFSZ, SIG_IGN);
	rec->sigfd = sigwatch__open(&set, &rec->oldmask);
	return rec->sigfd < 0 ? rec->sigfd : 0;
}

int record__watch(struct record *rec)
{
	int err = record__block_signals(rec);

	if (err) {
		error("cannot set up signal handling: %s", strerror(-err));
		return PM_EXIT_FAILURE;
	}
	if (rec->opts->control && record__open_control(rec))
		return PM_EXIT_FAILURE;
	return 0;
}

/* Until a signal, --duration, the workload's end or every task's. */
int record__record(struct record *rec)
{
	const struct record_opts *o = rec->opts;

	pm_drain__set_running(rec->drain);
	if (o->delay_ms > 0)
		rec->enable_at = now_ns() + (int64_t)o->delay_ms * 1000000;
	if (o->switch_kind == SWITCH_TIME)
		rec->next_switch = now_ns() + (int64_t)(o->switch_time * 1e9);
	if (o->verbose)
		note("recording %zu events on %zu CPUs through %zu fds", o->evlist.nr,
		     pm_drain__nr_rings(rec->drain), pm_drain__nr_fds(rec->drain));
	return record__loop(rec);
}
