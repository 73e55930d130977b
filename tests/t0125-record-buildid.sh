#!/bin/sh
# Build ids: every mapped file and the kernel in the BUILD_ID feature, as
# perf buildid-list reads it; none rather than a wrong one.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

# elf_build_id FILE: the id readelf -n prints.
elf_build_id() {
	readelf -n "$1" | awk "/Build ID:/ { print \$3; exit }"
}

test_expect_success 'the workload and the kernel are listed with their build ids' '
	cp "$HELPERS/spin" prog &&
	"$PMREC" -g -q -o c.data -- ./prog 0.2 &&
	perf buildid-list -i c.data >ids 2>/dev/null &&
	want=$(elf_build_id prog) && test -n "$want" &&
	test_grep "^$want .*/prog$" ids &&
	kernel=$(perf buildid-list -k) && test -n "$kernel" &&
	test_grep "^$kernel \[kernel\.kallsyms\]$" ids
'

test_expect_success 'libraries mapped by the workload are listed too' '
	"$PMREC" -q -o c.data -- "$HELPERS/spin" 0.1 &&
	perf buildid-list -i c.data >ids 2>/dev/null &&
	libc=$(awk "\$2 ~ /libc\.so/ { print \$2; exit }" ids) && test -n "$libc" &&
	test_grep "^$(elf_build_id "$libc") $libc$" ids
'

test_expect_success 'a process running before the recording: id read from its file' '
	cp "$HELPERS/spin" early
	./early 3 & pid=$!
	sleep 0.2 &&
	rc=0 && "$PMREC" -p "$pid" -q --duration=0.3 -o p.data || rc=$?
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || :
	test_equal 0 "$rc" "record status" &&
	perf buildid-list -i p.data >ids 2>/dev/null &&
	test_grep "^$(elf_build_id early) .*/early$" ids
'

# The process still runs at the end: the replaced file is read through its
# mapping, which root may open (t0126 has more); never the new file's id.
test_expect_success 'a file replaced during the recording gets its own id, not the new one' '
	cp "$HELPERS/spin" prog
	./prog 3 & pid=$!
	sleep 0.2
	"$PMREC" -p "$pid" -q --duration=1 -o r.data & rec=$!
	wait_until test -e r.data &&
	cp "$HELPERS/spin-nofp" prog.new && mv prog.new prog &&
	rc=0 && wait "$rec" || rc=$?
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || :
	test_equal 0 "$rc" "record status" &&
	perf buildid-list -i r.data >ids 2>/dev/null &&
	{ [ "$(id -u)" != 0 ] || test_grep "^$(elf_build_id "$HELPERS/spin") .*/prog$" ids; } &&
	! grep -q "^$(elf_build_id prog) " ids &&
	test_grep "\[kernel\.kallsyms\]" ids
'

test_expect_success '--no-buildid writes no BUILD_ID feature' '
	"$PMREC" --no-buildid -q -o n.data -- "$HELPERS/spin" 0.1 &&
	"$PMREC" dump --header n.data >hdr &&
	! grep -q "build id" hdr &&
	perf report --header-only -i n.data >perfhdr 2>/dev/null &&
	test_grep "^# missing features: .*BUILD_ID" perfhdr &&
	"$PMREC" -B -q -o b.data -- true &&
	! "$PMREC" dump --header b.data | grep -q "build id"
'

test_expect_success 'pipe mode ends with HEADER_BUILD_ID records' '
	cp "$HELPERS/spin" prog &&
	"$PMREC" -q -o - -- ./prog 0.1 >p.data &&
	"$PMREC" dump --type header_build_id p.data >out &&
	test_grep "build_id=$(elf_build_id prog) cpumode=user filename=.*/prog$" out &&
	perf script -i p.data >/dev/null 2>err &&
	! grep -q -i "error" err
'

# Alone: other tests replace the programs they ran (this file's and t0540
# do), and a whole-machine recording may have seen one before it changed.
test_alone
test_expect_success '-a: every id listed matches the file on disk' '
	"$PMREC" -a -q -o a.data -- sleep 0.2 &&
	perf buildid-list -i a.data >ids 2>/dev/null &&
	test "$(wc -l <ids)" -gt 2 &&
	while read -r id path; do
		case $path in
		/*) test ! -e "$path" || test_equal "$(elf_build_id "$path")" "$id" "$path" ;;
		esac
	done <ids
'

test_expect_success '--buildid-mmap: the kernel puts the ids in the MMAP2 records' '
	cp "$HELPERS/spin" prog &&
	"$PMREC" --buildid-mmap -q -o m.data -- ./prog 0.1 &&
	"$PMREC" dump --no-symbols --type mmap2 m.data >out &&
	test_grep " build_id=$(elf_build_id prog) prot=.* filename=.*/prog$" out &&
	perf buildid-list -i m.data >ids 2>/dev/null &&
	test_grep "^$(elf_build_id prog) .*/prog$" ids &&
	test_expect_code 64 "$PMREC" --buildid-mmap --no-buildid -o x.data -- true
'

test_expect_success 'a concurrent --buildid-mmap session does not corrupt our MMAP2 records' '
	"$PMREC" -a --buildid-mmap -q -o bg.data -- sleep 1.5 & bg=$!
	sleep 0.5
	cp "$HELPERS/spin" prog
	rc=0 && "$PMREC" -q -o w.data -- ./prog 0.1 || rc=$?
	wait $bg || rc=$?
	test_equal 0 "$rc" "status" &&
	"$PMREC" dump --no-symbols --json --type mmap2 w.data >out &&
	! grep -q "\"build_id\"" out &&
	! grep -q "\"misc\":16386" out &&
	perf buildid-list -i w.data >ids 2>/dev/null &&
	test_grep "^$(elf_build_id prog) .*/prog$" ids &&
	"$PMREC" dump --json --type sample w.data >samples &&
	test_grep "\"sym\":\"spin\"" samples
'

test_done
