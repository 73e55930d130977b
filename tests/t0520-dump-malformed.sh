#!/bin/sh
# pmrec dump on malformed input: every valid record before the fault, then
# one "FILE: offset 0x...: REASON" line on stderr and exit 1; never a crash,
# never a hang.
. "$(dirname "$0")/test-lib.sh"

GEN=$HELPERS/gen-perfdata

# dump_fails FILE [ARGS...]: exit 1 (not a signal, not a hang), one error
# line naming an offset.  Leaves out/err behind.
dump_fails() {
	f=$1
	shift
	dump_rc "$f" "$@"
	if [ "$rc" != 1 ]; then
		echo "$f: expected exit 1, got $rc"
		cat err
		return 1
	fi
	dump_error_has_offset
}

# prefix_loop FILE STEP MODE: dump every STEP-th prefix of FILE.  MODE file:
# all must fail with an offset; MODE pipe: a prefix may also end cleanly
# (exit 0) on a record boundary.  Prints the bad prefixes.  One python
# process cuts the prefixes and runs the dumps, each with dump_rc's 10 s
# limit: a head and a timeout process per prefix cost more than the dump.
# The dumps read in time order, through the queue a default dump uses, but
# without symbols: where the input is cut changes what the reader and the
# queue do, not the naming of the whole records before the cut, and reading
# /proc/kallsyms (which a default dump starts at once) would cost most of
# each of these 1,200 runs.  The tests after these cut files in the default
# mode, symbols and all.
cat >"$TMP_ROOT/prefixes.py" <<'PY'
import subprocess, sys
pmrec, path, step, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
data = open(path, 'rb').read()
for n in range(0, len(data), step):
    with open('prefix', 'wb') as f:
        f.write(data[:n])
    try:
        p = subprocess.run([pmrec, 'dump', '--ordered', '--no-symbols', 'prefix'],
                           stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=10)
        rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    except subprocess.TimeoutExpired:
        rc = 124
    if rc == 1:
        if b'offset 0x' not in p.stderr:
            print('prefix %d: exit 1 without offset' % n)
    elif rc != 0 or mode == 'file':
        print('prefix %d: exit %d' % (n, rc))
PY
prefix_loop() {
	python3 "$TMP_ROOT/prefixes.py" "$PMREC" "$1" "$2" "$3"
}

test_expect_success 'every prefix of a small file fails with an offset' '
	"$GEN" --variant=minimal --no-names -o m.data &&
	prefix_loop m.data 1 file >bad &&
	test_equal "" "$(head -n 5 bad)" "bad prefixes"
'

test_expect_success 'every prefix of a small stream ends cleanly or fails with an offset' '
	"$GEN" --pipe --variant=minimal --no-names -o mp.data &&
	prefix_loop mp.data 1 pipe >bad &&
	test_equal "" "$(head -n 5 bad)" "bad prefixes"
'

test_expect_success 'prefixes of the full file and stream (every 29th byte)' '
	"$GEN" -o g.data && "$GEN" --pipe -o p.data &&
	prefix_loop g.data 29 file >bad &&
	prefix_loop p.data 29 pipe >>bad &&
	test_equal "" "$(head -n 5 bad)" "bad prefixes"
'

test_expect_success 'a truncated stream on a real pipe' '
	"$GEN" --pipe -o p.data &&
	set +e &&
	head -c 5001 p.data | timeout 10 "$PMREC" dump >out 2>err
	rc=$?
	set -e
	test_equal 1 "$rc" "exit status" &&
	test_grep "^pmrec dump: <stdin>: offset 0x[0-9a-f]+: truncated record" err &&
	test -s out
'

test_expect_success 'zero-length file' '
	: >empty.data &&
	dump_fails empty.data &&
	test_grep "offset 0x0: empty input" err
'

test_expect_success 'not a perf.data file' '
	printf "hello, this is not perf data at all\n" >text.data &&
	dump_fails text.data &&
	test_grep "offset 0x0: not a perf.data file" err &&
	dump_fails "$PMREC" &&
	printf "PERFILE2\003\000\000\000\000\000\000\000" >badsize.data &&
	dump_fails badsize.data &&
	test_grep "unsupported header size 3" err
'

test_expect_success 'garbage after a good header (file and pipe)' '
	"$GEN" --variant=garbage -o gf.data &&
	dump_fails gf.data &&
	"$GEN" --pipe --variant=garbage -o gp.data &&
	dump_fails gp.data
'

