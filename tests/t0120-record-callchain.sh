#!/bin/sh
# Call chains (-g, --call-graph) that perf report unwinds.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

test_expect_success '-g -a: perf report -g shows call chains' '
	"$PMREC" -g -a -q -o g.data -- sleep 1 &&
	perf report -g --stdio -i g.data >report 2>/dev/null &&
	test_grep "^ +\|" report &&
	test_grep "\-\-[0-9.]+%\-\-|---" report
'

test_expect_success '-g on a workload: main -> alpha -> beta -> spin' '
	"$PMREC" -g -q -o c.data -- "$HELPERS/spin" 1 &&
	perf script -i c.data -F comm,ip,sym >script 2>/dev/null &&
	awk "/^spin/ { if (chain) print chain; chain = \"\"; next }
	     { chain = chain \" \" \$2 }
	     END { if (chain) print chain }" script >chains &&
	test_grep "spin beta alpha main" chains &&
	test "$(grep -c "spin beta alpha main" chains)" -gt "$(($(wc -l <chains) / 2))"
'

test_expect_success '--call-graph dwarf: perf unwinds the user stack' '
	"$PMREC" --call-graph dwarf -q -o d.data -- "$HELPERS/spin" 1 &&
	perf report -g caller --stdio -i d.data --no-children >report 2>/dev/null &&
	test_grep "alpha" report &&
	test_grep "beta" report
'

test_done
