#!/bin/sh
# A stalled output costs memory, not samples: the staging buffer holds what
# the drain takes from the rings while a pipe's reader or a frozen file
# system stops taking it.  When a stall outlasts the buffer, the loss is
# counted exactly (every seq recorded once or counted lost) and the memory
# stays within the buffer.  No timing is asserted; zero loss only with
# --realtime and outside the sanitized build, as in t0200.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

SYS="-e raw_syscalls:sys_enter --filter id==110 -c 1"
N=600000
LOAD="$HELPERS/seqcall -r 200000 $N"

# test_skip DESCRIPTION REASON: a TAP skip for one test; a failure in CI
# (PMREC_REQUIRE_PERF=1), where nothing may be skipped.
test_skip() {
	test_count=$((test_count + 1))
	if [ "${PMREC_REQUIRE_PERF:-0}" = 1 ]; then
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1: requirement missing (PMREC_REQUIRE_PERF=1): $2"
	else
		echo "ok $test_count # skip $1: $2"
	fi
}

# hwm_of PID: the peak RSS (VmHWM, KiB) of PID while it runs, printed at its end.
hwm_of() {
	hwm=0
	while h=$(awk '/^VmHWM:/ { print $2 }' /proc/$1/status 2>/dev/null) && [ -n "$h" ]; do
		hwm=$h
		sleep 0.05
	done
	echo "$hwm"
}

# seq_check for a stream: perf 6.1's report cannot read one with tracing
# data from a file, so the lost count is the sum of its LOST_SAMPLES records.
seq_check_pipe() {
	echo "$(perf script -i "$1" -F trace 2>/dev/null | "$HELPERS/seqcheck" "$2")" \
	     "lost=$("$PMREC" dump "$1" | awk '/ LOST_SAMPLES lost=/ && match($0, / lost=[0-9]+/) {
						n += substr($0, RSTART + 6, RLENGTH - 6) }
					  END { print n + 0 }')"
}

# exact R: every seq once or counted lost, the last one present unless lost.
exact() {
	echo "$1" >&2 &&
	test_equal 0 "$(field dups "$1")" duplicates &&
	test_equal $N "$(($(field unique "$1") + $(field lost "$1")))" "unique + lost" &&
	test_equal "$(field lost "$1")" "$(field missing "$1")" "missing = lost"
}

test_expect_success '--buffer-size: bad values are usage errors' '
	for v in x -1 17G 1X 64MB1 ""; do
		test_expect_code 64 "$PMREC" record --buffer-size "$v" -o b.data -- true 2>err &&
		test_grep "bad --buffer-size" err || exit 1
	done &&
	test ! -e b.data
'

test_expect_success '--buffer-size 0 (the drain writes) and 2M record the same workload' '
	for b in 0 2M; do
		"$PMREC" $SYS --buffer-size $b -q -o s$b.data -- "$HELPERS/seqcall" 100000 &&
		r=$(seq_check s$b.data 100000) && echo "$r" &&
		test_equal 0 "$(field dups "$r")" duplicates &&
		seq_accounted "$r" 100000 ||
		exit 1
	done
'

test_expect_success '-v reports the staging buffer' '
	"$PMREC" $SYS -v -o v.data -- "$HELPERS/seqcall" 1000 2>err &&
	test_grep "staging buffer: .* of 67.1 MB used at most" err
'

# 200k/s for 3 s into a reader that stops for 300 ms every second.  The
# stall tests run alone: nothing lost needs the CPUs, and a writer slowed by
# others' tests could still be draining full rings as the workload exits,
# which drops its EXIT record and breaks the exact count.
test_alone
test_expect_success 'stalled pipe (300 ms every second): nothing lost, exact' '
	"$PMREC" $SYS -m 1024 --realtime -q -o - -- $LOAD | "$HELPERS/stallcat" -v -o p.data &&
	r=$(seq_check_pipe p.data $N) && exact "$r" &&
	if [ "${PMREC_SANITIZED:-0}" != 1 ]; then
		test_equal 0 "$(field missing "$r")" missing
	fi
'

