#!/bin/sh
# System-wide recording read back by the real perf: exact sample counts.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

# pmrec's own count from its summary line: "wrote N samples".
pmrec_samples() {
	sed -n 's/.*wrote \([0-9]*\) samples.*/\1/p' "$1"
}

test_expect_success 'record -a with a workload exits 0 and reports samples' '
	"$PMREC" -a -o a.data -- sleep 1 2>err &&
	test_grep "wrote [0-9]+ samples" err &&
	test "$(pmrec_samples err)" -gt 0
'

test_expect_success 'perf report --stats counts exactly the samples pmrec wrote' '
	"$PMREC" -a -o a.data -- sleep 1 2>err &&
	perf report -i a.data --stats >stats 2>perf.err &&
	test_equal "$(pmrec_samples err)" "$(perf_sample_count a.data)" "SAMPLE count" &&
	! grep -i -E "warn|error|unexpected" perf.err
'

test_expect_success 'perf script reads every sample without a warning' '
	"$PMREC" -a -o a.data -- sleep 1 2>err &&
	perf script -i a.data >script 2>perf.err &&
	test_equal "$(pmrec_samples err)" "$(wc -l <script)" "perf script lines" &&
	! grep -i -E "warn|error|unexpected" perf.err
'

test_expect_success 'perf report names commands and kernel symbols' '
	"$PMREC" -a -o a.data -- sleep 1 2>err &&
	perf report -i a.data --stdio --sort comm,dso,sym >report 2>/dev/null &&
	test_grep "\[kernel\.kallsyms\] +\[k\] [a-z_]" report &&
	grep -E "^ +[0-9.]+%" report >rows &&
	test "$(grep -c -v "\[unknown\]" rows)" -gt 0 &&
	test_grep "^ +[0-9.]+% +(swapper|pmrec|sleep|kworker)" rows
'

test_expect_success 'record is the default command' '
	"$PMREC" record -a -q -o r.data -- true &&
	"$PMREC" -a -q -o d.data -- true &&
	perf report -i r.data --stats >/dev/null 2>&1 &&
	perf report -i d.data --stats >/dev/null 2>&1
'

test_expect_success 'two events: perf reports both by name' '
	"$PMREC" -a -e cpu-clock,page-faults -o two.data -- sleep 1 2>err &&
	perf script -i two.data -F event >events 2>/dev/null &&
	test_grep "^ *cpu-clock:" events &&
	test_grep "^ *page-faults:" events &&
	test_equal "$(pmrec_samples err)" "$(perf_sample_count two.data)" "SAMPLE count"
'

test_expect_success 'repeated -e and an alias give two events' '
	"$PMREC" -a -e cpu-clock -e faults -q -o two.data -- sleep 0.5 &&
	perf script -i two.data -F event 2>/dev/null | sort -u >events &&
	test_grep "cpu-clock" events &&
	test_grep "page-faults" events
'

test_expect_success '-C 0 records only CPU 0' '
	"$PMREC" -C 0 -q -o c0.data -- sleep 1 &&
	perf script -i c0.data -F cpu >cpus 2>/dev/null &&
	test -s cpus &&
	test_equal "[000]" "$(sort -u cpus | tr -d " ")" "CPUs seen"
'

test_expect_success 'without -C, samples come from every online CPU' '
	"$PMREC" -a -q -o all.data -- sleep 1 &&
	perf script -i all.data -F cpu 2>/dev/null | sort -u | wc -l >n &&
	test_equal "$(nproc)" "$(cat n)" "distinct CPUs"
'

test_expect_success 'record -a describes 600 processes that were running before it' '
	# Enough processes that their records pass through several flushes
	# of the synthesis buffer (256 KiB).
	i=0 &&
	while [ $i -lt 600 ]; do
		sleep 300 &
		echo $! >>pids
		i=$((i + 1))
	done &&
	"$PMREC" -a -q -o a.data -- true;
	rc=$?
	xargs kill <pids
	test "$rc" = 0 &&
	"$PMREC" dump --no-symbols a.data >dump &&
	sed -n "s/^0x[0-9a-f]* 0.000000000 [-0-9]* \([0-9]*\)\/[0-9]* COMM comm=sleep .*/\1/p" dump |
		sort -u >comm.pids &&
	sort -u pids >want &&
	test_equal 600 "$(comm -12 want comm.pids | wc -l)" "sleepers with a COMM" &&
	sed -n "s/^0x[0-9a-f]* 0.000000000 [-0-9]* \([0-9]*\)\/[0-9]* MMAP2 .*filename=.*\/sleep$/\1/p" dump |
		sort -u >mmap.pids &&
	test_equal 600 "$(comm -12 want mmap.pids | wc -l)" "sleepers with an MMAP2 of sleep" &&
	test_equal 1 "$(grep -c " FINISHED_INIT$" dump)" "FINISHED_INIT records" &&
	last=$(grep -n " 0.000000000 " dump | tail -n 1 | cut -d: -f1) &&
	fin=$(grep -n " FINISHED_INIT$" dump | cut -d: -f1) &&
	test "$fin" -gt "$last" &&
	perf report -i a.data --stats >stats 2>perf.err &&
	test "$(awk "/^ *COMM events:/ { print \$3; exit }" stats)" -ge 600 &&
	perf buildid-list -i a.data >ids 2>/dev/null &&
	test_grep "/sleep$" ids
