#!/bin/sh
# pmrec agent when the server fails: down for the first windows then up
# (every window arrives, in order), never answering (each try ends at the
# timeout, SIGTERM is obeyed within it, no sample lost), answering 500,
# resetting connections; SIGTERM mid-window sends the partial window;
# --header reaches the server; SIGUSR1 prints the counts.
. "$(dirname "$0")/test-lib.sh"
. "$SRC_DIR/tests/lib-agent.sh"

trap 'for d in "$TMP_ROOT"/*/; do receiver_stop "$d"; done; for p in "$TMP_ROOT"/*.pid; do kill "$(cat "$p")" 2>/dev/null; done; rm -rf "$TMP_ROOT"' EXIT

# agent_for SECONDS NAME ARGS...: the agent with ARGS for SECONDS, then
# SIGTERM; its messages in $TMP_ROOT/NAME.log; fails when it does.
agent_for() {
	s=$1 name=$2
	shift 2
	"$PMREC" agent --app-name=$name "$@" 2>"$TMP_ROOT/$name.log" &
	echo $! >"$TMP_ROOT/$name.pid"
	sleep "$s"
	kill -TERM "$(cat "$TMP_ROOT/$name.pid")"
	wait "$(cat "$TMP_ROOT/$name.pid")"
	rm "$TMP_ROOT/$name.pid"
	cat "$TMP_ROOT/$name.log"
}

# count WHAT NAME: a number of the agent's last counts line ("sent 4").
count() {
	tail -n 1 "$TMP_ROOT/$2.log" | grep -o "$1 [0-9]*" | cut -d" " -f2
}
windows() {
	tail -n 1 "$TMP_ROOT/$1.log" | grep -o "^pmrec agent: [0-9]*" | cut -d" " -f3
}

test_expect_success 'down for the first windows, then up: every window arrives, in order' '
	port=$(python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])")
	"$PMREC" agent --app-name=down --server=http://127.0.0.1:$port --interval=1 --timeout=1 \
		2>"$TMP_ROOT/down.log" &
	echo $! >"$TMP_ROOT/down.pid"
	sleep 3
	receiver_start "$TMP_ROOT/up" --port $port
	wait_until sh -c "test \$(wc -l <\"$TMP_ROOT/up/log\" 2>/dev/null || echo 0) -ge 5"
	kill -TERM $(cat "$TMP_ROOT/down.pid") && wait $(cat "$TMP_ROOT/down.pid")
	cat "$TMP_ROOT/down.log"
	n=$(windows_check "$TMP_ROOT/up/log") &&
	test_equal "$(windows down)" "$n" "windows received" &&
	test_equal 0 "$(count dropped down)" "dropped" &&
	test_at_least 2 "$(count retried down)" "retries" &&
	test_equal 0 "$(awk "\$4 != 97" "$TMP_ROOT/up/log" | wc -l)" "windows not at the default 97 Hz" &&
	decodes "$TMP_ROOT/up"
'

test_expect_success 'a server that never answers: tries end at the timeout, no sample lost' '
	receiver_start "$TMP_ROOT/hang" --hang
	start=$(date +%s)
	agent_for 4 hang --server=http://127.0.0.1:$port --interval=1 --timeout=1 --queue=2
	took=$(($(date +%s) - start))
	test $took -le 7 || { echo "took $took s"; false; }
	grep -q " 0 lost;" "$TMP_ROOT/hang.log" &&
	test_at_least 2 "$(count retried hang)" "retries" &&
	test_equal 0 "$(count sent hang)" "sent" &&
	test_at_least 1 "$(count dropped hang)" "dropped (a queue of 2)" &&
	test_grep "last error: .*timed out" "$TMP_ROOT/hang.log"
'

# all_again NAME RECEIVER-OPTION: the first 3 requests fail so; every
# window arrives all the same, each failure counted as a retry.
all_again() {
	receiver_start "$TMP_ROOT/$1" "$2" 3
	agent_for 4 "$1" --server=http://127.0.0.1:$port --interval=1 --timeout=2
	n=$(windows_check "$TMP_ROOT/$1/log") &&
	test_equal "$(windows "$1")" "$n" "windows received" &&
	test_at_least 3 "$(count retried "$1")" "retries"
}

test_expect_success '500s: the windows are sent again, all arrive' '
	all_again fail --fail
'

test_expect_success 'connection resets: the windows are sent again, all arrive' '
	all_again reset --reset
'

test_expect_success 'SIGTERM mid-window: the partial window is sent' '
	receiver_start "$TMP_ROOT/term"
	agent_for 3 term --server=http://127.0.0.1:$port --interval=60
	test_equal 1 "$(wc -l <"$TMP_ROOT/term/log")" "windows" &&
	read k from until rest <"$TMP_ROOT/term/log" &&
	test $((until - from)) -le 5 &&
	test_at_least 300 "$(samples_of "$TMP_ROOT/term")" "samples of 3 s"
'

test_expect_success '--header: sent with every request; without it, rejected and counted' '
	receiver_start "$TMP_ROOT/hdr" --header "X-Scope-OrgID: t0811"
	agent_for 2 hdr --server=http://127.0.0.1:$port --interval=1 --header="X-Scope-OrgID: t0811"
	test_equal "$(windows hdr)" "$(wc -l <"$TMP_ROOT/hdr/log")" "windows received" &&
	agent_for 2 nohdr --server=http://127.0.0.1:$port --interval=1 &&
	test_equal "$(windows nohdr)" "$(count rejected nohdr)" "rejected"
'

test_expect_success 'SIGUSR1: the counts, and the agent goes on' '
	receiver_start "$TMP_ROOT/usr1"
	"$PMREC" agent --app-name=usr1 --server=http://127.0.0.1:$port --interval=1 2>usr1.log &
	echo $! >"$TMP_ROOT/usr1.pid"
	wait_until test -s "$TMP_ROOT/usr1/log"
	kill -USR1 $(cat "$TMP_ROOT/usr1.pid")
	wait_until grep -q "sent" usr1.log
	kill -0 $(cat "$TMP_ROOT/usr1.pid")
	kill -TERM $(cat "$TMP_ROOT/usr1.pid") && wait $(cat "$TMP_ROOT/usr1.pid")
	test_equal 2 "$(grep -c "windows over .* sent [0-9]*, retried" usr1.log)" "counts lines"
'

test_done
