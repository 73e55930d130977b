#!/bin/sh
# JIT code named from perf maps (/tmp/perf-PID.map): report, dump, folded
# stacks, the flame graph and pprof name it as perf report does; pmrec
# record copies the maps into the recording, so the names outlive the map
# files; hostile maps (a symlink, another owner, malformed or huge) are
# refused, counted or bounded.  jitgen (tests/helpers/jitgen.c) is a
# two-function JIT; Node.js and Java are the real ones.
. "$(dirname "$0")/test-lib.sh"
test_require_root
test_require_perf_event
test_require_perf_tool

JITGEN=$HELPERS/jitgen
# Maps this script made, deleted at the end (the helpers write them as root).
MAPS=$TMP_ROOT/maps
: >"$MAPS"
trap 'xargs rm -f <"$MAPS"; rm -rf "$TMP_ROOT"' EXIT

# rows REPORT_TEXT: "PCT NAME" per row of a -g none table.
rows() {
	sed -n 's/^ *\([0-9.]*%\) *\[.\] \(.*[^ ]\) *$/\1 \2/p' "$1"
}

# all_rows REPORT_TEXT: "PCT NAME" per row of a -g none table, kernel too.
all_rows() {
	sed -n 's/^ *\([0-9.]*%\) *\[[.k]\] \(.*[^ ]\) *$/\1 \2/p' "$1"
}

# top_missing OURS PERFS: the rows of perf's first ten that pmrec's table
# has not, name and percentage alike (C++ overloads that demangle alike
# are rows of one name in both).
top_missing() {
	all_rows "$2" | head -n 10 >top &&
	all_rows "$1" | awk 'FILENAME == "-" { o[$0]; next } !($0 in o)' - top
}

# jit_rows REPORT_TEXT NAMES: "NAME<tab>PCT" of the rows whose symbol is one of NAMES.
jit_rows() {
	rows "$1" | sed 's/^\([^ ]*\) \(.*\)$/\2	\1/' |
		awk -F "	" 'NR == FNR { n[$0]; next } ($1 in n)' "$2" - | head -n 10
}

# One recording of jitgen for the tests that read it: its map written when
# the code is made, with a stale line that the right one overlaps.
test_expect_success 'setup: record jitgen -g with its perf map' '
	cd "$TMP_ROOT" &&
	"$PMREC" -q -g -o j.data -- "$JITGEN" --perfmap 0.4 >addrs &&
	pid=$(perf script -i j.data -F comm,pid 2>/dev/null | awk "\$1 == \"jitgen\" { p = \$2 } END { print p }") &&
	echo "/tmp/perf-$pid.map" >>"$MAPS" &&
	echo "$pid" >pid &&
	test -f "/tmp/perf-$pid.map"
'

test_expect_success 'report names JIT code as perf report does (sym and dso, percentages)' '
	"$PMREC" report --no-children -g none --sort sym,dso "$TMP_ROOT/j.data" >ours &&
	perf report -i "$TMP_ROOT/j.data" --no-children -g none --sort sym,dso --stdio \
		2>/dev/null >perfs &&
	rows ours | grep "jit_\|tid" | tr -s " " >o && rows perfs | grep "jit_\|tid" | tr -s " " >p &&
	cat o && test_cmp p o &&
	pid=$(cat "$TMP_ROOT/pid") &&
	test_grep "^[0-9.]*% jit_inner \[JIT\] tid $pid$" o
'

test_expect_success 'the later of two overlapping lines wins' '
	"$PMREC" dump --type sample "$TMP_ROOT/j.data" >out &&
	test_grep "sym=jit_inner " out &&
	! grep stale_code out
'

