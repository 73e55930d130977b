/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PMREC_SNAPSHOT_H
#define PMREC_SNAPSHOT_H

/*
 * The flight recorder's states.  Only these transitions exist:
 *
 *   NOT_READY -> RUNNING          events enabled
 *   RUNNING -> DATA_PENDING       every backward ring paused for a snapshot
 *   DATA_PENDING -> EMPTY         the rings' records copied out
 *   EMPTY -> RUNNING              rings resumed
 *
 * Anything else is a bug in the caller; pm_snapshot__to() refuses it, so a
 * snapshot requested while one is in progress cannot pause or copy twice.
 */
enum pm_snapshot_state {
	PM_SNAPSHOT_NOT_READY,
	PM_SNAPSHOT_RUNNING,
	PM_SNAPSHOT_DATA_PENDING,
	PM_SNAPSHOT_EMPTY,
};

/* Moves *s to next; -EINVAL (and no change) for an illegal transition. */
int pm_snapshot__to(enum pm_snapshot_state *s, enum pm_snapshot_state next);

#endif
