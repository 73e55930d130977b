#!/bin/sh
# Two names perf gives where pmrec had none: the idle task (pid 0, which no
# COMM names) is "swapper", and a kernel address of another kernel's
# recording (no kallsyms of it here) is in "[kernel.kallsyms]" when it is in
# the recorded kernel text.  The oracle is perf report on the same files.
# The idle task runs only when a CPU has nothing to do, which a loaded
# machine never has: half the samples of a recording are given pid 0
# (perfdata-edit.py); "another kernel" is the recording with its kernel
# build id changed, as a recording moved from another machine is.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool

EDIT="python3 $SRC_DIR/tests/helpers/perfdata-edit.py"
D=$TMP_ROOT/rec
mkdir -p "$D"

# rows PROG FILE KEYS: the table of `report --no-children -s KEYS -g none`
# by PROG (perf or pmrec), blanks squeezed (a column's width follows its
# longest name), sorted (ties are in any order).
rows() {
	if [ "$1" = perf ]; then
		perf report -i "$2" --stdio --no-children -s "$3" -g none 2>/dev/null
	else
		"$PMREC" report --no-children -s "$3" -g none "$2" 2>"$2.err"
	fi | grep -E "^ +[0-9.]+% " | tr -s " " | sed "s/ $//" | sort
}

test_expect_success 'a recording with kernel samples, half of them given pid 0' '
	"$PMREC" record -q -g -e cpu-clock -c 200000 -o "$D/q.data" -- "$HELPERS/seqcall" 200000 &&
	"$PMREC" dump "$D/q.data" |
		awk "\$5 == \"SAMPLE\" && n++ % 2 == 0 { print \"pid=\" \$1 \":0\" }" >ops &&
	test_at_least 100 "$(wc -l <ops)" "samples given pid 0" &&
	$EDIT "$D/q.data" "$D/idle.data" $(cat ops) &&
	perf script -i "$D/idle.data" -F pid 2>/dev/null | grep -c -E "^ *0 *$" >n &&
	test_equal "$(wc -l <ops)" "$(cat n)" "perf script samples of pid 0"
'

# By comm and file: where a kernel symbol has aliases, perf and pmrec may
# choose another one (__x64_sys_getppid, __ia32_sys_getppid).
test_expect_success 'pid 0 is swapper in report, as perf names it' '
	rows perf "$D/idle.data" comm,dso >want &&
	rows pmrec "$D/idle.data" comm,dso >got &&
	test_grep " swapper \[kernel\.kallsyms\]$" want &&
	test_cmp want got &&
	! grep -E " :0 " got
'

test_expect_success 'pid 0 is swapper in folded stacks' '
	"$PMREC" dump --folded "$D/idle.data" >folded &&
	test_grep "^swapper;" folded &&
	! grep "^:0;" folded
'

# Kernel rows only: a sample in a PLT stub is perf's name@plt and pmrec's
# offset (pmrec-report(1), NOTES; t0795).
test_expect_success 'another kernel: its kernel text is [kernel.kallsyms], as perf says' '
	id=$("$PMREC" dump --header "$D/idle.data" |
		sed -n "s/.* build_id=\([0-9a-f]*\) cpumode=kernel filename=\[kernel.kallsyms\]$/\1/p") &&
	test -n "$id" &&
	python3 -c "
import sys
b = bytearray(open(sys.argv[1], \"rb\").read())
i = b.find(bytes.fromhex(sys.argv[2]))
assert i > 0 and b.count(bytes.fromhex(sys.argv[2])) == 1
b[i] ^= 0xff
open(sys.argv[3], \"wb\").write(b)
" "$D/idle.data" "$id" other.data &&
	rows perf other.data comm,dso,sym | grep -F " [k] " >want &&
	rows pmrec other.data comm,dso,sym | grep -F " [k] " >got &&
	test_grep "recorded on another kernel" other.data.err &&
	test_grep " seqcall \[kernel\.kallsyms\] \[k\] 0xffff" want &&
	test_grep " swapper \[kernel\.kallsyms\] \[k\] 0xffff" want &&
	test_cmp want got
'

test_done
