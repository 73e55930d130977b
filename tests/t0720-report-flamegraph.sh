#!/bin/sh
# pmrec report --flamegraph: one self-contained SVG (parsed with python's
# xml.etree) whose frames are report's inclusive percentages; --inverted,
# --min-width, --title, --width, escaping of hostile names, usage errors,
# and --diff's colours on two recordings of a program whose functions
# change their shares by known factors; --timeline's strip: only with the
# option, bounded, its data's ranges equal to report --time's (on-CPU and
# off-CPU), wall-clock with record -k, a line per command.  The script's behaviour in a
# browser is t0730's.
. "$(dirname "$0")/test-lib.sh"

test_require_perf_event

# svg.py COMMAND SVG [ARGS]: facts about a flame graph, or an assertion
# that fails with a message.
cat >"$TMP_ROOT/svg.py" <<'PY'
import re, sys
import xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
FG = '{urn:x-pmrec:flamegraph}'

def frames(path):
    root = ET.parse(path).getroot()
    out = []
    for g in root.find(NS + 'g[@id="frames"]'):
        title = g.find(NS + 'title').text
        r = g.find(NS + 'rect')
        out.append(dict(name=re.sub(r' \([^()]*\)$', '', title), title=title,
                        x=float(r.get('x')), y=float(r.get('y')), w=float(r.get('width')),
                        fill=r.get('fill'), o=int(r.get(FG + 'x')), ow=int(r.get(FG + 'w'))))
    return root, out

cmd, path = sys.argv[1], sys.argv[2]
root, fr = frames(path)
span = float(root.get(FG + 'span'))

def fail(msg):
    sys.exit('%s: %s' % (cmd, msg))

if cmd == 'external':
    # Nothing from outside: no link attribute, no url() or @import anywhere.
    for e in root.iter():
        for k, v in e.attrib.items():
            if k.split('}')[-1] in ('href', 'src') or 'url(' in v:
                fail('%s %s=%r' % (e.tag, k, v))
        if e.text and ('url(' in e.text or '@import' in e.text):
            fail('%s text has url( or @import' % e.tag)
    print(len(fr))
elif cmd == 'count':
    print(len(fr))
elif cmd == 'children':
    # The flame graph's share of each name: its outermost frames (a
    # recursion counts once, as report's Children), in percent of the span.
    comm = sys.argv[3]
    c = [f for f in fr if f['name'] == comm]
    if len(c) != 1:
        fail('no single frame of command %s' % comm)
    c = c[0]
    inside = [f for f in fr if f['o'] >= c['o'] and f['o'] + f['ow'] <= c['o'] + c['ow'] and
              (f['y'] < c['y']) != (root.get(FG + 'inverted') == '1')]
    share = {}
    for f in sorted(inside, key=lambda f: (f['o'], -f['ow'])):
        s = share.setdefault(f['name'], [0.0, -1])
        if f['o'] >= s[1]:
            s[0] += f['w'] * 100 / span
            s[1] = f['o'] + f['ow']
    for n, (pct, _) in sorted(share.items()):
        print('%s %.4f' % (n, pct))
elif cmd == 'root':
    r = fr[0]
    print('%s x=%g w=%g y=%g top=%d' % (r['name'], r['x'], r['w'], r['y'],
          r['y'] == min(f['y'] for f in fr)))
elif cmd == 'same-shape':
    # Each frame of this graph is in the other, at the same x and width.
    _, other = frames(sys.argv[3])
    key = lambda f: (f['name'], '%.2f' % f['x'], '%.2f' % f['w'])
    have = set(key(f) for f in other)
    for f in fr:
        if key(f) not in have:
            fail('%s not in %s' % (key(f), sys.argv[3]))
    print(len(fr))
elif cmd == 'min-width':
    small = [f for f in fr[1:] if f['w'] < float(sys.argv[3])]
    if small:
        fail('frames narrower than %s: %s' % (sys.argv[3], small[:3]))
elif cmd == 'title':
    print(root.find(NS + 'text[@id="title"]').text)
    print(root.get('width'))
elif cmd == 'names':
    for f in fr:
        print(f['name'])
elif cmd == 'fill':
    for f in fr:
        if f['name'] == sys.argv[3]:
            print(f['fill'])
elif cmd == 'fills':
    print(' '.join(sorted(set(f['fill'] for f in fr))))
else:
    fail('unknown command')
PY
SVG="python3 $TMP_ROOT/svg.py"

test_expect_success 'record the call tree with frame pointers' '
	"$PMREC" record -q -g -o "$TMP_ROOT/fp.data" -- "$HELPERS/calltree" 40 &&
	test -s "$TMP_ROOT/fp.data"
'

