#!/bin/sh
# Node.js with --perf-prof (a jitdump file) recorded with -k mono: pmrec
# report names the JIT frames as perf inject --jit + perf report do, with
# no inject step.  perf gives each load of a function a .so of its own
# (two rows for one name when the function was compiled twice); pmrec one
# row per name: the sample counts per name are compared.  The recording's
# copy of the jitdump names the frames alike once the file is gone.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool
command -v node >/dev/null 2>&1 || test_skip_all "node is not installed"

R=$TMP_ROOT/rec
mkdir -p "$R"

# "SAMPLES NAME" per JavaScript name, summed over rows, from a -n table.
js_counts() {
	grep -E "\] JS:" "$1" | awk '{ n = $2; $1 = $2 = $3 = ""; sub(/^ +/, ""); c[$0] += n }
		END { for (k in c) print c[k], k }' | sort
}

test_expect_success 'setup: node --perf-prof recorded with -k mono' '
	cd "$R" &&
	cat >hot.js <<-\EOF2 &&
	function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003; return s; }
	function outer() { let t = 0; for (let k = 0; k < 40; k++) t += hotLoop(1e6); return t; }
	const end = Date.now() + 400; let r = 0; while (Date.now() < end) r += outer(); console.log(r > 0);
	EOF2
	# A stream for perf inject (perf 6.1 crashes on the copy pmrec puts in
	# a file), and a file: its copy of the jitdump.
	mkdir pipe file &&
	(cd pipe && "$PMREC" -q -k mono -o - -- sh -c "exec node --perf-prof ../hot.js >/dev/null" >../n.data) &&
	(cd file && "$PMREC" -q -k mono -o ../c.data -- node --perf-prof ../hot.js >/dev/null) &&
	ls pipe/jit-*.dump file/jit-*.dump
'

test_expect_success 'report names JS frames as perf inject --jit + perf report' '
	"$PMREC" report -n --no-children --sort sym "$R/n.data" >pm 2>err &&
	cp "$R/n.data" . &&
	# perf writes a jitted-PID-N.so per load beside the jitdump (in $R, which
	# the test removes) and may cache them under ~/.debug: a HOME of its own.
	HOME=$PWD perf inject --jit -i - <n.data >ni.data 2>/dev/null &&
	HOME=$PWD perf report -n -i - --no-children --sort sym --stdio <ni.data >perf.txt 2>/dev/null &&
	js_counts pm >a && js_counts perf.txt >b &&
	test_grep "JS:.hotLoop .*hot.js" a &&
	test_cmp b a &&
	! test -s err
'

test_expect_success 'the jitdump gone: the recording'"'"'s copy names the JS frames as the file did' '
	"$PMREC" report -n --no-children --sort sym "$R/c.data" >file 2>/dev/null &&
	mkdir away && mv "$R"/file/jit-*.dump away/ &&
	"$PMREC" report -v -n --no-children --sort sym "$R/c.data" >copy 2>err &&
	test_grep "JS:.hotLoop .*hot.js" copy &&
	test_cmp file copy &&
	test_grep "JIT code names: [0-9]+ from the recording.s copy of .*jit-[0-9]+\.dump. \(the file is gone\)" err
'

test_done
