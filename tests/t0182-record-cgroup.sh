#!/bin/sh
# -G NAME with -a: only the tasks of one cgroup.  The script mounts a cgroup
# v1 hierarchy with the perf_event controller in a directory of its own,
# makes a cgroup there, moves one of two busy processes into it, and
# removes all of it at the end, whatever happened.
. "$(dirname "$0")/test-lib.sh"
test_require_root
test_require_perf_event
test_require_perf_tool

CG_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/pmrec-cg.XXXXXX")
CG=pmrec-t0182
BUSY=""
export CG_ROOT CG

cleanup() {
	for p in $BUSY; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	if mountpoint -q "$CG_ROOT"; then
		# A cgroup goes away with rmdir once its tasks have left (died).
		for i in 1 2 3 4 5 6 7 8 9 10; do
			rmdir "$CG_ROOT/$CG/sub" "$CG_ROOT/$CG" 2>/dev/null
			[ -d "$CG_ROOT/$CG" ] || break
			sleep 0.1
		done
		umount "$CG_ROOT"
	fi
	rmdir "$CG_ROOT"
	rm -rf "$TMP_ROOT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# perf_event may already be bound to a v1 hierarchy (then it is mounted
# once more here, which v1 allows) or be cgroup2's implicit controller.
mount -t cgroup -o perf_event none "$CG_ROOT" ||
	test_skip_all "cannot mount a perf_event cgroup hierarchy"
mkdir "$CG_ROOT/$CG" "$CG_ROOT/$CG/sub"

# Two busy processes: the first in the cgroup, the second outside it.
"$HELPERS/spin" 30 &
INSIDE=$!
"$HELPERS/spin" 30 &
OUTSIDE=$!
BUSY="$INSIDE $OUTSIDE"
echo "$INSIDE" >"$CG_ROOT/$CG/cgroup.procs"
export INSIDE OUTSIDE

sample_pids() {
	perf script -i "$1" -F pid 2>/dev/null | awk '{ print $1 }' | sort -u
}

test_expect_success 'the perf_event hierarchy of this script is in /proc/self/mounts, where pmrec looks' '
	grep -q " $CG_ROOT cgroup .*perf_event" /proc/self/mounts
'

test_expect_success '-a -G NAME: samples of the cgroup task only, as perf record -a -G' '
	"$PMREC" -a -G "$CG" -o g.data -- sleep 0.4 2>err &&
	perf record -q -a -e cpu-clock -G "$CG" -o p.data -- sleep 0.4 &&
	test_equal "$INSIDE" "$(sample_pids g.data)" "pmrec sample pids" &&
	test_equal "$INSIDE" "$(sample_pids p.data)" "perf sample pids" &&
	test "$(perf_sample_count g.data)" -gt 100 &&
	test "$(perf_sample_count p.data)" -gt 100
'

test_expect_success 'without -G both processes are recorded (the filter is real)' '
	"$PMREC" -q -a -o a.data -- sleep 0.3 &&
	sample_pids a.data >pids &&
	grep -q -x "$INSIDE" pids && grep -q -x "$OUTSIDE" pids
'

test_expect_success '-G with a nested NAME and a leading slash, and -C' '
	echo "$OUTSIDE" >"$CG_ROOT/$CG/sub/cgroup.procs" &&
	"$PMREC" -q -C 0,1 -G "/$CG/sub" -o s.data -- sleep 0.4 &&
	echo "$OUTSIDE" >"$CG_ROOT/cgroup.procs" &&
	test_equal "$OUTSIDE" "$(sample_pids s.data)" "sample pids"
'

test_expect_success 'a cgroup that does not exist is an error naming its path' '
	test_expect_code 1 "$PMREC" -a -G no-such-cgroup -o n.data -- true 2>err &&
	test_grep "cannot open cgroup .no-such-cgroup. \(.*/no-such-cgroup.\): No such file" err &&
	test ! -e n.data
'

test_expect_success 'a NAME with a .. component is a usage error' '
	test_expect_code 64 "$PMREC" -a -G "$CG/../$CG" -o n.data -- true 2>err &&
	test_grep "without .\.\.." err &&
	test_expect_code 64 "$PMREC" -a -G ../etc -o n.data -- true 2>err &&
	test ! -e n.data
'

# In a mount namespace of its own: every perf_event hierarchy unmounted
# (there only), then -G.
NO_HIERARCHY='for d in $(awk "\$3 == \"cgroup2\" || (\$3 == \"cgroup\" && \$4 ~ /perf_event/) { print \$2 }" /proc/self/mounts); do
	umount -l "$d" || exit 90
done
exec "$PMREC" -a -G "$CG" -o n.data -- true'
export NO_HIERARCHY

test_expect_success 'no perf_event hierarchy mounted at all: a clear error' '
	test_expect_code 1 unshare -m sh -c "$NO_HIERARCHY" 2>err &&
	test_grep "cannot find cgroup .$CG.: no perf_event cgroup hierarchy is mounted" err &&
	test_grep "mount -t cgroup -o perf_event" err &&
	grep -q " $CG_ROOT cgroup " /proc/self/mounts
'

test_expect_success '-G needs -a or -C, and excludes -p' '
	test_expect_code 64 "$PMREC" -G "$CG" -o n.data -- true 2>err &&
	test_grep "add -a" err &&
	test_expect_code 64 "$PMREC" -a -G "$CG" -p $$ -o n.data 2>err
'

test_done
