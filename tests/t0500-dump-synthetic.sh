#!/bin/sh
# pmrec dump on synthetic files and streams from gen-perfdata: exact counts,
# decoded fields, JSON, filters, ordering, raw dumps and headers.
. "$(dirname "$0")/test-lib.sh"

GEN=$HELPERS/gen-perfdata

# stat_of KIND NAME FILE: a value of `pmrec dump --stats` ("type SAMPLE" ...).
stat_of() {
	awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3; f = 1 } END { if (!f) print 0 }' "$3"
}

# Sample times in output order.
sample_times() {
	grep '^0x.* SAMPLE ' "$1" | awk '{ print $2 }' | tr '\n' ' '
}

test_expect_success 'file: exact record counts per type' '
	"$GEN" -o g.data &&
	"$PMREC" dump --stats g.data >stats &&
	for pair in SAMPLE:6 MMAP:1 COMM:2 MMAP2:2 FORK:1 EXIT:1 LOST:1 LOST_SAMPLES:1 \
		    THROTTLE:1 UNTHROTTLE:1 FINISHED_ROUND:3 FINISHED_INIT:1 ID_INDEX:1 \
		    THREAD_MAP:1 CPU_MAP:1; do
		test_equal "${pair#*:}" "$(stat_of type "${pair%:*}" stats)" "${pair%:*}"
	done &&
	test_equal 24 "$(stat_of total records stats)" records &&
	test_equal 7 "$(stat_of total lost stats)" "lost (LOST_SAMPLES 7; LOST 5 is the same drops)" &&
	test_equal 0.000001000 "$(stat_of time first_sample stats)" first &&
	test_equal 0.000005000 "$(stat_of time last_sample stats)" last &&
	! grep -q "^0x" stats
'

test_expect_success 'file: samples per event, names from EVENT_DESC' '
	"$GEN" -o g.data &&
	"$PMREC" dump --stats g.data >stats &&
	test_equal 2 "$(stat_of event cpu-clock stats)" cpu-clock &&
	test_equal 1 "$(stat_of event faults stats)" faults &&
	test_equal 1 "$(stat_of event sched:sched_switch stats)" sched_switch &&
	test_equal 1 "$(stat_of event raw_syscalls:sys_enter stats)" sys_enter &&
	test_equal 1 "$(stat_of event sched:sched_process_exec stats)" exec
'

test_expect_success 'without names, events are named from type/config and tracing data' '
	"$GEN" --no-names -o n.data &&
	"$PMREC" dump --stats n.data >stats &&
	test_equal 1 "$(stat_of event page-faults stats)" page-faults &&
	test_equal 2 "$(stat_of event cpu-clock stats)" cpu-clock &&
	test_equal 1 "$(stat_of event sched:sched_switch stats)" sched_switch &&
	"$GEN" --pipe --no-names -o np.data &&
	"$PMREC" dump --stats np.data >pstats &&
	test_equal 1 "$(stat_of event page-faults pstats)" "pipe page-faults" &&
	test_equal 1 "$(stat_of event raw_syscalls:sys_enter pstats)" "pipe sys_enter"
'

test_expect_success 'pipe: header records and the same data records' '
	"$GEN" --pipe -o p.data &&
	"$PMREC" dump --stats p.data >stats &&
	for pair in HEADER_ATTR:5 HEADER_FEATURE:11 HEADER_TRACING_DATA:1 EVENT_UPDATE:1 \
		    TIME_CONV:1 SAMPLE:6 COMM:2 MMAP2:2 FINISHED_ROUND:3; do
		test_equal "${pair#*:}" "$(stat_of type "${pair%:*}" stats)" "${pair%:*}"
	done &&
	test_equal 1 "$(stat_of event faults stats)" "faults (EVENT_UPDATE name)" &&
	test_equal 7 "$(stat_of total lost stats)" lost
'

test_expect_success 'pipe stream on stdin: "-" and a pipe without FILE' '
	"$GEN" --pipe -o p.data &&
	"$PMREC" dump p.data >want &&
	"$PMREC" dump - <p.data >got1 &&
	cat p.data | "$PMREC" dump >got2 &&
	test_cmp want got1 &&
	test_cmp want got2
'

test_expect_success 'file mode from a pipe: records still decoded' '
	"$GEN" -o g.data &&
	cat g.data | "$PMREC" dump --stats - >stats 2>err &&
	test_equal 6 "$(stat_of type SAMPLE stats)" samples &&
	test_grep "features .* are not read" err