test_expect_success 'the SVG parses as XML and loads nothing from outside' '
	"$PMREC" report --flamegraph=f.svg "$TMP_ROOT/fp.data" 2>err &&
	test_grep "^pmrec report: wrote .f.svg." err &&
	n=$($SVG external f.svg) &&
	test "$n" -gt 10 &&
	! grep -q -i -e "href" -e "@import" -e "url(" -e "src=" f.svg
'

# The percentages of report --children --json, per symbol of calltree's rows.
cat >"$TMP_ROOT/children.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc['events'][0]
for r in ev['rows']:
    if r['comm'] == 'calltree' and r['sym'] and r['children_period'] * 1000 >= ev['period']:
        print('%s %.4f' % (r['sym'], r['children_period'] * 100.0 / ev['period']))
PY

test_expect_success 'frame widths are report --children percentages to 0.1 point' '
	"$PMREC" report --flamegraph=f.svg "$TMP_ROOT/fp.data" 2>/dev/null &&
	$SVG children f.svg calltree >flame &&
	"$PMREC" report --json --children -g none "$TMP_ROOT/fp.data" >r.json 2>/dev/null &&
	python3 "$TMP_ROOT/children.py" r.json >report &&
	test "$(wc -l <report)" -ge 8 &&
	test_grep "^hot " report && test_grep "^caller_a " report && test_grep "^recurse " report &&
	awk "NR == FNR { f[\$1] = \$2; next }
	     { d = f[\$1] - \$2; if (!(\$1 in f) || d > 0.1 || d < -0.1) { print \"differs:\", \$0, f[\$1]; bad = 1 } n++ }
	     END { exit bad || n < 8 }" flame report
'

test_expect_success '--inverted: the root at the top, the same frames' '
	"$PMREC" report --flamegraph=f.svg "$TMP_ROOT/fp.data" 2>/dev/null &&
	"$PMREC" report --flamegraph=i.svg --inverted "$TMP_ROOT/fp.data" 2>/dev/null &&
	$SVG root f.svg >r && test_grep "top=0" r &&
	$SVG root i.svg >ri && test_grep "^all x=10 w=1180 .*top=1" ri &&
	test "$($SVG same-shape i.svg f.svg)" = "$($SVG count f.svg)" &&
	test_grep "<text id=\"title\"[^>]*>Icicle Graph<" i.svg
'

test_expect_success '--min-width leaves narrow frames out, widths unchanged' '
	"$PMREC" report --flamegraph=all.svg --min-width=0 "$TMP_ROOT/fp.data" 2>/dev/null &&
	"$PMREC" report --flamegraph=some.svg --min-width=5 "$TMP_ROOT/fp.data" 2>/dev/null &&
	a=$($SVG count all.svg) && s=$($SVG count some.svg) &&
	test "$s" -lt "$a" &&
	$SVG min-width some.svg 5 &&
	test "$($SVG same-shape some.svg all.svg)" = "$s" &&
	$SVG root some.svg >r && test_grep "^all x=10 w=1180 " r
'

test_expect_success '--title and --width' '
	"$PMREC" report --flamegraph=t.svg --title="My <graph> & co" --width=800 \
		"$TMP_ROOT/fp.data" 2>/dev/null &&
	$SVG title t.svg >t &&
	test_equal "My <graph> & co" "$(sed -n 1p t)" "title" &&
	test_equal 800 "$(sed -n 2p t)" "width" &&
	$SVG root t.svg >r && test_grep "^all x=10 w=780 " r
'

test_expect_success 'stdout with -, the same document as a file (deterministic)' '
	"$PMREC" report --flamegraph=- "$TMP_ROOT/fp.data" >out.svg 2>err &&
	! grep -q "wrote" err &&
	"$PMREC" report --flamegraph "$TMP_ROOT/fp.data" 2>/dev/null &&
	cmp out.svg flamegraph.svg
'

test_expect_success 'a hostile command name is escaped, the document still XML' '
	"$HELPERS/gen-hostile" comm "$(printf "<a&\"b>\001;x")" -o h.data &&
	"$PMREC" report --flamegraph=h.svg h.data 2>/dev/null &&
	$SVG names h.svg >names &&
	grep -q -x -F "<a&\"b>?:x" names &&
	! grep -q "<a&" h.svg &&
	"$HELPERS/gen-perfdata" -o g.data &&
	"$PMREC" report --flamegraph=g.svg g.data 2>/dev/null &&
	$SVG external g.svg >/dev/null
'

test_expect_success 'filters: --comm, and a graph without samples' '
	"$PMREC" report --flamegraph=c.svg --comm calltree "$TMP_ROOT/fp.data" 2>/dev/null &&
	$SVG names c.svg >names &&
	test_equal 1 "$(grep -c -x calltree names)" "calltree frames" &&
	"$PMREC" report --flamegraph=n.svg --comm nobody "$TMP_ROOT/fp.data" 2>err &&
	test_grep "no samples of event" err &&
	test_equal 1 "$($SVG count n.svg)" "frames without samples"
'

test_expect_success 'bad option values: exit 64 with the reason; unwritable file: exit 1' '
	f="$TMP_ROOT/fp.data" &&
	test_expect_code 64 "$PMREC" report --flamegraph --width=50 "$f" 2>err &&
	test_grep "bad --width 50 for --flamegraph" err &&
	test_expect_code 64 "$PMREC" report --flamegraph --min-width=-1 "$f" 2>err &&
	test_grep "bad --min-width" err &&
	test_expect_code 64 "$PMREC" report --flamegraph --min-width=2000 "$f" 2>err &&
	test_grep "at most the width" err &&
	test_expect_code 64 "$PMREC" report --inverted "$f" 2>err &&
	test_grep "needs --flamegraph" err &&
	test_expect_code 64 "$PMREC" report --diff="$f" "$f" 2>err &&
	test_expect_code 64 "$PMREC" report --flamegraph --json "$f" 2>err &&
	test_expect_code 64 "$PMREC" report --flamegraph --event=nope "$f" 2>err &&
	test_expect_code 1 "$PMREC" report --flamegraph=/nonexistent/f.svg "$f" 2>err &&
	test_grep "cannot create ./nonexistent/f.svg." err &&
	test_expect_code 1 "$PMREC" report --flamegraph=x.svg --diff=nope.data "$f" 2>err &&
	test_grep "cannot open .nope.data." err
'

test_expect_success 'a malformed --diff base: its name, offset and reason, exit 1, no SVG' '
	f=$TMP_ROOT/fp.data &&
	printf "PERFILE2garbage" >bad.data &&
	head -c 300 "$f" >cut.data &&
	for base in bad.data cut.data; do
		test_expect_code 1 "$PMREC" report --flamegraph=x.svg --diff=$base "$f" 2>err &&
		test_grep "^pmrec report: $base: offset 0x[0-9a-f]+: " err &&
		test ! -e x.svg || return 1
	done
'

# share_a doubles its share (25% to 50%), share_b halves it (25% to 12.5%).
test_expect_success 'record two runs of shares: 2:2:4 and 4:1:3' '
	"$PMREC" record -q -g -o "$TMP_ROOT/s1.data" -- "$HELPERS/shares" 2 2 4 20 &&
	"$PMREC" record -q -g -o "$TMP_ROOT/s2.data" -- "$HELPERS/shares" 4 1 3 20
'

# rgb NAME SVG: the fill of frame NAME, as "R G B".
rgb() {
	$SVG fill "$2" "$1" | head -n 1 | tr -c "0-9\n" " "
}

test_expect_success '--diff: the function that doubled is red, the one that halved blue' '
	"$PMREC" report --flamegraph=d.svg --diff="$TMP_ROOT/s1.data" "$TMP_ROOT/s2.data" 2>/dev/null &&
	set -- $(rgb share_a d.svg) && test "$1" = 255 && test "$2" -lt 150 && test "$2" = "$3" &&
	set -- $(rgb share_b d.svg) && test "$3" = 255 && test "$1" -lt 200 && test "$1" = "$2" &&
	grep -q "<title>share_a (.*, base 2[0-9]\.[0-9][0-9]%, +2[0-9]\.[0-9][0-9] points)" d.svg &&
	test_grep "Differential Flame Graph" d.svg
'

test_expect_success '--diff of identical inputs: no colour' '
	"$PMREC" report --flamegraph=same.svg --diff="$TMP_ROOT/s1.data" "$TMP_ROOT/s1.data" 2>/dev/null &&
	test_equal "rgb(220,220,220)" "$($SVG fills same.svg)" "fills"
'

STRIP="python3 $SRC_DIR/tests/helpers/flamestrip.py"

test_expect_success '--timeline: a strip only with the option, at most 256 columns, half of them spanned' '
	"$PMREC" report --flamegraph=plain.svg "$TMP_ROOT/fp.data" 2>/dev/null &&
	! grep -q -e "id=\"strip" -e "fg:strip" plain.svg &&
	test_equal 0 "$($STRIP cols plain.svg)" "columns without --timeline" &&
	"$PMREC" report --flamegraph=t.svg --timeline "$TMP_ROOT/fp.data" 2>/dev/null &&
	$SVG external t.svg >/dev/null &&
	$STRIP check t.svg &&
	n=$($STRIP cols t.svg) && echo "$n columns" &&
	test "$n" -gt 128 && test "$n" -le 256 &&
	test "$($SVG same-shape t.svg plain.svg)" = "$($SVG count plain.svg)"
'

test_expect_success '--timeline=16: at most 16 columns, a smaller document' '
	"$PMREC" report --flamegraph=t.svg --timeline "$TMP_ROOT/fp.data" 2>/dev/null &&
	"$PMREC" report --flamegraph=s.svg --timeline=16 "$TMP_ROOT/fp.data" 2>/dev/null &&
	$STRIP check s.svg &&
	n=$($STRIP cols s.svg) && echo "$n columns" &&
	test "$n" -gt 8 && test "$n" -le 16 &&
	test "$(wc -c <s.svg)" -lt "$(wc -c <t.svg)"
'

# strip_vs_report SVG DATA NAME [REPORT OPTIONS]: the second half of the
# strip's columns, from its data, against report --time of their edges.
strip_vs_report() {
	svg=$1 data=$2 name=$3
	shift 3
	n=$($STRIP cols "$svg") &&
	t=$($STRIP time "$svg" $((n / 2)) "$n") && echo "--time $t" &&
	$STRIP sums "$svg" $((n / 2)) "$n" "$name" >strip &&
	"$PMREC" report --json --children -g none --time "$t" "$@" "$data" >r.json 2>/dev/null &&
	$STRIP report r.json "$name" >report &&
	cat strip report &&
	test_cmp strip report &&
	test "$(sed -n "s/^$name //p" report)" -gt 0
}

test_expect_success 'the strip'"'"'s columns sum exactly to report --time of their edges' '
	"$PMREC" report --flamegraph=t.svg --timeline --min-width=0 "$TMP_ROOT/fp.data" 2>/dev/null &&
	strip_vs_report t.svg "$TMP_ROOT/fp.data" caller_a &&
	strip_vs_report t.svg "$TMP_ROOT/fp.data" recurse
'

test_expect_success 'strip times: from the start without clock data, wall-clock with record -k' '
	"$PMREC" report --flamegraph=t.svg --timeline "$TMP_ROOT/fp.data" 2>/dev/null &&
	test_grep "<text id=\"strip-start\"[^>]*>0.000 s<" t.svg &&
	! grep -q "fg:wall=" t.svg &&
	"$PMREC" record -q -g -k mono -o k.data -- "$HELPERS/calltree" 5 &&
	"$PMREC" report --flamegraph=k.svg --timeline k.data 2>/dev/null &&
	test_grep "<text id=\"strip-start\"[^>]*>[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}<" k.svg &&
	test_grep "<text id=\"strip-info\"[^>]*>from 20[0-9]{2}-[01][0-9]-[0-3][0-9] [0-9:.]+ UTC, " k.svg &&
	test_grep "fg:wall=\"[0-9]+\.[0-9]{3}\"" k.svg
'

test_expect_success 'strip lines: one per command when there are several, none for one' '
	"$PMREC" report --flamegraph=t.svg --timeline "$TMP_ROOT/fp.data" 2>/dev/null &&
	! grep -q "<polyline" t.svg &&
	"$PMREC" record -q -g -o two.data -- \
		sh -c "\"$HELPERS/calltree\" 10 & \"$HELPERS/shares\" 1 1 1 5; wait" &&
	"$PMREC" report --flamegraph=two.svg --timeline two.data 2>/dev/null &&
	n=$(grep -c "<polyline" two.svg) && test "$n" -ge 2 && test "$n" -le 4 &&
	test_grep "<text class=\"strip-legend\"[^>]*>[^<]* calltree<" two.svg &&
	test_grep "<text class=\"strip-legend\"[^>]*>[^<]* shares<" two.svg &&
	$SVG external two.svg >/dev/null
'

test_expect_success '--timeline: bad values and combinations exit 64 with the reason' '
	f="$TMP_ROOT/fp.data" &&
	for v in 0 7 4097 -1 x 16x ""; do
		test_expect_code 64 "$PMREC" report --flamegraph --timeline="$v" "$f" 2>err &&
		test_grep "bad --timeline .$v. \(columns, 8 to 4096\)" err || return 1
	done &&
	test_expect_code 64 "$PMREC" report --timeline "$f" 2>err &&
	test_grep "timeline draws a flame graph: it needs --flamegraph" err &&
	test_expect_code 64 "$PMREC" report --flamegraph --timeline --diff="$f" "$f" 2>err &&
	test_grep "give one" err &&
	test ! -e flamegraph.svg
'

# Off-CPU time weighs nanoseconds: the strip's ranges must too.
if [ "$(id -u)" = 0 ]; then
	test_expect_success 'off-CPU: the strip'"'"'s columns sum to report --time of their edges' '
		"$PMREC" record --off-cpu -g -q -o w.data -- "$HELPERS/offcpu" wait 10 10 >/dev/null &&
		"$PMREC" report --event offcpu-time --flamegraph=o.svg --timeline --min-width=0 \
			w.data 2>/dev/null &&
		strip_vs_report o.svg w.data nap --event offcpu-time
	'
fi

test_done
