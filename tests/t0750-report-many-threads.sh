#!/bin/sh
# 32000 threads whose tids are multiples of 65536 (gen-hostile threads):
# keys that share their low 16 bits, which a thread map hashing only its
# low bits put in one slot (issue 27, item 4).  report and dump name every
# thread by its own COMM, as perf script does.  (How fast is for `make
# bench` and the commit log, never a test.)
. "$(dirname "$0")/test-lib.sh"

test_require_perf_tool

GEN="$HELPERS/gen-hostile"
N=32000
"$GEN" threads $N -o "$TMP_ROOT/threads.data"
# perf's (comm, tid) pairs: the oracle.
perf script -i "$TMP_ROOT/threads.data" -F comm,tid 2>/dev/null |
	awk '{ print $1, $2 }' | sort >"$TMP_ROOT/perf.pairs"

test_expect_success 'perf reads the file: 32000 distinct threads, tids multiples of 65536' '
	test "$(wc -l <"$TMP_ROOT/perf.pairs")" = $N &&
	test "$(sort -u -k2,2 "$TMP_ROOT/perf.pairs" | wc -l)" = $N &&
	awk "\$2 % 65536 { bad++ } END { exit bad }" "$TMP_ROOT/perf.pairs"
'

test_expect_success 'report -s comm,tid: one row per thread, named as perf names it' '
	"$PMREC" report -s comm,tid "$TMP_ROOT/threads.data" >out &&
	awk "/^#/ || !NF { next } { print \$2, \$3 }" out | sort >pairs &&
	cmp pairs "$TMP_ROOT/perf.pairs"
'

test_expect_success 'report --json: 32000 samples in 32000 rows' '
	"$PMREC" report --json -s tid "$TMP_ROOT/threads.data" >out.json &&
	python3 -c "
import json, sys
d = json.load(open(\"out.json\"))
ev = d[\"events\"][0]
rows = ev[\"rows\"]
assert len(rows) == $N, len(rows)
assert len({r[\"tid\"] for r in rows}) == $N
assert sum(r[\"self_samples\"] for r in rows) == $N
"
'

test_expect_success 'dump --folded: each thread one stack under its own name' '
	"$PMREC" dump --folded "$TMP_ROOT/threads.data" >folded &&
	test "$(wc -l <folded)" = $N &&
	sed -e "s/;.*//" folded | sort >comms &&
	cut -d" " -f1 "$TMP_ROOT/perf.pairs" | sort | cmp - comms
'

test_expect_success 'dump: every COMM and SAMPLE record, with its tid' '
	"$PMREC" dump "$TMP_ROOT/threads.data" >out &&
	test "$(grep -c "^0x[0-9a-f]* .* COMM comm=t" out)" = $N &&
	test "$(grep -c "^0x[0-9a-f]* .* SAMPLE " out)" = $N &&
	awk "/^0x.* SAMPLE / { split(\$4, t, \"/\"); print t[2] }" out | sort -u >tids &&
	test "$(wc -l <tids)" = $N
'

test_done
