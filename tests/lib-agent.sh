# Shared by the agent tests (t081x): go tool pprof offline, the receiver.
test_require_root
test_require_perf_event
command -v go >/dev/null 2>&1 ||
	test_skip_all "go is not installed (apt-get install golang-go)"
python3 -c 'import email, http.server' 2>/dev/null || test_skip_all "python3 is not installed"

# Go runs offline (GOPATH mode, no module proxy), as t0740 does.
export GOCACHE="$TMP_ROOT/gocache" GOPATH=/usr/share/gocode
export GO111MODULE=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local
CHECK="python3 $SRC_DIR/tests/helpers/pprof-check.py"

# receiver_start DIR [OPTIONS]: a receiver on 127.0.0.1 writing into DIR;
# its port in $port, its pid in DIR/pid.
receiver_start() {
	d=$1
	shift
	mkdir -p "$d" || return 1
	python3 "$SRC_DIR/tests/helpers/pyroscope-receiver.py" "$d" "$@" >/dev/null 2>&1 </dev/null &
	echo $! >"$d/pid"
	wait_until test -s "$d/port" && port=$(cat "$d/port")
}

receiver_stop() {
	[ -s "$1/pid" ] && kill "$(cat "$1/pid")" 2>/dev/null
	:
}

# windows_check LOG: FROM UNTIL of each line follow one another, no gap,
# no overlap; prints the number of windows.
windows_check() {
	awk 'NR > 1 && $2 != until { print "window " $1 " from " $2 ", previous until " until; bad = 1 }
	     $3 <= $2 { print "window " $1 " empty: " $2 " " $3; bad = 1 }
	     { until = $3; n++ }
	     END { if (bad) exit 1; print n }' "$1"
}

# decodes DIR: every DIR/*.pb.gz decodes with go tool pprof -raw.
decodes() {
	for f in "$1"/*.pb.gz; do
		go tool pprof -raw "$f" >"$f.raw" 2>&1 && grep -q "^Samples:" "$f.raw" ||
			{ echo "$f: go tool pprof:"; cat "$f.raw"; return 1; }
	done
}

# samples_of DIR: the samples in all of DIR's profiles.
samples_of() {
	n=0
	for f in "$1"/*.pb.gz; do
		n=$((n + $($CHECK "$f" | sed 's/^samples=\([0-9]*\).*/\1/')))
	done
	echo $n
}
