#!/bin/sh
# pmrec report --pprof: the file go tool pprof reads.  Its top functions and
# flat sample counts are report --no-children's, its traces the folded
# stacks of dump --folded, its -raw dump shows the mappings with their build
# ids and the pid/tid/comm labels, its two values sum to the file's samples
# and period, and every id in it resolves (Go's profile.CheckValid and
# tests/helpers/pprof-check.py); on a pmrec file, a perf file and a
# --call-graph dwarf file.  Then the options and their errors.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool
command -v go >/dev/null 2>&1 ||
	test_skip_all "go is not installed (apt-get install golang-go)"
PPROF_SRC=/usr/share/gocode/src/github.com/google/pprof/profile
[ -d "$PPROF_SRC" ] ||
	test_skip_all "pprof's Go sources are not installed (apt-get install golang-github-google-pprof-dev)"

# Go builds offline from Debian's sources (GOPATH mode, no module proxy).
export GOCACHE="$TMP_ROOT/gocache" GOPATH=/usr/share/gocode
export GO111MODULE=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local
CHECK="python3 $SRC_DIR/tests/helpers/pprof-check.py"
GOCHECK=$TMP_ROOT/pprofcheck

# top.py PPROF_TOP REPORT: every function of go tool pprof -top (flat
# samples, -sample_index=samples) has report --no-children -n --sort sym's
# samples (with call chains named, so that inlined functions are frames), and every report row above pprof's cut is in pprof's list.
# An address of a file no symbol covers is the function calltree+0x1234 in
# pprof, the row 0x0000000000001234 in report: compared as such.
cat >"$TMP_ROOT/top.py" <<'PY'
import re, sys
top, rep = {}, {}
total = None
for line in open(sys.argv[1]):
    m = re.match(r'^Showing nodes accounting for \d+, [\d.]+% of (\d+) total', line)
    if m:
        total = int(m.group(1))
    m = re.match(r'^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+?)\s*$', line)
    if m:
        name = m.group(3)
        name = name[:-9] if name.endswith(' (inline)') else name
        off = re.match(r'^[^\[].*\+0x([0-9a-f]+)$', name)
        name = '0x%016x' % int(off.group(1), 16) if off else name
        top[name] = int(m.group(1))
for line in open(sys.argv[2]):
    m = re.match(r'^\s*[\d.]+%\s+(\d+)\s+\[[.kgHu]\]\s+(.+?)\s*$', line)
    if m and not line.startswith('#'):
        rep[m.group(2)] = rep.get(m.group(2), 0) + int(m.group(1))
named = {k: v for k, v in top.items() if not k.startswith('[')}
if len([k for k in named if not k.startswith('0x')]) < 3:
    sys.exit('pprof lists %d named functions: %s' % (len(named), top))
for k, v in named.items():
    if v and rep.get(k) != v:
        sys.exit('%s: pprof %d samples, report %s' % (k, v, rep.get(k)))
cut = max(min(top.values()) if len(top) == 20 else 0, 0.005 * (total or 0))
for k, v in rep.items():
    if v > cut and not k.startswith('0x') and k not in top:
        sys.exit('%s (%d samples) is missing from pprof -top' % (k, v))
print('functions=%d' % len(named))
PY

# traces.py PPROF_TRACES FOLDED: go tool pprof -traces (-sample_index=samples)
# as folded stacks equal dump --folded's without the command root.
cat >"$TMP_ROOT/traces.py" <<'PY'
import sys
got, want, stack, value = {}, {}, [], 0
def flush():
    global stack, value
    if stack:
        k = ';'.join(reversed(stack))
        got[k] = got.get(k, 0) + value
    stack, value = [], 0
started = False
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if line.startswith('-----------+'):
        started = True
        flush()
        continue
    if not started or len(line) < 13 or line[10] == ':':
        continue
    if line[:10].strip():
        flush()
        value = int(line[:10])
    name = line[13:]
    if name.endswith(' (inline)'):
        name = name[:-9]
    stack.append(name)
flush()
for line in open(sys.argv[2]):
    k, n = line.rstrip('\n').rsplit(' ', 1)
    k = k.split(';', 1)[1] if ';' in k else ''
    want[k] = want.get(k, 0) + int(n)
if got != want:
    bad = sorted(set(got.items()) ^ set(want.items()))[:10]
    sys.exit('traces differ from the folded stacks: %s' % bad)
