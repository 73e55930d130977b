#!/bin/sh
# DWARF unwinding of --call-graph dwarf recordings (pmrec's and perf's),
# inlined frames and demangled C++ and Rust names: dump, --folded, --stats.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

BIN=$TMP_ROOT/bin
DW=$SRC_DIR/tests/helpers/dwarf
CMP="python3 $SRC_DIR/tests/helpers/cmp-frames.py"
CFLAGS_NOFP="-O2 -fomit-frame-pointer"

# hot_share FOLDED: percent of the samples ending in leaf (or its inlined
# mix) whose stack reads ...;main;a;b;leaf.
hot_share() {
	awk '/;leaf(;mix)? [0-9]+$/ { all += $NF; if (/;main;a;b;leaf(;mix)? [0-9]+$/) hot += $NF }
	     END { print all ? int(100 * hot / all) : 0 }' "$1"
}

# same_as_perf DATA: percent of samples whose frames are perf script's.
same_as_perf() {
	"$PMREC" dump --json --type sample "$1" >frames.json &&
	perf script -F time,ip,sym,symoff -i "$1" >script.txt 2>/dev/null &&
	$CMP frames.json script.txt >cmp &&
	cat cmp >&2 &&
	awk '{ split($1, s, "="); split($3, e, "="); print s[2] ? int(100 * e[2] / s[2]) : 0 }' cmp
}

# check_unwound DATA PROG: the acceptance of issue 16 on one recording.
check_unwound() {
	"$PMREC" dump --folded "$1" >folded &&
	test_grep "^$2;.*;main;a;b;leaf(;mix)? [0-9]+$" folded &&
	share=$(hot_share folded) &&
	echo "hot share $share%" &&
	test "$share" -ge 90 &&
	same=$(same_as_perf "$1") &&
	echo "same as perf $same%" &&
	test "$same" -ge 95
}

test_expect_success 'build the workloads' '
	mkdir -p "$BIN" &&
	gcc $CFLAGS_NOFP -g -o "$BIN/dwprog" "$DW/prog.c" &&
	gcc $CFLAGS_NOFP -g0 -o "$BIN/dwprog-eh" "$DW/prog.c" &&
	gcc $CFLAGS_NOFP -g -fPIC -shared -o "$BIN/libdwb.so" "$DW/lib.c" &&
	gcc $CFLAGS_NOFP -g -DWITH_LIB -o "$BIN/dwprog-lib" "$DW/prog.c" -L"$BIN" -ldwb \
		-Wl,-rpath,"$BIN" &&
	g++ -O2 -g -o "$BIN/dwcxx" "$DW/cxx.cc"
'

test_expect_success '-O2 -fomit-frame-pointer -g: main;a;b;leaf, frames as perf script' '
	"$PMREC" record --call-graph dwarf -q -o d.data -- "$BIN/dwprog" 1 &&
	check_unwound d.data dwprog
'

test_expect_success 'inlined functions are frames; --no-inline drops them' '
	"$PMREC" record --call-graph dwarf -q -o d.data -- "$BIN/dwprog" 0.5 &&
	"$PMREC" dump --folded d.data >folded &&
	test_grep ";main;a;b;leaf;mix [0-9]+$" folded &&
	"$PMREC" dump --folded --no-inline d.data >plain &&
	! grep -q ";mix " plain &&
	test_grep ";main;a;b;leaf [0-9]+$" plain &&
	"$PMREC" dump --type sample d.data >text &&
	test_grep "frames=(mix\(inlined\),)?leaf\+0x[0-9a-f]+,b\+" text
'

test_expect_success 'a shared library in the middle of the stack' '
	"$PMREC" record --call-graph dwarf -q -o d.data -- "$BIN/dwprog-lib" 1 &&
	"$PMREC" dump --json --type sample d.data >json &&
	test_grep "\"sym\":\"b\",[^}]*\"dso\":\"[^\"]*libdwb.so\"" json &&
	check_unwound d.data dwprog-lib
'

test_expect_success 'only .eh_frame (no .debug_frame, no debug info)' '
	readelf -SW "$BIN/dwprog-eh" >sections &&
	test_grep "\.eh_frame " sections &&
	! grep -q "debug_frame\|debug_info" sections &&
	"$PMREC" record --call-graph dwarf -q -o d.data -- "$BIN/dwprog-eh" 1 &&
	check_unwound d.data dwprog-eh
'

test_expect_success 'a file written by perf record --call-graph dwarf' '
	perf record -q --call-graph dwarf -B -o p.data -- "$BIN/dwprog" 1 &&
	check_unwound p.data dwprog
