#!/bin/sh
# pmrec annotate: on an -O2 -g program with one hot line (hotline: a
# dependent division in a loop, beside an inlined helper), every
# instruction's share of the function's samples is the one perf annotate
# --stdio shows for the same recording, and the hottest source line is the
# one perf shows above the hottest instruction; the same on the program
# built without debug info, and stripped with its debug file found by build
# id under /usr/lib/debug/.build-id.  Then JSON, the default selection and
# the errors; report --sort srcline, whose rows are perf's; and pprof's
# lines, which go tool pprof -list shows as annotate counts them.  Last,
# kernel functions read from a synthetic kcore (see below), their shares
# exact and perf annotate's over the same kcore, and the errors of kernel
# code.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool
command -v objcopy >/dev/null 2>&1 || test_skip_all "objcopy is not installed (binutils)"

ROUNDS=20000000
D=$TMP_ROOT/rec
DEBUG_FILE= DEBUG_DIR=

# The debug file this script installs is removed with the rest, and only it
# (and its directory if the script made it).
trap '[ -z "$DEBUG_FILE" ] || rm -f "$DEBUG_FILE"; [ -z "$DEBUG_DIR" ] || rmdir "$DEBUG_DIR"
      rm -rf "$TMP_ROOT"' EXIT

# compare PMREC_OUT PERF_OUT: the same instructions, each percentage
# within 0.5 of perf's, the same hottest instruction, whose address it
# prints.  (awk: python takes a second to start on a loaded machine.)
compare() {
	awk '
	FNR == 1 { f++ }
	/^ *[0-9.]+ +: +[0-9a-f]+:/ {
		a = $3; sub(/:$/, "", a)
		if (f == 1) pm[a] = $1; else perf[a] = $1
	}
	END {
		for (a in perf) {
			n++
			d = pm[a] - perf[a]
			if (!(a in pm) || d > 0.5 || d < -0.5) { print a ": pmrec " pm[a] ", perf " perf[a]; bad = 1 }
			if (perf[a] + 0 > hp) { hp = perf[a] + 0; hot = a }
		}
		for (a in pm) {
			if (!(a in perf)) { print a ": not in perf"; bad = 1 }
			if (pm[a] + 0 > hm) { hm = pm[a] + 0; hpm = a }
		}
		if (n < 10) { print "only " n " instructions"; bad = 1 }
		if (hpm != hot) { print "hottest: pmrec " hpm ", perf " hot; bad = 1 }
		if (bad) exit 1
		print hot
	}' "$1" "$2"
}

# perf_line PERF_OUT ADDR: the text of the last source line perf shows
# above the instruction at ADDR, without blanks.
perf_line() {
	awk -v want="$2" '
	/^ *[0-9.]+ +: +[0-9a-f]+:/ {
		a = $3; sub(/:$/, "", a)
		if (a == want) { gsub(/[ \t]/, "", last); print last; exit }
		next
	}
	/^ +: +[0-9]+ +[^ ]/ { t = $0; sub(/^ +: +[0-9]+ +/, "", t); if (t !~ /\(\):$/) last = t }
	' "$1"
}

# pm_line OUT: the text of the hottest line of pmrec's summary, without blanks.
pm_line() {
	loc=$(awk '/^Sorted summary/ { s = 1; next } s && /^ +[0-9.]+ / { print $2; exit }' "$1")
	test -n "$loc"
	sed -n "${loc##*:}p" "$SRC_DIR/tests/helpers/hotline.c" | tr -d ' \t'
}