'

test_expect_success 'record line columns: offset, time, cpu, pid/tid, type' '
	"$GEN" -o g.data &&
	"$PMREC" dump --no-symbols g.data >out &&
	test_grep "^0x[0-9a-f]+ 0\.000001000 0 100/100 SAMPLE event=cpu-clock cpumode=user ip=0x401000 sample_id=11 period=1000000 callchain=0xfffffffffffffe00,0x401000,0x401100$" out &&
	test_grep "^0x[0-9a-f]+ 0\.000003000 1 100/101 SAMPLE event=cpu-clock cpumode=kernel ip=0xffffffff81000100 " out &&
	test_grep "^0x[0-9a-f]+ - - - FINISHED_ROUND$" out &&
	test_grep " 0\.000001500 1 102/102 FORK ppid=100 ptid=100" out &&
	test_grep " -1/0 MMAP addr=0xffffffff81000000 len=0x1000000 pgoff=0xffffffff81000000 cpumode=kernel filename=\[kernel\.kallsyms\]_text$" out &&
	test_grep " LOST id=11 lost=5" out &&
	test_grep " LOST_SAMPLES lost=7" out
'

test_expect_success 'record offsets are the file offsets' '
	"$GEN" -o g.data &&
	"$PMREC" dump g.data >out &&
	off=$(grep " FINISHED_INIT" out | cut -d" " -f1) &&
	test_equal 52 "$(od -A n -t x1 -j "$(printf %d "$off")" -N 1 g.data | tr -d " ")" "type byte at $off"
'

test_expect_success 'MMAP2, COMM and tracepoint fields decoded' '
	"$GEN" -o g.data &&
	"$PMREC" dump g.data >out &&
	test_grep "MMAP2 addr=0x400000 len=0x1000 pgoff=0x0 maj=8 min=1 ino=1234 ino_generation=0 prot=0x5 flags=0x2 cpumode=user filename=/usr/bin/worker" out &&
	test_grep "MMAP2 .* build_id=0102030405060708090a0b0c0d0e0f1011121314 .* filename=/lib/libc.so.6" out &&
	test_grep "100/100 COMM comm=worker exec=0" out &&
	test_grep "event=sched:sched_switch .* raw_size=68 prev_comm=worker prev_pid=101 prev_prio=120 prev_state=1 next_comm=swapper/1 next_pid=0 next_prio=120$" out &&
	test_grep "event=raw_syscalls:sys_enter .* id=110 args=1,2,3,4,5,6$" out &&
	test_grep "event=sched:sched_process_exec .* filename=/bin/true pid=102 old_pid=102$" out
'

test_expect_success 'odd bytes in strings are escaped in text' '
	"$GEN" -o g.data &&
	"$PMREC" dump g.data >out &&
	grep -F "100/101 COMM comm=\"a\\\"b\\\\c\\x01\\xff\\xc3\\xa9\" exec=0" out &&
	! LC_ALL=C grep -q "[^ -~]" out
'

test_expect_success '--json: every line is valid JSON (file and pipe)' '
	"$GEN" -o g.data && "$GEN" --pipe -o p.data &&
	"$PMREC" dump --json g.data >g.json &&
	"$PMREC" dump --json p.data >p.json &&
	"$PMREC" dump --json --raw g.data >r.json &&
	for f in g.json p.json r.json; do
		python3 -c "import json,sys;[json.loads(l) for l in sys.stdin]" <$f || exit 1
	done &&
	test_equal 25 "$(wc -l <g.json | tr -d " ")" "24 records + STATS"
'