'

test_expect_success '--synth=task writes COMMs without maps, --synth=no neither; the kernel map stays' '
	sleep 300 &
	pid=$! &&
	"$PMREC" -a -q --synth=task -o t.data -- true &&
	"$PMREC" -a -q --synth=no -o n.data -- true &&
	"$PMREC" -a -q --synth=all -o a.data -- true;
	rc=$?
	kill $pid
	test "$rc" = 0 &&
	for f in t n a; do
		"$PMREC" dump --no-symbols $f.data >$f.dump &&
		test_grep "MMAP .*filename=\[kernel\.kallsyms\]_text" $f.dump &&
		grep " 0.000000000 [-0-9]* $pid/$pid COMM " $f.dump >$f.comm;
		grep " 0.000000000 [-0-9]* $pid/$pid MMAP2 " $f.dump >$f.mmap;
		perf report -i $f.data --stats >/dev/null 2>&1 || exit 1
	done &&
	test_equal "1 1 0" "$(wc -l <t.comm) $(wc -l <a.comm) $(wc -l <n.comm)" "COMMs of the sleeper (task all no)" &&
	test_equal 0 "$(wc -l <t.mmap)" "MMAP2s with --synth=task" &&
	test "$(wc -l <a.mmap)" -gt 0 &&
	test_equal 0 "$(wc -l <n.mmap)" "MMAP2s with --synth=no"
'

test_expect_success '--synth takes all, task or no' '
	test_expect_code 64 "$PMREC" -a --synth=mmap -o x.data -- true 2>err &&
	test_grep "bad --synth .mmap.: all, task or no" err &&
	test_expect_code 64 "$PMREC" -a --synth= -o x.data -- true 2>/dev/null
'

test_expect_success '-vv times each phase in wall and CPU time, in order' '
	"$PMREC" -vv -a -o v.data -- sleep 0.2 2>err &&
	sed -n "s/^pmrec record: \([^:]*\): \([0-9]*\.[0-9]\{3\}\) s, \([0-9]*\.[0-9]\{3\}\) s CPU\$/\1|\2|\3/p" \
		err >phases &&
	cat phases &&
	printf "%s\n" set-up "events opened and mapped" "file'"'"'s prologue" "events enabled" \
		recording "events disabled, rings drained and unmapped" \
		"lost counts, JIT maps, file finished" >expect &&
	head -7 phases | cut -d"|" -f1 >got &&
	test_cmp expect got &&
	awk -F"|" -v n="$(nproc)" "
		\$1 == \"recording\" && \$2 < 0.2 { print \"recording shorter than the workload\"; bad = 1 }
		\$3 > \$2 * n + 0.002 { print \$1 \": more CPU than \" n \" CPUs give\"; bad = 1 }
		END { exit bad }" phases
'

# The command has a name of its own: other tests run sleep meanwhile.
test_expect_success '-a with a command: the samples lie within its exec and exit, as perf reads them' '
	cp "$(command -v sleep)" lifesleep &&
	"$PMREC" -q -a -o w.data -- ./lifesleep 0.3 &&
	perf script --ns --show-task-events -F comm,pid,time,event -i w.data >script 2>/dev/null &&
	awk "
		function when(   i) {
			for (i = 2; i <= NF; i++) if (\$i ~ /^[0-9]+\.[0-9]+:\$/) return substr(\$i, 1, length(\$i) - 1) + 0
			return -1
		}
		/PERF_RECORD_COMM exec: lifesleep:/ { x = when(); next }
		/PERF_RECORD_EXIT/ && \$1 == \"lifesleep\" { e = when(); next }
		/PERF_RECORD_/ { next }
		{ t[++n] = when() }
		END {
			if (!x || !e || n < 10) { print \"exec \" x \" exit \" e \" samples \" n; exit 1 }
			for (i = 1; i <= n; i++) if (t[i] < x || t[i] > e) { printf \"%.9f outside %.9f-%.9f\\n\", t[i], x, e; bad++ }
			exit bad > 0
		}" script
'

# The process lives on in its second thread: the window ends at that
# thread's EXIT, not at the main thread's.
test_expect_success '-a with a command whose main thread ends first: its other thread is recorded to its exit' '
	"$PMREC" -q -a -o m.data -- "$HELPERS/mainexit" 0.3 &&
	perf script --ns --show-task-events -F comm,tid,time,event -i m.data >script 2>/dev/null &&
	awk "
		function when(   i) {
			for (i = 2; i <= NF; i++) if (\$i ~ /^[0-9]+\.[0-9]+:\$/) return substr(\$i, 1, length(\$i) - 1) + 0
			return -1
		}
		/PERF_RECORD_EXIT/ && \$1 == \"mainexit\" { e[++n] = when(); next }
		/PERF_RECORD_/ { next }
		{ t = when(); last = t > last ? t : last; if (\$1 == \"mainexit\") s[++m] = t }
		END {
			if (n != 2) { print n \" EXITs of mainexit\"; exit 1 }
			for (i = 1; i <= m; i++) after += s[i] > e[1]
			printf \"%d samples of mainexit, %d after its main thread exit\\n\", m, after
			if (last > e[2]) printf \"a sample at %.9f after its last thread exit at %.9f\\n\", last, e[2]
			exit !(after > 0 && last <= e[2])
		}" script
'

test_done