test_expect_success 'setup: three builds of hotline recorded' '
	mkdir -p "$D" && cd "$D" &&
	cp "$HELPERS/hotline" hl-g &&
	cp "$HELPERS/hotline-nodebug" hl-nodebug &&
	# A build id of its own, so that no other file shares its debug file.
	cp "$HELPERS/hotline" hl-stripped &&
	old=$(readelf -n hl-stripped | awk "/Build ID/ { print \$3 }") &&
	new=$(od -An -N20 -tx1 /dev/urandom | tr -d " \n") &&
	python3 -c "import sys; p=sys.argv[1]; b=open(p,\"rb\").read(); o=bytes.fromhex(sys.argv[2]); assert b.count(o)==1; open(p,\"wb\").write(b.replace(o, bytes.fromhex(sys.argv[3])))" \
		hl-stripped "$old" "$new" &&
	test_equal "$new" "$(readelf -n hl-stripped | awk "/Build ID/ { print \$3 }")" &&
	dir=/usr/lib/debug/.build-id/$(echo "$new" | cut -c1-2) &&
	if [ ! -d "$dir" ]; then mkdir "$dir" && echo "$dir" >debug-dir; fi &&
	objcopy --only-keep-debug hl-stripped "$dir/$(echo "$new" | cut -c3-).debug" &&
	strip hl-stripped &&
	! readelf -S hl-stripped | grep -q -E "\.(symtab|debug_line)" &&
	for b in hl-g hl-nodebug hl-stripped; do
		"$PMREC" -q -o $b.data -- ./$b $ROUNDS || return 1
		perf annotate --stdio -i $b.data hot >$b.perf 2>/dev/null || return 1
		"$PMREC" annotate --stdio -i $b.data hot >$b.pm || return 1
	done &&
	echo "$dir/$(echo "$new" | cut -c3-).debug" >debug-file
'
DEBUG_FILE=$(cat "$D/debug-file" 2>/dev/null)
DEBUG_DIR=$(cat "$D/debug-dir" 2>/dev/null)

test_expect_success 'with debug info: the percentages and hottest instruction are perf annotate'"'"'s' '
	compare "$D/hl-g.pm" "$D/hl-g.perf"
'

test_expect_success 'with debug info: the hottest source line is perf'"'"'s line of the hottest instruction' '
	hot=$(compare "$D/hl-g.pm" "$D/hl-g.perf") &&
	want=$(perf_line "$D/hl-g.perf" "$hot") &&
	test -n "$want" &&
	test_equal "$want" "$(pm_line "$D/hl-g.pm")"
'

test_expect_success 'with debug info: inlined mix() is marked, jumps name their target' '
	test_grep "^ +: mix\(\):$" "$D/hl-g.pm" &&
	test_grep "^ +: hot\(\):$" "$D/hl-g.pm" &&
	test_grep ":   j[a-z]+ +[0-9a-f]+ <hot\+0x[0-9a-f]+>$" "$D/hl-g.pm"
'

test_expect_success 'without debug info: the same percentages, instructions only' '
	compare "$D/hl-nodebug.pm" "$D/hl-nodebug.perf" &&
	! grep -q "Sorted summary" "$D/hl-nodebug.pm" &&
	! grep -q "hotline.c" "$D/hl-nodebug.pm"
'

test_expect_success 'stripped, debug file by build id: the same percentages and hottest line' '
	hot=$(compare "$D/hl-stripped.pm" "$D/hl-stripped.perf") &&
	want=$(perf_line "$D/hl-stripped.perf" "$hot") &&
	test -n "$want" &&
	test_equal "$want" "$(pm_line "$D/hl-stripped.pm")"
'

test_expect_success '--json: the instructions and percentages of the text' '
	"$PMREC" annotate --json -i "$D/hl-g.data" hot >out.json &&
	python3 - out.json "$D/hl-g.pm" <<-PY
	import json, re, sys
	doc = json.load(open(sys.argv[1]))
	assert len(doc) == 1 and doc[0]["symbol"] == "hot", doc
	js = {int(i["addr"], 16): i["percent"] for i in doc[0]["instructions"]}
	txt = {}
	for line in open(sys.argv[2]):
	    m = re.match(r"^\s*([0-9.]+)\s+:\s+([0-9a-f]+):", line)
	    if m:
	        txt[int(m.group(2), 16)] = float(m.group(1))
	assert js == txt, (js, txt)
	assert doc[0]["lines"][0]["file"].endswith("hotline.c"), doc[0]["lines"][0]
	assert sum(i["samples"] for i in doc[0]["instructions"]) == doc[0]["samples"]
	PY
