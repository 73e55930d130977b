/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_CMD_LIVE_EVENTS_H
#define PMREC_CMD_LIVE_EVENTS_H

/*
 * The events of the commands without a file, pmrec top and pmrec agent
 * (cmd/live-events.c): record's events and rings, drained into a live
 * profile (lib/profile/live.c).
 */
#include "profile/live.h"
#include "record.h"

/*
 * Opens rec's events on its CPUs and targets into rings whose sink is
 * live, the drain also waking when watch_fd is readable; starts live and
 * describes the processes that run; enables the events.  0, or
 * PM_EXIT_FAILURE after saying why.
 */
int live_events__open(struct record *rec, struct pm_live *live, int watch_fd);

#endif
