#!/bin/sh
# -z/--compression-level: the data section as PERF_RECORD_COMPRESSED records
# and the COMPRESSED feature, read by perf 6.1 and, transparently, by pmrec.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

SYS="-e raw_syscalls:sys_enter --filter id==110 -c 1"

# First COMPRESSED record of FILE (pipe or file), as "offset size".
first_compressed() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = 16 if d[8:16] == struct.pack('<Q', 16) else struct.unpack_from('<Q', d, 40)[0]
while off + 8 <= len(d):
    t, m, s = struct.unpack_from('<IHH', d, off)
    if s < 8:
        break
    if t == 81:
        print(off, s)
        break
    # HEADER_TRACING_DATA: its blob follows, outside its size.
    off += s + (struct.unpack_from('<I', d, off + 8)[0] if t == 66 else 0)
PY
}

# Alone: it asserts that neither recording lost a sample, which needs the
# CPUs free of the other tests' storms.
test_alone
test_expect_success 'the syscall storm under -c 1: -z and no -z record the same' '
	"$PMREC" $SYS -m 1024 -q -o n.data -- "$HELPERS/seqcall" 200000 &&
	"$PMREC" $SYS -m 1024 -z -q -o z.data -- "$HELPERS/seqcall" 200000 &&
	perf report --header-only -i z.data >hdr &&
	test_grep "^# compressed : Zstd, level = 1, ratio = [1-9]" hdr &&
	perf report --stats -i z.data >zstats && test_grep "COMPRESSED events" zstats &&
	rn=$(seq_check n.data 200000) && rz=$(seq_check z.data 200000) && echo "$rn / $rz" &&
	test_equal 0 "$(field lost "$rn")" lost &&
	test_equal 0 "$(field lost "$rz")" lost-z &&
	test_equal "$(perf_sample_count n.data)" "$(perf_sample_count z.data)" samples &&
	test_equal 200000 "$(perf_sample_count z.data)" samples-z &&
	# The other arguments are registers that differ from run to run.
	perf script -F comm,event,trace -i n.data 2>/dev/null | sed "s/,.*//" >sn &&
	perf script -F comm,event,trace -i z.data 2>/dev/null | sed "s/,.*//" >sz &&
	test_equal 200000 "$(wc -l <sz)" &&
	test_cmp sn sz &&
	"$PMREC" dump --stats z.data >dz &&
	test_grep "^total +samples +200000$" dz
'

test_expect_success 'a -g profile: -z is at least 4x smaller per sample' '
	"$PMREC" -a -g -q -o gn.data -- "$HELPERS/spin" 1 &&
	"$PMREC" -a -g -z -q -o gz.data -- "$HELPERS/spin" 1 &&
	n=$(perf_sample_count gn.data) && z=$(perf_sample_count gz.data) &&
	sn=$(stat -c %s gn.data) && sz=$(stat -c %s gz.data) &&
	echo "plain $sn bytes / $n samples, -z $sz bytes / $z samples" &&
	awk "BEGIN { exit !(($sn / $n) >= 4 * ($sz / $z)) }"
'

test_expect_success '-z9 and --compression-level=22 are stated in the header' '
	"$PMREC" -z9 -q -o l9.data -- true &&
	perf report --header-only -i l9.data | grep -q "level = 9" &&
	"$PMREC" --compression-level=22 -q -o l22.data -- "$HELPERS/spin" 0.2 &&
	perf report --header-only -i l22.data | grep -q "level = 22" &&
	test "$(perf_sample_count l22.data)" -gt 0
'

test_expect_success 'pmrec dump reads perf record -z files with the counts perf has' '
	perf record -q -B -z -a -g -o pz.data -- "$HELPERS/spin" 1 &&
	perf record -q -B -z -m 1024 $SYS -o ps.data -- "$HELPERS/seqcall" 50000 &&
	for f in pz ps; do
		n=$(perf_sample_count $f.data)
		echo "$f.data: perf report --stats counts $n samples"
		test "$n" -gt 0 || { perf report -f --stats -i $f.data 2>&1 | head -n 5; exit 1; }
		"$PMREC" dump --stats $f.data >d$f || exit 1
		grep -q -E "^total +samples +$n$" d$f || { cat d$f; exit 1; }
	done &&
	# perf may lose some of the storm on a loaded machine, and perf 6.1 -z
	# writes some records twice (5 of 50000 in 2 of 10 runs here): the calls
	# missing from its file are the ones pmrec counts lost.
	r=$(perf script -i ps.data -F trace 2>/dev/null | "$HELPERS/seqcheck" 50000) &&
	echo "perf -z storm: $r" &&
	lost=$(awk "\$1 == \"total\" && \$2 == \"lost\" { print \$3 }" dps) &&
	test_equal "$(field missing "$r")" "$lost" "calls missing, lost in pmrec dump"
'

