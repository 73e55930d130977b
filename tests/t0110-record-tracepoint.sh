#!/bin/sh
# Tracepoints: perf decodes their fields from the tracing data pmrec writes.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

test_expect_success 'sched:sched_switch: perf script prints decoded fields' '
	"$PMREC" -a -e sched:sched_switch -o t.data -- sleep 1 2>err &&
	perf script -i t.data >script 2>perf.err &&
	test_grep "sched:sched_switch: prev_comm=.* prev_pid=[0-9]+ .*==> next_comm=" script &&
	! grep -i -E "warn|error" perf.err &&
	test_equal "$(sed -n "s/.*wrote \([0-9]*\) samples.*/\1/p" err)" "$(wc -l <script)" "samples"
'

test_expect_success 'tracepoint with a filter records only matching syscalls' '
	"$PMREC" -e raw_syscalls:sys_enter --filter "id == 110" -c 1 -q -o f.data -- \
		"$HELPERS/seqcall" 1000 &&
	perf script -i f.data -F trace >trace 2>/dev/null &&
	test_equal 1000 "$(grep -c "NR 110 " trace)" "getppid samples" &&
	test_equal 1000 "$(wc -l <trace)" "all samples"
'

test_expect_success 'a filter the kernel rejects is an error that shows the expression' '
	test_expect_code 1 "$PMREC" -e raw_syscalls:sys_enter --filter "nosuchfield == 1" \
		-o f.data -- true 2>err &&
	test_grep "rejected filter .nosuchfield == 1." err &&
	test ! -e f.data
'

test_expect_success '--filter without a preceding tracepoint is a usage error' '
	test_expect_code 64 "$PMREC" -e cpu-clock --filter "id == 1" -o f.data -- true 2>err &&
	test_grep "must follow a tracepoint" err
'

test_expect_success 'tracepoint and software event together' '
	"$PMREC" -a -e sched:sched_switch,cpu-clock -q -o m.data -- sleep 0.5 &&
	perf script -i m.data -F event 2>/dev/null | sort -u >events &&
	test_grep "sched:sched_switch" events &&
	test_grep "cpu-clock" events
'

test_done
