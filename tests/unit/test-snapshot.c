// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's state machine accepts exactly its four transitions. */
#include <errno.h>

#include "record/snapshot.h"
#include "tap.h"

int main(void)
{
	enum pm_snapshot_state all[] = { PM_SNAPSHOT_NOT_READY, PM_SNAPSHOT_RUNNING,
					 PM_SNAPSHOT_DATA_PENDING, PM_SNAPSHOT_EMPTY };
	int legal[4][4] = { { 0 } };
	int from, to, bad = 0, n = 0;
	enum pm_snapshot_state s;

	legal[PM_SNAPSHOT_NOT_READY][PM_SNAPSHOT_RUNNING] = 1;
	legal[PM_SNAPSHOT_RUNNING][PM_SNAPSHOT_DATA_PENDING] = 1;
	legal[PM_SNAPSHOT_DATA_PENDING][PM_SNAPSHOT_EMPTY] = 1;
	legal[PM_SNAPSHOT_EMPTY][PM_SNAPSHOT_RUNNING] = 1;
	for (from = 0; from < 4; from++)
		for (to = 0; to < 4; to++) {
			int ret;

			s = all[from];
			ret = pm_snapshot__to(&s, all[to]);
			n++;
			if (legal[from][to] ? (ret || s != all[to]) : (!ret || s != all[from]))
				bad++;
		}
	tap_ok(!bad, "all %d (from, to) pairs: only the four legal transitions succeed", n);

	s = PM_SNAPSHOT_NOT_READY;
	tap_ok(!pm_snapshot__to(&s, PM_SNAPSHOT_RUNNING) &&
	       !pm_snapshot__to(&s, PM_SNAPSHOT_DATA_PENDING) &&
	       pm_snapshot__to(&s, PM_SNAPSHOT_DATA_PENDING) == -EINVAL && s == PM_SNAPSHOT_DATA_PENDING,
	       "a second snapshot request while one is pending is refused");
	return tap_done();
}
