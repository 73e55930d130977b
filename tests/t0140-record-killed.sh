#!/bin/sh
# A recording killed at any moment stays readable up to its last drain pass.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

test_expect_success 'SIGKILL after 2 seconds: perf script reads the samples' '
	"$PMREC" -a -o k.data 2>err &
	pid=$! &&
	sleep 2 &&
	kill -KILL $pid &&
	{ wait $pid || true; } &&
	perf script -i k.data >script 2>perf.err &&
	! grep -E "data size field is 0|failed|unexpected" perf.err &&
	test "$(wc -l <script)" -gt 100 &&
	test "$(perf_sample_count k.data)" = "$(wc -l <script)"
'

test_expect_success 'SIGKILL with call chains at random moments: always readable' '
	for i in 1 2 3 4 5; do
		"$PMREC" -a -g -o k$i.data 2>/dev/null &
		pid=$!
		sleep $(awk "BEGIN { srand($i); printf \"%.2f\", 0.3 + rand() * 1.2 }")
		kill -KILL $pid
		wait $pid || true
		perf script -i k$i.data >s$i 2>e$i || { cat e$i; exit 1; }
		grep -q -E "data size field is 0|failed" e$i && { cat e$i; exit 1; }
		test -s s$i || { echo "no samples in k$i.data"; exit 1; }
	done
'

test_expect_success 'SIGINT finalizes the file and exits 130' '
	"$PMREC" -a -o i.data 2>err &
	pid=$! &&
	sleep 1 &&
	kill -INT $pid &&
	rc=0 && { wait $pid || rc=$?; } &&
	test_equal 130 "$rc" "exit status" &&
	perf report -i i.data --header-only >hdr 2>/dev/null &&
	test_grep "hostname|os release|cmdline" hdr &&
	test "$(perf_sample_count i.data)" -gt 0
'

test_expect_success 'SIGTERM exits 143 with a complete file' '
	"$PMREC" -a -q -o t.data &
	pid=$! &&
	sleep 0.5 &&
	kill -TERM $pid &&
	rc=0 && { wait $pid || rc=$?; } &&
	test_equal 143 "$rc" "exit status" &&
	perf script -i t.data >/dev/null 2>err &&
	! grep -i warn err
'

test_done