'

test_expect_success '--stats counts unwound and partial stacks; --no-unwind shows the leaf only' '
	"$PMREC" record --call-graph dwarf -q -o d.data -- "$BIN/dwprog" 0.5 &&
	"$PMREC" dump --stats d.data >stats &&
	samples=$(awk "\$1 == \"total\" && \$2 == \"samples\" { print \$3 }" stats) &&
	unwound=$(awk "\$1 == \"unwind\" && \$2 == \"samples\" { print \$3 }" stats) &&
	partial=$(awk "\$1 == \"unwind\" && \$2 == \"partial\" { print \$3 }" stats) &&
	test_equal "$samples" "$unwound" "unwound samples" &&
	test "$partial" -lt "$((samples / 10 + 1))" &&
	"$PMREC" dump --stats --json d.data >stats.json &&
	test_grep "\{\"type\":\"UNWIND\",\"samples\":$samples,\"partial\":$partial\}" stats.json &&
	"$PMREC" dump --folded --no-unwind d.data >folded &&
	! grep -q ";main;a;b;leaf" folded
'

test_expect_success 'report: an inlined function is a row of its own; report --no-inline drops it' '
	"$PMREC" record --call-graph dwarf -q -o d.data -- "$BIN/dwprog" 0.5 &&
	"$PMREC" report --children --sort sym -g none d.data >rows &&
	test_grep "\[\.\] mix *$" rows &&
	"$PMREC" report --children --sort sym -g none --no-inline d.data >plain &&
	! grep -q "\[\.\] mix *$" plain &&
	test_grep "\[\.\] leaf *$" plain
'

test_expect_success 'report: C++ names demangled; report --no-demangle shows them raw' '
	"$PMREC" record --call-graph dwarf -q -o d.data -- "$BIN/dwcxx" 0.5 &&
	"$PMREC" report --no-children --sort sym d.data >rows &&
	test_grep "pmtest::Worker<unsigned long>::crunch" rows &&
	"$PMREC" report --no-children --sort sym --no-demangle d.data >raw &&
	test_grep "_ZN6pmtest6WorkerImE6crunchEd" raw &&
	! grep -q "pmtest::" raw
'

test_expect_success 'C++: templates, namespace and lambda demangled; --no-demangle is raw' '
	"$PMREC" record --call-graph dwarf -q -o d.data -- "$BIN/dwcxx" 0.5 &&
	"$PMREC" dump --folded d.data >folded &&
	test_grep ";main;pmtest::Worker<unsigned long>::crunch;pmtest::Worker<unsigned long>::crunch\(double\)::\{lambda\(\)#1\}::operator\(\) [0-9]+$" folded &&
	"$PMREC" dump --type sample d.data >text &&
	test_grep "frames=\"pmtest::Worker<unsigned long>::crunch\(double\)::\{lambda\(\)#1\}::operator\(\)\"\+0x[0-9a-f]+,\"pmtest::Worker<unsigned long>::crunch\"\+0x" text &&
	"$PMREC" dump --folded --no-demangle d.data >raw &&
	test_grep ";main;_ZN6pmtest6WorkerImE6crunchEd(\\.isra\\.0)?;_ZZN6pmtest6WorkerImE6crunchEdENKUlvE_clEv [0-9]+$" raw &&
	! grep -q "pmtest::" raw &&
	same=$(same_as_perf d.data) &&
	test "$same" -ge 95
'

if command -v rustc >/dev/null 2>&1; then
test_expect_success 'Rust (v0 and legacy mangling) demangled; --no-demangle is raw' '
	rustc -O -g -C symbol-mangling-version=v0 -o rv0 "$DW/rust.rs" &&
	rustc -O -g -o rleg "$DW/rust.rs" &&
	for p in rv0 rleg; do
		"$PMREC" record --call-graph dwarf -q -o $p.data -- ./$p 0.5 &&
		"$PMREC" dump --folded $p.data >$p.folded &&
		test_grep "^$p;.*;main;.*;rust::main;rust::pmtest::crunch(;[^;]*)? [0-9]+$" $p.folded &&
		"$PMREC" dump --folded --no-demangle $p.data >$p.raw || exit 1
	done &&
	test_grep ";_RNvNtCs[0-9A-Za-z_]+_4rust6pmtest6crunch(;[^;]*)? [0-9]+$" rv0.raw &&
	test_grep ";_ZN4rust6pmtest6crunch17h[0-9a-f]{16}E(;[^;]*)? [0-9]+$" rleg.raw &&
	same=$(same_as_perf rv0.data) &&
	test "$same" -ge 95
'
fi

test_done
