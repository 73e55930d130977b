#!/bin/sh
# Flight recorder (--overwrite, SIGUSR2 snapshots) and --switch-output.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

SYS="-e raw_syscalls:sys_enter --filter id==110 -c 1"

# check_readable FILE: perf script reads it with samples and no warning.
check_readable() {
	perf script -i "$1" >"$1.script" 2>"$1.err" || { cat "$1.err"; return 1; }
	if grep -i -E "warn|error|lost" "$1.err"; then return 1; fi
	test -s "$1.script" || { echo "$1: no samples"; return 1; }
}

test_expect_success '--overwrite: three SIGUSR2 and SIGINT give four readable files, exit 0' '
	"$PMREC" --overwrite -a -F 1000 -v -o fr.data 2>err &
	pid=$!
	wait_until grep -q "^pmrec record: recording " err &&
	sleep 1 &&
	for i in 1 2 3; do kill -USR2 $pid; sleep 1; done &&
	kill -INT $pid &&
	rc=0 && { wait $pid || rc=$?; } &&
	test_equal 0 "$rc" "exit status" &&
	test_equal 4 "$(ls fr.data.* | wc -l)" "snapshot files" &&
	for f in fr.data.*; do check_readable "$f" || exit 1; done &&
	test_grep "in 4 snapshots" err &&
	test ! -e fr.data
'

test_expect_success 'snapshot names are OUTPUT.YYYYmmddHHMMSScc' '
	"$PMREC" --overwrite -a -q -o n.data -- sleep 0.3 &&
	ls n.data.* >names &&
	test_grep "^n\.data\.20[0-9]{14}$" names
'

test_expect_success 'a snapshot holds one contiguous run of seqs per CPU, ending at the signal' '
	taskset -c 0 "$HELPERS/seqcall" -w go -r 100000 300000 &
	child=$!
	"$PMREC" --overwrite -p $child $SYS -v -m 8 -o s.data 2>err &
	pid=$!
	wait_until grep -q "^pmrec record: recording " err &&
	sleep 0.3 && touch go && sleep 1 &&
	kill -USR2 $pid && sleep 0.2 &&
	kill -INT $pid && wait $pid && wait $child &&
	first=$(ls s.data.* | head -n 1) &&
	perf script -i $first -F cpu,trace 2>/dev/null >trace &&
	awk "/NR 110/ { v = \$4; sub(/^\(/, \"\", v); sub(/,\$/, \"\", v); print \$1, v }" trace >seqs &&
	test "$(wc -l <seqs)" -gt 100 &&
	for cpu in $(cut -d" " -f1 seqs | sort -u); do
		awk -v c="$cpu" "\$1 == c { print \$2 }" seqs | while read h; do printf "%d\n" 0x$h; done |
			sort -n >c.seqs
		n=$(wc -l <c.seqs)
		lo=$(head -n 1 c.seqs); hi=$(tail -n 1 c.seqs)
		echo "$cpu: $n seqs $lo..$hi"
		test "$(sort -u c.seqs | wc -l)" = "$n" || { echo duplicates; exit 1; }
		test $((hi - lo + 1)) = "$n" || { echo "not one contiguous run"; exit 1; }
		test "$hi" -gt 50000 || { echo "run ends long before the signal"; exit 1; }
	done
'

# perf reads every record of each file (report --stats parses each sample,
# without naming it as perf script would, 5 times slower per file), and the
# samples it counts add up to those pmrec wrote.
test_expect_success 'a storm of 100 SIGUSR2: no crash, every file readable' '
	"$PMREC" --overwrite -a -F 1000 -m 16 -v -o st.data 2>err &
	pid=$!
	wait_until grep -q "^pmrec record: recording " err &&
	sleep 0.5 &&
	i=0 && while [ $i -lt 100 ]; do kill -USR2 $pid; sleep 0.01; i=$((i + 1)); done &&
	sleep 0.5 && kill -INT $pid &&
	rc=0 && { wait $pid || rc=$?; } &&
	test_equal 0 "$rc" "exit status" &&
	n=$(ls st.data.* | wc -l) && echo "$n files" &&
	test "$n" -gt 1 &&
	samples=0 &&
	for f in st.data.*; do
		perf report -i "$f" --stats >stats 2>e || { cat e; exit 1; }
		samples=$((samples + $(awk "/^ *SAMPLE events:/ { print \$3; exit }" stats)))
	done &&
	test_grep "wrote $samples samples in $n snapshots" err
'

test_expect_success '--switch-output=1M: several readable files, every seq exactly once' '
	"$PMREC" $SYS -m 1024 --switch-output=1M -q -o sw.data -- "$HELPERS/seqcall" 200000 &&
	n=$(ls sw.data.* | wc -l) && echo "$n files" &&
	test "$n" -gt 3 &&
	for f in sw.data.*; do perf script -i "$f" -F trace 2>/dev/null; done |
		"$HELPERS/seqcheck" 200000 >r &&
	cat r &&
	lost=0 && for f in sw.data.*; do lost=$((lost + $(perf_lost_samples "$f"))); done &&
	test_grep "dups=0" r &&
	test_equal 200000 "$(($(sed "s/.*unique=\([0-9]*\).*/\1/" r) + lost))" "unique + lost"
'

test_expect_success '--switch-max-files=2 keeps the two newest files' '
	"$PMREC" $SYS --switch-output=256K --switch-max-files=2 -q -o mx.data -- \
		"$HELPERS/seqcall" 100000 &&
	test_equal 2 "$(ls mx.data.* | wc -l)" files
'

test_expect_success '--switch-output on SIGUSR2 in normal mode' '
	"$PMREC" -a --switch-output -v -o sg.data 2>err &
	pid=$!
	wait_until grep -q "^pmrec record: recording " err &&
	sleep 0.5 && kill -USR2 $pid && sleep 0.5 && kill -INT $pid &&
	{ wait $pid || true; } &&
	test_equal 2 "$(ls sg.data.* | wc -l)" files &&
	for f in sg.data.*; do check_readable "$f" || exit 1; done
'

test_expect_success '--switch-output=TIME rotates by time' '
	"$PMREC" -a --switch-output=1s -q -o tm.data -- sleep 2.5 &&
	test "$(ls tm.data.* | wc -l)" -ge 3
'

test_expect_success '--timestamp-filename names the final file' '
	"$PMREC" -a --timestamp-filename -q -o ts.data -- true &&
	ls ts.data.* >names && test_equal 1 "$(wc -l <names)" files && test ! -e ts.data
'

test_expect_success 'usage errors: -o - with --overwrite/--switch-output, SIZE with --overwrite' '
	test_expect_code 64 "$PMREC" -a --overwrite -o - -- true 2>err &&
	test_grep "cannot be combined" err &&
	test_expect_code 64 "$PMREC" -a --switch-output -o - -- true 2>/dev/null &&
	test_expect_code 64 "$PMREC" -a --overwrite --switch-output=1M -- true 2>/dev/null &&
	test_expect_code 64 "$PMREC" -a --switch-output=1x -- true 2>/dev/null &&
	test_expect_code 64 "$PMREC" -a --switch-max-files=2 -- true 2>/dev/null
'

test_done
