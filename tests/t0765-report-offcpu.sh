#!/bin/sh
# record --off-cpu and report's offcpu-time, state sort key and --wall, on
# tests/helpers/offcpu: threads that sleep, block on a pipe, spin, migrate
# and wait for one CPU, each measuring its own blocked time and life.
# Checked against those measurements (tests/helpers/offcpu-check.py) and
# against perf script's switches on the same file; then the outputs (text,
# flame graph, pprof) and the messages of a recording that lacks something.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool

CHECK="python3 $SRC_DIR/tests/helpers/offcpu-check.py"
R=$TMP_ROOT
# json FILE OUT [REPORT OPTIONS]: offcpu-time per tid, function and state.
json() {
	in=$1 out=$2
	shift 2
	"$PMREC" report -i "$in" --event offcpu-time --children --sort tid,sym,state --json \
		-g none "$@" >"$out"
}

test_expect_success 'record --off-cpu -g: the sleeper, the reader and the spinner' '
	"$PMREC" record --off-cpu -g -k mono -q -o "$R/w.data" -- \
		"$HELPERS/offcpu" wait 10 10 >"$R/w.out" &&
	"$PMREC" dump --json --type=exit "$R/w.data" >"$R/w.exits" &&
	"$PMREC" record --off-cpu -g -k mono -q -o "$R/m.data" -- \
		"$HELPERS/offcpu" wait 10 10 migrate >"$R/m.out" &&
	"$PMREC" dump --json --type=exit "$R/m.data" >"$R/m.exits" &&
	"$PMREC" dump --stats "$R/w.data" >stats &&
	test_grep "^type +SWITCH +[1-9]" stats &&
	test_grep "^event +sched:sched_switch +[1-9]" stats
'

test_expect_success '--off-cpu samples every switch whatever -F says; context_switch for tasks' '
	"$PMREC" record --off-cpu -F 500 -q -o f.data -- true &&
	perf evlist -v -i f.data >evlist 2>/dev/null &&
	test_grep "^sched:sched_switch: .*sample_freq \}: 1," evlist &&
	! grep "^sched:sched_switch: " evlist | grep -q "freq: 1" &&
	test_grep "^cpu-clock: .*sample_freq \}: 500, .*freq: 1, .*context_switch: 1" evlist
'

test_expect_success 'perf reads the file: its sched_switch and sample counts are dump'"'"'s' '
	test_equal "$(awk "/^event +sched:sched_switch/ { print \$3 }" \
		"$TMP_ROOT/1/stats")" \
		"$(perf script -i "$R/w.data" -F event 2>/dev/null | grep -c sched_switch)" \
		"sched_switch samples" &&
	test_equal "$(awk "/^total +samples/ { print \$3 }" "$TMP_ROOT/1/stats")" \
		"$(perf_sample_count "$R/w.data")" samples
'

test_expect_success 'off-CPU time under nap and pipe_wait is what the threads measured (5 %)' '
	json "$R/w.data" w.json &&
	$CHECK blocked "$R/w.out" w.json "$R/w.exits"
'

test_expect_success 'a thread migrating on every sleep: the same' '
	json "$R/m.data" m.json &&
	$CHECK blocked "$R/m.out" m.json "$R/m.exits"
'

test_expect_success 'per-thread totals are perf script'"'"'s switches paired (1 %), across CPUs' '
	json "$R/m.data" m.json &&
	perf script -i "$R/m.data" --show-switch-events -F tid,cpu,time,event,trace \
		>script 2>/dev/null &&
	$CHECK oracle "$R/m.out" m.json script >check &&
	cat check &&
	test_grep "^migrated=([2-9]|[1-9][0-9])" check
'

test_expect_success '--json: the rows add up to the event total' '
	"$PMREC" report -i "$R/w.data" --event offcpu-time --sort tid,state --no-children \
		-g none --json >j.json &&
	python3 -c "