test_expect_success '--json: field values and types' '
	"$GEN" -o g.data &&
	"$PMREC" dump --json g.data >g.json &&
	python3 - g.json <<-\PY
	import json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	samples = [r for r in recs if r["type"] == "SAMPLE"]
	assert len(samples) == 6, len(samples)
	s = samples[0]
	assert s["event"] == "cpu-clock" and s["ip"] == "0x401000", s
	assert s["time"] == 1000 and s["cpu"] == 0 and s["pid"] == 100 and s["tid"] == 100, s
	assert s["period"] == 1000000 and s["callchain"] == ["0xfffffffffffffe00", "0x401000", "0x401100"], s
	enter = [r for r in samples if r["event"] == "raw_syscalls:sys_enter"][0]
	assert enter["fields"]["args"] == [1, 2, 3, 4, 5, 6], enter
	assert enter["fields"]["id"] == 110 and enter["fields"]["common_pid"] == 100, enter
	sw = [r for r in samples if r["event"] == "sched:sched_switch"][0]
	assert sw["fields"]["prev_comm"] == "worker" and sw["fields"]["next_comm"] == "swapper/1", sw
	comms = [r["comm"] for r in recs if r["type"] == "COMM"]
	# The byte 0xff starts no UTF-8 sequence: U+FFFD, not the Latin-1 \u00ff.
	assert comms == ["worker", "a\"b\\c\x01\ufffd\xe9"], comms
	mmap = [r for r in recs if r["type"] == "MMAP"][0]
	assert mmap["pid"] == -1 and mmap["filename"] == "[kernel.kallsyms]_text", mmap
	stats = recs[-1]
	assert stats["type"] == "STATS" and stats["records"] == 24 and stats["lost"] == 7, stats
	assert stats["by_type"]["SAMPLE"] == 6 and stats["by_event"]["faults"] == 1, stats
	assert stats["first_sample_time"] == 1000 and stats["last_sample_time"] == 5000, stats
	PY
'

test_expect_success '--json --stats: only the STATS object' '
	"$GEN" --pipe -o p.data &&
	"$PMREC" dump --json --stats p.data >s.json &&
	test_equal 1 "$(wc -l <s.json | tr -d " ")" lines &&
	python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"type\"]==\"STATS\" and d[\"by_type\"][\"HEADER_ATTR\"]==5, d" <s.json
'

test_expect_success '--type filters by name, case-insensitive, with aliases' '
	"$GEN" --pipe -o p.data &&
	"$PMREC" dump --type=sample,COMM p.data >out &&
	test_equal 8 "$(grep -c "^0x" out)" "samples + comms" &&
	test_equal 0 "$(grep "^0x" out | grep -c -v -E " (SAMPLE|COMM) ")" others &&
	"$PMREC" dump --type=feature --stats p.data >stats &&
	test_equal 11 "$(stat_of type HEADER_FEATURE stats)" features &&
	test_equal 11 "$(stat_of total records stats)" records
'

test_expect_success '--cpu and --pid filter on the sample/trailer values' '
	"$GEN" -o g.data &&
	"$PMREC" dump --type=sample --cpu=1 g.data >cpu1 &&
	test_equal 3 "$(grep -c "^0x.* SAMPLE " cpu1)" "samples on cpu 1" &&
	test_equal 0 "$(grep "^0x.* SAMPLE " cpu1 | awk "\$3 != 1" | wc -l | tr -d " ")" "other cpus" &&
	"$PMREC" dump --type=sample --cpu=0-1 g.data >all &&
	test_equal 6 "$(grep -c "^0x.* SAMPLE " all)" "samples on cpus 0-1" &&
	"$PMREC" dump --pid=102 g.data >pid &&
	test_equal 3 "$(grep -c "^0x" pid)" "FORK, exec SAMPLE, EXIT of pid 102" &&
	grep -q "^0x.* FORK " pid && grep -q "^0x.* EXIT " pid &&
	"$PMREC" dump --pid=100,102 --cpu=0 --type=sample g.data >both &&
	test_equal 3 "$(grep -c "^0x.* SAMPLE " both)" "pids 100,102 on cpu 0"
'

test_expect_success '--no-symbols keeps file order' '
	"$GEN" -o g.data &&
	"$PMREC" dump --no-symbols g.data >out &&
	test_equal "0.000001000 0.000003000 0.000004000 0.000002000 0.000005000 0.000001500 " \
		"$(sample_times out)" "sample times"
'

test_expect_success 'with symbols (the default) records come in time order' '
	"$GEN" -o g.data &&
	"$PMREC" dump g.data >out 2>/dev/null &&
	"$PMREC" dump --no-symbols --ordered g.data >ordered &&
	test_equal "$(sample_times ordered)" "$(sample_times out)" "sample times"
'

test_expect_success '--ordered uses the FINISHED_ROUND windows as perf does' '
	"$GEN" -o g.data && "$GEN" --pipe -o p.data &&
	"$PMREC" dump --ordered g.data >out &&
	test_equal "0.000001000 0.000002000 0.000003000 0.000001500 0.000004000 0.000005000 " \
		"$(sample_times out)" "sample times" &&
	"$PMREC" dump --ordered p.data >pout &&
	test_equal "$(sample_times out)" "$(sample_times pout)" "pipe order" &&
	"$PMREC" dump --ordered --stats g.data >ostats &&
	"$PMREC" dump --stats g.data >stats &&
	test_cmp stats ostats &&
	test_equal 24 "$(grep -c "^0x" out)" "every record once"
