#!/bin/sh
# pmrec top over tophot, a workload of five functions of known shares
# pinned to one CPU: batch tables and JSON Lines (the hottest function on
# top, each interval's samples as a recording of the same task counts them
# over the same time), perf top --stdio naming the same top five, the
# interactive view in tmux (renders, refreshes, keys, resize, the terminal
# given back on q and SIGTERM), and the errors.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool
command -v tmux >/dev/null 2>&1 || test_skip_all "tmux is not installed (apt-get install tmux)"
command -v script >/dev/null 2>&1 || test_skip_all "script(1) is not installed (util-linux)"

cpu=$(($(nproc) - 1))
tmux="tmux -L pmrec-t0780-$$"
trap '$tmux kill-server 2>/dev/null; [ -s "$TMP_ROOT/hot.pid" ] && kill "$(cat "$TMP_ROOT/hot.pid")" 2>/dev/null; rm -rf "$TMP_ROOT"' EXIT

# The JSON Lines of top ($1) against a recording of the same task made at
# the same time ($2, as pmrec dump --json prints its samples): each
# interval's samples within 10 % of the recording's between the
# interval's first and last sample; at most one per period (1 ms) of its
# length; top_hot the first user row.  Prints "intervals=N".
cat >"$TMP_ROOT/check.py" <<'PY'
import json, sys
tops = [json.loads(l) for l in open(sys.argv[1])]
times = [json.loads(l)["time"] for l in open(sys.argv[2]) if '"type":"SAMPLE"' in l]
for t in tops:
    user = [r for r in t["rows"] if not r["kernel"]]
    if not user or user[0]["sym"] != "top_hot":
        sys.exit("interval %d: top user row %s" % (t["interval"], user[:1]))
    if t["samples"] > 1.1 * t["seconds"] * 1000:
        sys.exit("interval %d: %d samples in %.3f s at 1 ms" % (t["interval"], t["samples"], t["seconds"]))
    rec = sum(1 for x in times if t["first_time"] <= x <= t["last_time"])
    if abs(t["samples"] - rec) > 0.1 * rec:
        sys.exit("interval %d: top %d samples, record %d" % (t["interval"], t["samples"], rec))
print("intervals=%d" % len(tops))
PY

# The first five user rows of the last whole table of a perf top --stdio
# screen log (the one before the last, which SIGINT may cut), or of the
# last table of pmrec top --batch text: the symbol names, one line.  Kernel
# rows (interrupts, scheduling) rank by the machine's load, not the
# workload's.
cat >"$TMP_ROOT/top5.py" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read().replace("\r", "")
text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
marker = "PerfTop:" if sys.argv[2] == "perf" else "# interval"
last = text.split(marker)[-2 if sys.argv[2] == "perf" else -1]
names = re.findall(r"^\s+\d+\.\d+%.*?\[\.\] (\S+)\s*$", last, re.M)
print(" ".join(names[:5]))
PY

# tophot runs until the script ends (the EXIT trap kills it): on a loaded
# machine the tests after it take longer than any fixed length.
test_expect_success 'setup: tophot runs pinned to one CPU' '
	"$HELPERS/tophot" 3600 $cpu >/dev/null 2>&1 &
	echo $! >"$TMP_ROOT/hot.pid" &&
	wait_until test -d /proc/$!
'
hot=$(cat "$TMP_ROOT/hot.pid")

test_expect_success 'batch JSON: 3 intervals, top_hot on top, samples as record counts them' '
	"$PMREC" record -v -c 1000000 -p $hot -o rec.data 2>rec.log &
	rec=$! &&
	wait_until grep -q recording rec.log &&
	"$PMREC" top --json --iterations=3 --delay=1 -c 1000000 -p $hot -s sym >top.jsonl &&
	kill -INT $rec && { wait $rec || :; } &&
	test_equal 3 "$(wc -l <top.jsonl)" "JSON lines" &&
	"$PMREC" dump --json --type=sample rec.data >rec.jsonl &&
	test_equal intervals=3 "$(python3 "$TMP_ROOT/check.py" top.jsonl rec.jsonl)"
