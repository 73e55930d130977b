// SPDX-License-Identifier: GPL-2.0
#include <errno.h>

#include "record/snapshot.h"

int pm_snapshot__to(enum pm_snapshot_state *s, enum pm_snapshot_state next)
{
	static const enum pm_snapshot_state legal_from[] = {
		[PM_SNAPSHOT_RUNNING] = PM_SNAPSHOT_NOT_READY,
		[PM_SNAPSHOT_DATA_PENDING] = PM_SNAPSHOT_RUNNING,
		[PM_SNAPSHOT_EMPTY] = PM_SNAPSHOT_DATA_PENDING,
	};

	if (next == PM_SNAPSHOT_RUNNING &&
	    (*s == PM_SNAPSHOT_NOT_READY || *s == PM_SNAPSHOT_EMPTY)) {
		*s = next;
		return 0;
	}
	if (next != PM_SNAPSHOT_NOT_READY && next != PM_SNAPSHOT_RUNNING &&
	    legal_from[next] == *s) {
		*s = next;
		return 0;
	}
	return -EINVAL;
}
