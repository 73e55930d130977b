#!/bin/sh
# The flame graph in a real browser (Debian's chromium, headless): with
# ?s=REGEX in the URL its script marks the matching frames and shows their
# share, which equals the folded stacks' share; a screenshot is a picture;
# and driven by puppeteer-core (tests/browser/flame.js), a click zooms a
# frame to the full width, Reset Zoom restores every frame, and Search
# finds the folded stacks' share exactly.  With --timeline, selecting the
# second half of the recording (?t= in the URL, or a drag across the strip)
# redraws the graph with the totals of report --time for the same range.
. "$(dirname "$0")/test-lib.sh"

test_require_perf_event
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || test_skip_all "no $CHROMIUM (apt-get install chromium; .ci/deps test does)"
command -v node >/dev/null 2>&1 || test_skip_all "no node (apt-get install nodejs)"
[ -d "$SRC_DIR/tests/browser/node_modules/puppeteer-core" ] ||
	test_skip_all "no puppeteer-core (npm ci --prefix tests/browser; .ci/deps test does)"

# Headless chromium as root needs --no-sandbox; its own profile directory
# keeps runs apart.
chromium() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP_ROOT/chromium" "$@" 2>chromium.log
}

# folded.py FOLDED REGEX: the share of the folded stacks (stack weight
# lines) with a frame that REGEX matches anywhere in its name, as the
# flame graph prints it, and the matched weight.
cat >"$TMP_ROOT/folded.py" <<'PY'
import re, sys
rx = re.compile(sys.argv[2])
total = matched = 0
for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
    stack, w = line.rstrip('\n').rsplit(' ', 1)
    total += int(w)
    if any(rx.search(f) for f in stack.split(';')):
        matched += int(w)
print('Matched: %.2f%% %d' % (100 * matched / total, matched))
PY

test_expect_success 'record the call tree; its flame graph and folded stacks' '
	"$PMREC" record -q -g -o "$TMP_ROOT/fp.data" -- "$HELPERS/calltree" 20 &&
	"$PMREC" report --flamegraph="$TMP_ROOT/f.svg" --min-width=0 "$TMP_ROOT/fp.data" 2>/dev/null &&
	"$PMREC" dump --folded=period "$TMP_ROOT/fp.data" >"$TMP_ROOT/folded" 2>/dev/null &&
	test -s "$TMP_ROOT/folded"
'

# dom.py DOM NAME...: the Matched text and weight of a dumped DOM, which
# marked the frames named NAME..., each of them, and no other.
cat >"$TMP_ROOT/dom.py" <<'PY'
import re, sys
d = open(sys.argv[1]).read()
text = re.search(r'<text id="matched"[^>]*>([^<]*)<', d).group(1)
weight = re.search(r'<text id="matched"[^>]*fg:matched="(\d+)"', d).group(1)
marked = re.findall(r'<g class="match"><title>([^<]*) \(', d)
assert set(marked) == set(sys.argv[2:]), marked
print(text, weight)
PY

test_expect_success '--dump-dom with ?s=REGEX: the script ran, marked the frames, Matched as folded' '
	chromium --dump-dom "file://$TMP_ROOT/f.svg?s=%5Ecaller_%5Bab%5D%24" >dom &&
	test_grep "fg:script=\"ran\"" dom &&
	python3 "$TMP_ROOT/folded.py" "$TMP_ROOT/folded" "^caller_[ab]$" >want &&
	python3 "$TMP_ROOT/dom.py" dom caller_a caller_b >got &&
	cat want got &&
	test_cmp want got
'

