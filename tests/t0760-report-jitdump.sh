#!/bin/sh
# jitdump files (jit-PID.dump, node --perf-prof): report, dump, the flame
# graph and pprof name JIT code from them directly, as perf inject --jit +
# perf report does; with -k mono by the code there at each sample's time.
# jitgen (tests/helpers/jitgen.c) writes one and re-JITs halfway.  pmrec
# record copies the code loads into the recording: report names the code
# from the copy once the file is gone or another; a pipe carries no copy.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

R=$TMP_ROOT/rec
mkdir -p "$R"

# Rows "PERCENT SYMBOL" of JIT code, from perf's or pmrec's --sort sym table.
jit_rows() {
	grep -E "\] (jit_|stale_code)" "$1" | awk '{ print $1, $3 }' | sort
}

test_expect_success 'setup: jitgen --jitdump recorded with -k mono and -g, and without -k' '
	cd "$R" &&
	"$PMREC" -q -k mono -g -o k.data -- "$HELPERS/jitgen" --jitdump 0.4 >addrs &&
	mkdir plain && (cd plain && "$PMREC" -q -g -o ../n.data -- "$HELPERS/jitgen" --jitdump 0.3 >/dev/null) &&
	ls jit-*.dump >jitfile && test "$(wc -l <jitfile)" = 1 &&
	mkdir pipe && (cd pipe && "$PMREC" -q -k mono -g -o - -- sh -c "exec \"$HELPERS/jitgen\" --jitdump 0.4 >/dev/null" >../p.data) &&
	ls pipe/jit-*.dump >pjitfile && test "$(wc -l <pjitfile)" = 1
'

# perf 6.1's inject is given the stream, in a pipe: it crashes on a file
# with pmrec's own header features (the copy), which it has no writers for.
test_expect_success 'report names the code of each time: equal to perf inject --jit + perf report' '
	"$PMREC" report --no-children -g none --sort sym "$R/p.data" >pm 2>err &&
	cp -r "$R" inj && cd inj &&
	# perf writes jitted-PID-N.so beside the jitdump (under $R) and may cache
	# them under ~/.debug: a HOME of its own keeps that in this test.
	HOME=$PWD perf inject --jit -i - <p.data >ji.data 2>/dev/null &&
	HOME=$PWD perf report -i - --no-children -g none --sort sym --stdio <ji.data >perf.txt 2>/dev/null &&
	jit_rows ../pm >a && jit_rows perf.txt >b &&
	test_cmp b a &&
	test_grep "jit_inner$" a && test_grep "jit_inner_v2$" a &&
	# jit_outer has a row when a sample chanced on its five instructions.
	! grep -v -e " jit_inner$" -e " jit_inner_v2$" -e " jit_outer$" a &&
	! grep -q stale_code ../pm &&
	! test -s ../err
'

test_expect_success 'report -v says where the names came from' '
	"$PMREC" report -v --sort sym "$R/k.data" >/dev/null 2>err &&
	test_grep "JIT code names: 4 from .$R/jit-[0-9]+\.dump." err
'

# Report's table and -v's count with the jitdump at its path (file) and
# moved away (copy); the file put back.  copy_report REC: in file, copy, err.
copy_report() {
	f=$R/$(cat "$R/jitfile") &&
	"$PMREC" report -v --no-children --sort sym "$1" >file 2>/dev/null &&
	mv "$f" "$f.away" &&
	{ "$PMREC" report -v --no-children --sort sym "$1" >copy 2>err; rc=$?; } ;
	mv "$f.away" "$f" && test "$rc" = 0
}

test_expect_success 'the jitdump gone: the recording'"'"'s copy names every JIT frame as the file did' '
	copy_report "$R/k.data" &&
	test_grep "\] jit_inner$" copy && test_grep "\] jit_inner_v2$" copy &&
	test_cmp file copy &&
	test_grep "JIT code names: 4 from the recording.s copy of .$R/jit-[0-9]+\.dump. \(the file is gone\)" err
'

test_expect_success 'the copy without -k: the last load names the code, as from the file' '
	f=$R/plain/$(cd "$R/plain" && ls jit-*.dump) &&
	"$PMREC" report --no-children -g none --sort sym "$R/n.data" >file 2>/dev/null &&
	mv "$f" "$f.away" &&
	"$PMREC" report --no-children -g none --sort sym "$R/n.data" >copy 2>err ;
	mv "$f.away" "$f" &&
	test_cmp file copy && test_grep "\] jit_inner_v2" copy &&
	test_grep "not timed by the monotonic clock" err
'