# Under run, jit_outer; a sample on jit_inner's first instruction, before
# it saves the frame pointer, has run call jit_inner: a branch ("|", then
# "--99.26%--jit_outer (tier 2)").
test_expect_success '-g: the JIT caller of the JIT callee' '
	"$PMREC" report --no-children -g caller --sort sym "$TMP_ROOT/j.data" >out &&
	sed -n "/\[\.\] jit_inner/,/^$/p" out >graph &&
	grep -A2 "run$" graph | grep -q "[- ]jit_outer (tier 2)$" &&
	grep -A1 "jit_outer (tier 2)$" graph | grep -q "jit_inner$"
'

test_expect_success 'dump: sym, dso and frames; JSON; folded stacks' '
	pid=$(cat "$TMP_ROOT/pid") &&
	"$PMREC" dump --type sample "$TMP_ROOT/j.data" >out &&
	test_grep "sym=jit_inner symoff=0x[0-9a-f]* dso=/tmp/perf-$pid.map .*frames=jit_inner\+0x[0-9a-f]*,\"jit_outer \(tier 2\)\"\+0x[0-9a-f]*,run\+" out &&
	"$PMREC" dump --json --type sample "$TMP_ROOT/j.data" >json &&
	test_grep "\"sym\":\"jit_outer \(tier 2\)\",\"off\":\"0x[0-9a-f]+\",\"dso\":\"/tmp/perf-$pid.map\"" json &&
	"$PMREC" dump --folded "$TMP_ROOT/j.data" >folded &&
	test_grep "^jitgen;.*main;run;jit_outer \(tier 2\);jit_inner [0-9]+$" folded
'

test_expect_success 'flame graph and pprof name the JIT frames' '
	"$PMREC" report --flamegraph=j.svg "$TMP_ROOT/j.data" 2>/dev/null &&
	test_grep "<title>jit_inner \(" j.svg &&
	test_grep "<title>jit_outer \(tier 2\) \(" j.svg &&
	"$PMREC" report --pprof=j.pb.gz "$TMP_ROOT/j.data" &&
	go tool pprof -top -cum j.pb.gz >top 2>/dev/null &&
	test_grep " jit_inner$" top && test_grep " jit_outer \(tier 2\)$" top
'

# The readers run with a /tmp of their own (the test's directory stays
# theirs through its cwd): pids wrap during a test run, and another
# test's JIT process of jitgen's old pid could write /tmp/perf-PID.map.
test_expect_success 'map deleted: pmrec names from its copy and says so, perf does not' '
	cp "$TMP_ROOT/j.data" j.data &&
	rm -f "/tmp/perf-$(cat "$TMP_ROOT/pid").map" &&
	PMREC="$PMREC" unshare -m sh -c "mount -t tmpfs pmrec-test /tmp &&
		\"\$PMREC\" report -v --no-children -g none --sort sym j.data >out 2>err &&
		\"\$PMREC\" report --no-children -g none --sort sym j.data >/dev/null 2>err2 &&
		perf report -i j.data --no-children -g none --sort sym --stdio 2>/dev/null >perfs &&
		ls -A /tmp >made" &&
	test_grep "JIT code names: 3 from the recording" err &&
	rows out | grep -q "% jit_inner$" &&
	test_equal "" "$(cat err2)" "warnings" &&
	test_equal "" "$(cat made)" "files made in /tmp" &&
	test_equal "" "$(grep jit_inner perfs)" "perf rows named jit_inner" &&
	rows perfs | grep -q "% 0x0*7f"
'

test_expect_success 'a map written only at exit (DumpPerfMapAtExit) is copied' '
	"$PMREC" -q -o x.data -- "$JITGEN" --perfmap-at-exit --rwx 0.2 >/dev/null &&
	pid=$(perf script -i x.data -F pid 2>/dev/null | tail -n 1 | tr -d " ") &&
	echo "/tmp/perf-$pid.map" >>"$MAPS" && rm -f "/tmp/perf-$pid.map" &&
	"$PMREC" dump --type sample x.data >out &&
	test_grep "sym=jit_inner " out
'