'

test_expect_success 'without a symbol: the hottest functions above --percent-limit' '
	"$PMREC" annotate -i "$D/hl-g.data" >out &&
	test_grep "<hot>:$" out &&
	test 1 = "$(grep -c "Source code & Disassembly" out)" &&
	"$PMREC" annotate --percent-limit=0 -i "$D/hl-g.data" >all &&
	test "$(grep -c "Source code & Disassembly" all)" -ge 1
'

test_expect_success 'a function without samples: exit 1, with the nearest names' '
	test_expect_code 1 "$PMREC" annotate -i "$D/hl-g.data" hto 2>err >/dev/null &&
	test_grep "^pmrec annotate: .*: no samples in '"'"'hto'"'"'; nearest functions with samples: '"'"'hot'"'"'" err
'

test_expect_success 'a full disk: write error said, exit 1' '
	test_expect_code 1 "$PMREC" annotate -i "$D/hl-g.data" hot >/dev/full 2>err &&
	test_grep "^pmrec annotate: write error: No space left on device" err
'

# without_capstone CMD...: CMD where every x86-64 capstone library reads as
# an empty file (a mount namespace of its own binds /dev/null over them).
without_capstone() {
	libs=$(ldconfig -p | awk '$1 ~ /^libcapstone\.so\.[0-9]+$/ && /x86-64/ { print $NF }')
	[ -n "$libs" ] || { echo "no libcapstone.so in ldconfig -p"; return 2; }
	# shellcheck disable=SC2016
	unshare -m sh -c 'for l in $0; do mount --bind /dev/null "$l" || exit 2; done; exec "$@"' \
		"$libs" "$@"
}

test_expect_success 'without capstone'"'"'s library: exit 1, the library and its package named' '
	test_expect_code 1 without_capstone "$PMREC" annotate -i "$D/hl-g.data" hot \
		>/dev/null 2>err &&
	test_grep "the disassembler, libcapstone.so.[0-9]+, is not installed \\(Debian: libcapstone[0-9]+\\)" err
'

test_expect_success 'a binary changed since the recording is refused' '
	cp "$D/hl-g" hl-c &&
	"$PMREC" -q -o c.data -- ./hl-c 2000000 &&
	cp "$D/hl-nodebug" hl-c &&
	test_expect_code 1 "$PMREC" annotate -i c.data hot 2>err >/dev/null &&
	test_grep "hl-c.* (is not used for symbols|not the one recorded)" err
'

# rows FILE: the table rows of a report with at least 0.5 %, ten at most,
# without trailing blanks (the smaller rows' order among equals is noise).
rows() {
	grep -v "^#" "$1" | sed "s/ *$//" | awk "NF && \$1 + 0 >= 0.5" | head -n 10
}

test_expect_success 'report --sort srcline: the rows of perf report --sort srcline' '
	"$PMREC" report -i "$D/hl-g.data" --sort srcline >pm &&
	perf report -i "$D/hl-g.data" --sort srcline --stdio >perf 2>/dev/null &&
	rows perf >want && rows pm >got &&
	test "$(wc -l <want)" -ge 2 &&
	test_grep "hotline.c:[0-9]+$" want &&
	test_cmp want got
'

test_expect_success 'report --sort sym,srcline: the rows of perf'"'"'s' '
	"$PMREC" report -i "$D/hl-g.data" --sort sym,srcline >pm &&
	perf report -i "$D/hl-g.data" --sort sym,srcline --stdio >perf 2>/dev/null &&
	rows perf >want && rows pm >got &&
	test_grep "\] hot +hotline.c:[0-9]+$" want &&
	test_cmp want got
'

