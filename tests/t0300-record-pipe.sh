#!/bin/sh
# Pipe mode (-o -): perf's stream format on stdout, and a reader that leaves.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

test_expect_success '-o - | perf script -i -: samples with command names' '
	"$PMREC" -a -o - -- sleep 1 2>err | perf script -i - >script 2>perf.err &&
	test "$(wc -l <script)" -gt 100 &&
	test_grep "^ *(swapper|sleep|pmrec|kworker)" script &&
	test_equal "$(sed -n "s/.*wrote \([0-9]*\) samples.*/\1/p" err)" "$(wc -l <script)" samples
'

test_expect_success '-o - with a tracepoint: perf script decodes the fields' '
	"$PMREC" -a -e sched:sched_switch -q -o - -- sleep 1 | perf script -i - >script 2>/dev/null &&
	test_grep "prev_comm=.*next_comm=" script
'

test_expect_success 'a pipe stream saved to a file is read by perf report' '
	"$PMREC" -a -o - -- sleep 0.5 >p.data 2>err &&
	test_equal "$(sed -n "s/.*wrote \([0-9]*\) samples.*/\1/p" err)" "$(perf_sample_count p.data)" samples
'

test_expect_success '-o - | pmrec dump --stats counts what perf counts in the same stream' '
	"$PMREC" -a -q -o - -- sleep 1 | tee p.data | "$PMREC" dump --stats >stats &&
	test_equal "$(perf_sample_count p.data)" "$(awk "/^total +samples/ { print \$3 }" stats)" samples
'

test_expect_success 'the reader goes away: exit 141 with one line, promptly, not killed by SIGPIPE' '
	{ "$PMREC" -a -o - -- sleep 5 2>err; echo $? >rc; } | head -c 300000 >/dev/null &&
	test_equal 141 "$(cat rc)" "exit status" &&
	test_grep "reader of the output pipe went away" err &&
	test_equal 1 "$(wc -l <err)" "lines on stderr"
'

test_expect_success 'the reader leaves before the first sample: exit 141' '
	{ "$PMREC" -a -o - -- sleep 5 2>err; echo $? >rc; } | head -c 100 >/dev/null &&
	test_equal 141 "$(cat rc)" "exit status"
'

test_done
