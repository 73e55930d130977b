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

test_expect_success 'SIGKILL with call chains at 20 random moments: always readable' '
	for i in $(seq 20); do
		"$PMREC" -a -g -o k$i.data 2>/dev/null &
		pid=$!
		# Recording starts when the file appears; kill it 0-1.3 s later.
		while [ ! -e k$i.data ]; do sleep 0.01; done
		sleep $(awk "BEGIN { srand($i); printf \"%.2f\", rand() * 1.3 }")
		kill -KILL $pid
		wait $pid || true
		perf script -i k$i.data >s$i 2>e$i || { cat e$i; exit 1; }
		grep -q -E "data size field is 0|failed" e$i && { cat e$i; exit 1; }
		test -s s$i || { echo "no samples in k$i.data"; exit 1; }
	done
'

test_expect_success 'a killed tracepoint recording: pmrec dump decodes its fields' '
	"$PMREC" -a -e raw_syscalls:sys_enter -o t.data 2>/dev/null &
	pid=$!
	sleep 1
	kill -KILL $pid
	wait $pid || true
	"$PMREC" dump --no-symbols --type sample t.data >out 2>err &&
	test "$(wc -l <out)" -gt 100 &&
	test_equal "$(grep -c "^0x.* SAMPLE " out)" "$(grep -c "^0x.* SAMPLE .* raw_size=[0-9]* id=[0-9]* args=" out)" "decoded samples"
'

# perf wants the formats when it opens the file, from the feature section:
# pmrec keeps them after the data of an unfinished file.
test_expect_success 'a killed tracepoint recording: perf script decodes every sample pmrec dump counts' '
	"$PMREC" -a -e raw_syscalls:sys_enter -o t.data 2>/dev/null &
	pid=$!
	while [ ! -e t.data ]; do sleep 0.01; done
	sleep 0.5
	kill -KILL $pid
	wait $pid || true
	perf script -F event,trace -i t.data >script 2>perf.err || { cat perf.err; exit 1; }
	"$PMREC" dump --stats t.data >stats &&
	n=$(awk "\$1 == \"total\" && \$2 == \"samples\" { print \$3 }" stats) &&
	test "$n" -gt 100 &&
	test_equal "$n" "$(grep -c "raw_syscalls:sys_enter: *NR [0-9]" script)" "samples perf decodes"
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

test_expect_success 'a second SIGINT kills a workload that ignores SIGTERM and SIGINT' '
	"$PMREC" -q -o w.data -- sh -c "trap \"\" TERM INT; while :; do sleep 0.1; done" &
	pid=$!
	sleep 0.5
	kill -INT $pid
	sleep 0.5
	kill -0 $pid
	kill -INT $pid
	rc=0 && { timeout 10 sh -c "while kill -0 $pid 2>/dev/null; do sleep 0.05; done" || rc=$?; } &&
	test_equal 0 "$rc" "pmrec ended within 10 s" &&
	{ wait $pid || true; } &&
	perf script -i w.data >/dev/null 2>err &&
	! grep -i -E "error|failed" err
'

# LeakSanitizer cannot run under ptrace: no leak check for the traced runs.
test_expect_success '--sync: fdatasync at most once a second, and at the end' '
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" &&
	strace -f -qq -e trace=fdatasync -o trace "$PMREC" --sync -a -q -o s.data -- sleep 2.5 &&
	n=$(grep -c "fdatasync(" trace) &&
	test "$n" -ge 2 && test "$n" -le 5 &&
	strace -f -qq -e trace=fdatasync -o trace2 "$PMREC" -a -q -o n.data -- sleep 0.5 &&
	test_equal 0 "$(grep -c "fdatasync(" trace2)" "fdatasync calls without --sync" &&
	perf script -i s.data >/dev/null
'

test_done