test_expect_success 'another run'"'"'s jitdump at the path: the copy names the code, -v says why' '
	f=$R/$(cat "$R/jitfile") &&
	"$PMREC" report --no-children --sort sym "$R/k.data" >file 2>/dev/null &&
	cp "$f" orig.dump && cp "$R/$(cat "$R/pjitfile")" "$f" &&
	"$PMREC" report -v --no-children --sort sym "$R/k.data" >copy 2>err ;
	cp orig.dump "$f" &&
	test_cmp file copy &&
	test_grep "from the recording.s copy of .* \(the file at its path is another one\)" err
'

test_expect_success 'without -k: the last load names the code, and report says why' '
	"$PMREC" report --no-children -g none --sort sym "$R/n.data" >pm 2>err &&
	test_grep "\] jit_inner_v2" pm && ! grep -q "\] jit_inner *$" pm &&
	test_grep "not timed by the monotonic clock .record with -k mono." err
'

test_expect_success 'dump names the frames and folds the JIT call chain' '
	"$PMREC" dump --folded "$R/k.data" >f 2>/dev/null &&
	test_grep ";run;jit_outer \(tier 2\);jit_inner [0-9]+$" f &&
	test_grep ";run;jit_outer \(tier 2\);jit_inner_v2 [0-9]+$" f &&
	"$PMREC" dump -t SAMPLE "$R/k.data" >d 2>/dev/null &&
	test_grep "jit_inner_v2" d
'

test_expect_success 'the flame graph and pprof (go tool pprof -top) name the JIT code' '
	"$PMREC" report --flamegraph=f.svg "$R/k.data" 2>/dev/null &&
	test_grep "jit_inner_v2" f.svg && test_grep "jit_outer \(tier 2\)" f.svg &&
	"$PMREC" report --pprof=p.pb.gz "$R/k.data" 2>/dev/null &&
	HOME=$PWD GOCACHE=$PWD/gocache go tool pprof -top p.pb.gz >top 2>/dev/null &&
	test_grep " jit_inner$" top && test_grep " jit_inner_v2$" top
'

# The recording names the jitdump by its path: damage it there, report,
# and put it back.  damaged_report HOW [REC]: HOW is a shell command on
# "$1", the file; REC the recording (default: the pipe's, which carries no
# copy); report's output in pm and err, its status in rc.
damaged_report() {
	rec=${2:-$R/p.data} jf=$R/pjitfile &&
	{ [ "$rec" = "$R/p.data" ] || jf=$R/jitfile; } &&
	f=$R/$(cat "$jf") &&
	cp "$f" orig.dump &&
	sh -c "$1" sh "$f" &&
	{ "$PMREC" report --no-children -g none --sort sym "$rec" >pm 2>err; rc=$?; } ;
	rm -f "$f" && cp orig.dump "$f"
}

test_expect_success 'a jitdump with a record past its end: the loads before it, the offset said' '
	size=$(stat -c %s "$R/$(cat "$R/pjitfile")") &&
	# The CLOSE record, last: its size beyond the end of the file.
	damaged_report "printf \"\\377\\377\\0\\0\" | dd of=\"\$1\" bs=1 seek=$((size - 12)) conv=notrunc 2>/dev/null" &&
	test "$rc" = 0 &&
	test_grep "is malformed at offset $((size - 12)) .*record runs past the end of the file; the 4 code loads before it are used" err &&
	test_grep "\] jit_inner_v2" pm
'

test_expect_success 'a bad header: nothing named from it, the reason said, no crash' '
	damaged_report "printf \"\\377\\377\" | dd of=\"\$1\" bs=1 seek=10 conv=notrunc 2>/dev/null" &&
	test "$rc" = 0 &&
	test_grep "malformed at offset 8 .*header size beyond the end of the file; the 0 code" err &&
	! grep -q jit_inner pm
'

test_expect_success 'a symlink at the jitdump path is not followed' '
	damaged_report "mv \"\$1\" \"\$1.real\" && ln -s \"\$1.real\" \"\$1\"" &&
	rm -f "$R"/*.real &&
	test "$rc" = 0 &&
	test_grep "is not read: it is a symbolic link" err &&
	! grep -q jit_inner pm
'

test_expect_success 'a jitdump owned by another user is not read' '
	damaged_report "chown 12345 \"\$1\"" &&
	test "$rc" = 0 &&
	test_grep "is not read: owned by another user than root or the reader" err &&
	! grep -q jit_inner pm
'

test_expect_success 'a symlink at the path of a copied jitdump: not followed, the copy names the code' '
	damaged_report "mv \"\$1\" \"\$1.real\" && ln -s \"\$1.real\" \"\$1\"" "$R/k.data" &&
	rm -f "$R"/*.real &&
	test "$rc" = 0 && ! test -s err &&
	test_grep "\] jit_inner$" pm && test_grep "\] jit_inner_v2$" pm
'

test_done