'

test_expect_success 'batch text: one table of report'"'"'s layout per interval, top_hot first' '
	"$PMREC" top --batch -n 3 -d 0.2 -p $hot -s sym >top.txt &&
	test_equal 3 "$(grep -c "^# interval [0-9]*: " top.txt)" "interval headers" &&
	test_equal 3 "$(grep -c "^# Overhead  Symbol" top.txt)" "tables" &&
	test_equal 3 "$(grep -A 3 "^# Overhead" top.txt | grep -c "%  \[\.\] top_hot$")" \
		"tables whose first row is top_hot"
'

# perf top's screen log ($1) holds N ($2) tables.
perf_tables() {
	test "$(grep -c "PerfTop:" "$1" 2>/dev/null)" -ge "$2"
}

# perf top runs until it has printed three tables, however long it takes
# to start on a loaded machine; pmrec top decays its counts as perf top
# does, so both rank about the same seconds of samples.
test_expect_success 'perf top --stdio and pmrec top name the same top 5 user functions' '
	"$PMREC" top --batch --decay -n 3 -d 1 -p $hot -s sym >pmrec.txt &
	pm=$! &&
	{ timeout -k 2 -s INT 60 script -qfc "perf top --stdio -d 1 -p $hot" \
		/dev/null >perf.txt 2>&1 & } &&
	pt=$! &&
	{ wait_until perf_tables perf.txt 4 || :; } &&
	{ pkill -INT -f "^perf top --stdio -d 1 -p $hot\$" || :; } &&
	{ wait $pt || :; } &&
	wait $pm &&
	python3 "$TMP_ROOT/top5.py" perf.txt perf >want &&
	python3 "$TMP_ROOT/top5.py" pmrec.txt pmrec >got &&
	cat want got &&
	test_equal "top_hot top_warm top_mild top_cool top_cold" "$(cat want)" "perf top" &&
	test_cmp want got
'

# The view in a tmux pane: a shell notes the terminal'"'"'s modes, runs
# pmrec top (its pid in top.pid), then notes the exit status and the
# modes again.
cat >"$TMP_ROOT/view.sh" <<EOF
stty -g >before
sh -c 'echo \$\$ >top.pid; exec "$PMREC" top -d 0.3 -g -p $hot'
echo \$? >rc
stty -g >after
sleep 60
EOF

screen() {
	$tmux capture-pane -p -t view
}

