#!/bin/sh
# report --speedscope: the file validates against speedscope's own schema
# (ajv, both installed from npm by the test, cached); its samples and
# weights agree; each thread's total is report's to the nanosecond; in
# time order the hot function of a two-thread program that alternates it
# every 500 ms falls in the right windows; report's filters and --event.
. "$(dirname "$0")/test-lib.sh"
. "$SRC_DIR/tests/lib-speedscope.sh"

test_require_perf_event
command -v node >/dev/null 2>&1 || test_skip_all "no node (apt-get install nodejs)"
speedscope_tools

CHECK="python3 $SRC_DIR/tests/helpers/speedscope-check.py"
D=$TMP_ROOT/alt.data

# report --json with each thread's total, as --against reads it.
report_json() {
	"$PMREC" report --json --no-children -g none -s tid "$@"
}

test_expect_success 'record two threads alternating alt_hot every 500 ms (2 s, -g -k monotonic)' '
	date +%s >"$TMP_ROOT/before" &&
	"$PMREC" record -q -g -k monotonic -o "$D" -- "$HELPERS/alternate" 2 >"$TMP_ROOT/tids" \
		2>"$TMP_ROOT/start" &&
	date +%s >"$TMP_ROOT/after" &&
	test_equal 2 "$(wc -l <"$TMP_ROOT/tids")" "threads"
'

test_expect_success '--speedscope=FILE validates against speedscope file-format-schema.json' '
	"$PMREC" report --speedscope="$TMP_ROOT/alt.json" "$D" 2>err &&
	test_grep "wrote .*alt.json.*profiles, [0-9]* frames, [0-9]* samples" err &&
	ss_validate "$TMP_ROOT/alt.json" >out 2>&1 &&
	test_grep "alt.json valid" out
'

test_expect_success 'with the clock reference (-k), the name has the wall-clock start' '
	sed -n "s/^{\"\$schema\".*\"name\":\"\([^\"]*\)\".*/\1/p" "$TMP_ROOT/alt.json" >name &&
	cat name &&
	test_grep "alt\.data, from [0-9-]+ [0-9:]+\.[0-9]{6} UTC$" name &&
	t=$(date -u -d "$(sed "s/.*, from \(.*\)\.[0-9]* UTC$/\1/" name)" +%s) &&
	test "$t" -ge "$(cat "$TMP_ROOT/before")" &&
	test "$t" -le "$(cat "$TMP_ROOT/after")"
'

test_expect_success 'samples and weights agree; one profile per thread, named "comm tid"' '
	$CHECK "$TMP_ROOT/alt.json" >"$TMP_ROOT/totals" &&
	cat "$TMP_ROOT/totals" &&
	while read -r name tid; do
		test_grep "^$name $tid	[1-9]" "$TMP_ROOT/totals" || return 1
	done <"$TMP_ROOT/tids"
'

test_expect_success 'each thread total equals report --json exactly' '
	report_json "$D" >report.json &&
	$CHECK --against report.json "$TMP_ROOT/alt.json"
'

test_expect_success 'in time order alt_hot runs in its thread windows: even 0 and 2, odd 1 and 3' '
	even="alt-even $(sed -n "s/^alt-even //p" "$TMP_ROOT/tids")" &&
	odd="alt-odd $(sed -n "s/^alt-odd //p" "$TMP_ROOT/tids")" &&
	START=$(sed -n "s/^start //p" "$TMP_ROOT/start") &&
	START=$START $CHECK --windows "$TMP_ROOT/alt.json" 500000000 alt_hot,alt_cool "$even" "$odd" >w &&
	cat w &&
	cut -d" " -f-4 w | sort -u >got &&
	printf "%s\n" "alt_hot $even 0" "alt_hot $even 2" "alt_hot $odd 1" "alt_hot $odd 3" \
		"alt_cool $even 1" "alt_cool $even 3" "alt_cool $odd 0" "alt_cool $odd 2" |
		sort >want &&
	# A thread starved of a CPU in a window (a loaded machine) has no
	# samples there: every window seen must be a right one, and each
	# thread must be seen running alt_hot.  The windows start where the
	# program says it started (a first sample late under load shifted them).
	comm -23 got want >wrong &&
	test_equal "" "$(cat wrong)" "functions in the wrong windows" &&
	grep -q "^alt_hot $even " got &&
	grep -q "^alt_hot $odd " got
'

test_expect_success '--tid keeps that thread alone; --speedscope=- writes the same to stdout' '
	tid=$(sed -n "s/^alt-odd //p" "$TMP_ROOT/tids") &&
	"$PMREC" report --tid="$tid" --speedscope=- "$D" >one.json &&
	$CHECK one.json >got &&
	grep "^alt-odd $tid	" "$TMP_ROOT/totals" >want &&
	test_cmp want got
'

