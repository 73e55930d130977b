#!/bin/sh
# pmrec report's options, one by one, and its failures: malformed input
# (the reader's error with its offset, exit 1), no samples (an empty table
# that says so), bad sort keys and filters (exit 64 with the valid ones).
. "$(dirname "$0")/test-lib.sh"

GEN=$HELPERS/gen-perfdata

# rows FILE: the table's row lines (not headers, not call graphs).
rows() {
	grep -E "^ +[0-9]+\.[0-9]+%" "$1" || true
}

test_expect_success 'a synthetic file: a section per event, lost samples said' '
	"$GEN" -o g.data &&
	"$PMREC" report g.data >out 2>err &&
	test_equal 5 "$(grep -c "^# Samples: .* of event" out)" "sections" &&
	test_grep "^# Total Lost Samples: 7$" out &&
	test_grep "warning: 7 samples were lost" err
'

test_expect_success 'a thread renamed between two samples at one address: each under its name' '
	"$GEN" --variant=rename -o r.data &&
	for g in none caller; do
		"$PMREC" report -n -g $g --sort comm r.data >out &&
		test_grep "^ +66\.67% +2 +hot *$" out &&
		test_grep "^ +33\.33% +1 +renamed *$" out || return 1
	done
'

test_expect_success 'pipe mode: from a file argument, - and a pipe on stdin' '
	"$GEN" --pipe -o p.data &&
	"$PMREC" report -g none p.data >a 2>/dev/null &&
	"$PMREC" report -g none - <p.data >b 2>/dev/null &&
	cat p.data | "$PMREC" report -g none >c 2>/dev/null &&
	test_grep "of event .cpu-clock." a &&
	test_cmp a b && test_cmp a c
'

test_expect_success 'default input: pmrec.data, then perf.data' '
	"$GEN" --variant=minimal -o perf.data &&
	"$PMREC" report </dev/null >out 2>err &&
	test_grep "hot" out &&
	"$GEN" -o pmrec.data &&
	"$PMREC" report </dev/null >out 2>/dev/null &&
	test_grep "worker" out &&
	rm pmrec.data perf.data &&
	test_expect_code 1 "$PMREC" report </dev/null 2>err &&
	test_grep "cannot open .pmrec.data." err
'

for v in short-sample cut-sample garbage oversize bad-attr; do
	test_expect_success "malformed input ($v): the reader's error with its offset, exit 1" "
		\"\$GEN\" --variant=$v -o bad.data &&
		test_expect_code 1 \"\$PMREC\" report bad.data >out 2>err &&
		test_grep '^pmrec report: bad.data: offset 0x[0-9a-f]+: ' err
	"
done

test_expect_success 'an empty input file: exit 1, said' '
	: >empty.data &&
	test_expect_code 1 "$PMREC" report empty.data 2>err &&
	test_grep "offset 0x0" err
'

test_expect_success 'a recording without samples: an empty table that says so' '
	"$GEN" --variant=minimal -o m.data &&
	"$PMREC" report --comm nobody m.data >out &&
	test_grep "^# No samples match the filters.$" out &&
	test -z "$(rows out)" &&
	"$PMREC" report --percent-limit 100 m.data >out &&
	test_grep "^# No row reaches --percent-limit.$" out
'

test_expect_success 'unknown sort keys and bad filters: exit 64 with the valid ones' '
	"$GEN" -o g.data &&
	test_expect_code 64 "$PMREC" report --sort comm,foo g.data 2>err &&
	test_grep "unknown sort key .foo. \(valid: comm, pid, tid, cpu, dso, sym, srcline, state\)" err &&
	test_expect_code 64 "$PMREC" report --sort comm,comm g.data 2>err &&
	test_expect_code 64 "$PMREC" report --pid x g.data 2>err &&
	test_grep "bad pid list" err &&
	test_expect_code 64 "$PMREC" report --tid 1-x g.data 2>err &&
	test_expect_code 64 "$PMREC" report --cpu -1 g.data 2>err &&
	test_expect_code 64 "$PMREC" report --time abc g.data 2>err &&
	test_grep "START,END" err &&
	test_expect_code 64 "$PMREC" report --time 5,1 g.data 2>err &&
	test_expect_code 64 "$PMREC" report --percent-limit x g.data 2>err &&
	test_expect_code 64 "$PMREC" report --max-rows 1.5 g.data 2>err &&
	test_expect_code 64 "$PMREC" report -g sideways g.data 2>err &&
	test_expect_code 64 "$PMREC" report --color=pink g.data 2>err &&
	test_expect_code 64 "$PMREC" report --percentage most g.data 2>err &&
	test_expect_code 64 "$PMREC" report --event nope g.data >/dev/null 2>err &&
	test_grep "no event .nope.; the file has: .cpu-clock." err &&
	test_expect_code 64 "$PMREC" report a.data b.data 2>err
'

test_expect_success '--sort in any order, -n samples, --max-rows, --event' '
	"$GEN" -o g.data &&
	"$PMREC" report --no-children -s sym,pid -n --event cpu-clock g.data >out 2>/dev/null &&
	test_grep "^# Overhead +Samples +Symbol +Pid$" out &&
	test_equal 1 "$(grep -c "^# Samples: .* of event" out)" "sections" &&
	"$PMREC" report --no-children --sort cpu,tid,dso --event cpu-clock g.data >out 2>/dev/null &&
	test_grep "^# Overhead +CPU +Tid +Shared Object *$" out &&
	"$PMREC" report --no-children --max-rows 1 --event cpu-clock g.data >out 2>/dev/null &&
	test_equal 1 "$(rows out | wc -l)" "rows with --max-rows 1"