import json, sys
e = json.load(open(\"j.json\"))[\"events\"][0]
s = sum(r[\"self_period\"] for r in e[\"rows\"])
sys.exit(0 if s == e[\"period\"] and e[\"event\"] == \"offcpu-time\" else \"%d != %d\" % (s, e[\"period\"]))
"
'

test_expect_success 'a stream (record -o -): off-CPU and wall-clock rows, from stdin as from the saved stream' '
	"$PMREC" record --off-cpu -g -q -o - -- sh -c "\"$HELPERS/offcpu\" wait 3 5 >/dev/null" \
		>p.data &&
	for view in "--event offcpu-time --sort tid,state" "--wall --sort tid"; do
		"$PMREC" report -i p.data $view --no-children -g none --json >file.json &&
		"$PMREC" report -i - $view --no-children -g none --json <p.data >pipe.json &&
		test_grep "\"self_period\":[1-9]" pipe.json &&
		test_cmp file.json pipe.json || return 1
	done
'

test_expect_success '--sort state: blocked and runnable rows, a State column' '
	"$PMREC" report -i "$R/w.data" --event offcpu-time --sort comm,state --no-children \
		-g none >t &&
	test_grep "^# Overhead +Command +State" t &&
	test_grep "^ +[0-9.]+% +sleeper +blocked" t &&
	test_grep "^ +[0-9.]+% +reader +blocked" t
'

test_expect_success 'call graphs of offcpu-time reach the blocking functions' '
	"$PMREC" report -i "$R/w.data" --event offcpu-time --comm sleeper >g &&
	test_grep "nap" g && test_grep "sleeper" g
'

test_expect_success 'three threads on one CPU wait for it about 2/3 of their lives' '
	"$PMREC" record --off-cpu -g -k mono -q -o q.data -- "$HELPERS/offcpu" queue 300 >q.out &&
	"$PMREC" dump --json --type=exit q.data >q.exits &&
	json q.data q.json &&
	$CHECK queue q.out q.json q.exits &&
	$CHECK blocked q.out q.json q.exits
'

test_expect_success '--wall: a thread'"'"'s on- and off-CPU time add up to its life (5 %)' '
	"$PMREC" report -i "$R/w.data" --wall --sort tid --no-children -g none --json >wall.json &&
	test_grep "\"event\":\"wall-time\"" wall.json &&
	$CHECK wall "$R/w.out" wall.json "$R/w.exits"
'

test_expect_success 'the flame graph of offcpu-time says off-CPU, in colours of its own' '
	"$PMREC" report -i "$R/w.data" --event offcpu-time --flamegraph=off.svg 2>err &&
	"$PMREC" report -i "$R/w.data" --event cpu-clock --flamegraph=on.svg 2>>err &&
	test_grep ">Off-CPU Flame Graph<" off.svg &&
	! grep -q "Off-CPU" on.svg &&
	test_grep "nap" off.svg &&
	sed -n "s/.*>nap (.*fill=\"\\(rgb([0-9,]*)\\)\".*/\\1/p" off.svg >fill &&
	test -s fill &&
	! sed -n "s/.*fill=\"\\(rgb([0-9,]*)\\)\".*/\\1/p" on.svg | grep -qxF "$(cat fill)"
'

test_expect_success 'pprof: sample type off-cpu in nanoseconds, the JSON total' '
	"$PMREC" report -i "$R/w.data" --event offcpu-time --pprof=o.pb.gz &&
	gzip -dc o.pb.gz >o.pb &&
	grep -a -q "off-cpu" o.pb && grep -a -q "nanoseconds" o.pb &&
	python3 "$SRC_DIR/tests/helpers/pprof-check.py" --folded o.pb.gz >/dev/null &&
	grep -a -q "blocked" o.pb &&
	python3 "$SRC_DIR/tests/helpers/pprof-check.py" o.pb.gz >sum &&
	"$PMREC" report -i "$R/w.data" --event offcpu-time -g none --json >t.json &&
	test_grep "period=$(python3 -c "import json; print(json.load(open(\"t.json\"))[\"events\"][0][\"period\"])") " sum
'

# Some kernels sample no switch away from some tasks (here, the VM agent's
# threads): a thread switched in after one has no switch-in.  Report
# charges what it knows and says how much it charged to none; that much
# may be missing from the threads' totals, no more.
test_expect_success '-a: the tracepoint alone (no SWITCH_CPU_WIDE), the same totals' '
	"$PMREC" record -a --off-cpu -g -k mono -q -o a.data -- "$HELPERS/offcpu" wait 5 10 >a.out &&
	"$PMREC" dump --stats a.data >stats &&
	! grep -q "SWITCH" stats &&
	"$PMREC" dump --json --type=exit a.data >a.exits &&
	json a.data a.json 2>notes &&
	uncharged=$(sed -nE -e "s/.* ([0-9.]+) ms off CPU \([0-9]+ spans\) not attributed.*/\1/p" \
		-e "s/.*; the ([0-9.]+) ms from those switches.*/\1/p" notes |
		awk "{ s += \$1 } END { printf \"%d\", s * 1e6 }") &&
	UNCHARGED_NS=$uncharged $CHECK blocked a.out a.json a.exits
'

test_expect_success 'a recording of tasks without SWITCH records: report says what is missing' '
	"$PMREC" record -e sched:sched_switch -g -q -o n.data -- \
		"$HELPERS/offcpu" wait 3 5 >/dev/null &&
	"$PMREC" report -i n.data --event offcpu-time -g none >/dev/null 2>err &&
	test_grep "have no switch-in: the recording has no SWITCH records" err
'

test_expect_success '--off-cpu without tracefs access: the error names the capability' '
	test_expect_code 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMREC" record --off-cpu -q -o "$TMP_ROOT/e.data" -- true 2>err &&
	test_grep "^pmrec record: --off-cpu: cannot use the tracepoint sched:sched_switch" err &&
	test_grep "CAP_SYS_ADMIN" err
'

test_expect_success '--wall without off-CPU data warns' '
	"$PMREC" record -q -o c.data -- "$HELPERS/offcpu" wait 2 5 >/dev/null &&
	"$PMREC" report -i c.data --wall -g none >/dev/null 2>err &&
	test_grep "no off-CPU time in the wall-clock view" err
'

test_done