# Its own pid and mount namespaces, a /tmp of its own: the map is
# /tmp/perf-1.map there, which pmrec reads through the process's /tmp,
# held from a drain pass while the process lives: small rings make passes
# frequent (see JIT CODE in pmrec-record(1)).
test_expect_success 'a process in other pid and mount namespaces: its own /tmp/perf-NSPID.map' '
	# The program is opened before the new /tmp hides it (a build under /tmp).
	"$PMREC" -q -m 8 -F 4000 -o ns.data -- unshare -p -m --fork sh -c \
		"exec 3<\"$JITGEN\" && mount -t tmpfs none /tmp && exec /proc/self/fd/3 --perfmap 0.4" \
		>/dev/null &&
	! test -e /tmp/perf-1.map &&
	"$PMREC" dump --type sample ns.data >out &&
	test_grep "sym=jit_inner .*dso=/tmp/perf-[0-9]+\.map" out
'

test_expect_success 'a symlink at the map path: not read, warned once (record, report)' '
	: >target && chmod 600 target &&
	"$PMREC" -q -o s.data -- sh -c "ln -s $PWD/target /tmp/perf-\$\$.map; exec \"$JITGEN\" 0.2" \
		>/dev/null 2>err &&
	pid=$(perf script -i s.data -F pid 2>/dev/null | tail -n 1 | tr -d " ") &&
	echo "/tmp/perf-$pid.map" >>"$MAPS" &&
	test -L "/tmp/perf-$pid.map" &&
	test "$(grep -c "perf map .*perf-$pid.map. is not read: it is a symbolic link" err)" = 1 &&
	"$PMREC" report s.data >/dev/null 2>err &&
	test "$(grep -c "is not read: it is a symbolic link" err)" = 1
'

test_expect_success 'a map owned by another user: ignored' '
	"$PMREC" -q -o o.data -- sh -c "echo \"0 7fffffffffff fake\" >/tmp/perf-\$\$.map &&
		chown nobody /tmp/perf-\$\$.map && exec \"$JITGEN\" 0.2" >/dev/null 2>err &&
	pid=$(perf script -i o.data -F pid 2>/dev/null | tail -n 1 | tr -d " ") &&
	echo "/tmp/perf-$pid.map" >>"$MAPS" &&
	test_grep "is not read: owned by another user" err &&
	"$PMREC" dump --type sample o.data >out 2>err &&
	test_grep "owned by another user" err &&
	! grep -q fake out
'

test_expect_success 'malformed lines: skipped and counted, the rest used' '
	"$PMREC" -q -o m.data -- sh -c "printf \"garbage\n0 7fffffffffff everything\n1 2\nzz 1 f\n\" \
		>/tmp/perf-\$\$.map && exec \"$JITGEN\" 0.2" >/dev/null 2>err &&
	pid=$(perf script -i m.data -F pid 2>/dev/null | tail -n 1 | tr -d " ") &&
	echo "/tmp/perf-$pid.map" >>"$MAPS" &&
	test_grep "perf map ./tmp/perf-$pid.map.: 3 malformed lines skipped" err &&
	"$PMREC" dump --type sample m.data >out &&
	test_grep "sym=everything " out
'

# 600 000 lines, more than the 256 Ki names kept: read up to the bound,
# in bounded memory (the 1 GB and 10-million-line maps are in make bench).
test_expect_success 'a map over the bounds: cut, memory bounded' '
	"$PMREC" -q -o b.data -- sh -c "awk \"BEGIN { for (i = 0; i < 600000; i++)
		printf \\\"%x 10 name_%d\\\\n\\\", 65536 + i * 16, i }\" >/tmp/perf-\$\$.map &&
		exec \"$JITGEN\" 0.1" >/dev/null 2>err &&
	pid=$(perf script -i b.data -F pid 2>/dev/null | tail -n 1 | tr -d " ") &&
	echo "/tmp/perf-$pid.map" >>"$MAPS" &&
	test_grep "is larger than pmrec reads: its first 262144 names are used" err &&
	rm -f "/tmp/perf-$pid.map" &&
	/usr/bin/time -f %M "$PMREC" report b.data >/dev/null 2>rss &&
	/usr/bin/time -f %M "$PMREC" report "$TMP_ROOT/j.data" >/dev/null 2>rss0 &&
	echo "max RSS $(tail -n 1 rss) KB, without the big map $(tail -n 1 rss0) KB" &&
	test $(($(tail -n 1 rss) - $(tail -n 1 rss0))) -lt 65536
