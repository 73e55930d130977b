#!/bin/sh
# Addresses no symbol covers, in a stripped library (Debian's liblzma, under
# xz -6 compressing random data): every output names them by their offset in
# the file, and the offsets are perf's.  The oracle: perf report's Symbol
# column (its own offsets) and perf script's addresses with the library's
# MMAP2 record (offset = ip - start + pgoff, perf's map_ip).  report, dump
# (text and JSON), folded stacks, the flame graph, speedscope and pprof are
# checked against it, exactly, for the hottest offsets.  A PLT stub is
# named, name@plt, not an offset (xz reaches lzma_crc64 through the PLT,
# so a run now and then has a sample or two on the stub, 0x4290 in
# Debian's 5.4.1): perf names it too, or after the _init it stretches over
# the PLT (t0794), never by its offset.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool
command -v xz >/dev/null 2>&1 || test_skip_all "xz is not installed"

D=$TMP_ROOT/rec
LIB=liblzma.so

# offsets.py PERF_SCRIPT: "OFFSET SAMPLES" per offset in liblzma of the
# samples perf script shows without a symbol, hottest
# first (ties by offset), from the addresses and the library's MMAP2 records
# in the same output (--show-mmap-events).  With --ips, "IP OFFSET" per such
# sample.
cat >"$TMP_ROOT/offsets.py" <<'PY'
import re, sys
maps, counts, ips = [], {}, []
for line in open(sys.argv[-1]):
    m = re.search(r'PERF_RECORD_MMAP2 .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+) .*\]: '
                  r'r-xp (\S*liblzma\.so\S*)$', line)
    if m:
        maps.append(tuple(int(v, 16) for v in m.groups()[:3]))
        continue
    m = re.search(r'\s([0-9a-f]+) \[unknown\] \((\S*liblzma\.so\S*)\)$', line)
    if not m:
        continue
    ip = int(m.group(1), 16)
    found = [s for s in maps if s[0] <= ip < s[0] + s[1]]
    if len(found) != 1:
        sys.exit('no single liblzma mapping holds %#x: %s' % (ip, maps))
    off = ip - found[0][0] + found[0][2]
    counts[off] = counts.get(off, 0) + 1
    ips.append((ip, off))
if '--ips' in sys.argv:
    for ip, off in sorted(ips):
        print('%#x %#x' % (ip, off))
else:
    for off, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print('%#x %d' % (off, n))
PY
OFFSETS="python3 $TMP_ROOT/offsets.py"

# hot FILE: the lines of an "OFFSET SAMPLES" list (any order) hotter than
# perf's tenth hottest offset, by offset: a cut that ties cannot move.
hot() {
	t=$(sed -n 10p "$D/want.counts" | cut -d" " -f2)
	awk -v t="${t:-0}" "\$2 > t" "$1" | sort
}

test_expect_success 'setup: xz -6 on random data, recorded with -g; perf sees unnamed liblzma code' '
	mkdir -p "$D" &&
	"$PMREC" record -q -g -o "$D/xz.data" -- \
		sh -c "head -c 20M /dev/urandom | xz -6 >/dev/null" &&
	perf script -i "$D/xz.data" --show-mmap-events -F comm,pid,tid,ip,sym,dso -G \
		>"$D/perf.script" 2>/dev/null &&
	$OFFSETS "$D/perf.script" >"$D/want.counts" &&
	$OFFSETS --ips "$D/perf.script" >"$D/want.ips" &&
	test "$(wc -l <"$D/want.counts")" -ge 10 ||
	{ grep -q "PERF_RECORD_MMAP2.*liblzma" "$D/perf.script" || rm -f "$D/want.counts"; false; }
'
[ -s "$D/want.counts" ] ||
	test_skip_all "no unnamed liblzma code in the recording (liblzma is not stripped here?)"

test_expect_success 'report: the unnamed rows of liblzma are perf report'"'"'s, offsets and shares' '
	"$PMREC" report -i "$D/xz.data" --no-children --sort dso,sym -g none >pm &&
	perf report -i "$D/xz.data" --stdio --no-children --sort dso,sym -g none >perf 2>/dev/null &&
	grep -v "^#" perf | grep "$LIB.* \[\.\] 0x" | head -n 10 | sed "s/ *$//" >want &&
	grep -v "^#" pm | grep "$LIB.* \[\.\] 0x" |
		head -n 10 | sed "s/ *$//" >got &&
	test "$(wc -l <want)" -ge 5 &&
	test_cmp want got
'

test_expect_success 'report: its offsets are the file offsets of perf script'"'"'s addresses' '
	"$PMREC" report -i "$D/xz.data" --no-children --sort dso,sym -n -g none >pm &&
	awk "/$LIB/ && \$4 == \"[.]\" && \$5 ~ /^0x/ { print \$5, \$2 }" pm |
		sed "s/^0x0*/0x/" >all &&
	hot all >got &&
	hot "$D/want.counts" >want &&
	test "$(wc -l <want)" -ge 3 &&
	test_cmp want got
'

test_expect_success 'dump: each sample in liblzma has dsoff = perf'"'"'s offset of its ip' '
	"$PMREC" dump --type sample "$D/xz.data" >dump &&
	sed -n "s/.* cpumode=user ip=\(0x[0-9a-f]*\) dso=[^ ]*$LIB[^ ]* dsoff=\(0x[0-9a-f]*\) .*/\1 \2/p" \
		dump | sort >got &&
	sort "$D/want.ips" >want &&
	test_cmp want got