test_expect_success 'record of size 0: the records before it, then its offset' '
	"$GEN" --variant=zero-size -o z.data &&
	dump_fails z.data &&
	test_equal 4 "$(grep -c "^0x" out)" "records before the fault" &&
	last=$(grep "^0x" out | tail -n 1 | cut -d" " -f1) &&
	test_grep "offset 0x[0-9a-f]+: record size 0 is smaller than its header" err &&
	"$GEN" --pipe --variant=zero-size -o zp.data &&
	dump_fails zp.data &&
	test_grep "record size 0" err
'

test_expect_success 'record size past the end of the data / of the stream' '
	"$GEN" --variant=oversize -o o.data &&
	dump_fails o.data &&
	test_grep "crosses the end of the data section" err &&
	test_equal 24 "$(grep -c "^0x" out)" "good records first" &&
	"$GEN" --pipe --variant=oversize -o op.data &&
	dump_fails op.data &&
	test_grep "truncated record \(type 9, size 65280" err
'

test_expect_success 'data size past the end of the file' '
	"$GEN" -o g.data &&
	head -c 2000 g.data >cut.data &&
	dump_fails cut.data &&
	test_grep "offset 0x[0-9a-f]+: (truncated record|unexpected end of file)" err
'

test_expect_success 'SAMPLE shorter than its sample_type' '
	"$GEN" --variant=short-sample -o s.data &&
	dump_fails s.data &&
	test_grep "does not match sample_type" err
'

test_expect_success 'a sample cut after its time: found when it leaves the queue, nothing queued lost' '
	"$GEN" --variant=cut-sample -o c.data &&
	for mode in "" "--ordered --no-symbols"; do
		dump_fails c.data $mode &&
		test_grep "does not match sample_type" err &&
		test_equal 26 "$(grep -c "^0x" out)" "records printed ($mode)" &&
		test_grep "^0x[0-9a-f]+ 0\.000006500 " out &&
		test_grep "^0x[0-9a-f]+ 0\.000007000 " out || exit 1
	done &&
	# File order stops reading at the fault, as with any malformed record.
	dump_fails c.data --no-symbols &&
	test_grep "does not match sample_type" err &&
	test_equal 24 "$(grep -c "^0x" out)" "records printed in file order"
'

test_expect_success 'sample id that matches no event' '
	"$GEN" --variant=unknown-id -o u.data &&
	dump_fails u.data &&
	test_grep "matches no event" err
'

test_expect_success 'attr size that does not fit' '
	"$GEN" --variant=bad-attr -o a.data &&
	dump_fails a.data &&
	test_grep "unsupported attr size 4000" err &&
	"$GEN" --pipe --variant=bad-attr -o ap.data &&
	dump_fails ap.data &&
	test_grep "HEADER_ATTR: attr size 4000" err
'

test_expect_success 'bad tracing data: file records still shown, then the error' '
	"$GEN" --variant=bad-tracing -o t.data &&
	dump_fails t.data &&
	test_grep "tracing data: bad tracing data magic" err &&
	test_equal 24 "$(grep -c "^0x" out)" records &&
	"$GEN" --pipe --variant=bad-tracing -o tp.data &&
	dump_fails tp.data &&
	test_grep "tracing data" err
'

test_expect_success 'feature section past the end of the file' '
	"$GEN" --variant=bad-feature -o f.data &&
	dump_fails f.data &&
	test_grep "feature 3 section .* extends past the end of the file" err &&
	test_equal 24 "$(grep -c "^0x" out)" records
'

test_expect_success 'data size 0: an unfinished recording is scanned to EOF' '
	"$GEN" --variant=unfinished -o u.data &&
	timeout 10 "$PMREC" dump u.data >out 2>err &&
	test_grep "data size is 0" err &&
	test_equal 24 "$(grep -c "^0x" out)" records
'

test_expect_success 'data size 0 and a torn last record: stops there, reports it' '
	"$GEN" --variant=unfinished-torn -o ut.data &&
	dump_fails ut.data &&
	test_grep "data size is 0" err &&
	test_grep "offset 0x[0-9a-f]+: truncated record" err &&
	test_equal 22 "$(grep -c "^0x" out)" "records before the torn one (EXIT)"
'

test_expect_success 'every malformed variant also gives valid JSON before the error' '
	for v in zero-size oversize short-sample cut-sample unknown-id bad-tracing garbage; do
		"$GEN" --variant=$v -o v.data &&
		{ timeout 10 "$PMREC" dump --json v.data 2>/dev/null; true; } >v.json &&
		python3 -c "import json,sys;[json.loads(l) for l in sys.stdin]" <v.json || exit 1
	done
'

test_expect_success 'malformed input with --ordered and --stats' '
	"$GEN" --variant=oversize -o o.data &&
	dump_fails o.data --ordered &&
	test_equal 24 "$(grep -c "^0x" out)" "queued records flushed" &&
	dump_fails o.data --stats &&
	test_grep "^total +records +24$" out
'

test_done