test_expect_success 'a -z recording SIGKILLed 10 times at random moments reads in perf and pmrec' '
	for i in $(seq 10); do
		"$PMREC" -a -g -z -o k$i.data 2>/dev/null &
		pid=$!
		while [ ! -e k$i.data ]; do sleep 0.01; done
		sleep $(awk "BEGIN { srand($i); printf \"%.2f\", rand() * 1.3 }")
		kill -KILL $pid
		wait $pid || true
		perf report --stats -i k$i.data >s$i 2>e$i || { cat e$i; exit 1; }
		grep -q -i "error\|decompress" e$i && { cat e$i; exit 1; }
		"$PMREC" dump --stats k$i.data >d$i 2>de$i || { cat de$i; exit 1; }
		grep -q -E "^total +samples +$(perf_sample_count k$i.data)$" d$i ||
			{ echo "k$i.data:"; cat d$i s$i; exit 1; }
	done
'

test_expect_success 'pipe mode: -z -o - reads in perf script and pmrec dump' '
	"$PMREC" -z $SYS -q -o - -- "$HELPERS/seqcall" 20000 >z.pipe &&
	test -n "$(first_compressed z.pipe)" &&
	perf script -F trace -i z.pipe >ps &&
	"$PMREC" dump --stats - <z.pipe >dp &&
	samples=$(awk "\$1 == \"total\" && \$2 == \"samples\" { print \$3 }" dp) &&
	lost=$(awk "\$1 == \"total\" && \$2 == \"lost\" { print \$3 }" dp) &&
	# A slow (sanitized) drain may lose some: every call is a sample or a loss.
	test_equal 20000 "$((samples + lost))" "samples + lost" &&
	test_equal "$samples" "$(wc -l <ps)" "perf script lines"
'

test_expect_success '--overwrite and --switch-output files are compressed and read' '
	"$PMREC" -z --overwrite -a -q -o ov.data -- "$HELPERS/spin" 0.5 &&
	"$PMREC" -z --switch-output=1s -a -q -o sw.data -- "$HELPERS/spin" 2.5 &&
	n=0 &&
	for f in ov.data.* sw.data.*; do
		test -n "$(first_compressed $f)" || { echo "$f: no COMPRESSED"; exit 1; }
		c=$(perf_sample_count $f)
		"$PMREC" dump --stats $f >d 2>e || { cat e; exit 1; }
		grep -q -E "^total +samples +$c$" d || { cat d; exit 1; }
		n=$((n + 1))
	done &&
	test "$n" -ge 3
'

test_expect_success 'a corrupt zstd frame: an error with its offset' '
	"$PMREC" -z $SYS -q -o bad.data -- "$HELPERS/seqcall" 20000 &&
	set -- $(first_compressed bad.data) &&
	printf "\377\377\377\377\377\377\377\377" |
		dd of=bad.data bs=1 seek=$(($1 + 8)) conv=notrunc 2>/dev/null &&
	dump_rc bad.data --stats &&
	test_equal 1 "$rc" &&
	dump_error_has_offset && test_grep "zstd" err
'

test_expect_success 'a decompression bomb: an error with its offset, memory bounded' '
	"$PMREC" -z $SYS -q -o - -- "$HELPERS/seqcall" 20000 >z.pipe &&
	python3 - z.pipe bomb.pipe <<-\PY &&
	import struct, sys
	d = open(sys.argv[1], "rb").read()
	off = 16
	while True:
	    t, m, s = struct.unpack_from("<IHH", d, off)
	    if t == 81:
	        break
	    off += s + (struct.unpack_from("<I", d, off + 8)[0] if t == 66 else 0)
	# One zstd frame of 800 RLE blocks of 128 KiB: 100 MiB from 3 KiB.
	blk = (131072 << 3) | (1 << 1)
	frame = struct.pack("<IBB", 0xFD2FB528, 0, 0x38)
	frame += (struct.pack("<I", blk)[:3] + b"\0") * 799
	frame += struct.pack("<I", blk | 1)[:3] + b"\0"
	rec = struct.pack("<IHH", 81, 0, 8 + len(frame)) + frame
	open(sys.argv[2], "wb").write(d[:off] + rec + d[off + s:])
	PY
	dump_rc bomb.pipe --stats &&
	test_equal 1 "$rc" &&
	dump_error_has_offset && test_grep "expands beyond" err
'

test_expect_success 'bad levels: exit 64' '
	test_expect_code 64 "$PMREC" -z0 -q -o x.data -- true 2>e0 &&
	test_expect_code 64 "$PMREC" --compression-level=23 -q -o x.data -- true 2>e23 &&
	test_expect_code 64 "$PMREC" --compression-level=fast -q -o x.data -- true 2>ef &&
	test_grep "bad compression level" e23 &&
	test ! -e x.data
'

test_expect_success '--version lists libzstd' '
	"$PMREC" --version >v &&
	test_grep "^features: .*zstd" v &&
	test_grep "^libraries: libzstd [0-9]" v
'

test_done
