#!/bin/sh
# pmrec report against perf report on the same files: the top 20 rows (same
# order, ties aside; overheads to two decimals; -n sample counts), with and
# without --children, on a known call tree, a -a recording, a tracepoint
# recording, a two-event file and a file perf record wrote; the -g caller
# paths under the hottest row; --json sums against dump --stats.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool

if [ ! -e /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi

# The comparison: perf's text in $1, pmrec's in $2, both report --stdio.
# Rows whose name is an alias documented in pmrec-report(1), NOTES, are
# left out on both sides: PLT entries (perf 6.1 names libc's after other
# stubs, and may give a program's to the _init before them), an
# address named by another symbol at the same place (_start), mangled
# names, and unnamed addresses (perf keys its own samples by the
# map-relative address and call-chain entries by the absolute one, two
# rows; pmrec keys both by the offset in the file, one).  Prints "rows=N" when the rest match.
cat >"$TMP_ROOT/cmp.py" <<'PY'
import re, sys
ROW = re.compile(r'^\s*(\d+\.\d+)%\s+(?:(\d+\.\d+)%\s+)?(?:(\d+)\s+)?(\S.*?)\s*$')
def rows(path, limit):
    out = []
    for line in open(path, errors='replace'):
        if line.startswith('#') or not line.strip():
            continue
        m = ROW.match(line)
        if not m:
            continue        # a call-graph line
        names = re.split(r'\s{2,}', m.group(4))
        out.append((m.group(1), m.group(2), m.group(3), names))
        if len(out) == limit:
            break
    return out
def alias(names):
    s = ' '.join(names)
    return ('@plt' in s or '] _Z' in s or re.search(r'\] 0x[0-9a-f]+$', s) or '_start' in s or
            '[unknown]' in s or '] _init' in s)
def key(r):
    return ' | '.join(r[3])
want, got = rows(sys.argv[1], 20), rows(sys.argv[2], 20)
if len(want) != len(got) or not want:
    sys.exit('rows: perf %d, pmrec %d' % (len(want), len(got)))
# A row named by an alias may stand elsewhere in perf's order, or not in
# its top 20 at all (ld.so's _start, hit by a page fault at exec in one run
# in ten): the rows compared in order are the others, as many as both have.
want = [r for r in want if not alias(r[3])]
got = [r for r in got if not alias(r[3])]
want, got = want[:min(len(want), len(got))], got[:min(len(want), len(got))]
if not want:
    sys.exit('no rows without an alias')
for i, (w, g) in enumerate(zip(want, got)):
    if w[0] != g[0]:
        sys.exit('row %d: perf %s, pmrec %s' % (i + 1, w, g))
# Ties aside: rows of one overhead (Children with --children) compare as
# multisets, but for the last group, which the limit may cut.
groups = {}
for w, g in zip(want, got):
    gw, gg = groups.setdefault(w[0], ([], []))
    gw.append(w)
    gg.append(g)
last = want[-1][0]
for k, (gw, gg) in groups.items():
    if k == last:
        continue
    sw = sorted((r[1:3], key(r)) for r in gw)
    sg = sorted((r[1:3], key(r)) for r in gg)
    if sw != sg:
        sys.exit('rows at %s%%: perf %s, pmrec %s' % (k, sw, sg))
print('rows=%d' % len(want))
PY

# same_rows FILE "PERF OPTIONS" "PMREC OPTIONS": top 20 rows alike.
# On a failure the reason comes last: the log keeps only its last lines.
same_rows() {
	rm -f perf.txt pmrec.txt cmp.out &&
	{ perf report -i "$1" --stdio $2 >perf.txt 2>perf.err || {
		rc=$?; tail -n 5 perf.err; echo "perf report $2 exited $rc"; return 1
	}; } &&
	{ "$PMREC" report $3 "$1" >pmrec.txt 2>pmrec.err || {
		rc=$?; tail -n 5 pmrec.err; echo "pmrec report $3 exited $rc"; return 1
	}; } &&
	python3 "$TMP_ROOT/cmp.py" perf.txt pmrec.txt >cmp.out 2>&1 || {
		head -n 30 perf.txt pmrec.txt; cat cmp.out; return 1
	}
	echo "$1: $2: $(cat cmp.out)" >>"$TMP_ROOT/matched"
}

# both_modes FILE: self and children tables, each with -n.
both_modes() {
	same_rows "$1" "--no-children --sort comm,dso,sym" "--stdio --no-children" &&
	same_rows "$1" "--no-children --sort comm,dso,sym -n" "--no-children -n" &&
	same_rows "$1" "--children --no-inline --sort comm,dso,sym" "--children" &&
	same_rows "$1" "--children --no-inline --sort comm,dso,sym -n" "--children -n"
}

test_expect_success 'record the call tree with frame pointers' '
	"$PMREC" record -q -g -o "$TMP_ROOT/fp.data" -- "$HELPERS/calltree" 40 &&
	test -s "$TMP_ROOT/fp.data"
'

test_expect_success 'call tree: top rows as perf report, self and children' '
	both_modes "$TMP_ROOT/fp.data" &&
	same_rows "$TMP_ROOT/fp.data" "--no-children -g none -n --sort comm,dso,sym" "--no-children -g none -n" &&
	"$PMREC" report --no-children "$TMP_ROOT/fp.data" >t &&
	test_grep "calltree +\[\.\] hot$" t
'

test_expect_success 'call tree: --sort dso,sym and cpu,comm as perf' '
	same_rows "$TMP_ROOT/fp.data" "--no-children --sort dso,sym" "--no-children --sort dso,sym" &&
	same_rows "$TMP_ROOT/fp.data" "--no-children --sort cpu,comm" "--no-children -s cpu,comm"
'

# The paths under the hottest row: the call-graph lines up to the next row,
# names and percentages to one decimal.
cat >"$TMP_ROOT/paths.py" <<'PY'
import re, sys
def paths(path):
    lines, seen = [], 0
    for line in open(path, errors='replace'):
        if line.startswith('#'):
            continue
        if re.match(r'^\s*\d+\.\d+%', line):
            seen += 1
            if seen > 1:
                break
            continue
        if seen and line.strip():
            out = []
            for pct in re.findall(r'(\d+\.\d+)%', line):
                out.append('%.1f' % float(pct))
            name = re.sub(r'[-|\s]*(\d+\.\d+%)?[-|\s]*', '', line, count=1).strip()
            lines.append((tuple(out), name))
    return lines
a, b = paths(sys.argv[1]), paths(sys.argv[2])
if not a or a != b:
    sys.exit('perf %s\npmrec %s' % (a[:20], b[:20]))
print(len(a))
PY

test_expect_success '-g caller: the paths under the hottest row as perf -g caller' '
	perf report -i "$TMP_ROOT/fp.data" --stdio --no-children -g caller >perf.txt 2>/dev/null &&
	"$PMREC" report --no-children -g caller "$TMP_ROOT/fp.data" >pmrec.txt &&
	python3 "$TMP_ROOT/paths.py" perf.txt pmrec.txt >n &&
	test "$(cat n)" -gt 5 &&
	test_grep "caller_a" pmrec.txt &&
	perf report -i "$TMP_ROOT/fp.data" --stdio --children --no-inline -g caller >perf.txt 2>/dev/null &&
	"$PMREC" report --children -g caller "$TMP_ROOT/fp.data" >pmrec.txt &&
	python3 "$TMP_ROOT/paths.py" perf.txt pmrec.txt >n &&
	test "$(cat n)" -gt 5
'

test_expect_success '-g callee under the hottest row as perf -g callee' '
	perf report -i "$TMP_ROOT/fp.data" --stdio --no-children -g callee >perf.txt 2>/dev/null &&
	"$PMREC" report --no-children -g callee "$TMP_ROOT/fp.data" >pmrec.txt &&
	python3 "$TMP_ROOT/paths.py" perf.txt pmrec.txt >/dev/null
'

# json_sums FILE: valid JSON whose rows sum to the samples and period of
# each event, and whose events sum to dump --stats' SAMPLE count.
cat >"$TMP_ROOT/jsonsum.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
total = 0
for ev in doc['events']:
    assert ev['mode'] == 'self', ev['mode']
    s = sum(r['self_samples'] for r in ev['rows'])
    p = sum(r['self_period'] for r in ev['rows'])
    assert s == ev['samples'], (s, ev['samples'])
    assert p == ev['period'], (p, ev['period'])
    total += s
print(total)
PY
json_sums() {
	"$PMREC" report --json --no-children -g none "$1" >r.json &&
	python3 "$TMP_ROOT/jsonsum.py" r.json >got &&
	"$PMREC" dump --stats "$1" >stats &&
	want=$(awk "\$1 == \"SAMPLE\" || \$2 == \"SAMPLE\" { print \$NF; exit }" stats) &&
	test_equal "$want" "$(cat got)" "samples in the JSON rows"
}

test_expect_success '--json: valid, rows sum to the samples and period of the file' '
	json_sums "$TMP_ROOT/fp.data" &&
	"$PMREC" report --json --children "$TMP_ROOT/fp.data" >c.json &&
	python3 -c "import json,sys; d=json.load(open(\"c.json\")); assert d[\"events\"][0][\"mode\"]==\"children\"; assert \"callchain\" in d[\"events\"][0][\"rows\"][0]"
'

# Other processes on the machine may run stripped programs in several
# processes at once; perf keys their unnamed call-chain entries by the
# absolute address, pmrec by the offset in the file (NOTES in
# pmrec-report(1)), so
# the whole table is compared for the processes with symbols: the workload
# (--comm), and the percentages stay shares of the whole system.
test_expect_success 'a -a recording of the whole system' '
	"$PMREC" record -q -a -g --duration=1 -o sys.data -- "$HELPERS/calltree" 20 &&
	same_rows sys.data "--no-children --sort comm,dso,sym --comms calltree" \
		"--no-children --comm calltree" &&
	same_rows sys.data "--no-children --sort comm,dso,sym -n --comms calltree" \
		"--no-children -n --comm calltree" &&
	same_rows sys.data "--children --no-inline --sort comm,dso,sym --comms calltree" \
		"--children --comm calltree" &&
	same_rows sys.data "--no-children --sort comm,dso,sym --comms calltree --percentage relative" \
		"--no-children --comm calltree --percentage relative" &&
	json_sums sys.data
'

test_expect_success 'a tracepoint recording: weight = sample count' '
	"$PMREC" record -q -g -e raw_syscalls:sys_enter -c 1 -o tp.data -- "$HELPERS/seqcall" 2000 &&
	both_modes tp.data &&
	json_sums tp.data
'

test_expect_success 'two events: a section each, as perf' '
	"$PMREC" record -q -g -e cpu-clock,task-clock -o two.data -- "$HELPERS/calltree" 20 &&
	"$PMREC" report --no-children two.data >t &&
	test_equal 2 "$(grep -c "^# Samples: .* of event" t)" "sections" &&
	perf report -i two.data --stdio --no-children --sort comm,dso,sym >perf.txt 2>/dev/null &&
	awk "/^# Samples: .* of event/ { n++ } { print > (\"sec\" n \".txt\") }" perf.txt &&
	n=0 &&
	for ev in cpu-clock task-clock; do
		n=$((n + 1)) &&
		test_grep "of event .$ev." sec$n.txt &&
		"$PMREC" report --no-children --event $ev two.data >pmrec.txt &&
		python3 "$TMP_ROOT/cmp.py" sec$n.txt pmrec.txt 2>&1 || return 1
	done &&
	test_equal 1 "$(grep -c "^# Samples: .* of event" pmrec.txt)" "sections with --event" &&
	json_sums two.data
'

test_expect_success 'a file written by perf record' '
	perf record -q -B -g -o perf.data -- "$HELPERS/calltree" 20 >/dev/null 2>&1 &&
	both_modes perf.data &&
	"$PMREC" report --no-children >dflt.txt &&
	test_grep "\[\.\] hot" dflt.txt
'

# Two overloads demangle alike without their parameters (perf's default,
# and pmrec's): perf keys a row by the symbol's start, so they are two
# rows of one name, and so are pmrec's.
test_expect_success 'C++ overloads of one name: a row each, as perf' '
	cat >ov.cc <<-\EOF &&
	#include <cstdlib>
	volatile double sink;
	__attribute__((noinline)) void work(int n) { for (int i = 0; i < n; i++) sink = sink + i; }
	__attribute__((noinline)) void work(double n) { for (int i = 0; i < 2 * n; i++) sink = sink + i; }
	int main(int argc, char **argv)
	{
		for (int r = 0; r < atoi(argv[1]); r++) { work(1000000); work(1000000.0); }
	}
	EOF
	g++ -O2 -fno-omit-frame-pointer -o ov ov.cc &&
	"$PMREC" record -q -g -o ov.data -- ./ov 150 &&
	perf report -i ov.data --stdio --no-children -g none --sort sym 2>/dev/null >perf.txt &&
	"$PMREC" report --no-children -g none --sort sym ov.data >pmrec.txt &&
	test_equal 2 "$(grep -c "\] work\$" perf.txt)" "perf rows named work" &&
	grep "\] work\$" perf.txt | awk "{ print \$1 }" >want &&
	grep "\] work\$" pmrec.txt | awk "{ print \$1 }" >got &&
	test_cmp want got
'

test_expect_success 'a pipe: the same table as from the file' '
	"$PMREC" record -q -g -o - -- "$HELPERS/calltree" 10 >p.data &&
	"$PMREC" report --no-children p.data >file.txt &&
	"$PMREC" report --no-children - <p.data >pipe.txt &&
	cat p.data | "$PMREC" report --no-children >pipe2.txt &&
	test_grep "\[\.\] hot" file.txt &&
	grep -v "^#" file.txt >a && grep -v "^#" pipe.txt >b && grep -v "^#" pipe2.txt >c &&
	test_cmp a b && test_cmp a c
'

test_expect_success 'summary of the comparisons' '
	cat "$TMP_ROOT/matched" &&
	test "$(wc -l <"$TMP_ROOT/matched")" -ge 18
'

test_done
