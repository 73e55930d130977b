#!/bin/sh
# pmrec archive never damages a recording (#38): a recording still being
# written is refused (the recorder holds a lock on its output), and the
# archived file is written beside the old one and renamed over it, so a
# full disk leaves the old one byte for byte, and archiving again replaces
# the symbols rather than adding a copy.
. "$(dirname "$0")/test-lib.sh"
test_require_root
test_require_perf_event
test_require_perf_tool

# samples FILE: the SAMPLE records pmrec counts in FILE.
samples() {
	"$PMREC" dump --stats "$1" | awk '/^total  samples/ { print $3 }'
}

# perf_reads_all FILE N: perf report and perf script read N samples, no error.
perf_reads_all() {
	test_equal "$2" "$(perf_sample_count "$1")" "samples perf report counts" &&
	perf script -G -F tid -i "$1" >script 2>perr &&
	test_equal "$2" "$(wc -l <script)" "samples perf script prints" &&
	! test_grep -i "fail\|error\|record size" perr
}

test_expect_success 'archive during a live recording is refused; every sample is kept' '
	"$PMREC" -q -a -g -o live.data -- "$HELPERS/spin" 4 &
	pid=$! &&
	wait_until test -s live.data &&
	sleep 1 &&
	test_expect_code 1 "$PMREC" archive live.data 2>err1 &&
	sleep 1 &&
	test_expect_code 1 "$PMREC" archive live.data 2>err2 &&
	wait $pid &&
	cat err1 err2 &&
	test_grep "live.data: a recording is still being written to it" err1 &&
	test_grep "live.data: a recording is still being written to it" err2 &&
	n=$(samples live.data) &&
	test "$n" -gt 1000 &&
	perf_reads_all live.data "$n" &&
	"$PMREC" archive -q live.data &&
	test_equal "$n" "$(samples live.data)" "samples after the archive" &&
	perf_reads_all live.data "$n"
'

test_expect_success 'archive on a full disk: exit 1, a message, the file byte-identical' '
	"$PMREC" -q -a -g -o rec.data -- "$HELPERS/spin" 0.5 &&
	mkdir small &&
	mount -t tmpfs -o size=$(($(stat -c %s rec.data) / 1024 + 64))k tmpfs small &&
	cp rec.data small/rec.data &&
	{ dd if=/dev/zero of=small/fill bs=4k 2>/dev/null || :; } &&
	rc=0 && { "$PMREC" archive small/rec.data 2>err || rc=$?; } &&
	{ cmp rec.data small/rec.data >cmp 2>&1 || :; } &&
	ls small >left &&
	umount small &&
	cat err cmp &&
	test_equal 1 "$rc" "exit status" &&
	test_grep "cannot write to .small/rec.data.: No space left on device" err &&
	test_equal 0 "$(wc -c <cmp)" "cmp output" &&
	test_equal "fill rec.data" "$(echo $(cat left))" "files left (no temporary one)"
'

test_expect_success 'archive run 10 times: the size is the same from the 2nd run on' '
	"$PMREC" -q -a -g -o rep.data -- "$HELPERS/spin" 0.5 &&
	n=$(samples rep.data) &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$PMREC" archive -q rep.data &&
		stat -c %s rep.data >>sizes || return 1
	done &&
	cat sizes &&
	test_equal 1 "$(sed 1d sizes | sort -u | wc -l)" "sizes of runs 2-10" &&
	test_equal "$(sed -n 1p sizes)" "$(sed -n 2p sizes)" "size of runs 1 and 2" &&
	"$PMREC" dump --header rep.data >h &&
	test_equal 1 "$(grep -o " PMREC_SYMBOLS(" h | wc -l)" "sections of bit 241" &&
	perf_reads_all rep.data "$n"
'

# One program run from two paths and deleted while it ran: the recorder
# keeps its symbols once (one build id); archive used to write them once per
# path, and the next archive refused the two tables and dropped them.
test_expect_success 'a deleted program of two paths: archived 3 times, still named' '
	cp "$HELPERS/spin" a && cp "$HELPERS/spin" b || return 1
	./a 3 &
	pa=$!
	./b 3 &
	pb=$!
	sleep 0.3 && rm a b &&
	"$PMREC" -q -a -g -o two.data -- sleep 0.5 &&
	kill $pa $pb && { wait $pa $pb || :; } &&
	for i in 1 2 3; do
		"$PMREC" archive -q two.data 2>>err || return 1
	done &&
	cat err &&
	! test_grep "not used" err &&
	"$PMREC" dump --header two.data >h &&
	test_equal 1 "$(grep -o " PMREC_SYMBOLS(" h | wc -l)" "sections of bit 241" &&
	"$PMREC" report --no-children -g none --sort dso,sym -i two.data >rows 2>/dev/null &&
	test_grep "a \(deleted\) +\[\.\] spin" rows &&
	test_grep "b \(deleted\) +\[\.\] spin" rows
'

test_expect_success 'the archived file keeps its mode and owner; a link stays a link' '
	"$PMREC" -q -a -o own.data -- true &&
	chmod 640 own.data &&
	chown nobody:nogroup own.data &&
	ln -s own.data link.data &&
	"$PMREC" archive -q link.data &&
	test -L link.data &&
	test_equal "640 nobody nogroup" "$(stat -c "%a %U %G" own.data)" "mode and owner" &&
	"$PMREC" dump --header own.data >h &&
	test_grep " PMREC_SYMBOLS\\(" h
'

test_done