'

test_expect_success '--queue-size: a window over the limit prints its oldest early, once warned' '
	"$GEN" --repeat=3 -o g.data &&
	"$PMREC" dump --no-symbols --ordered g.data >out 2>err &&
	test ! -s err &&
	"$PMREC" dump --no-symbols --ordered --queue-size=400 g.data >small 2>err &&
	test_equal 1 "$(grep -c "more than 400 bytes of records between two FINISHED_ROUND records (at offset [0-9]*); printing the oldest early" err)" \
		"one warning" &&
	test_equal 1 "$(wc -l <err)" "nothing else on stderr" &&
	sort out >out.sorted && sort small >small.sorted &&
	test_cmp out.sorted small.sorted &&
	! test_cmp out small >/dev/null &&
	"$PMREC" dump --no-symbols --ordered --queue-size=64K g.data >big 2>err &&
	test ! -s err &&
	test_cmp out big
'

test_expect_success '--queue-size: zero, signs and unknown units are usage errors' '
	"$GEN" -o g.data &&
	for v in 0 -1 1T 12Q ""; do
		test_expect_code 64 "$PMREC" dump --queue-size="$v" g.data >/dev/null 2>err &&
		test_grep "bad queue size" err || exit 1
	done
'

test_expect_success '--ordered: records without time keep their place' '
	"$GEN" -o g.data &&
	"$PMREC" dump --ordered g.data >out &&
	test_equal "ID_INDEX THREAD_MAP CPU_MAP FINISHED_INIT MMAP" \
		"$(grep "^0x" out | head -n 5 | cut -d" " -f5 | tr "\n" " " | sed "s/ \$//")" "first records"
'

test_expect_success '--raw: a hex dump under each record' '
	"$GEN" -o g.data &&
	"$PMREC" dump --raw --type=finished_init g.data >out &&
	head -n 1 out | grep -q " FINISHED_INIT$" &&
	head -n 2 out | tail -n 1 | grep -q "^    0000: 52 00 00 00 00 00 08 00  " &&
	test_equal 1 "$(grep -c "^    " out)" "one dump line" &&
	"$PMREC" dump --raw --json --type=sample g.data >r.json &&
	python3 -c "import json,sys; r=[json.loads(l) for l in sys.stdin][0]; assert r[\"raw\"].startswith(\"090000000200\"), r" <r.json
'

test_expect_success '--header: file header, events and features' '
	"$GEN" -o g.data &&
	"$PMREC" dump --header g.data >h &&
	test_grep "^# mode : file$" h &&
	test_grep "^# hostname : gen-host$" h &&
	test_grep "^# os release : 6\.1\.0-gen$" h &&
	test_grep "^# arch : x86_64$" h &&
	test_grep "^# nrcpus online : 2$" h &&
	test_grep "^# nrcpus avail : 4$" h &&
	test_grep "^# cpudesc : Generated CPU$" h &&
	test_grep "^# cpuid : GenuineGen,1,2,3$" h &&
	test_grep "^# total memory : 1048576 kB$" h &&
	test_grep "^# cmdline : gen-perfdata --weird$" h &&
	test_equal 5 "$(grep -c "^# event : " h)" events &&
	test_grep "^# event : name=faults attr_type=1 config=0x2 " h &&
	test_grep "^# time of first sample : 0\.000001000$" h &&
	test_grep "build_id=a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 cpumode=kernel filename=\[kernel\.kallsyms\]" h &&
	test_grep "^# tracepoint formats : sched:sched_switch\(372\) sched:sched_process_exec\(365\) raw_syscalls:sys_enter\(443\)$" h &&
	test_grep "^# features : TRACING_DATA\([0-9]+\) BUILD_ID\([0-9]+\) HOSTNAME\(68\) " h &&
	! grep -q "^0x" h
'

test_expect_success '--header: pipe mode reads the header records' '
	"$GEN" --pipe -o p.data &&
	"$PMREC" dump --header p.data >h &&
	test_grep "^# mode : pipe$" h &&
	test_grep "^# hostname : gen-host$" h &&
	test_equal 5 "$(grep -c "^# event : " h)" events &&
	test_grep "^# tracepoint formats : " h &&
	"$PMREC" dump --header --json p.data >h.json &&
	python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"hostname\"]==\"gen-host\" and len(d[\"events\"])==5, d" <h.json
