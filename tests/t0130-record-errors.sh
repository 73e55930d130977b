#!/bin/sh
# Bad input to record: one clear line, a documented exit status, no output file.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'unknown event: exit 64, names the event, no file' '
	test_expect_code 64 "$PMREC" -a -e nosuch -o x.data -- true 2>err &&
	test_grep "unknown event .nosuch." err &&
	test ! -e x.data
'

test_expect_success 'unknown tracepoint is an unknown event' '
	test_expect_code 64 "$PMREC" -a -e nosuch:thing -o x.data -- true 2>err &&
	test_grep "unknown event .nosuch:thing." err
'

test_expect_success 'bad modifier is a usage error' '
	test_expect_code 64 "$PMREC" -a -e cpu-clock:z -o x.data -- true 2>err &&
	test_grep "modifier" err
'

test_expect_success 'offline CPU: exit 64, names the CPU' '
	test_expect_code 64 "$PMREC" -C 99 -o x.data -- true 2>err &&
	test_grep "CPU 99 is not online" err &&
	test ! -e x.data
'

test_expect_success 'malformed CPU list is a usage error' '
	for l in "x" "1-" "3-1" "1,,2" "-1"; do
		test_expect_code 64 "$PMREC" -C "$l" -o x.data -- true 2>err || exit 1
		grep -q "CPU" err || exit 1
	done
'

test_expect_success '-m 3 (not a power of two) is a usage error' '
	test_expect_code 64 "$PMREC" -a -m 3 -o x.data -- true 2>err &&
	test_grep "power of two" err
'

test_expect_success '-m takes pages or a size: 64K and 64KiB are 16 pages, 6K and 1.5M are errors' '
	"$PMREC" -a -m 64K -q -o k.data -- true &&
	"$PMREC" -a -m 64KiB -q -o k.data -- true &&
	for m in 6K 1.5M 64KB2 K -16; do
		test_expect_code 64 "$PMREC" -a -m "$m" -o x.data -- true 2>err &&
		test_grep "power of two" err || exit 1
	done
'

test_expect_success 'bad -F, -c, --duration and --call-graph are usage errors' '
	test_expect_code 64 "$PMREC" -a -F 0 -- true 2>/dev/null &&
	test_expect_code 64 "$PMREC" -a -F abc -- true 2>/dev/null &&
	test_expect_code 64 "$PMREC" -a -c -5 -- true 2>/dev/null &&
	test_expect_code 64 "$PMREC" -a --duration=soon 2>/dev/null &&
	test_expect_code 64 "$PMREC" -a --call-graph=lbr -- true 2>/dev/null &&
	test_expect_code 64 "$PMREC" -a --call-graph=dwarf,0 -- true 2>/dev/null
'

test_expect_success 'unknown option and unknown command are usage errors' '
	test_expect_code 64 "$PMREC" --no-such-option 2>/dev/null &&
	test_expect_code 64 "$PMREC" frobnicate 2>err &&
	test_grep "not a pmrec command" err
'

test_expect_success 'nothing to record is a usage error' '
	test_expect_code 64 "$PMREC" record -o x.data 2>err &&
	test_grep "nothing to record" err
'

test_expect_success 'hardware event on a machine without PMU says so' '
	if [ -e /sys/bus/event_source/devices/cpu ]; then
		echo "this machine has a hardware PMU: nothing to check" && exit 0
	fi
	test_expect_code 1 "$PMREC" -a -e cycles -o x.data -- true 2>err &&
	test_grep "cannot open .cycles." err &&
	test_grep "no hardware PMU; try -e cpu-clock" err &&
	test ! -e x.data
'

test_expect_success 'a command that cannot run exits 127 and leaves no file' '
	test_expect_code 127 "$PMREC" -o x.data -- ./no-such-program 2>err &&
	test_grep "cannot run ...no-such-program.: No such file or directory" err &&
	test ! -e x.data && test_equal err "$(ls)" "files left"
'

test_expect_success 'output into a directory is refused' '
	mkdir d &&
	test_expect_code 1 "$PMREC" -a -o d -- true 2>err &&
	test_grep "is a directory" err
'

test_expect_success 'a binary stream is never written to a terminal' '
	command -v script >/dev/null || { echo "script(1) missing"; exit 1; }
	script -qec "\"$PMREC\" -a -o - -- true" /dev/null >out 2>&1 || true
	test_grep "refusing to write a binary stream to a terminal" out
'

test_expect_success 'a low soft RLIMIT_NOFILE is raised to what the events need' '
	(ulimit -Sn 12 && "$HELPERS/barefds" "$PMREC" -q -e cpu-clock,task-clock,page-faults,minor-faults,major-faults,cs,migrations -a -o n.data -- true) &&
	test "$(perf report --stats -i n.data 2>/dev/null | grep -c "SAMPLE events")" -ge 1
'

test_expect_success 'a low hard RLIMIT_NOFILE fails with the count it needs' '
	rc=0 && { (ulimit -n 12 && "$HELPERS/barefds" "$PMREC" -e cpu-clock,task-clock,page-faults,minor-faults,major-faults,cs,migrations -a -o n.data -- true) 2>err || rc=$?; } &&
	test_equal 1 "$rc" "exit status" &&
	test_grep "Too many open files" err &&
	test_grep "needs about [0-9]+ file descriptors; RLIMIT_NOFILE allows 12" err
'

test_done