test_expect_success '--dump-dom with ?x=X&y=Y: zoomed into that frame' '
	# caller_b is one frame but for a stray sample or two on another path:
	# the widest of its frames.
	sed -n "s|.*<title>caller_b ([^<]*</title><rect x=\"\([0-9.]*\)\" y=\"\([0-9]*\)\" width=\"\([0-9.]*\)\".*|\3 x=\1\&y=\2|p" \
		"$TMP_ROOT/f.svg" | sort -g -r | head -n 1 | cut -d" " -f2 >q &&
	test_equal 1 "$(wc -l <q)" "caller_b frames" &&
	chromium --dump-dom "file://$TMP_ROOT/f.svg?$(cat q)" >dom &&
	test_grep "<title>caller_b [^<]*</title><rect x=\"10.00\" y=\"[0-9]+\" width=\"1180.00\"" dom &&
	test_grep "<text id=\"unzoom\" class=\"\"" dom
'

test_expect_success 'a screenshot is a picture, not a blank page' '
	chromium --screenshot="$PWD/shot.png" --window-size=1200,800 "file://$TMP_ROOT/f.svg" &&
	n=$(python3 "$SRC_DIR/tests/helpers/png-colours.py" shot.png) &&
	echo "$n colours" &&
	test "$n" -gt 20
'

test_expect_success 'puppeteer: click zooms to the full width, reset restores, search as folded' '
	node "$SRC_DIR/tests/browser/flame.js" "$TMP_ROOT/f.svg" caller_b hot >out &&
	cat out &&
	test_grep "^zoom caller_b x=10.00 width=1180.00 " out &&
	test_grep "^reset frames=" out &&
	python3 "$TMP_ROOT/folded.py" "$TMP_ROOT/folded" hot >want &&
	sed -n "s/^matched \(.*\) frames=[0-9]*$/\1/p" out >got &&
	test_cmp want got
'

STRIP="python3 $SRC_DIR/tests/helpers/flamestrip.py"

# The recording has the clock data (record -k): the strip shows wall-clock
# times, and ?t= still counts seconds from its start.
test_expect_success 'record with clock data; a flame graph with a time strip' '
	"$PMREC" record -q -g -k mono -o "$TMP_ROOT/k.data" -- "$HELPERS/calltree" 20 &&
	"$PMREC" report --flamegraph="$TMP_ROOT/t.svg" --timeline --min-width=0 \
		"$TMP_ROOT/k.data" 2>/dev/null &&
	test_grep "fg:wall=" "$TMP_ROOT/t.svg"
'

# report_half NAME: report --time of the strip's second half: "root PERIOD
# SAMPLES" and "NAME PERIOD" in report, the --time value in time.
report_half() {
	n=$($STRIP cols "$TMP_ROOT/t.svg") &&
	$STRIP time "$TMP_ROOT/t.svg" $((n / 2)) "$n" >time &&
	"$PMREC" report --json --children -g none --time "$(cat time)" "$TMP_ROOT/k.data" \
		>r.json 2>/dev/null &&
	$STRIP report r.json "$1" >report
}

test_expect_success '--dump-dom with ?t= of the second half: the totals of report --time' '
	report_half caller_a &&
	chromium --dump-dom "file://$TMP_ROOT/t.svg?t=$($STRIP half "$TMP_ROOT/t.svg")" >dom &&
	test_grep "fg:strip=\"ran\"" dom &&
	sed -n "s/.* fg:time=\"\([0-9.,]*\)\".*/\1/p" dom >got-time &&
	test_cmp time got-time &&
	$STRIP dom dom caller_a >got &&
	cat report got &&
	test_cmp report got &&
	test_grep "<text id=\"strip-info\"[^>]*>[0-9:.]+ to [0-9:.]+ \([0-9.]+ s\): report --time " dom
'

test_expect_success 'puppeteer: a drag across the second half, the totals of report --time; a click restores' '
	node "$SRC_DIR/tests/browser/strip.js" "$TMP_ROOT/t.svg" caller_a >out &&
	cat out &&
	report_half caller_a &&
	sed -n "s/^time //p" out >got-time &&
	test_cmp time got-time &&
	grep -e "^root " -e "^caller_a " out >got &&
	test_cmp report got &&
	test_grep "^restored frames=[0-9]+$" out
'

test_done
