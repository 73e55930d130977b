#!/bin/sh
# pmrec dump on files written by the real `perf record` 6.x: valid JSON on
# every line, and the same SAMPLE count as `perf report --stats`.
. "$(dirname "$0")/test-lib.sh"

test_require_perf_tool
test_require_root
# Probed with perf itself: only `pmrec dump` is under test here.  -B: perf 6.1
# aborts in its build-id pass when /proc/kallsyms lists [__builtin__ftrace].
perf record -q -B -o "$TMP_ROOT/.probe.data" -e cpu-clock -- true >"$TMP_ROOT/.probe.log" 2>&1 ||
	test_skip_all "perf record cannot open events: $(head -n 1 "$TMP_ROOT/.probe.log")"

# A tracefs mount for tracepoint recordings.
if [ ! -e /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi

# check_dump FILE: JSON is valid and its SAMPLE count, and --stats', are
# perf's count (which must not be 0: the recording has to mean something).
check_dump() {
	want=$(perf_sample_count "$1")
	test "$want" -gt 0 || { echo "perf counts no samples in $1"; return 1; }
	"$PMREC" dump --json "$1" >dump.json || return 1
	got=$(python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    r = json.loads(line)
    n += r["type"] == "SAMPLE"
print(n)' <dump.json) || return 1
	test_equal "$want" "$got" "JSON SAMPLE count vs perf report --stats" || return 1
	"$PMREC" dump --stats "$1" >stats || return 1
	test_equal "$want" "$(awk '$1 == "type" && $2 == "SAMPLE" { print $3 }' stats)" \
		"--stats SAMPLE count" || return 1
	test_equal "$want" "$(awk '$1 == "total" && $2 == "samples" { print $3 }' stats)" \
		"--stats total samples"
}

test_expect_success 'perf record -a' '
	perf record -q -B -a -F 1000 -o a.data -- sleep 0.3 &&
	check_dump a.data
'

test_expect_success 'perf record -a -g: call chains' '
	perf record -q -B -a -g -F 1000 -o g.data -- sleep 0.3 &&
	check_dump g.data &&
	python3 -c "
import json, sys
s = [json.loads(l) for l in sys.stdin]
s = [r for r in s if r[\"type\"] == \"SAMPLE\"]
assert all(\"callchain\" in r for r in s), \"sample without callchain\"
assert any(len(r[\"callchain\"]) > 1 for r in s), \"no chain longer than 1\"
" <dump.json
'

test_expect_success 'two events: cpu-clock,page-faults' '
	perf record -q -B -a -e cpu-clock,page-faults -o e.data -- sleep 0.3 &&
	check_dump e.data &&
	"$PMREC" dump --stats e.data >stats &&
	grep -q "^event  *cpu-clock " stats
'

test_expect_success 'tracepoint: sched:sched_switch fields by name' '
	perf record -q -B -a -e sched:sched_switch -o t.data -- sleep 0.3 &&
	check_dump t.data &&
	"$PMREC" dump --type=sample t.data >out &&
	test_grep "event=sched:sched_switch .* prev_comm=.* prev_pid=[0-9]+ .* next_pid=[0-9]+" out &&
	python3 -c "
import json, sys
s = [json.loads(l) for l in sys.stdin]
s = [r for r in s if r[\"type\"] == \"SAMPLE\"]
assert all(r[\"event\"] == \"sched:sched_switch\" for r in s)
assert all(isinstance(r[\"fields\"][\"next_pid\"], int) for r in s)
assert all(isinstance(r[\"fields\"][\"prev_comm\"], str) for r in s)
" <dump.json
'

test_expect_success '--call-graph dwarf: user stacks and registers' '
	perf record -q -B -F 1000 --call-graph dwarf -o d.data -- \
		sh -c "i=0; while [ \$i -lt 30000 ]; do i=\$((i + 1)); done" 2>/dev/null &&
	check_dump d.data &&
	"$PMREC" dump --type=sample d.data >out &&
	test_grep "regs_user_abi=[0-9]+ regs_user=0x" out &&
	test_grep "stack_user_size=[0-9]+ stack_user_dyn_size=[0-9]+" out
'

test_expect_success 'pipe mode: perf record -o - > file, and on stdin' '
	perf record -q -B -a -F 1000 -o - -- sleep 0.3 >p.data &&
	check_dump p.data &&
	"$PMREC" dump --stats p.data >want &&
	cat p.data | "$PMREC" dump --stats >got &&
	test_cmp want got &&
	grep -q "^type  *HEADER_ATTR " want &&
	grep -q "^type  *HEADER_FEATURE " want
'

test_expect_success 'a workload: perf record -- sleep 0.3' '
	perf record -q -B -F 1000 -o w.data -- sleep 0.3 &&
	"$PMREC" dump --json w.data >dump.json &&
	python3 -c "import json,sys;[json.loads(l) for l in sys.stdin]" <dump.json &&
	test_equal "$(perf_sample_count w.data)" \
		"$("$PMREC" dump --stats w.data | awk "\$1 == \"total\" && \$2 == \"samples\" { print \$3 }")" \
		samples &&
	"$PMREC" dump --type=comm w.data >comm &&
	test_grep "COMM comm=sleep exec=1" comm
'

test_expect_success '--header agrees with perf report --header-only' '
	perf record -q -B -a -F 1000 -o h.data -- sleep 0.1 &&
	"$PMREC" dump --header h.data >h &&
	perf report --header-only -i h.data >ph 2>/dev/null &&
	for key in hostname "os release" arch cpuid; do
		want=$(grep "^# $key : " ph | head -n 1) &&
		test_equal "$want" "$(grep "^# $key : " h)" "$key" || exit 1
	done &&
	test_grep "^# nrcpus online : $(grep "^# nrcpus online" ph | sed "s/.*: //")$" h
'

test_expect_success '--ordered output is sorted within perf rounds, nothing lost' '
	perf record -q -B -a -F 1000 -o o.data -- sleep 0.3 &&
	"$PMREC" dump o.data | grep -c "^0x" >n1 &&
	"$PMREC" dump --ordered o.data | grep -c "^0x" >n2 &&
	test_cmp n1 n2 &&
	"$PMREC" dump --ordered --type=sample o.data | awk "/^0x/ { print \$2 }" >times &&
	test -s times &&
	sort -n -c times
'

# Alone: nothing on stderr, from a whole-machine recording, holds only while
# no other test replaces a program it ran (t0125, t0540 do) meanwhile; dump
# would say that file is not used for symbols.
test_alone
test_expect_success 'a closed stdout (| head) ends the dump quietly' '
	perf record -q -B -a -g -F 4000 -o big.data -- sleep 0.5 &&
	{ "$PMREC" dump big.data 2>err; echo $? >rc; } | head -n 1 >/dev/null &&
	test_equal 0 "$(cat rc)" "exit status" &&
	test_equal "" "$(cat err)" stderr
'

test_done
