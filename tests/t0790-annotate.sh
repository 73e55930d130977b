#!/bin/sh
# pmrec annotate: on an -O2 -g program with one hot line (hotline: a
# dependent division in a loop, beside an inlined helper), every
# instruction's share of the function's samples is the one perf annotate
# --stdio shows for the same recording, and the hottest source line is the
# one perf shows above the hottest instruction; the same on the program
# built without debug info, and stripped with its debug file found by build
# id under /usr/lib/debug/.build-id.  Then JSON, the default selection and
# the errors; report --sort srcline, whose rows are perf's; and pprof's
# lines, which go tool pprof -list shows as annotate counts them.
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

test_done
