#!/bin/sh
# pmrec dump names addresses (sym, symoff, dso, frames) and folds stacks;
# perf script is the oracle for the names.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

# same_syms PERF_SCRIPT DUMP_JSON: prints "compared agreed" for the samples
# both name, keyed by time and ip.  C++ names are compared mangled.
same_syms() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
perf = {}
for line in open(sys.argv[1]):
    m = re.match(r'\s*(\d+)\.(\d+):\s+([0-9a-f]+)\s+(.*)$', line.rstrip())
    if m:
        perf[(int(m.group(1)) * 10**9 + int(m.group(2)), int(m.group(3), 16))] = m.group(4).strip()
n = same = 0
for line in open(sys.argv[2]):
    r = json.loads(line)
    k = (r.get("time"), int(r.get("ip", "0"), 16))
    # A PLT stub: perf 6.1 names libc's after other stubs and may give a
    # program's to the _init before them (pmrec-report(1), NOTES; t0794).
    if r.get("type") != "SAMPLE" or k not in perf or perf[k].endswith("@plt") or \
            r.get("sym", "").endswith("@plt"):
        continue
    # A program deleted while it ran (another test's, in a -a recording):
    # pmrec keeps its file at record time, perf cannot name it.
    if perf[k] == "[unknown]" and r.get("dso", "").endswith(" (deleted)"):
        continue
    n += 1
    ours = r.get("sym", "[unknown]")
    same += ours == perf[k] or ours.startswith("_Z")
print(n, same)
PY
}

test_expect_success 'user samples name the program: "sym":"spin" with its dso' '
	cp "$HELPERS/spin" prog &&
	"$PMREC" -q -o s.data -- ./prog 0.5 &&
	"$PMREC" dump --json --type sample s.data >out &&
	total=$(wc -l <out) &&
	spins=$(grep -c "\"sym\":\"spin\",\"symoff\":\"0x[0-9a-f]*\",\"dso\":\"[^\"]*/prog\"" out) &&
	test "$spins" -gt "$((total / 2))"
'

test_expect_success 'kernel samples are named from kallsyms' '
	"$PMREC" -q -o k.data -- dd if=/dev/zero of=/dev/null bs=1M count=3000 &&
	"$PMREC" dump --json --type sample k.data >out &&
	test_grep "\"cpumode\":\"kernel\",\"ip\":\"0xf[0-9a-f]*\",\"sym\":\"[a-z_]" out &&
	test_grep "\"dso\":\"\[kernel\.kallsyms\]\"" out
'

# Alone: the other tests' programs come and go from their temporary
# directories while perf and pmrec name this whole-machine recording.  Ten
# listings give thousands of samples in ls, libc and the kernel.
test_alone
test_expect_success 'names agree with perf script (user, libraries, kernel)' '
	"$PMREC" -a -q -o a.data -- sh -c "for i in \$(seq 10); do ls -R /usr/lib >/dev/null; done" &&
	perf script -i a.data -F time,ip,sym --ns -G >perf.txt 2>/dev/null &&
	"$PMREC" dump --json --type sample a.data >dump.txt &&
	set -- $(same_syms perf.txt dump.txt) &&
	echo "compared $1, agreed $2" &&
	test "$1" -gt 500 &&
	test "$(($2 * 100 / $1))" -ge 97
'

test_expect_success 'call-chain frames are named in text and JSON' '
	"$PMREC" -g -q -o c.data -- "$HELPERS/spin" 0.3 &&
	"$PMREC" dump --type sample c.data >text &&
	test_grep " frames=spin\+0x[0-9a-f]+,beta\+0x[0-9a-f]+,alpha\+0x[0-9a-f]+,main\+0x" text &&
	"$PMREC" dump --json --type sample c.data >json &&
	test_grep "\"frames\":\[\{\"ip\":\"0x[0-9a-f]+\",\"sym\":\"spin\",\"off\":\"0x[0-9a-f]+\",\"dso\":\"[^\"]*spin\"\},\{\"ip\":\"0x[0-9a-f]+\",\"sym\":\"beta\"" json
'

test_expect_success '--folded counts every sample; --folded=period sums periods' '
	"$PMREC" -g -c 1000000 -q -o c.data -- "$HELPERS/spin" 0.3 &&
	"$PMREC" dump --folded c.data >count &&
	"$PMREC" dump --folded=period c.data >period &&
	n=$(awk "{ s += \$NF } END { print s }" count) &&
	p=$(awk "{ s += \$NF } END { print s }" period) &&
	test_equal "$(perf_sample_count c.data)" "$n" "samples" &&
	test_equal "$((n * 1000000))" "$p" "summed period" &&
	test_grep "^spin;.*main;alpha;beta;spin [0-9]+$" count &&
	sort -c count
'

test_expect_success '--folded on a file written by perf record' '
	perf record -q -B -g -o perf.data -- "$HELPERS/spin" 0.3 &&
	"$PMREC" dump --folded perf.data >folded &&
	test_grep "^spin;.*main;alpha;beta;spin [0-9]+$" folded &&
	test_equal "$(perf_sample_count perf.data)" "$(awk "{ s += \$NF } END { print s }" folded)" samples
'

test_expect_success 'a binary rebuilt since the recording is not used, said once' '
	cp "$HELPERS/spin" prog &&
	"$PMREC" -q -o s.data -- ./prog 0.2 &&
	cp "$HELPERS/spin-nofp" prog &&
	"$PMREC" dump --json --type sample s.data >out 2>err &&
	test_equal 1 "$(grep -c "prog is not used for symbols: its build id differs from the recorded one" err)" warnings &&
	! grep -q "\"sym\":\"spin\"" out &&
	test_grep "\"dso\":\"[^\"]*/prog\"" out
'

test_expect_success 'a binary replaced since the recording is not used (no build id kept)' '
	cp "$HELPERS/spin" prog &&
	"$PMREC" --no-buildid -q -o s.data -- ./prog 0.2 &&
	cp "$HELPERS/spin-nofp" prog.new && mv prog.new prog &&
	"$PMREC" dump --json --type sample s.data >out 2>err &&
	test_grep "prog is not used for symbols" err &&
	! grep -q "\"sym\":\"spin\"" out
'

test_expect_success '--no-symbols prints addresses only' '
	"$PMREC" -g -q -o c.data -- "$HELPERS/spin" 0.1 &&
	"$PMREC" dump --no-symbols --json c.data >out &&
	! grep -q "\"sym\":\|\"frames\":\|\"dso\":" out &&
	test_grep "\"callchain\":\[" out
'

test_expect_success 'usage errors: --folded with another format, a bad --folded mode' '
	"$PMREC" -q -o c.data -- true &&
	test_expect_code 64 "$PMREC" dump --folded --json c.data &&
	test_expect_code 64 "$PMREC" dump --folded --stats c.data &&
	test_expect_code 64 "$PMREC" dump --folded --no-symbols c.data &&
	test_expect_code 64 "$PMREC" dump --folded=weight c.data
'

test_expect_success '--folded reads a pipe' '
	"$PMREC" -g -q -o - -- "$HELPERS/spin" 0.3 | "$PMREC" dump --folded >folded &&
	test_grep "^spin;.*main;alpha;beta;spin [0-9]+$" folded
'

test_done