'

test_expect_success 'dump: the frame of such a sample is file+offset, the offset of its ip' '
	"$PMREC" dump --type sample "$D/xz.data" >dump &&
	grep " cpumode=user ip=[^ ]* dso=[^ ]*$LIB[^ ]* dsoff=" dump >lines &&
	test -s lines &&
	sed "s/.* dso=\([^ ]*\) dsoff=\(0x[0-9a-f]*\) .* frames=\([^,]*\).*/\1 \2 \3/" \
		lines >triples &&
	awk "{ n = split(\$1, p, \"/\"); if (\$3 != p[n] \"+\" \$2) { print; bad++ } }
	     END { exit bad > 0 }" triples
'

test_expect_success 'dump --json: the raw ip and its offset, in the sample and its frames' '
	"$PMREC" dump --json --type sample "$D/xz.data" >d.json &&
	python3 -c "
import json, sys
rows = []
for line in open(\"d.json\"):
    r = json.loads(line)
    if r.get(\"cpumode\") != \"user\" or \"sym\" in r or \"$LIB\" not in r.get(\"dso\", \"\"):
        continue
    f = r[\"frames\"][0]
    if f[\"ip\"] != r[\"ip\"] or f.get(\"dsoff\") != r[\"dsoff\"] or \"sym\" in f:
        sys.exit(\"frame %s of sample %s\" % (f, r[\"ip\"]))
    rows.append((int(r[\"ip\"], 16), int(r[\"dsoff\"], 16)))
for ip, off in sorted(rows):
    print(\"%#x %#x\" % (ip, off))
" >got &&
	test_cmp "$D/want.ips" got
'

test_expect_success 'dump --folded: a leaf in liblzma is file+offset, with perf'"'"'s counts' '
	"$PMREC" dump --folded "$D/xz.data" >folded &&
	! grep -q "\[$LIB" folded &&
	awk "{ n = \$NF; sub(/ [0-9]+\$/, \"\"); k = split(\$0, f, \";\");
	       if (f[k] ~ /^$LIB[.0-9]*\+0x/) { sub(/^[^+]*\+/, \"\", f[k]); c[f[k]] += n } }
	     END { for (o in c) print o, c[o] }" folded >all &&
	hot all >got &&
	hot "$D/want.counts" >want &&
	test "$(wc -l <want)" -ge 3 &&
	test_cmp want got
'

test_expect_success 'flame graph: the hottest offsets are frames named file+offset' '
	"$PMREC" report -i "$D/xz.data" --flamegraph=fg.svg 2>err &&
	! grep -q "\[$LIB" fg.svg &&
	head -n 5 "$D/want.counts" | while read off n; do
		grep -q "<title>$LIB[.0-9]*+$off (" fg.svg || { echo "no frame at $off"; exit 1; }
	done
'

test_expect_success 'speedscope: the hottest offsets are frames named file+offset, with their file' '
	"$PMREC" report -i "$D/xz.data" --speedscope=s.json 2>err &&
	! grep -q "\"\[$LIB" s.json &&
	head -n 5 "$D/want.counts" | while read off n; do
		grep -q "{\"name\":\"$LIB[.0-9]*+$off\",\"file\":\"/[^\"]*/$LIB[.0-9]*\"" s.json ||
			{ echo "no frame at $off"; exit 1; }
	done
'

test_expect_success 'pprof: functions file+offset with perf'"'"'s flat samples, at their addresses' '
	command -v go >/dev/null 2>&1 || { echo "# go is not installed: skipped"; exit 0; }
	export HOME="$PWD/home" GOCACHE="$PWD/gocache" GOPATH=/usr/share/gocode \
		GO111MODULE=off GOFLAGS= GOPROXY=off GOTOOLCHAIN=local &&
	mkdir -p "$HOME" &&
	"$PMREC" report -i "$D/xz.data" --pprof=p.pb.gz &&
	go tool pprof -sample_index=samples -top -nodecount=100000 -nodefraction=0 \
		p.pb.gz >top.txt &&
	awk "\$NF ~ /^$LIB[.0-9]*\+0x/ { o = \$NF; sub(/^[^+]*\+/, \"\", o); print o, \$1 }" \
		top.txt >all &&
	hot all >got &&
	hot "$D/want.counts" >want &&
	test "$(wc -l <want)" -ge 3 &&
	test_cmp want got &&
	go tool pprof -raw p.pb.gz >raw.txt &&
	python3 -c "
import re, sys
maps, bad, n = {}, 0, 0
text = open(\"raw.txt\").read()
for m in re.finditer(r\"^(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) \", text, re.M):
    maps[m.group(1)] = (int(m.group(2), 16), int(m.group(4), 16))
for m in re.finditer(r\"^ +\d+: (0x[0-9a-f]+) M=(\d+) \S*$LIB[.0-9]*\+(0x[0-9a-f]+) \", text, re.M):
    start, off = maps[m.group(2)]
    n += 1
    if int(m.group(1), 16) - start + off != int(m.group(3), 16):
        bad += 1
        print(m.group(0))
sys.exit(bad or n < 5)
"
'

test_done
