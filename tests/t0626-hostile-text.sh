#!/bin/sh
# One rule for text on a terminal: a function and a command named with an
# ESC sequence, a C1 CSI (U+009B), a bidi override (U+202E) and a byte that
# is no UTF-8 come out of every text output (report's table and call
# graphs, dump and dump --folded, annotate, top) as strict UTF-8 with no control
# character; the names are still recognisable around the '?'s.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
command -v gcc >/dev/null 2>&1 && command -v objcopy >/dev/null 2>&1 ||
	test_skip_all "gcc and objcopy are needed"

D=$TMP_ROOT/hostile
EVIL=$(printf 'hot\033[31m\302\233\342\200\256\377evil')
export D EVIL

safe() {
	python3 "$SRC_DIR/tests/helpers/term-safe.py" "$@"
}

test_expect_success 'setup: a program whose hot function has a hostile name' '
	mkdir -p "$D" && cd "$D" &&
	cat >h.c <<-\EOF &&
	#include <stdlib.h>
	volatile unsigned long sink;
	__attribute__((noinline)) void hot(unsigned long n)
	{
		unsigned long i, x = 1;
		for (i = 0; i < n; i++)
			x = x * 6364136223846793005UL + 1;
		sink = x;
	}
	int main(int argc, char **argv)
	{
		for (;;)
			hot(argc > 1 ? strtoul(argv[1], 0, 10) : 1000);
	}
	EOF
	gcc -O1 -g -fno-omit-frame-pointer -o h.orig h.c &&
	objcopy --redefine-sym "hot=$EVIL" h.orig h &&
	cat >run.sh <<-\EOF &&
	#!/bin/sh
	exec timeout 1 "$@"
	EOF
	chmod +x run.sh &&
	{ "$PMREC" record -g -q -o h.data -- ./run.sh ./h 100000 || :; } &&
	test -s h.data
'

test_expect_success 'the recording names the function as its file does' '
	"$PMREC" dump --folded "$D/h.data" >folded.raw &&
	grep -q evil folded.raw
'

test_expect_success 'report: table, callee and caller graphs' '
	"$PMREC" report --no-children "$D/h.data" >t1 &&
	"$PMREC" report --children -g caller "$D/h.data" >t2 &&
	"$PMREC" report --no-children -g callee "$D/h.data" >t3 &&
	grep -q "hot?\[31m???evil" t1 &&
	safe t1 t2 t3
'

test_expect_success 'dump --folded' '
	"$PMREC" dump --folded "$D/h.data" >f &&
	grep -q "hot?\[31m???evil" f &&
	safe f
'

test_expect_success 'dump: records as text' '
	"$PMREC" dump "$D/h.data" >d &&
	grep -q "evil" d &&
	safe d
'

test_expect_success 'annotate: headers, jump targets and summary' '
	"$PMREC" annotate -i "$D/h.data" "$EVIL" >a &&
	grep -q "<hot?\[31m???evil>:" a &&
	safe a
'

test_expect_success 'top --batch over the running program' '
	(cd "$D" && ./h 100000 & echo $! >"$D/pid") &&
	"$PMREC" top -b -d 0.5 -n 2 -p "$(cat "$D/pid")" >top; rc=$?
	kill "$(cat "$D/pid")" 2>/dev/null
	test $rc = 0 &&
	grep -q "hot?\[31m???evil" top &&
	safe top
'

test_expect_success 'a comm with the same bytes: report and folded' '
	"$HELPERS/gen-hostile" comm "$(printf "c\033]0\302\235\342\201\246\376")" -o comm.data &&
	"$PMREC" report --sort=comm comm.data >c1 &&
	"$PMREC" dump --folded comm.data >c2 &&
	safe c1 c2
'

# Messages carry names from the recording too: a program at a path of the
# same bytes, rebuilt since, is refused by name on stderr.
test_expect_success 'stderr: a refused file named by a hostile path' '
	mkdir -p "$D/m" && cd "$D/m" &&
	cp "$HELPERS/spin" "$EVIL" &&
	"$PMREC" -q -o m.data -- "./$EVIL" 0.2 &&
	cp "$HELPERS/spin-nofp" "$EVIL" &&
	"$PMREC" report -i m.data >/dev/null 2>err &&
	grep -q "hot?\[31m???evil is not used for symbols" err &&
	safe err
'

test_done