test_expect_success '--time: totals equal report --time for the same range' '
	first=$("$PMREC" dump -t sample "$D" | head -n 1 | cut -d" " -f2) &&
	mid=$(awk -v t="$first" "BEGIN { printf \"%.6f\", t + 1 }") &&
	"$PMREC" report --time=",$mid" --speedscope=half.json "$D" 2>/dev/null &&
	report_json --time=",$mid" "$D" >report.json &&
	$CHECK --against report.json half.json
'

test_expect_success '--event: an unknown event is a usage error naming the events' '
	test_expect_code 64 "$PMREC" report --event=nope --speedscope=x.json "$D" 2>err &&
	test_grep "no event .nope.; the file has: .cpu-clock." err &&
	test ! -e x.json &&
	"$PMREC" report --event=cpu-clock --speedscope=x.json "$D" 2>/dev/null &&
	cmp x.json "$TMP_ROOT/alt.json"
'

test_expect_success 'two events: a profile per thread and event; a count event has unit none' '
	"$PMREC" record -q -e cpu-clock -e page-faults -o two.data -- "$HELPERS/alternate" 0.3 >/dev/null &&
	"$PMREC" report --speedscope=two.json two.data 2>/dev/null &&
	$CHECK two.json >names &&
	cat names &&
	test_grep "^alt-even [0-9]* cpu-clock	[0-9]*	nanoseconds$" names &&
	test_grep "^alternate [0-9]* page-faults	[0-9]*	none$" names &&
	! grep -v "cpu-clock	[0-9]*	nanoseconds$\|page-faults	[0-9]*	none$" names &&
	"$PMREC" report --event=page-faults --speedscope=pf.json two.data 2>/dev/null &&
	report_json --event=page-faults two.data >report.json &&
	$CHECK --against report.json pf.json
'

test_expect_success 'off-CPU: offcpu-time profiles validate; each thread total is report'"'"'s' '
	"$PMREC" record --off-cpu -g -q -o "$TMP_ROOT/off.data" -- "$HELPERS/offcpu" wait 5 10 \
		>"$TMP_ROOT/off.out" &&
	"$PMREC" report --event=offcpu-time --speedscope=off.json "$TMP_ROOT/off.data" 2>/dev/null &&
	ss_validate off.json >out 2>&1 &&
	test_grep "off.json valid" out &&
	report_json --event=offcpu-time "$TMP_ROOT/off.data" >report.json &&
	$CHECK --against report.json off.json
'

# The intervals of profile $2 of speedscope file $1 whose stack has $3 and
# ends in $4 ("": on CPU, in no off-CPU frame): "START LENGTH" each, in time
# order.
off_runs() {
	python3 -c "
import json, sys
doc = json.load(open(sys.argv[1]))
fr = doc[\"shared\"][\"frames\"]
p = [p for p in doc[\"profiles\"] if p[\"name\"] == sys.argv[2]][0]
at = p[\"startValue\"]
for st, w in zip(p[\"samples\"], p[\"weights\"]):
    names = [fr[f][\"name\"] for f in st]
    leaf = sys.argv[4] or names and not names[-1].startswith(\"[off-CPU\") and names[-1]
    if names and (not sys.argv[3] or sys.argv[3] in names) and names[-1] == leaf:
        print(at, w)
    at += w
" "$@"
}

test_expect_success 'off-CPU: each nap of the sleeper is a run of its own, [off-CPU blocked] under nap' '
	"$PMREC" report --event=offcpu-time --speedscope=off.json "$TMP_ROOT/off.data" 2>/dev/null &&
	sleeper="sleeper $(sed -n "s/^sleeper \([0-9]*\) .*/\1/p" "$TMP_ROOT/off.out")" &&
	off_runs off.json "$sleeper" nap "[off-CPU blocked]" >runs &&
	cat runs &&
	test_equal 5 "$(wc -l <runs)" "naps" &&
	awk "\$2 < 9500000 { exit 1 }" runs
'

test_expect_success '--wall: on- and off-CPU time in one timeline per thread, totals of report --wall' '
	"$PMREC" report --wall --speedscope=wall.json "$TMP_ROOT/off.data" 2>/dev/null &&
	ss_validate wall.json >out 2>&1 &&
	test_grep "wall.json valid" out &&
	report_json --wall "$TMP_ROOT/off.data" >report.json &&
	$CHECK --against report.json wall.json &&
	sleeper="sleeper $(sed -n "s/^sleeper \([0-9]*\) .*/\1/p" "$TMP_ROOT/off.out")" &&
	off_runs wall.json "$sleeper" nap "[off-CPU blocked]" >naps &&
	test_equal 5 "$(wc -l <naps)" "naps" &&
	off_runs wall.json "$sleeper" "" "" >on &&
	test -s on
'

test_expect_success '--speedscope with --json or --flamegraph is a usage error' '
	test_expect_code 64 "$PMREC" report --json --speedscope=x.json "$D" 2>err &&
	test_grep "outputs of their own" err &&
	test_expect_code 64 "$PMREC" report --flamegraph=f.svg --speedscope=x.json "$D" 2>err &&
	test_grep "outputs of their own" err
'

test_done