print('stacks=%d' % len(got))
PY

# pprof_matches DATA: the acceptance on one file.
pprof_matches() {
	"$PMREC" report --pprof=p.pb.gz "$1" 2>err &&
	$GOCHECK p.pb.gz >go.out &&
	$CHECK p.pb.gz >py.out &&
	go tool pprof -top -nodecount=20 -sample_index=samples p.pb.gz >top.txt 2>top.err &&
	"$PMREC" report --no-children -n --sort sym "$1" >rep.txt &&
	python3 "$TMP_ROOT/top.py" top.txt rep.txt &&
	go tool pprof -traces -sample_index=samples p.pb.gz >traces.txt 2>traces.err &&
	"$PMREC" dump --folded "$1" >folded.txt 2>/dev/null &&
	python3 "$TMP_ROOT/traces.py" traces.txt folded.txt || {
		cat err go.out py.out top.err traces.err 2>/dev/null; head -n 30 top.txt rep.txt
		return 1
	}
}

# sums_match DATA: the values sum to the file's samples (dump --stats) and
# summed period (report --json), in both readers.
sums_match() {
	"$PMREC" report --pprof=s.pb.gz "$1" &&
	"$PMREC" dump --stats "$1" >stats &&
	n=$(awk "\$1 == \"SAMPLE\" || \$2 == \"SAMPLE\" { print \$NF; exit }" stats) &&
	"$PMREC" report --json --no-children -g none "$1" >r.json &&
	period=$(python3 -c "import json; print(sum(e[\"period\"] for e in json.load(open(\"r.json\"))[\"events\"]))") &&
	$CHECK s.pb.gz >py.out &&
	test_grep "^samples=$n period=$period " py.out &&
	$GOCHECK s.pb.gz >go.out &&
	test_grep "^samples/count=$n$" go.out &&
	test_grep "/(nanoseconds|count)=$period$" go.out
}

test_expect_success 'build the Go checker offline from Debian pprof sources' '
	cp -r "$SRC_DIR/tests/helpers/pprofcheck" "$TMP_ROOT/pprofcheck-src" &&
	(cd "$TMP_ROOT/pprofcheck-src" && go build -o "$GOCHECK" .) &&
	test -x "$GOCHECK"
'

test_expect_success 'record the call tree with frame pointers' '
	"$PMREC" record -q -g -o "$TMP_ROOT/fp.data" -- "$HELPERS/calltree" 30 &&
	test -s "$TMP_ROOT/fp.data"
'

test_expect_success 'a gzip file that parses, passes CheckValid, and whose ids all resolve' '
	"$PMREC" report --pprof=p.pb.gz "$TMP_ROOT/fp.data" &&
	test "$(od -An -tx1 -N2 p.pb.gz | tr -d " ")" = 1f8b &&
	$GOCHECK p.pb.gz >go.out &&
	test_grep "^samples/count=[1-9]" go.out &&
	$CHECK p.pb.gz >py.out &&
	test_grep "^samples=[1-9][0-9]* .* mappings=[1-9]" py.out
'

test_expect_success 'pprof -top: the functions and flat samples of report --no-children' '
	"$PMREC" report --pprof=p.pb.gz "$TMP_ROOT/fp.data" &&
	go tool pprof -top -nodecount=20 -sample_index=samples p.pb.gz >top.txt &&
	"$PMREC" report --no-children -n --sort sym "$TMP_ROOT/fp.data" >rep.txt &&
	python3 "$TMP_ROOT/top.py" top.txt rep.txt &&
	test_grep " hot$" top.txt &&
	test_grep " caller_a$" top.txt &&
	test_grep "^File: calltree$" top.txt
'

test_expect_success 'pprof -traces: the stacks of dump --folded' '
	"$PMREC" report --pprof=p.pb.gz "$TMP_ROOT/fp.data" &&
	go tool pprof -traces -sample_index=samples p.pb.gz >traces.txt &&
	"$PMREC" dump --folded "$TMP_ROOT/fp.data" >folded.txt &&
	python3 "$TMP_ROOT/traces.py" traces.txt folded.txt &&
	$CHECK --folded p.pb.gz >mine.txt &&
	sort folded.txt >want.txt &&
	test_cmp want.txt mine.txt
'