test_expect_success 'report --pprof: go tool pprof -list shows annotate'"'"'s line totals' '
	command -v go >/dev/null &&
	export HOME="$PWD/home" GOCACHE="$PWD/gocache" GOPATH=/usr/share/gocode \
		GO111MODULE=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local &&
	mkdir -p "$HOME" &&
	"$PMREC" report --pprof=p.pb.gz -i "$D/hl-g.data" &&
	go tool pprof -sample_index=samples -list "^hot\$" p.pb.gz >list &&
	test_grep "^ROUTINE =+ hot in .*hotline.c" list &&
	awk "\$1 ~ /^[0-9]+\$/ && \$3 ~ /^[0-9]+:/ { sub(/:.*/, \"\", \$3); print \$3, \$1 }" list |
		sort -n >got &&
	"$PMREC" annotate --json -i "$D/hl-g.data" hot >a.json &&
	python3 -c "import json; [print(l[\"line\"], l[\"samples\"]) for l in json.load(open(\"a.json\"))[0][\"lines\"]]" |
		sort -n >want &&
	test "$(wc -l <want)" -ge 2 &&
	test_cmp want got
'

test_expect_success 'report: addresses of a stripped library no symbol covers are perf'"'"'s file offsets' '
	head -c 2000000 /dev/urandom >rnd &&
	"$PMREC" -q -o xz.data -- xz -6 -T1 -c rnd >/dev/null &&
	"$PMREC" report -i xz.data --no-children --sort dso,sym >pm &&
	perf report -i xz.data --stdio --no-children --sort dso,sym >perf 2>/dev/null &&
	rows perf | grep "liblzma.* 0x" >want &&
	rows pm | grep "liblzma.* 0x" >got &&
	test -s want &&
	test_cmp want got
'

test_expect_success 'bad options: exit 64' '
	test_expect_code 64 "$PMREC" annotate --percent-limit=x -i "$D/hl-g.data" 2>err &&
	test_grep "bad --percent-limit" err &&
	test_expect_code 64 "$PMREC" annotate --bogus 2>err
'


# Kernel functions: no kernel here has to offer its code (this test's
# machine has no /proc/kcore), so a kcore is made: an ELF core file whose
# PT_LOAD segment at 0xffffffff81000000 holds known x86-64 instructions
# (kfunc at +0x1000), a kallsyms copy naming them, and a recording
# (gen-perfdata --variant=kcore) with kernel samples at chosen addresses:
# 6 on the add, 3 on the dec, 1 on the jne of kfunc, 2 in kfar, which no
# segment holds.
K=$TMP_ROOT/kcore
KSAMPLES=ffffffff81001004:6,ffffffff81001007:3,ffffffff8100100a:1,ffffffff81100010:2
RECORDED_ID=a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3

# mkkcore OUT [BUILD_ID]: the kcore, with BUILD-ID in its VMCOREINFO note if given.
mkkcore() {
	python3 - "$@" <<-'PY'
	import struct, sys
	out, bid = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
	# push %rbp; mov %rsp,%rbp; add %rdi,%rax; dec %rax; jne add; pop %rbp; ret; nop; nop
	code = bytes.fromhex("554889e54801f848ffc875f85dc39090")
	seg = bytearray(0x2000)
	seg[0x1000:0x1000 + len(code)] = code
	desc = ("OSRELEASE=6.1.0-gen\n" + ("BUILD-ID=%s\n" % bid if bid else "")).encode()
	pad = lambda b: b + bytes(-len(b) % 4)
	note = struct.pack("<III", 11, len(desc), 0) + pad(b"VMCOREINFO\0") + pad(desc)
	eh = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) + struct.pack(
	    "<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 2, 0, 0, 0)
	ph = struct.pack("<IIQQQQQQ", 4, 0, 64 + 2 * 56, 0, 0, len(note), 0, 4)
	ph += struct.pack("<IIQQQQQQ", 1, 7, 0x1000, 0xffffffff81000000, 0, len(seg), len(seg), 0x1000)
	f = eh + ph + note
	open(out, "wb").write(f + bytes(0x1000 - len(f)) + seg)
	PY
}

