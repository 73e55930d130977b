#!/bin/sh
# record and dump under valgrind: no invalid access, no definite leak.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
command -v valgrind >/dev/null 2>&1 || test_skip_all "valgrind is not installed"

# valgrind cannot run AddressSanitizer binaries: use (or make) the plain build.
VG_PMREC=$PMREC
case "$BUILD" in
*-san)
	VG_PMREC=$SRC_DIR/build/pmrec
	[ -x "$VG_PMREC" ] || make -C "$SRC_DIR" O=build build/pmrec >/dev/null 2>&1 ||
		test_skip_all "cannot build a plain pmrec for valgrind"
	;;
esac

vg() {
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--track-fds=no "$@"
}

test_expect_success 'record -a under valgrind: no error, no leak' '
	vg "$VG_PMREC" -a -q -o v.data -- sleep 0.5 2>vg.err || { cat vg.err; exit 1; }
'

test_expect_success 'record a workload with a tracepoint and call chains under valgrind' '
	vg "$VG_PMREC" -g -e raw_syscalls:sys_enter,cpu-clock -q -o t.data -- \
		"$HELPERS/seqcall" 2000 2>vg.err || { cat vg.err; exit 1; }
'

test_expect_success 'dump (text, json, stats, ordered) under valgrind: no error, no leak' '
	"$VG_PMREC" -a -g -e sched:sched_switch,cpu-clock -q -o d.data -- sleep 0.3 &&
	for opt in "" --json --stats --ordered --header; do
		vg "$VG_PMREC" dump $opt d.data >/dev/null 2>vg.err || { echo "dump $opt"; cat vg.err; exit 1; }
	done
'

test_expect_success 'report --pprof under valgrind: no error, no leak' '
	"$VG_PMREC" -g -q -o p.data -- "$HELPERS/calltree" 3 &&
	vg "$VG_PMREC" report --pprof=p.pb.gz --pprof-labels=cpu p.data 2>vg.err ||
		{ cat vg.err; exit 1; }
	test "$(od -An -tx1 -N2 p.pb.gz | tr -d " ")" = 1f8b
'

test_expect_success 'report -g and a --diff flame graph under valgrind: no error, no leak' '
	"$VG_PMREC" -g -q -o a.data -- "$HELPERS/calltree" 2 &&
	"$VG_PMREC" -g -q -o b.data -- "$HELPERS/calltree" 2 &&
	vg "$VG_PMREC" report --children -g caller b.data >/dev/null 2>vg.err ||
		{ cat vg.err; exit 1; }
	vg "$VG_PMREC" report --flamegraph=f.svg --diff=a.data b.data 2>vg.err ||
		{ cat vg.err; exit 1; }
	grep -q "<svg" f.svg
'

test_expect_success 'dump of a truncated file under valgrind: error, but no invalid access' '
	"$VG_PMREC" -a -q -o c.data -- sleep 0.2 &&
	head -c 5000 c.data >cut.data &&
	rc=0 && { vg "$VG_PMREC" dump cut.data >/dev/null 2>vg.err || rc=$?; } &&
	cat vg.err &&
	test_equal 1 "$rc" "exit status"
'

test_done
