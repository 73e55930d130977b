#!/bin/sh
# A recording killed before its features were written does not say which
# kernel it ran on: dump says so and names kernel addresses from the
# running kernel, as perf does (issue 19, item 3).
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool

test_expect_success 'SIGKILLed -a recording: kernel samples named from this kernel, one warning' '
	"$PMREC" -a -o k.data &
	pid=$!
	while [ ! -e k.data ]; do sleep 0.05; done &&
	sleep 0.5 &&
	kill -KILL $pid &&
	{ wait $pid || true; } &&
	"$PMREC" dump --type=sample k.data >out 2>err &&
	cat err &&
	test "$(grep -c "does not say which kernel" err)" = 1 &&
	! grep -q "another kernel" err &&
	kernel=$(grep -c "cpumode=kernel" out) &&
	named=$(grep "cpumode=kernel" out | grep -c " dso=\[kernel.kallsyms\]") &&
	echo "kernel samples $kernel, named $named" &&
	test "$kernel" -gt 0 &&
	test "$named" -ge $((kernel * 9 / 10)) &&
	# perf names the same addresses the same way.
	perf script -i k.data -F ip,sym 2>/dev/null | awk "\$1 ~ /^ffffffff/ && NF > 1 { n++ } END { print n + 0 }" >perf.n &&
	test "$(cat perf.n)" -gt 0
'

test_expect_success 'a finished recording names kernel addresses without that warning' '
	"$PMREC" -a -q -o f.data -- sleep 0.3 &&
	"$PMREC" dump --type=sample f.data >out 2>err &&
	! grep -q "which kernel" err &&
	grep "cpumode=kernel" out | grep -q " sym="
'

test_done
