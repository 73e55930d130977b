#!/bin/sh
# The vDSO's frames are named, as perf names them: record writes the
# running kernel's vDSO build id as perf does ("[vdso]" in perf
# buildid-list), and report names [vdso] frames from perf's build-id cache
# ("[vdso]/BUILDID/vdso", which perf record fills, here by its own
# configuration: perf report's source, the oracle), else from the running kernel's vDSO when that id is the
# recording's (or, without ids, when it is this kernel's: top too); a
# recording of another vDSO is left unnamed, unless pmrec archive put the
# vDSO's symbols in it.
. "$(dirname "$0")/test-lib.sh"

test_require_perf_event
test_require_perf_tool
command -v gcc >/dev/null 2>&1 || test_skip_all "gcc is not installed"

T=$TMP_ROOT
EMPTY=$T/no-cache
mkdir -p "$EMPTY"

# The rows but PLT stubs' (perf 6.1 may give a program's to the _init it
# stretches over them: t0794) and perf's tips.
rows() {
	grep "%" "$1" | grep -v -E "Tip:|\] (_init|.*@plt)\$"
}

test_expect_success 'setup: a program in clock_gettime, recorded by pmrec and perf' '
	cd "$T" &&
	cat >clk.c <<-\EOF &&
	#include <time.h>
	int main(void)
	{
		struct timespec t;
		long i;

		for (i = 0; i < 3000000; i++)
			clock_gettime(CLOCK_MONOTONIC, &t);
		return 0;
	}
	EOF
	sed "s/3000000/300000000/" clk.c >long.c &&
	gcc -O1 -o clk clk.c && gcc -O1 -o long long.c &&
	"$PMREC" record -q -o pm.data -- "$T/clk" &&
	PERF_CONFIG=/dev/null perf record -q -o perf.data -- "$T/clk" >/dev/null 2>&1 &&
	test -d "$HOME/.debug/[vdso]"
'

test_expect_success 'record writes the vDSO build id, as perf does' '
	perf buildid-list -i "$T/pm.data" 2>/dev/null | grep " \[vdso\]\$" >"$T/ours" &&
	perf buildid-list -i "$T/perf.data" 2>/dev/null | grep " \[vdso\]\$" >"$T/perfs" &&
	test_equal 1 "$(wc -l <"$T/ours")" "[vdso] entries" &&
	test_cmp "$T/perfs" "$T/ours"
'

test_expect_success 'report names the vDSO frames as perf report does' '
	perf report -i "$T/pm.data" -s dso,sym --stdio >p 2>/dev/null &&
	"$PMREC" report --buildid-dir "$EMPTY" -i "$T/pm.data" -s dso,sym >o &&
	test_grep "\[vdso\]  *\[\.\] __vdso_clock_gettime\$" o &&
	rows p >want && rows o >got &&
	test_cmp want got
'

test_expect_success 'a perf recording, no build-id cache: named from the running vDSO' '
	perf report -i "$T/perf.data" -s dso,sym --stdio 2>/dev/null >p &&
	"$PMREC" report --buildid-dir "$EMPTY" -v -i "$T/perf.data" -s dso,sym >o 2>err &&
	rows p >want && rows o >got &&
	test_cmp want got &&
	test_grep "__vdso_clock_gettime" got &&
	test_grep "\[vdso\]: named from the file \\(build id matches\\): the running kernel.s vDSO" err
'

test_expect_success 'from perf'"'"'s build-id cache: its .build-id link, [vdso]/BUILDID/vdso' '
	id=$(cut -d" " -f1 "$T/perfs") &&
	"$PMREC" report -v -i "$T/perf.data" -s dso,sym >o 2>err &&
	test_grep "\[vdso\]: named from the file \\(build id matches\\): $HOME/.debug/.build-id/[0-9a-f]*/[0-9a-f]*/vdso" err &&
	test_grep "__vdso_clock_gettime" o &&
	mkdir -p "cache/[vdso]/$id" &&
	cp "$HOME/.debug/[vdso]/$id/vdso" "cache/[vdso]/$id/vdso" &&
	"$PMREC" report --buildid-dir cache -v -i "$T/perf.data" -s dso,sym >o 2>err &&
	test_grep "named from the file \\(build id matches\\): cache/\[vdso\]/$id/vdso" err &&
	test_grep "__vdso_clock_gettime" o
'

test_expect_success 'another vDSO (its build id changed in the file) is left unnamed, and said so' '
	id=$(cut -d" " -f1 "$T/ours") &&
	python3 -c "
data = open(\"$T/pm.data\", \"rb\").read()
old = bytes.fromhex(\"$id\")
assert data.count(old) == 1, data.count(old)
open(\"other.data\", \"wb\").write(data.replace(old, bytes(b ^ 0xff for b in old)))
" &&
	"$PMREC" report --buildid-dir "$EMPTY" -v -i other.data -s dso,sym >o 2>err &&
	! grep -q "__vdso" o &&
	test_grep "\[vdso\]  *\[\.\] 0x" o &&
	test_grep "running kernel.s vDSO: its build id differs" err
'

test_expect_success 'a recording without build ids, of this kernel: named from the running vDSO' '
	"$PMREC" record -q -B -o nobid.data -- "$T/clk" &&
	! "$PMREC" dump --header nobid.data | grep -q BUILD_ID &&
	"$PMREC" report --buildid-dir "$EMPTY" -i nobid.data -s dso,sym >o &&
	test_grep "\[vdso\]  *\[\.\] __vdso_clock_gettime\$" o
'

test_expect_success 'top names the vDSO frames of a running program' '
	"$T/long" &
	pid=$! &&
	{ "$PMREC" top --batch -n 2 -d 0.5 -p $pid -s dso,sym >top.txt || { kill $pid; false; }; } &&
	kill $pid &&
	test_grep "\[vdso\]  *\[\.\] __vdso_clock_gettime\$" top.txt
'

test_expect_success 'archive carries the vDSO symbols: named where the vDSO is another' '
	cp "$T/pm.data" ar.data &&
	"$PMREC" archive -q ar.data &&
	id=$(cut -d" " -f1 "$T/ours") &&
	python3 -c "
data = open(\"ar.data\", \"rb\").read()
old = bytes.fromhex(\"$id\")
assert data.count(old) == 2, data.count(old)
open(\"moved.data\", \"wb\").write(data.replace(old, bytes(b ^ 0xff for b in old)))
" &&
	"$PMREC" report --buildid-dir "$EMPTY" -v -i moved.data -s dso,sym >o 2>err &&
	test_grep "\[vdso\]: named from the symbols embedded in the recording" err &&
	"$PMREC" report --buildid-dir "$EMPTY" -i "$T/pm.data" -s dso,sym >want &&
	test_cmp want o
'

test_done