test_expect_success 'pprof -raw: mappings with build ids, pid, tid and comm labels' '
	"$PMREC" report --pprof=p.pb.gz "$TMP_ROOT/fp.data" &&
	go tool pprof -raw p.pb.gz >raw.txt &&
	id=$(readelf -n "$HELPERS/calltree" | sed -n "s/.*Build ID: *//p") &&
	test -n "$id" &&
	test_grep "^ *[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ .*/calltree $id" raw.txt &&
	# A kernel mapping exactly when a sample has a kernel frame (calltree
	# may run a whole recording without entering the kernel on a tick).
	if "$PMREC" dump --type sample "$TMP_ROOT/fp.data" | grep -q "dso=\[kernel\.kallsyms\]"; then
		test_grep "\[kernel\.kallsyms\]" raw.txt
	else
		! grep -q "\[kernel\.kallsyms\]" raw.txt
	fi &&
	test_grep "comm:\[calltree\]" raw.txt &&
	test_grep "pid:\[[0-9]+\]" raw.txt &&
	test_grep "tid:\[[0-9]+\]" raw.txt &&
	! grep -q "cpu:\[" raw.txt
'

test_expect_success 'the two values sum to the samples and period of the file' '
	sums_match "$TMP_ROOT/fp.data" &&
	go tool pprof -raw s.pb.gz >raw.txt &&
	test_grep "^samples/count cpu/nanoseconds" raw.txt &&
	test_grep "^PeriodType: cpu nanoseconds" raw.txt
'

test_expect_success 'period and duration: -c gives the period, -F the mean period' '
	"$PMREC" record -q -c 250000 -o c.data -- "$HELPERS/calltree" 5 &&
	"$PMREC" report --pprof=c.pb.gz c.data &&
	$CHECK --show c.pb.gz >show &&
	test_grep "^period 250000$" show &&
	d=$(sed -n "s/^duration_nanos //p" show) && test "$d" -gt 0 &&
	"$PMREC" record -q -F 997 -o f.data -- "$HELPERS/calltree" 5 &&
	"$PMREC" report --pprof=f.pb.gz f.data &&
	$CHECK --show f.pb.gz >show &&
	"$PMREC" report --json --no-children -g none f.data >f.json &&
	mean=$(python3 -c "import json; e=json.load(open(\"f.json\"))[\"events\"][0]; print(e[\"period\"] // e[\"samples\"])") &&
	test_grep "^period $mean$" show &&
	test_grep "^time_nanos 0$" show
'

test_expect_success 'a tracepoint: events/count, the event named in period_type' '
	"$PMREC" record -q -g -e raw_syscalls:sys_enter -c 1 -o tp.data -- "$HELPERS/seqcall" 500 &&
	sums_match tp.data &&
	go tool pprof -raw s.pb.gz >raw.txt &&
	test_grep "^samples/count events/count" raw.txt &&
	test_grep "^PeriodType: raw_syscalls:sys_enter count" raw.txt
'

test_expect_success 'a file written by perf record -g' '
	perf record -q -B -g -o perf.data -- "$HELPERS/calltree" 20 >/dev/null 2>&1 &&
	pprof_matches perf.data &&
	sums_match perf.data &&
	go tool pprof -raw s.pb.gz >raw.txt &&
	id=$(readelf -n "$HELPERS/calltree" | sed -n "s/.*Build ID: *//p") &&
	test_grep "/calltree $id" raw.txt
'

test_expect_success 'time_nanos: the first sample on the wall clock with perf -k (CLOCK_DATA)' '
	t0=$(date +%s) &&
	perf record -q -B -k CLOCK_MONOTONIC -o k.data -- "$HELPERS/calltree" 3 >/dev/null 2>&1 &&
	t1=$(date +%s) &&
	"$PMREC" report --pprof=k.pb.gz k.data &&
	$CHECK --show k.pb.gz >show &&
	t=$(sed -n "s/^time_nanos //p" show) &&
	echo "$t0 <= $t / 1e9 <= $t1" &&
	test "$((t / 1000000000))" -ge "$t0" && test "$((t / 1000000000))" -le "$t1"
'