# shows REGEX: the pane shows REGEX within 3 s.
shows() {
	i=0
	until screen | grep -q -E -- "$1"; do
		[ $i -lt 60 ] || { screen; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
}

interval() {
	screen | sed -n "s/^pmrec top: interval \([0-9]*\),.*/\1/p"
}

test_expect_success 'view: renders, refreshes, sort and filter keys, freeze, call graph, resize, q' '
	$tmux new-session -d -s view -c "$PWD" -x 120 -y 30 "sh $TMP_ROOT/view.sh" &&
	shows "\[\.\] top_hot" &&
	shows "^ Overhead  Command  Shared Object" &&
	first=$(interval) && shows "^pmrec top: interval $((first + 1))," &&
	$tmux send-keys -t view s && shows "^sort sym$" && shows "^ Overhead  Symbol" &&
	$tmux send-keys -t view / t o p _ w Enter && shows "filter .top_w." &&
	! screen | grep -q "top_hot" && screen | grep -q "top_warm" &&
	$tmux send-keys -t view / Enter u && shows "^sort sym, user only$" &&
	! screen | grep -q "\[k\]" &&
	$tmux send-keys -t view f && shows "FROZEN" && at=$(interval) && sleep 0.8 &&
	test_equal "$at" "$(interval)" "interval while frozen" &&
	$tmux send-keys -t view f && shows "^pmrec top: interval $((at + 1))," &&
	$tmux send-keys -t view Enter && shows "main" && $tmux send-keys -t view Escape &&
	$tmux resize-window -t view -x 60 -y 12 &&
	shows "^q quit  s sort" && test_equal 12 "$(screen | wc -l)" "lines after the resize" &&
	screen | awk "length > 60 { exit 1 }" &&
	$tmux send-keys -t view q && wait_until test -s rc &&
	test_equal 0 "$(cat rc)" "exit status" &&
	test_cmp before after &&
	test_equal "0 1 0" "$($tmux display -p -t view "#{alternate_on} #{cursor_flag} #{keypad_flag}")" \
		"alternate screen, cursor shown, keypad mode"
'

test_expect_success 'view: SIGTERM gives the terminal back, exit status 143' '
	$tmux kill-session -t view 2>/dev/null || : &&
	$tmux new-session -d -s view -c "$PWD" -x 100 -y 25 "sh $TMP_ROOT/view.sh" &&
	shows "\[\.\] top_hot" &&
	kill -TERM "$(cat top.pid)" &&
	wait_until test -s rc &&
	test_equal 143 "$(cat rc)" "exit status" &&
	test_cmp before after &&
	test_equal "0 1 0" "$($tmux display -p -t view "#{alternate_on} #{cursor_flag} #{keypad_flag}")" \
		"alternate screen, cursor shown, keypad mode"
'

test_expect_success 'not a terminal: one table per interval, and a note that says so' '
	"$PMREC" top -n 1 -d 0.2 -p $hot >out 2>err &&
	test_grep "^pmrec top: not a terminal: printing one table per interval" err &&
	test_grep "^# interval 1: " out
'

test_expect_success '--decay: an interval holds the last one scaled by 7/8, not only its own samples' '
	"$PMREC" top --json -n 2 -d 0.2 -p $hot --decay >d.jsonl &&
	"$PMREC" top --json -n 2 -d 0.2 -p $hot >n.jsonl &&
	python3 -c "
import json, sys
for name, decayed in ((\"d.jsonl\", True), (\"n.jsonl\", False)):
    last = [json.loads(l) for l in open(name)][-1]
    rows = sum(r[\"self_samples\"] for r in last[\"rows\"])
    if (rows > last[\"samples\"]) != decayed or rows < last[\"samples\"]:
        sys.exit(\"%s: rows %d, samples %d\" % (name, rows, last[\"samples\"]))
"
'

test_expect_success 'batch -p: ends after the last interval once the task has exited' '
	"$HELPERS/tophot" 1.5 >/dev/null &
	short=$! &&
	"$PMREC" top --batch -d 0.2 -p $short -s sym >out 2>err &&
	test_grep "^pmrec top: every task watched has exited" err &&
	grep -q "^# interval [0-9]*: .* [1-9][0-9]* samples" out
'

test_expect_success 'bad values exit 64 with a message' '
	for args in "--delay=0" "--delay=x" "-d 0.01" "--iterations=0" "-n -1" "--sort=nope" \
		    "--sort=sym,sym" "-F 0" "-c x" "--call-graph=lbr" "-p 1 -t 1" "extra"; do
		rc=0 && "$PMREC" top --batch $args >out 2>err || rc=$? &&
		test_equal 64 "$rc" "exit status of top $args" &&
		test_grep "^pmrec top: " err || exit 1
	done
'

# Alone: it changes kernel.perf_event_paranoid for a moment, as t0150 does.
test_alone
test_expect_success 'no permission: the same message as record' '
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid) &&
	echo 2 >/proc/sys/kernel/perf_event_paranoid &&
	chmod 755 "$TMP_ROOT" && chmod 777 . &&
	rc=0 && { su nobody -s /bin/sh -c "\"$PMREC\" top --batch -n 1 -d 0.1" 2>top.err || rc=$?; } &&
	{ su nobody -s /bin/sh -c "\"$PMREC\" record -a --duration=0.1 -o n.data" 2>rec.err || :; } &&
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid &&
	cat top.err &&
	test_equal 1 "$rc" "exit status" &&
	test_grep "perf_event_paranoid" top.err &&
	sed "s/^pmrec record:/pmrec top:/" rec.err >want &&
	test_cmp want top.err
'

test_done