'

# Node.js with --perf-basic-prof: the JIT rows as perf report shows them.
test_expect_success 'node --perf-basic-prof: top rows and JIT rows equal perf report, named after the map is gone' '
	cat >hot.js <<-\EOF &&
	function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
	function caller(n) { return hotLoop(n) + 1; }
	const end = Date.now() + 400; let r = 0;
	while (Date.now() < end) r += caller(100000);
	if (r < 0) console.log(r);
	EOF
	"$PMREC" -q -g -o n.data -- node --perf-basic-prof --interpreted-frames-native-stack hot.js &&
	pid=$(perf script -i n.data -F pid 2>/dev/null | tail -n 1 | tr -d " ") &&
	echo "/tmp/perf-$pid.map" >>"$MAPS" &&
	cut -d" " -f3- "/tmp/perf-$pid.map" | sort -u >names &&
	"$PMREC" report --no-children -g none --sort sym n.data >ours &&
	perf report -i n.data --no-children -g none --sort sym --stdio 2>/dev/null >perfs &&
	jit_rows ours names >o && jit_rows perfs names >p &&
	cat o && test_cmp p o &&
	test_grep "^JS:\*hotLoop $PWD/hot.js:1:17	" o &&
	top_missing ours perfs >missing &&
	test_equal 10 "$(wc -l <top)" "perf rows compared" &&
	! test -s missing &&
	rm -f "/tmp/perf-$pid.map" &&
	"$PMREC" report --no-children -g none --sort sym n.data >ours2 &&
	test_cmp ours ours2 &&
	perf report -i n.data --no-children -g none --sort sym --stdio 2>/dev/null >perfs2 &&
	! grep -q "JS:\*hotLoop" perfs2
'

# Java 17 writes its map only as it exits; inner stays a frame of its own.
# A count of calls, not a time, and -Xbatch (the caller waits for each
# compilation): on a loaded machine 600 ms of wall once ended before the
# compiler had made outer and inner.
test_expect_success 'java -XX:+DumpPerfMapAtExit: Java callers and callees in the -g graph' '
	cat >Hot.java <<-\EOF &&
	public class Hot {
		static double inner(int n) {
			double s = 0;
			for (int i = 0; i < n; i++)
				s += Math.sqrt(i);
			return s;
		}
		static double outer(int n) { return inner(n) + 1; }
		public static void main(String[] args) {
			double s = 0;
			for (int k = 0; k < 4000; k++)
				s += outer(100000);
			System.out.println(s > 0);
		}
	}
	EOF
	javac Hot.java &&
	"$PMREC" -q -g -o java.data -- java -Xbatch -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions \
		-XX:+DumpPerfMapAtExit -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Hot::inner \
		-cp . Hot >/dev/null &&
	pid=$(perf script -i java.data -F pid 2>/dev/null | tail -n 1 | tr -d " ") &&
	echo "/tmp/perf-$pid.map" >>"$MAPS" &&
	rm -f "/tmp/perf-$pid.map" &&
	"$PMREC" report --no-children -g caller --sort sym java.data >out &&
	test_grep "^ +[0-9.]+%  \[\.\] double Hot\.inner\(int\)$" out &&
	sed -n "/\[\.\] double Hot.inner(int)$/,/^$/p" out >graph &&
	if ! grep -A1 "double Hot.outer(int)$" graph | grep -q "double Hot.inner(int)$"; then
		echo "no outer -> inner in the graph:" && cat graph && false
	fi
'

test_done
