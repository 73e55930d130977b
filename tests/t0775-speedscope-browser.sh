#!/bin/sh
# The real speedscope viewer (from npm, cached; see lib-speedscope.sh),
# served on 127.0.0.1 and opened in Debian's headless chromium with the
# export as #profileURL=, driven by puppeteer-core (tests/browser/speedscope.js):
# it loads the file without an error, the screenshot is a picture, and its
# profile list names the recorded threads.
. "$(dirname "$0")/test-lib.sh"
. "$SRC_DIR/tests/lib-speedscope.sh"

test_require_perf_event
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || test_skip_all "no $CHROMIUM (apt-get install chromium; .ci/deps test does)"
command -v node >/dev/null 2>&1 || test_skip_all "no node (apt-get install nodejs)"
[ -d "$SRC_DIR/tests/browser/node_modules/puppeteer-core" ] ||
	test_skip_all "no puppeteer-core (npm ci --prefix tests/browser; .ci/deps test does)"
speedscope_tools

WWW=$TMP_ROOT/www
# The viewer and the profile from one origin: a static server on a free
# port of the loopback, stopped when the file ends.
serve() {
	mkdir -p "$WWW" && cp -r "$SS_RELEASE/." "$WWW/" &&
	(cd "$WWW" && exec python3 -u -m http.server 0 --bind 127.0.0.1) >"$TMP_ROOT/http.log" 2>&1 &
	echo $! >"$TMP_ROOT/http.pid"
	wait_until grep -q "port [0-9]" "$TMP_ROOT/http.log" &&
	PORT=$(sed -n "s/.* port \([0-9]*\) .*/\1/p" "$TMP_ROOT/http.log")
}
stop_server() {
	[ -f "$TMP_ROOT/http.pid" ] && kill "$(cat "$TMP_ROOT/http.pid")" 2>/dev/null
	return 0
}
trap 'stop_server; rm -rf "$TMP_ROOT"' EXIT

test_expect_success 'record two threads; export; serve the viewer on 127.0.0.1' '
	"$PMREC" record -q -g -o "$TMP_ROOT/alt.data" -- "$HELPERS/alternate" 0.5 >"$TMP_ROOT/tids" &&
	serve &&
	"$PMREC" report --speedscope="$WWW/alt.json" "$TMP_ROOT/alt.data" 2>/dev/null &&
	echo "port $PORT" &&
	test -n "$PORT"
'

test_expect_success 'speedscope loads it: no error, the threads in its profile list, a picture' '
	PORT=$(sed -n "s/.* port \([0-9]*\) .*/\1/p" "$TMP_ROOT/http.log") &&
	url="http://127.0.0.1:$PORT" &&
	node "$SRC_DIR/tests/browser/speedscope.js" "$url/index.html#profileURL=$url/alt.json" \
		"$PWD/shot.png" >out &&
	cat out &&
	test_grep "^title .*alt.data - speedscope$" out &&
	while read -r name tid; do
		test_grep "^profile $name $tid$" out || return 1
	done <"$TMP_ROOT/tids" &&
	python3 "$SRC_DIR/tests/helpers/png-colours.py" shot.png >n &&
	echo "$(cat n) colours" &&
	test "$(cat n)" -gt 20
'

test_done
