#!/bin/sh
# pmrec agent --spool-dir: a server down long enough to fill the memory
# queue and then the spool's bound (the oldest dropped and counted, the
# disk use within the bound), then up (every window kept arrives, in
# order); what a run leaves in the spool is sent by the next, first; files
# that are not the spool's own are left alone; an unsafe or shared
# directory is refused.
. "$(dirname "$0")/test-lib.sh"
. "$SRC_DIR/tests/lib-agent.sh"

trap 'for d in "$TMP_ROOT"/*/; do receiver_stop "$d"; done; for p in "$TMP_ROOT"/*.pid; do [ -e "$p" ] && kill "$(cat "$p")" 2>/dev/null; done; rm -rf "$TMP_ROOT"' EXIT

free_port() {
	python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])"
}

# started PID: the agent has its events open (its spool and signals before them).
started() {
	ls -l /proc/$1/fd 2>/dev/null | grep -q "perf_event"
}

# count WHAT LOG: a number of the agent's last counts line ("sent 4").
count() {
	grep "windows over" "$2" | tail -n 1 | sed -n "s/.* $1 \([0-9]*\).*/\1/p"
}
windows() {
	grep "windows over" "$1" | tail -n 1 | grep -o "^pmrec agent: [0-9]*" | cut -d" " -f3
}

# in_order LOG: the windows received one after another, none twice, none
# overlapping (gaps are the windows dropped).
in_order() {
	awk 'NR > 1 && $2 < until { print "window " $1 " from " $2 ", previous until " until; bad = 1 }
	     { until = $3 } END { exit bad }' "$1"
}

test_expect_success 'spool full: the oldest dropped and counted, the disk within bound; then all kept arrive, in order' '
	port=$(free_port)
	"$PMREC" agent --app-name=full --server=http://127.0.0.1:$port --interval=1 --timeout=1 \
		--queue=2 --spool-dir="$TMP_ROOT/spool" --spool-size=32K 2>full.log &
	echo $! >"$TMP_ROOT/full.pid"
	wait_until sh -c "ls \"$TMP_ROOT\"/spool/pmrec-agent-*.pb.gz >/dev/null 2>&1"
	# The disk use, and the counts (SIGUSR1), until two windows were dropped.
	max=0
	for i in $(seq 120); do
		k=$(du -sk "$TMP_ROOT/spool" | cut -f1)
		[ $k -le $max ] || max=$k
		kill -USR1 $(cat "$TMP_ROOT/full.pid")
		sleep 0.25
		[ "$(count dropped full.log)" -ge 2 ] 2>/dev/null && break
	done
	tail -n 1 full.log >usr1.log
	receiver_start "$TMP_ROOT/full" --port $port
	wait_until sh -c "! ls \"$TMP_ROOT\"/spool/pmrec-agent-*.pb.gz >/dev/null 2>&1"
	kill -TERM $(cat "$TMP_ROOT/full.pid") && wait $(cat "$TMP_ROOT/full.pid")
	rm "$TMP_ROOT/full.pid"
	cat full.log
	echo "spool at most $max KiB"
	test $max -le 36 &&
	test_at_least 2 "$(count dropped usr1.log)" "dropped while down (SIGUSR1)" &&
	test_at_least 1 "$(count spooled usr1.log)" "spooled while down (SIGUSR1)" &&
	n=$(wc -l <"$TMP_ROOT/full/log") &&
	in_order "$TMP_ROOT/full/log" &&
	test_equal "$(windows full.log)" "$(($(count sent full.log) + $(count dropped full.log)))" \
		"windows: sent + dropped" &&
	test_equal "$n" "$(count sent full.log)" "windows received" &&
	test_equal 0 "$(count "in the spool" full.log)" "in the spool at the end" &&
	decodes "$TMP_ROOT/full"
'

test_expect_success 'what a run leaves in the spool, the next sends first; other files stay' '
	mkdir -m 700 spool && echo keep >spool/notes &&
	ln -s "$TMP_ROOT/target" spool/pmrec-agent-1-2.pb.gz && echo target >"$TMP_ROOT/target" &&
	port=$(free_port)
	"$PMREC" agent --app-name=left --server=http://127.0.0.1:$port --interval=1 --timeout=1 \
		--spool-dir=spool 2>left.log &
	echo $! >"$TMP_ROOT/left.pid"
	wait_until started $(cat "$TMP_ROOT/left.pid")
	sleep 3
	kill -TERM $(cat "$TMP_ROOT/left.pid") && wait $(cat "$TMP_ROOT/left.pid")
	rm "$TMP_ROOT/left.pid"
	cat left.log
	left=$(count "in the spool" left.log)
	test_at_least 2 "$left" "windows left in the spool"
	receiver_start "$TMP_ROOT/next"
	"$PMREC" agent --app-name=left --server=http://127.0.0.1:$port --interval=1 --timeout=1 \
		--spool-dir=spool 2>next.log &
	echo $! >"$TMP_ROOT/next.pid"
	wait_until sh -c "test \$(wc -l <\"$TMP_ROOT/next/log\" 2>/dev/null || echo 0) -gt $left"
	kill -TERM $(cat "$TMP_ROOT/next.pid") && wait $(cat "$TMP_ROOT/next.pid")
	rm "$TMP_ROOT/next.pid"
	cat next.log
	test_grep "^pmrec agent: $left windows .* left in the spool by a previous run" next.log &&
	in_order "$TMP_ROOT/next/log" &&
	test_equal "$(($(windows next.log) + left))" "$(wc -l <"$TMP_ROOT/next/log")" \
		"windows received: the left ones and the new" &&
	test_equal 0 "$(count "in the spool" next.log)" "in the spool at the end" &&
	test_equal "keep" "$(cat spool/notes)" "a file of another name" &&
	test -L spool/pmrec-agent-1-2.pb.gz &&
	test_equal "target" "$(cat "$TMP_ROOT/target")" "a symlink of the name, and its target"
'

test_expect_success 'refused: a directory others may write, one in use, no server, no spool' '
	mkdir -m 777 open &&
	test_expect_code 1 "$PMREC" agent --server=http://127.0.0.1:9 --spool-dir=open 2>e1 &&
	test_grep "spool directory .open. is not safe" e1 &&
	mkdir -m 700 busy &&
	"$PMREC" agent --server=http://127.0.0.1:9 --spool-dir=busy --interval=1 2>/dev/null &
	echo $! >"$TMP_ROOT/busy.pid"
	wait_until started $(cat "$TMP_ROOT/busy.pid")
	test_expect_code 1 "$PMREC" agent --server=http://127.0.0.1:9 --spool-dir=busy 2>e2 &&
	kill -TERM $(cat "$TMP_ROOT/busy.pid") && wait $(cat "$TMP_ROOT/busy.pid") &&
	rm "$TMP_ROOT/busy.pid" &&
	test_grep "in use by another pmrec agent" e2 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. --spool-dir=busy 2>e3 &&
	test_grep "spool-dir keeps what --server did not take" e3 &&
	test_expect_code 64 "$PMREC" agent --server=http://127.0.0.1:9 --spool-size=1M 2>e4 &&
	test_grep "give --spool-dir" e4 &&
	test_expect_code 64 "$PMREC" agent --server=http://127.0.0.1:9 --spool-dir=busy \
		--spool-size=1K 2>e5 &&
	test_grep "bad --spool-size" e5
'

test_done