# running_id: the running kernel's build id, from /sys/kernel/notes.
running_id() {
	python3 -c '
import struct
b = open("/sys/kernel/notes", "rb").read(); i = 0
while i + 12 <= len(b):
    n, d, t = struct.unpack_from("<III", b, i)
    o = i + 12 + ((n + 3) & ~3)
    if t == 3 and b[i + 12:i + 15] == b"GNU":
        print(b[o:o + d].hex()); break
    i = o + ((d + 3) & ~3)'
}

test_expect_success 'kernel: setup: a kcore, its kallsyms, kernel samples at chosen instructions' '
	mkdir -p "$K" && cd "$K" &&
	mkkcore kcore "$RECORDED_ID" &&
	mkkcore kcore-other 0102030405060708090a0b0c0d0e0f1011121314 &&
	printf "%s\n" "ffffffff81000000 T _text" "ffffffff81000000 T _stext" \
		"ffffffff81001000 T kfunc" "ffffffff81001010 T kafter" \
		"ffffffff81100000 T kfar" "ffffffff81100040 T kfar_end" >kallsyms &&
	"$HELPERS/gen-perfdata" --variant=kcore --kernel-samples=$KSAMPLES -o k.data &&
	"$PMREC" annotate --stdio --kcore=kcore --kallsyms=kallsyms -i k.data kfunc >kfunc.pm
'

test_expect_success 'kernel: --kcore: each instruction with its exact share, the hottest the add' '
	cd "$K" &&
	awk "/^ *[0-9.]+ +: +[0-9a-f]+:/ { print \$1, \$3, \$4 }" kfunc.pm >got &&
	cat >want <<-EOF &&
	0.00 ffffffff81001000: pushq
	0.00 ffffffff81001001: movq
	60.00 ffffffff81001004: addq
	30.00 ffffffff81001007: decq
	10.00 ffffffff8100100a: jne
	0.00 ffffffff8100100c: popq
	0.00 ffffffff8100100d: retq
	0.00 ffffffff8100100e: nop
	0.00 ffffffff8100100f: nop
	EOF
	test_cmp want got &&
	test_equal "ffffffff81001004:" "$(sort -rn got | head -n 1 | cut -d" " -f2)" &&
	test_grep "Disassembly of \[kernel.kallsyms\] for cpu-clock \(10 samples" kfunc.pm &&
	test_grep "^ +: ffffffff81001000 <kfunc>:$" kfunc.pm &&
	test_grep "jne +ffffffff81001004 <kfunc\+0x4>$" kfunc.pm
'

