#!/bin/sh
# Output safety: full disks, symlinks, permissions, least privilege.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool
test_require_root

# The volume is fixed by construction, not by how idle the machine is: spin
# keeps a CPU busy for two seconds, and cpu-clock with a period of 100 us
# samples whatever runs there 20,000 times, at 56 bytes or more each: four
# times the 256 KiB disk, and the 512 KiB rings hand at least the disk's
# worth to the writer even if it falls behind.  (Not a tracepoint: perf
# reads the tracepoint formats of a cut file from its unwritten features.)
test_expect_success 'a full disk: exit 1, one line with counts, a readable file' '
	mkdir small &&
	mount -t tmpfs -o size=256k tmpfs small &&
	rc=0 && { "$PMREC" -a -c 100000 -o small/f.data -- "$HELPERS/spin" 2 2>err || rc=$?; } &&
	{ cp small/f.data f.data; umount small; } &&
	cat err &&
	test_equal 1 "$rc" "exit status" &&
	test_grep "cannot write .*No space left on device; kept [0-9]+ samples" err &&
	test_grep "recording stopped early; waiting" err &&
	perf script -i f.data >script 2>perf.err &&
	test_equal 0 "$(grep -c . perf.err)" "perf script errors" &&
	! grep -E "data size field is 0|failed" perf.err
'

test_expect_success 'the workload runs to its end when the disk fills' '
	mkdir small2 &&
	mount -t tmpfs -o size=128k tmpfs small2 &&
	{ "$PMREC" -a -o small2/f.data -- sh -c "sleep 1; echo done >finished" 2>/dev/null || true; } &&
	umount small2 &&
	test_equal done "$(cat finished)" "workload output"
'

test_expect_success 'a symlink planted at the output path is replaced, not followed' '
	echo precious >target &&
	ln -s target out.data &&
	"$PMREC" -a -q -o out.data -- true &&
	test_equal precious "$(cat target)" "symlink target" &&
	test -f out.data && ! test -L out.data &&
	test -L out.data.old
'

test_expect_success 'the output is created 0600' '
	umask 022 &&
	"$PMREC" -a -q -o m.data -- true &&
	test_equal "-rw-------" "$(ls -l m.data | cut -c1-10)" mode
'

test_expect_success 'an existing output becomes FILE.old' '
	"$PMREC" -a -q -o o.data -- true &&
	cp o.data first &&
	"$PMREC" -a -q -o o.data -- true &&
	cmp first o.data.old
'

test_expect_success 'a device at the output path is refused' '
	test_expect_code 1 "$PMREC" -a -o /dev/null -- true 2>err &&
	test_grep "not a regular file" err
'

# Alone, these two: they change kernel.perf_event_paranoid for a moment, as
# t0150 does; two such tests at once would restore each other's value.
test_alone
test_expect_success 'as nobody (paranoid 2): cpu-clock:u on a command works, -a names the sysctl' '
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid) &&
	echo 2 >/proc/sys/kernel/perf_event_paranoid &&
	chmod 755 "$TMP_ROOT" && chmod 777 . &&
	ok=1 &&
	{ su nobody -s /bin/sh -c "\"$PMREC\" -e cpu-clock:u -q -o u.data -- \"$HELPERS/spin\" 0.2" || ok=0; } &&
	rc=0 && { su nobody -s /bin/sh -c "\"$PMREC\" -a -o a.data -- true" 2>err || rc=$?; } &&
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid &&
	test_equal 1 "$ok" "user-mode recording as nobody" &&
	test "$(perf_sample_count u.data)" -gt 0 &&
	test_equal 1 "$rc" "exit status of -a" &&
	test_grep "kernel.perf_event_paranoid" err &&
	test ! -e a.data
'

test_alone
test_expect_success 'as nobody: rings over the locked-memory limit are halved, with a warning' '
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid) &&
	echo 2 >/proc/sys/kernel/perf_event_paranoid &&
	chmod 755 "$TMP_ROOT" && chmod 777 . &&
	rc=0 && { su nobody -s /bin/sh -c "ulimit -l 64; \"$PMREC\" -e cpu-clock:u -m 64M -o m.data -- \"$HELPERS/spin\" 0.2" 2>err || rc=$?; } &&
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid &&
	test_equal 0 "$rc" "exit status" &&
	test_grep "warning: 65536 KiB rings exceed the locked-memory limit \(kernel.perf_event_mlock_kb=[0-9]+, RLIMIT_MEMLOCK=64 KiB\); using [0-9]+ KiB per CPU" err &&
	test "$(perf_sample_count m.data)" -gt 0
'

test_done
