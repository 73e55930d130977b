#!/bin/sh
# record -k/--clockid: samples timed by the named clock, the clock and its
# wall-clock reference in the header (CLOCKID, CLOCK_DATA) as perf writes
# them, in files and streams; perf reads them back (perf script -F +tod).
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

mono_ns() {
	perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC -e \
		'printf "%.0f\n", clock_gettime(CLOCK_MONOTONIC) * 1e9'
}

# One recording for most tests: two events, the monotonic clock read by the
# workload itself before and after its samples.
R=$TMP_ROOT/rec
mkdir -p "$R"

test_expect_success 'setup: -k mono around a workload that reads the clock' '
	cd "$R" &&
	date +%s >wall.before &&
	"$PMREC" -q -k mono -e cpu-clock -e page-faults -o k.data -- \
		sh -c "$(command -v perl) -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC \
			-e '\''printf qq(%.0f\n), clock_gettime(CLOCK_MONOTONIC) * 1e9'\'' >mono.before;
			\"$HELPERS/spin\" 0.2 >/dev/null;
			$(command -v perl) -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC \
			-e '\''printf qq(%.0f\n), clock_gettime(CLOCK_MONOTONIC) * 1e9'\'' >mono.after" &&
	date +%s >wall.after &&
	"$PMREC" -q -k CLOCK_MONOTONIC_RAW -o - -- "$HELPERS/spin" 0.1 >pipe.data &&
	test -s mono.before && test -s mono.after && test -s pipe.data
'

test_expect_success 'every event has use_clockid and the clock, as perf reads it' '
	perf evlist -v -i "$R/k.data" >evlist 2>/dev/null &&
	test_equal 2 "$(grep -c "use_clockid: 1.*clockid: 1" evlist)" "events with clockid 1"
'

test_expect_success 'sample times are the monotonic clock of the workload' '
	perf script -F time -i "$R/k.data" 2>/dev/null | tr -d " :" | sed "s/\.//" >times &&
	test "$(wc -l <times)" -gt 10 &&
	before=$(cat "$R/mono.before") && after=$(cat "$R/mono.after") &&
	# perf prints microseconds; the spin ran between the two readings.
	awk -v b="$before" -v a="$after" "
		{ t = \$1 * 1000; if (t >= b - 1000 && t <= a + 1000) n++ }
		END { print n + 0 }" times >inside &&
	test "$(cat inside)" -gt 10
'

test_expect_success '-k realtime: sample times are wall-clock times' '
	date +%s >before &&
	"$PMREC" -q -k real -o r.data -- "$HELPERS/spin" 0.05 &&
	date +%s >after &&
	perf script -F time -i r.data 2>/dev/null | head -n 1 | cut -d. -f1 | tr -d " " >t &&
	test "$(cat t)" -ge "$(cat before)" && test "$(cat t)" -le "$(($(cat after) + 1))"
'

test_expect_success 'perf reads the clockid and its resolution (perf report --header-only)' '
	perf report --header-only -i "$R/k.data" >hdr 2>/dev/null &&
	test_grep "# clockid: monotonic [(]1[)]" hdr &&
	test_grep "# clockid frequency: 1000 MHz" hdr &&
	perf report --header-only -i "$R/pipe.data" >phdr 2>/dev/null &&
	test_grep "# clockid: monotonic_raw [(]4[)]" phdr
'

test_expect_success 'perf script -F +tod prints wall-clock times of the recording (file and pipe)' '
	perf script -F time,tod -i "$R/k.data" 2>/dev/null | head -n 1 >tod &&
	day=$(cut -d" " -f1-2 tod | cut -d. -f1) &&
	s=$(date -u -d "$day UTC" +%s 2>/dev/null || date -d "$day" +%s) &&
	test "$s" -ge "$(($(cat "$R/wall.before") - 1))" &&
	test "$s" -le "$(($(cat "$R/wall.after") + 1))" &&
	perf script -F time,tod -i "$R/pipe.data" 2>/dev/null | head -n 1 >ptod &&
	grep -E "^ *20[0-9][0-9]-[0-9][0-9]-[0-9][0-9] " ptod
'

test_expect_success 'dump --header: the clock and its reference pair, text and JSON' '
	"$PMREC" dump --header "$R/k.data" >h &&
	test_grep "^# clockid : monotonic [(]1[)]$" h &&
	test_grep "^# clock reference : 20..-..-.. ..:..:.. UTC = [0-9]+\.[0-9]{9} [(]wall clock[)] = [0-9]+\.[0-9]{9} [(]monotonic[)]$" h &&
	test_grep "CLOCKID[(]8[)] CLOCK_DATA[(]24[)]" h &&
	"$PMREC" dump --header --json "$R/k.data" >j &&
	test_grep "\"clockid\":1,\"clock\":\"monotonic\",\"clock_ref_wall_ns\":[0-9]*,\"clock_ref_clock_ns\":[0-9]*" j
'

test_expect_success 'the reference pair is the offset perf uses for tod, to the ns' '
	"$PMREC" dump --header --json "$R/k.data" >j &&
	wall=$(sed -n "s/.*\"clock_ref_wall_ns\":\([0-9]*\).*/\1/p" j) &&
	clk=$(sed -n "s/.*\"clock_ref_clock_ns\":\([0-9]*\).*/\1/p" j) &&
	perf script --ns -F time,tod -i "$R/k.data" 2>/dev/null | head -n 1 >tod &&
	t=$(awk "{ print \$3 }" tod | tr -d ":.") &&
	ns=$(( (wall + t - clk) % 1000000000 )) &&
	test_equal "$(printf %09d "$ns")" "$(awk "{ print \$2 }" tod | cut -d. -f2)" "tod ns"
'

test_expect_success 'without -k: no clock features, and perf says tod needs them' '
	"$PMREC" -q -o n.data -- true &&
	"$PMREC" dump --header n.data >h &&
	! grep -q "CLOCK_DATA" h &&
	! perf script -F tod -i n.data >out 2>err &&
	test_grep "clock" err
'

test_expect_success 'an unknown clock name is a usage error (64), no file written' '
	test_expect_code 64 "$PMREC" record -k monotonicx -o x.data -- true 2>err &&
	test_grep "unknown clock .monotonicx." err &&
	test ! -e x.data
'

test_expect_success 'a clock the kernel refuses: an error that names it (1)' '
	test_expect_code 1 "$PMREC" record -k 3 -o x.data -- true 2>err &&
	test_grep "the kernel refuses clock 3 [(]-k[)] for .cpu-clock." err &&
	test_grep "monotonic and monotonic_raw" err &&
	test ! -e x.data
'

test_done
