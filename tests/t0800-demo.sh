#!/bin/sh
# make demo (demo/run): the hottest functions of a whole-machine recording,
# the workload's among them, and a flame graph named on the last line.
. "$(dirname "$0")/test-lib.sh"
test_require_root
test_require_perf_event

test_expect_success 'demo/run prints the top rows with the workload'\''s hot function, names the flame graph last' '
	"$SRC_DIR/demo/run" "$PMREC" "$BUILD/demo/primes" >out 2>err &&
	cat out err &&
	sed -n "/^# Overhead/,\$p" out >rows &&
	test_grep "^ +[0-9.]+% +primes +primes +\[\.\] is_prime *$" rows &&
	test "$(grep -c "%" rows)" -le 10 &&
	test_equal "Flame graph (open it in a browser): $PWD/flamegraph.svg" "$(tail -n 1 out)" "last line" &&
	test_grep "<svg" flamegraph.svg &&
	test_grep "is_prime" flamegraph.svg &&
	"$PMREC" report --no-children -g caller pmrec.data >graph &&
	test_grep "count_primes" graph
'

test_expect_success 'the Makefile runs it' '
	test_grep "^	.*demo/run \\$\\(PMREC\\) \\$\\(O\\)/demo/primes" "$SRC_DIR/Makefile"
'

test_done