'

test_expect_success '--children and --no-children, -g caller, callee and none' '
	"$GEN" -o g.data &&
	"$PMREC" report --event cpu-clock g.data >out 2>/dev/null &&
	test_grep "^# Children +Self " out &&
	"$PMREC" report --no-children --event cpu-clock g.data >out 2>/dev/null &&
	test_grep "^# Overhead " out &&
	grep -q -e "---0x401000" out &&
	"$PMREC" report --no-children -g none --event cpu-clock g.data >out 2>/dev/null &&
	! grep -q -- "---" out &&
	"$PMREC" report --no-children -g caller --event cpu-clock g.data >caller 2>/dev/null &&
	"$PMREC" report --no-children --call-graph=callee --event cpu-clock g.data >callee 2>/dev/null &&
	! test_cmp caller callee >/dev/null
'

test_expect_success 'filters: --comm, --pid, --tid, --cpu, --time, --percentage' '
	"$GEN" -o g.data &&
	"$PMREC" report --no-children -g none --event cpu-clock --comm worker g.data >out 2>/dev/null &&
	test_equal 1 "$(rows out | wc -l)" "rows of worker" &&
	test_grep "^ +50\.00% +\[unknown\]" out &&
	"$PMREC" report --no-children -g none --event cpu-clock --comm worker --percentage relative g.data >out 2>/dev/null &&
	test_grep "^ +100\.00% " out &&
	"$PMREC" dump g.data 2>/dev/null | grep "SAMPLE event=cpu-clock" | head -n 1 >s &&
	tid=$(sed -n "s|.* [0-9]*/\([0-9]*\) SAMPLE.*|\1|p" s) &&
	pid=$(sed -n "s|.* \([0-9]*\)/[0-9]* SAMPLE.*|\1|p" s) &&
	cpu=$(awk "{ print \$3 }" s) &&
	time=$(awk "{ print \$2 }" s) &&
	"$PMREC" report --no-children -g none --event cpu-clock -s pid --pid "$pid" g.data >out 2>/dev/null &&
	test_equal "$pid" "$(rows out | awk "{ print \$2 }" | sort -u)" "pids shown" &&
	"$PMREC" report --no-children -g none --event cpu-clock -s tid --tid "$tid" g.data >out 2>/dev/null &&
	test_equal "$tid" "$(rows out | awk "{ print \$2 }" | sort -u)" "tids shown" &&
	"$PMREC" report --no-children -g none --event cpu-clock -C "$cpu" g.data >out 2>/dev/null &&
	test_grep "^ +100\.00% " out &&
	"$PMREC" report --no-children -g none --event cpu-clock --time "$time,$time" g.data >out 2>/dev/null &&
	test_grep "^# Samples: 1 " out &&
	"$PMREC" report --no-children -g none --event cpu-clock --time ",0.000000001" g.data >out 2>/dev/null &&
	test_grep "^# No samples in the file.$" out
'

test_expect_success '--json: one valid document, exact sums; --stdio is the text' '
	"$GEN" -o g.data &&
	"$PMREC" report --json g.data >j 2>/dev/null &&
	python3 -c "
import json
d = json.load(open(\"j\"))
assert d[\"lost_samples\"] == 7
for e in d[\"events\"]:
    assert sum(r[\"self_samples\"] for r in e[\"rows\"]) == e[\"samples\"]
    assert sum(r[\"self_period\"] for r in e[\"rows\"]) == e[\"period\"]
" &&
	"$PMREC" report --json --stdio g.data >t 2>/dev/null &&
	test_grep "^# Samples:" t
'

test_expect_success '--color: ANSI only when asked or on a terminal; --width cuts lines' '
	"$GEN" -o g.data &&
	"$PMREC" report --no-children g.data >plain 2>/dev/null &&
	! grep -q "$(printf "\033")" plain &&
	"$PMREC" report --no-children --color g.data >c 2>/dev/null &&
	grep -q "$(printf "\033")\[31m" c &&
	sed "s/$(printf "\033")\[[0-9]*m//g" c >stripped &&
	test_cmp plain stripped &&
	"$PMREC" report --no-children --color=auto g.data >auto 2>/dev/null &&
	test_cmp plain auto &&
	"$PMREC" report --no-children --color=never g.data >never 2>/dev/null &&
	test_cmp plain never &&
	"$PMREC" report --no-children --width 30 g.data >w 2>/dev/null &&
	test "$(awk "{ if (length(\$0) > m) m = length(\$0) } END { print m }" w)" -le 30 &&
	"$PMREC" report --no-children --width 0 g.data >w0 2>/dev/null &&
	test_cmp plain w0
'

# Long options read on stdin whose troff spelling (\-\-name) is not in the page.
undocumented() {
	while read -r o; do
		troff=$(printf '%s' "$o" | sed 's/-/\\-/g')
		grep -q -F -e "$troff" "$SRC_DIR/man/pmrec-report.1" || printf ' %s' "$o"
	done
}

test_expect_success 'every --help long option is in pmrec-report.1; pmrec lists report' '
	"$PMREC" report --help | grep -o -E -- "--[a-z][a-z0-9-]*" | sort -u >opts &&
	test -s opts &&
	test_equal "" "$(undocumented <opts)" "options missing from pmrec-report.1" &&
	"$PMREC" --help >h 2>&1 &&
	test_grep "report" h &&
	grep -q -F "pmrec\\-report" "$SRC_DIR/man/pmrec.1" &&
	grep -q "pmrec report" "$SRC_DIR/README.md"
'

test_done
