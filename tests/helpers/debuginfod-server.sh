# tests/helpers/debuginfod-server.sh: debuginfod servers on 127.0.0.1 for
# tests, sourced after tests/test-lib.sh.
#
# Each server lives in a state directory of the caller's (STATE: a test's
# files, shared between test bodies through $TMP_ROOT): its URL in
# STATE/url, its pid in STATE/pid, its log.  Servers stop when the script
# exits (dbgd_stop_all, on the EXIT trap set here) or by dbgd_stop STATE.
#
#   dbgd_start DIR STATE       elfutils' debuginfod serving the ELF files under
#                              DIR (-F), once it has scanned them
#   dbgd_requests STATE        how many files it was asked for (its /metrics)
#   dbgd_fake_start MODE STATE a fake (tests/helpers/debuginfod-fake.py):
#                              MODE --stall (accepts, never answers),
#                              --trickle (2 KiB/s) or "--serve DIR" (DIR/HEXID
#                              for any build id, even another file's); each
#                              request line in STATE/requests
#   dbgd_stop STATE            ends one server
#
# Then DEBUGINFOD_URLS=$(cat STATE/url).  Callers also set
# DEBUGINFOD_CACHE_PATH to a directory of their own: the user's cache is
# neither read nor filled.

DBGD_FAKE=$SRC_DIR/tests/helpers/debuginfod-fake.py
DBGD_PIDS=$TMP_ROOT/.dbgd-pids
export DBGD_FAKE DBGD_PIDS

# test_require_debuginfod: skips the script without elfutils' server
# (make check installs it: .ci/deps) or python3.
test_require_debuginfod() {
	command -v debuginfod >/dev/null 2>&1 ||
		test_skip_all "the debuginfod server is not installed (apt-get install debuginfod)"
	command -v python3 >/dev/null 2>&1 || test_skip_all "python3 is not installed"
}

# dbgd_metrics PORT: the server's /metrics, or nothing when it does not answer.
dbgd_metrics() {
	python3 - "http://127.0.0.1:$1/metrics" <<-'EOF' 2>/dev/null
	import sys, urllib.request
	sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())
	EOF
}

# dbgd_free_port: a port nobody listens on now (debuginfod takes no port 0).
dbgd_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# dbgd_scanned PORT: the server has walked its directories and scanned
# every file found (how elfutils' own tests wait).
dbgd_scanned() {
	local m
	m=$(dbgd_metrics "$1") || return 1
	printf '%s\n' "$m" | awk '$1 == "thread_work_total{role=\"traverse\"}" && $2 >= 1 { t = 1 }
	     $1 == "thread_work_pending{role=\"scan\"}" && $2 == 0 { p = 1 }
	     $1 == "thread_busy{role=\"scan\"}" && $2 == 0 { b = 1 }
	     END { exit !(t && p && b) }'
}

dbgd_start() {
	local dir="$1" state="$2" port pid end
	mkdir -p "$state"
	# Another process may take the free port first: then debuginfod exits,
	# and another port is tried.
	for _ in 1 2 3 4 5; do
		port=$(dbgd_free_port)
		rm -f "$state/db.sqlite"*
		debuginfod -F -p "$port" -d "$state/db.sqlite" -c 1 -t 0 -g 0 "$dir" \
			>"$state/log" 2>&1 </dev/null 8>&- 9>&- &
		pid=$!
		echo "$pid" >>"$DBGD_PIDS"
		end=$(($(date +%s) + 60))
		while [ "$(date +%s)" -lt "$end" ]; do
			kill -0 "$pid" 2>/dev/null || break
			if dbgd_scanned "$port"; then
				echo "$pid" >"$state/pid"
				echo "http://127.0.0.1:$port" >"$state/url"
				echo "$port" >"$state/port"
				return 0
			fi
			sleep 0.1
		done
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	echo "debuginfod did not start or scan $dir:"
	tail -n 20 "$state/log"
	return 1
}

dbgd_requests() {
	dbgd_metrics "$(cat "$1/port")" |
		awk '$1 ~ /^http_requests_total\{type="/ && $1 !~ /"metrics"/ { n += $2 } END { print n + 0 }'
}

dbgd_fake_start() {
	local mode="$1" state="$2" pid
	mkdir -p "$state"
	rm -f "$state/port" "$state/requests"
	# shellcheck disable=SC2086 # MODE is the option and its argument
	python3 "$DBGD_FAKE" $mode "$state" >"$state/log" 2>&1 </dev/null 8>&- 9>&- &
	pid=$!
	echo "$pid" >>"$DBGD_PIDS"
	for _ in $(seq 1 300); do
		if [ -s "$state/port" ]; then
			echo "$pid" >"$state/pid"
			echo "http://127.0.0.1:$(cat "$state/port")" >"$state/url"
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "debuginfod-fake.py $mode did not start:"
	cat "$state/log"
	return 1
}

dbgd_stop() {
	[ -s "$1/pid" ] || return 0
	kill "$(cat "$1/pid")" 2>/dev/null || true
	rm -f "$1/pid"
}

dbgd_stop_all() {
	local pid
	[ -s "$DBGD_PIDS" ] || return 0
	while read -r pid; do
		kill "$pid" 2>/dev/null || true
	done <"$DBGD_PIDS"
	rm -f "$DBGD_PIDS"
}

trap 'dbgd_stop_all; rm -rf "$TMP_ROOT"' EXIT