# One 2 s stall: about 50 MB at this rate, far more than 8 MiB.
test_alone
test_expect_success 'a pipe stall longer than the buffer: loss counted exactly, memory bounded' '
	mkfifo fifo || exit 1
	"$HELPERS/stallcat" -d 300 -p 2000 -n 1 -o p.data <fifo &
	reader=$!
	"$PMREC" $SYS --buffer-size 8M -q -o - -- $LOAD >fifo &
	pmrec=$!
	hwm=$(hwm_of $pmrec) &&
	wait $pmrec && wait $reader &&
	echo "peak RSS ${hwm} KiB" >&2 &&
	r=$(seq_check_pipe p.data $N) && exact "$r" &&
	test "$(field lost "$r")" -gt 0 &&
	if [ "${PMREC_SANITIZED:-0}" != 1 ]; then
		test "$hwm" -gt 0 && test "$hwm" -lt $(((8 + 8) * 1024))
	fi
'

# A file system of its own on a loop device in memory, frozen with
# fsfreeze: every write to it blocks until it is thawed.
loopfs=
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null &&
   command -v fsfreeze >/dev/null; then
	# In memory when /dev/shm is there: the disk of the machine stays out of it.
	img=$(mktemp /dev/shm/pmrec-stall.XXXXXX 2>/dev/null || echo "$TMP_ROOT/img")
	mnt=$TMP_ROOT/mnt
	if truncate -s 300M "$img" && dev=$(losetup -f --show "$img" 2>/dev/null); then
		if mkfs.ext4 -q "$dev" && mkdir -p "$mnt" && mount "$dev" "$mnt"; then
			loopfs=$mnt
		else
			losetup -d "$dev"
		fi
	fi
fi
if [ -z "$loopfs" ] && [ -n "${img:-}" ]; then
	rm -f "$img"
fi
cleanup_loopfs() {
	[ -n "$loopfs" ] || return 0
	fsfreeze -u "$loopfs" 2>/dev/null
	umount "$loopfs" && losetup -d "$dev"
	rm -f "$img"
}
trap 'cleanup_loopfs; rm -rf "$TMP_ROOT"' EXIT

# freeze_every DELAY PAUSE COUNT: freezes $loopfs for PAUSE s, COUNT times,
# after DELAY s each; runs in the background.
freeze_every() {
	i=0
	while [ $i -lt "$3" ]; do
		sleep "$1"
		fsfreeze -f "$loopfs" && sleep "$2"
		fsfreeze -u "$loopfs"
		i=$((i + 1))
	done
}

if [ -n "$loopfs" ]; then
	test_alone
	test_expect_success 'stalled disk (frozen 300 ms every second): nothing lost, exact' '
		rm -f "$loopfs"/d.data
		freeze_every 0.7 0.3 3 &
		freezer=$!
		"$PMREC" $SYS -m 1024 --realtime -q -o "$loopfs"/d.data -- $LOAD &&
		wait $freezer &&
		r=$(seq_check "$loopfs"/d.data $N) && exact "$r" &&
		if [ "${PMREC_SANITIZED:-0}" != 1 ]; then
			test_equal 0 "$(field missing "$r")" missing
		fi
	'

	test_alone
	test_expect_success 'a disk stall longer than the buffer: loss counted exactly, memory bounded' '
		rm -f "$loopfs"/d.data
		freeze_every 0.3 2 1 &
		freezer=$!
		"$PMREC" $SYS --buffer-size 8M -q -o "$loopfs"/d.data -- $LOAD &
		pmrec=$!
		hwm=$(hwm_of $pmrec) &&
		wait $pmrec && wait $freezer &&
		echo "peak RSS ${hwm} KiB" >&2 &&
		r=$(seq_check "$loopfs"/d.data $N) && exact "$r" &&
		test "$(field lost "$r")" -gt 0 &&
		if [ "${PMREC_SANITIZED:-0}" != 1 ]; then
			test "$hwm" -gt 0 && test "$hwm" -lt $(((8 + 8) * 1024))
		fi
	'
else
	test_skip "stalled disk" "no loop device, mkfs.ext4 or fsfreeze here"
	test_skip "disk stall longer than the buffer" "no loop device, mkfs.ext4 or fsfreeze here"
fi

test_done