# perf reads a kcore copy from a perf.data directory (perf record --kcore's
# layout: data, kcore_dir/kcore, kallsyms, modules).  It stops at the ret
# (objdump's end of kfunc); every instruction it shows has pmrec's share.
test_expect_success 'kernel: perf annotate over the same kcore shows the same shares' '
	cd "$K" &&
	mkdir -p p.data/kcore_dir && cp k.data p.data/data &&
	cp kcore kallsyms p.data/kcore_dir/ && : >p.data/kcore_dir/modules &&
	perf annotate --stdio -i p.data kfunc >kfunc.perf 2>/dev/null &&
	awk "
	FNR == 1 { f++ }
	/^ *[0-9.]+ +: +[0-9a-f]+:/ { a = \$3; if (f == 1) pm[a] = \$1; else perf[a] = \$1 }
	END {
		for (a in perf) { n++; if (!(a in pm) || pm[a] != perf[a]) { print a, pm[a], perf[a]; bad = 1 } }
		for (a in pm) if (!(a in perf) && pm[a] != \"0.00\") { print a, pm[a], \"not in perf\"; bad = 1 }
		if (n < 7) { print \"perf shows \" n \" instructions\"; bad = 1 }
		exit bad
	}" kfunc.pm kfunc.perf &&
	test_grep "^ +60.00 : +ffffffff81001004: +add " kfunc.perf
'

test_expect_success 'kernel: no source lines, and the output says so' '
	cd "$K" &&
	test_grep "^ +: \(kernel code from kcore: no source lines\)$" kfunc.pm &&
	! grep -q "Sorted summary" kfunc.pm
'

test_expect_success 'kernel: --json: the samples of each instruction, none unplaced' '
	cd "$K" &&
	"$PMREC" annotate --json --kcore=kcore --kallsyms=kallsyms -i k.data kfunc >k.json &&
	python3 - k.json <<-PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	assert len(doc) == 1, doc
	f = doc[0]
	assert (f["symbol"], f["dso"], f["start"], f["size"]) == \
	    ("kfunc", "[kernel.kallsyms]", "0xffffffff81001000", 16), f
	got = {i["addr"]: (i["samples"], i["percent"]) for i in f["instructions"] if i["samples"]}
	want = {"0xffffffff81001004": (6, 60.0), "0xffffffff81001007": (3, 30.0),
	        "0xffffffff8100100a": (1, 10.0)}
	assert got == want, got
	assert len(f["instructions"]) == 9 and f["samples"] == 10 and f["unplaced"] == 0, f
	assert f["lines"] == [] and f["percent_total"] == 83.33, f
	PY
'

test_expect_success 'kernel: a function no segment of the kcore holds: exit 1, its address named' '
	cd "$K" &&
	test_expect_code 1 "$PMREC" annotate --kcore=kcore --kallsyms=kallsyms -i k.data kfar \
		>out 2>err &&
	test_grep "^pmrec annotate: cannot annotate '"'"'kfar'"'"' in '"'"'\[kernel.kallsyms\]'"'"': no segment of kcore holds its code at 0xffffffff81100000" err
'

test_expect_success 'kernel: a kcore copy of another kernel (VMCOREINFO build id) is refused' '
	cd "$K" &&
	test_expect_code 1 "$PMREC" annotate --kcore=kcore-other --kallsyms=kallsyms -i k.data kfunc \
		>out 2>err &&
	test_grep "the recording is another kernel.s \(build id $RECORDED_ID recorded, kcore-other has 0102030405060708090a0b0c0d0e0f1011121314\)" err &&
	! test -s out
'

test_expect_success 'kernel: without --kcore, another kernel'"'"'s recording is refused before /proc/kcore' '
	cd "$K" &&
	id=$(running_id) && test -n "$id" && test "$id" != "$RECORDED_ID" &&
	test_expect_code 1 "$PMREC" annotate --kallsyms=kallsyms -i k.data kfunc >out 2>err &&
	test_grep "the recording is another kernel.s \(build id $RECORDED_ID recorded, the running kernel has $id\)" err
'

# Only where /proc/kcore is missing (the kernel of this test's machine).
test_expect_success 'kernel: this kernel'"'"'s recording, no /proc/kcore: CONFIG_PROC_KCORE named' '
	cd "$K" &&
	if [ -e /proc/kcore ]; then
		echo "/proc/kcore exists here: not checked"
	else
		"$HELPERS/gen-perfdata" --variant=kcore --kernel-samples=$KSAMPLES \
			--kernel-build-id="$(running_id)" -o here.data &&
		test_expect_code 1 "$PMREC" annotate --kallsyms=kallsyms -i here.data kfunc \
			>out 2>err &&
		test_grep "this kernel has no /proc/kcore \(it was built without CONFIG_PROC_KCORE\)" err &&
		"$HELPERS/gen-perfdata" --variant=kcore --kernel-samples=$KSAMPLES \
			--kernel-build-id=none -o none.data &&
		test_expect_code 1 "$PMREC" annotate --kallsyms=kallsyms -i none.data kfunc \
			>out 2>err &&
		test_grep "CONFIG_PROC_KCORE" err
	fi
'

test_expect_success 'kernel: a --kcore that is no kcore is refused; --kcore needs --kallsyms (64)' '
	cd "$K" &&
	test_expect_code 1 "$PMREC" annotate --kcore=kallsyms --kallsyms=kallsyms -i k.data kfunc \
		>out 2>err &&
	test_grep "kallsyms is not an ELF64 core file of kernel memory" err &&
	test_expect_code 64 "$PMREC" annotate --kcore=kcore -i k.data kfunc 2>err &&
	test_grep "\-\-kcore needs \-\-kallsyms" err
'

test_done
