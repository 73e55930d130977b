#!/bin/sh
# pmrec agent against a receiver of Pyroscope's ingestion API: about 7 s
# of 2 s windows while tophot runs on each CPU, pushed one gzipped pprof each, windows
# one after another with no gap or overlap, each decoding with go tool
# pprof, tophot's hottest function with the share a recording of the same
# seconds gives, as many samples as the rate, the CPUs and the seconds
# make; the series and sample labels; --output-dir; the options' errors.
. "$(dirname "$0")/test-lib.sh"
. "$SRC_DIR/tests/lib-agent.sh"
test_require_perf_tool

# Whatever a failed test left running: the receiver, tophot, record, agents.
trap 'receiver_stop "$TMP_ROOT/rx"; for p in "$TMP_ROOT"/*.pid; do kill "$(cat "$p")" 2>/dev/null; done; rm -rf "$TMP_ROOT"' EXIT

# share.py FOLDED...: top_hot's share of tophot's samples, in percent.
cat >"$TMP_ROOT/share.py" <<'PY'
import sys
hot = all_ = 0
for f in sys.argv[1:]:
    for line in open(f):
        stack, n = line.rsplit(" ", 1)
        frames = stack.split(";")
        if frames[0] != "tophot":
            continue
        all_ += int(n)
        hot += int(n) if frames[-1] == "top_hot" else 0
if all_ < 100:
    sys.exit("%d samples of tophot" % all_)
print("%.1f" % (100.0 * hot / all_))
PY

receiver_start "$TMP_ROOT/rx"
# tophot on every CPU: twice the samples of one, for a share known to a
# point or two.
test_expect_success 'setup: a receiver, tophot on each CPU' '
	test -n "$port"
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		"$HELPERS/tophot" 30 $cpu >/dev/null 2>&1 &
		echo $! >"$TMP_ROOT/hot$cpu.pid"
		wait_until test -d /proc/$!
	done
'

# The sample count is checked against the rate: the CPUs must be the test's.
test_alone
test_expect_success '7 s of 2 s windows: every window pushed, no gap, no overlap, decodes' '
	"$PMREC" record -v -F 97 -a -g -o "$TMP_ROOT/rec.data" 2>"$TMP_ROOT/rec.log" &
	rec=$!
	echo $rec >"$TMP_ROOT/rec.pid"
	wait_until grep -q recording "$TMP_ROOT/rec.log"
	"$PMREC" agent --server=http://127.0.0.1:$port --interval=2 --app-name=t0810 \
		--tags=env=test,team=perf 2>"$TMP_ROOT/agent.log" &
	agent=$!
	echo $agent >"$TMP_ROOT/agent.pid"
	sleep 7 && kill -TERM $agent && wait $agent &&
	kill -INT $rec && { wait $rec || :; } &&
	cat "$TMP_ROOT/agent.log" &&
	test_must_fail test -s "$TMP_ROOT/rx/errors" &&
	n=$(windows_check "$TMP_ROOT/rx/log") &&
	test_at_least 4 "$n" "windows" &&
	test_equal "$n" "$(grep -o "sent [0-9]*" "$TMP_ROOT/agent.log" | cut -d" " -f2)" "windows sent" &&
	decodes "$TMP_ROOT/rx"
'

test_expect_success 'the series: name, hostname, service_name, tags; rate and spy' '
	test_equal 0 "$(awk -v h="$(hostname)" "\$6 != \"t0810{hostname=\" h \",service_name=t0810,env=test,team=perf}\" || \$4 != 97 || \$5 != \"pmrec\"" "$TMP_ROOT/rx/log" | wc -l)" "other series lines"
'

test_expect_success 'labels pid, tid, comm on the samples; cpu time' '
	f=$(ls "$TMP_ROOT"/rx/0002.pb.gz) &&
	grep -q "^PeriodType: cpu nanoseconds" "$f.raw" &&
	grep -q "comm:\[tophot\]" "$f.raw" &&
	grep -q "pid:\[[0-9]*\] tid:\[[0-9]*\]" "$f.raw"
'

test_expect_success 'the samples: the rate x the CPUs x the seconds (10 %), as the agent counted' '
	got=$(samples_of "$TMP_ROOT/rx") &&
	test_equal "$(grep -o "[0-9]* samples" "$TMP_ROOT/agent.log" | cut -d" " -f1)" "$got" "samples" &&
	secs=$(grep -o "over [0-9.]* s" "$TMP_ROOT/agent.log" | cut -d" " -f2) &&
	want=$(awk -v s=$secs -v c=$(nproc) "BEGIN { printf \"%d\", 97 * c * s }") &&
	echo "samples $got, expected $want" &&
	test $((got * 10)) -ge $((want * 9)) && test $((got * 10)) -le $((want * 11))
'

test_expect_success 'top_hot has the share a report of the recording gives (3 points)' '
	for f in "$TMP_ROOT"/rx/*.pb.gz; do $CHECK --folded "$f"; done >"$TMP_ROOT/agent.folded" &&
	"$PMREC" report -i "$TMP_ROOT/rec.data" --pprof="$TMP_ROOT/rec.pb.gz" 2>/dev/null &&
	$CHECK --folded "$TMP_ROOT/rec.pb.gz" >"$TMP_ROOT/rec.folded" &&
	a=$(python3 "$TMP_ROOT/share.py" "$TMP_ROOT/agent.folded") &&
	r=$(python3 "$TMP_ROOT/share.py" "$TMP_ROOT/rec.folded") &&
	echo "top_hot: agent $a %, report $r %" &&
	awk -v a=$a -v r=$r "BEGIN { d = a - r; exit !(d <= 3 && d >= -3) }"
'

test_expect_success '--output-dir: the same windows as NAME-FROM-UNTIL.pb.gz, kernel names from the cache' '
	mkdir out
	"$PMREC" agent --output-dir=out --interval=1 --app-name=files 2>files.log &
	agent=$!
	echo $agent >"$TMP_ROOT/files.pid"
	wait_until sh -c "ls out/*-*-*.pb.gz 2>/dev/null | sed -n 2p | grep -q ." &&
	kill -TERM $agent && wait $agent &&
	ls out | sed "s/^files-\([0-9]*\)-\([0-9]*\)\.pb\.gz$/0 \1 \2/" >files.list &&
	test_equal 0 "$(grep -vc "^0 " files.list)" "other names" &&
	windows_check files.list >/dev/null &&
	decodes out &&
	echo "the kernel symbols: from the cache, which the first run wrote" &&
	ls "$HOME"/.cache/pmrec/kallsyms-* &&
	grep -h -E "^ +[0-9]+: 0xffff[0-9a-f]+ M=[0-9]+ [A-Za-z_]" out/*.raw | head -n 3 >kernel &&
	test -s kernel
'

test_expect_success 'errors: no destination, bad values' '
	test_expect_code 64 "$PMREC" agent 2>e1 &&
	test_grep "give --server=URL or --output-dir=DIR" e1 &&
	test_expect_code 64 "$PMREC" agent --server=ftp://x 2>e2 &&
	test_grep "bad --server" e2 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. --interval=0 2>e3 &&
	test_grep "bad interval" e3 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. --header=nocolon 2>e4 &&
	test_grep "bad --header" e4 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. --tags=novalue 2>e5 &&
	test_grep "bad --tags" e5 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. --app-name="a{b" 2>e6 &&
	test_grep "bad --app-name" e6 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. --timeout=0 2>e7 &&
	test_grep "bad timeout" e7 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. --queue=x 2>e8 &&
	test_grep "bad queue" e8
'

test_done