test_expect_success 'a --call-graph dwarf file: unwound stacks, inlined functions as Lines' '
	gcc -O2 -fomit-frame-pointer -g -o dwprog "$SRC_DIR/tests/helpers/dwarf/prog.c" &&
	"$PMREC" record --call-graph dwarf -q -o d.data -- ./dwprog 0.5 &&
	pprof_matches d.data &&
	sums_match d.data &&
	test_grep ";main;a;b;leaf;mix [0-9]+$" folded.txt &&
	test_grep "^ *[0-9]* +mix \(inline\)$" traces.txt &&
	test_grep "^File: dwprog$" top.txt &&
	go tool pprof -raw p.pb.gz >raw.txt &&
	test_grep "/dwprog [0-9a-f]{40} \[FN\]" raw.txt
'

# CPU 0 too: pprof readers drop a number label of 0, so it is a string.
test_expect_success '--pprof-labels=cpu adds a cpu label; samples of each CPU stay apart' '
	"$PMREC" record -q -a -g -o all.data -- taskset -c 0 "$HELPERS/calltree" 5 &&
	"$PMREC" report --pprof=a.pb.gz all.data &&
	"$PMREC" report --pprof=c.pb.gz --pprof-labels=cpu all.data &&
	go tool pprof -raw c.pb.gz >raw.txt &&
	test_grep "comm:\[calltree\] cpu:\[0\]" raw.txt &&
	$GOCHECK a.pb.gz >a.out && $GOCHECK c.pb.gz >c.out &&
	test_equal "$(head -n 2 a.out)" "$(head -n 2 c.out)" "sums" &&
	na=$(sed -n "s/.* samples=//p" a.out) && nc=$(sed -n "s/.* samples=//p" c.out) &&
	test "$nc" -ge "$na" &&
	"$PMREC" report --pprof=c2.pb.gz --pprof-labels=pid,cpu,comm all.data &&
	$GOCHECK c2.pb.gz >c2.out && test_cmp c.out c2.out
'

test_expect_success 'bad --pprof-labels: exit 64, the valid labels named' '
	test_expect_code 64 "$PMREC" report --pprof=x.pb.gz --pprof-labels=gpu "$TMP_ROOT/fp.data" 2>err &&
	test_grep "unknown --pprof-labels label .gpu. \(valid: cpu" err &&
	test_expect_code 64 "$PMREC" report --pprof=x.pb.gz --pprof-labels=, "$TMP_ROOT/fp.data" 2>err &&
	test_grep "empty --pprof-labels" err &&
	test ! -e x.pb.gz
'

test_expect_success '--event: the event written; an unknown one is a usage error' '
	"$PMREC" record -q -g -e cpu-clock,task-clock -o two.data -- "$HELPERS/calltree" 10 &&
	"$PMREC" report --pprof=one.pb.gz two.data 2>err &&
	test_grep "writes the event .cpu-clock. alone; choose another with --event" err &&
	"$PMREC" report --pprof=two.pb.gz --event task-clock two.data 2>err &&
	test ! -s err &&
	$CHECK --show two.pb.gz >show && test_grep "^period [1-9]" show &&
	go tool pprof -raw two.pb.gz >raw.txt && test_grep "^PeriodType: cpu nanoseconds" raw.txt &&
	test_expect_code 64 "$PMREC" report --pprof=no.pb.gz --event cycles two.data 2>err &&
	test_grep "no event .cycles.; the file has: .cpu-clock., .task-clock." err
'

test_expect_success '--pprof=- writes to stdout, from a pipe too; filters choose samples' '
	"$PMREC" record -q -g -o - -- "$HELPERS/calltree" 5 >p.data &&
	"$PMREC" report --pprof=- p.data >file.pb.gz &&
	"$PMREC" report --pprof=- - <p.data >pipe.pb.gz &&
	$CHECK --folded file.pb.gz >a && $CHECK --folded pipe.pb.gz >b && test_cmp a b &&
	test_grep "^calltree;" a &&
	"$PMREC" report --pprof=c.pb.gz --comm no-such-comm p.data &&
	$CHECK c.pb.gz >py.out && test_grep "^samples=0 " py.out
'

test_expect_success 'an unwritable --pprof path: exit 1, the path named' '
	test_expect_code 1 "$PMREC" report --pprof=/nonexistent/p.pb.gz "$TMP_ROOT/fp.data" 2>err &&
	test_grep "cannot create ./nonexistent/p.pb.gz." err
'

test_expect_success '--pprof=FILE replaces the table: nothing on stdout' '
	"$PMREC" report --pprof=p.pb.gz "$TMP_ROOT/fp.data" >none.txt &&
	test -s p.pb.gz &&
	test ! -s none.txt
'

test_done
