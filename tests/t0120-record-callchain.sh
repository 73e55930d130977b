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

# chain_words REPORT: the symbol column of perf report -g's graph, one line.
chain_words() {
	sed -n "s/^[ |-]*\([0-9.]*%--\)*\([A-Za-z_][A-Za-z0-9_.]*\).*/\2/p" "$1" | tr "\n" " "
}

test_expect_success '-g: dump --folded and perf report -g show the same chain' '
	"$PMREC" -g -q -o c.data -- "$HELPERS/spin" 1 &&
	"$PMREC" dump --folded c.data >folded &&
	total=$(awk "{ n += \$NF } END { print n }" folded) &&
	hot=$(grep -E "^spin;(.*;)?main;alpha;beta;spin [0-9]+$" folded | awk "{ n += \$NF } END { print n + 0 }") &&
	test "$hot" -gt "$((total / 2))" &&
	test_equal "$(perf_sample_count c.data)" "$total" "folded samples vs perf" &&
	perf report -g caller --no-children --stdio -i c.data >report 2>/dev/null &&
	chain_words report >words &&
	test_grep "main alpha beta spin" words
'

test_expect_success '--call-graph dwarf without frame pointers: perf unwinds spin <- beta <- alpha' '
	"$PMREC" --call-graph dwarf -q -o d.data -- "$HELPERS/spin-nofp" 1 &&
	perf report -g caller --no-children --stdio -i d.data >report 2>/dev/null &&
	chain_words report >words &&
	test_grep "main alpha beta spin" words
'

test_expect_success 'frame pointers alone cannot unwind the -fomit-frame-pointer build' '
	"$PMREC" -g -q -o n.data -- "$HELPERS/spin-nofp" 1 &&
	"$PMREC" dump --folded n.data >folded &&
	! grep -q "alpha;beta;spin" folded
'

test_expect_success '--call-graph dwarf,SIZE sets the stack copy size' '
	"$PMREC" --call-graph dwarf,4096 -q -o s.data -- "$HELPERS/spin-nofp" 0.2 &&
	"$PMREC" dump --json --type sample s.data >out &&
	test_grep "\"stack_user_size\":4096" out
'

test_expect_success '--call-graph with a bad mode or size is a usage error' '
	test_expect_code 64 "$PMREC" --call-graph lbr -o x.data -- true &&
	test_expect_code 64 "$PMREC" --call-graph dwarf,0 -o x.data -- true &&
	test_expect_code 64 "$PMREC" --call-graph dwarf,70000 -o x.data -- true &&
	test_expect_code 64 "$PMREC" --call-graph dwarf,12x -o x.data -- true
'

test_done
