/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CONTROL_H
#define PMREC_CONTROL_H

/*
 * --control: perf's control channel.  Words (enable, disable, snapshot,
 * stop, ping) arrive on a fifo or an inherited fd, one per line (a NUL ends
 * one too, as perf allows); each is answered with "ack\n" on the ack
 * channel when there is one.
 */
#include <stdbool.h>
#include <stddef.h>

enum pm_control_cmd {
	PM_CONTROL_NONE,		/* no complete word yet */
	PM_CONTROL_ENABLE,
	PM_CONTROL_DISABLE,
	PM_CONTROL_SNAPSHOT,
	PM_CONTROL_STOP,
	PM_CONTROL_PING,
	PM_CONTROL_UNKNOWN,		/* the word is in pm_control.word */
};

struct pm_control {
	int ctl_fd;			/* -1: no channel */
	int ack_fd;			/* -1: no acks */
	bool own;			/* fifos opened here, closed by pm_control__exit */
	char buf[256];			/* a word being received */
	size_t len;
	bool overlong;			/* the line being taken did not fit in buf */
	bool skipping;			/* dropping the rest of an overlong line */
	char word[96];			/* the last word for messages: escaped, cut to fit */
};

/* Where a --control spec failed: which path or fd, and why (negative errno). */
struct pm_control_error {
	const char *what;		/* "control fifo", "ack fifo", "control fd", "ack fd" */
	char name[256];
	int err;
};

/* 0 when spec is fifo:CTL[,ACK] or fd:CTL[,ACK] with fd numbers; else -EINVAL. */
int pm_control__check_spec(const char *spec);
/*
 * fifo:CTL[,ACK] (opened here, without blocking) or fd:CTL[,ACK] (open
 * fds, checked).  -EINVAL: the spec itself is bad (e->what NULL).
 */
int pm_control__open(struct pm_control *c, const char *spec, struct pm_control_error *e);
/* The next complete word, or PM_CONTROL_NONE; -errno on a read error. */
int pm_control__next(struct pm_control *c, enum pm_control_cmd *cmd);
/* "ack\n", or "error: LINE\n" when line is not NULL; nothing without an ack channel. */
int pm_control__reply(struct pm_control *c, const char *line);
void pm_control__exit(struct pm_control *c);

#endif