'

test_expect_success 'unknown record types: printed raw with their size, exit 0' '
	"$GEN" --variant=unknown -o u.data &&
	"$PMREC" dump u.data >out &&
	test_grep " UNKNOWN_30 data_size=40$" out &&
	test_grep " UNKNOWN_90 data_size=8$" out &&
	grep -A 1 "^0x.* UNKNOWN_90 " out | tail -n 1 | grep -q "^    0000: 5a 00 00 00 00 00 10 00 ef be ad de" &&
	"$PMREC" dump --type=unknown u.data >only &&
	test_equal 2 "$(grep -c "^0x" only)" "unknown records" &&
	"$PMREC" dump --json u.data | python3 -c "import json,sys;[json.loads(l) for l in sys.stdin]"
'

test_expect_success 'COMPRESSED records: the records they hold, across two of them (file and pipe)' '
	"$GEN" --variant=compressed -o c.data &&
	"$GEN" --pipe --variant=compressed -o cp.data &&
	for f in c.data cp.data; do
		"$PMREC" dump $f >out 2>err || { cat err; exit 1; }
		test_grep " 4243/4243 COMM comm=packed " out &&
		test_grep " 4243/4243 SAMPLE .* ip=0x401150 " out &&
		! grep -q "COMPRESSED\|not supported" out err || exit 1
	done
'

test_expect_success 'compressed data that ends inside a record: a warning, what is whole is read' '
	"$GEN" --variant=compressed-unflushed -o cu.data &&
	"$GEN" --pipe --variant=compressed-unflushed -o cup.data &&
	for f in cu.data cup.data; do
		"$PMREC" dump $f >out 2>err || { cat err; exit 1; }
		test_grep "compressed data ends inside a record \([0-9]+ bytes, after the COMPRESSED record at offset [0-9]+\)" err &&
		! grep -q " 4243/4243 " out &&
		test_grep " SAMPLE " out || exit 1
	done
'

test_expect_success 'a COMPRESSED record that is not zstd: an error with its offset' '
	"$GEN" --pipe --variant=compressed-bad -o cb.data &&
	dump_rc cb.data &&
	test_equal 1 "$rc" &&
	dump_error_has_offset && test_grep "corrupt zstd data" err
'

test_expect_success 'AUXTRACE: the payload after the record is skipped (file and pipe)' '
	"$GEN" --variant=auxtrace -o a.data &&
	"$GEN" --pipe --variant=auxtrace -o ap.data &&
	for f in a.data ap.data; do
		"$PMREC" dump $f >out &&
		test_grep " AUXTRACE data_size=24 " out &&
		test_equal 4 "$(grep -c "^0x.* FINISHED_ROUND" out)" "rounds after AUXTRACE in $f" || exit 1
	done &&
	cat ap.data | "$PMREC" dump --stats >stats &&
	test_equal 1 "$(stat_of type AUXTRACE stats)" "AUXTRACE through a pipe"
'

test_expect_success 'a closed stdout ends the dump quietly' '
	"$GEN" --repeat=2000 -o big.data &&
	{ "$PMREC" dump --no-symbols big.data 2>err; echo $? >rc; } | head -n 1 >first &&
	test_equal 0 "$(cat rc)" "exit status" &&
	test_equal "" "$(cat err)" stderr &&
	test_grep "ID_INDEX" first
'

test_expect_success 'usage errors exit 64' '
	"$GEN" -o g.data &&
	test_expect_code 64 "$PMREC" dump --bogus g.data &&
	test_expect_code 64 "$PMREC" dump --type=nosuch g.data &&
	test_expect_code 64 "$PMREC" dump --cpu=x g.data &&
	test_expect_code 64 "$PMREC" dump --pid=3-1 g.data &&
	test_expect_code 64 "$PMREC" dump g.data g.data
'

test_expect_success 'missing input: pmrec.data by default, exit 1' '
	test_expect_code 1 "$PMREC" dump 2>err &&
	test_grep "cannot open .pmrec\.data." err &&
	"$GEN" -o pmrec.data &&
	"$PMREC" dump --stats >stats &&
	test_equal 6 "$(stat_of type SAMPLE stats)" samples
'

test_expect_success '--help lists the options' '
	"$PMREC" dump --help >help &&
	for o in json stats header raw type cpu pid ordered queue-size input; do
		grep -q -e "--$o" help || { echo "--$o missing"; exit 1; }
	done
'

test_done
