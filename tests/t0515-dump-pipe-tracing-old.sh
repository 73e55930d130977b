#!/bin/sh
# Pipe-mode tracing data as perfs before its padding wrote it: perf 6.1.187
# here writes the HEADER_TRACING_DATA record as 16 bytes (header, size, 4
# bytes of padding) before the tracing data, older perfs as 12.  perf reads
# the data where the record ends and as long as its size field says; so
# does pmrec dump.  tests/helpers/pipe-tracing-old.py makes the 12-byte
# stream from a 16-byte one; perf script is the oracle on both.
. "$(dirname "$0")/test-lib.sh"

test_require_perf_tool
test_require_root
perf record -q -o - -e sched:sched_switch -- true >"$TMP_ROOT/.probe.pipe" \
	2>"$TMP_ROOT/.probe.log" ||
	test_skip_all "perf record cannot record a tracepoint: $(head -n 1 "$TMP_ROOT/.probe.log")"

OLD="python3 $SRC_DIR/tests/helpers/pipe-tracing-old.py"

# perf_rows FILE: perf script's sched_switch samples of FILE, one line
# each: time (us), event, prev_comm, prev_pid, next_comm, next_pid,
# next_prio, sorted.
perf_rows() {
	perf script -i "$1" 2>"$1.perf.err" |
		sed -n -E 's/.* ([0-9]+\.[0-9]{6}): ([a-z_]+:[a-z_]+): prev_comm=(.*) prev_pid=([0-9]+) .* ==> next_comm=(.*) next_pid=([0-9]+) next_prio=([0-9]+)$/\1 \2 \3 \4 \5 \6 \7/p' |
		sort
}

# pmrec_rows FILE: the same of pmrec dump - <FILE (times in ns cut to us).
pmrec_rows() {
	"$PMREC" dump - <"$1" >"$1.dump" 2>"$1.dump.err" || return 1
	sed -n -E 's/^0x[0-9a-f]+ ([0-9]+\.[0-9]{6})[0-9]{3} .* SAMPLE event=([a-z_]+:[a-z_]+) .* prev_comm=(.*) prev_pid=([0-9]+) .* next_comm=(.*) next_pid=([0-9]+) next_prio=([0-9]+)$/\1 \2 \3 \4 \5 \6 \7/p' \
		"$1.dump" | sort
}

# rewrite IN OUT: OUT is IN with its HEADER_TRACING_DATA record of 12
# bytes (the helper fails when there is none of 16), 4 bytes shorter.
rewrite() {
	$OLD "$1" "$2" &&
	test_equal "$(($(wc -c <"$1") - 4))" "$(wc -c <"$2")" "bytes after the rewrite"
}

test_expect_success 'gen-perfdata stream: dump reads the 12-byte record as the 16-byte one' '
	"$HELPERS/gen-perfdata" --pipe -o g16.pipe &&
	rewrite g16.pipe g12.pipe &&
	"$PMREC" dump - <g16.pipe >d16 &&
	"$PMREC" dump - <g12.pipe >d12 &&
	test_grep " HEADER_TRACING_DATA data_size=[0-9]+ formats=3$" d12 &&
	"$PMREC" dump --json - <g12.pipe | grep "\"HEADER_TRACING_DATA\"" >rec12 &&
	test_grep "\"size\":12," rec12 &&
	test_grep " SAMPLE event=sched:sched_switch .* prev_comm=worker " d12 &&
	cut -d" " -f2- d16 >f16 &&
	cut -d" " -f2- d12 >f12 &&
	test_cmp f16 f12
'

test_expect_success 'perf 6.1 stream, and rewritten as older perfs wrote it' '
	perf record -q -o - -e sched:sched_switch -- sleep 0.05 >new.pipe 2>rec.err &&
	rewrite new.pipe old.pipe &&
	perf_rows new.pipe >perf16 &&
	perf_rows old.pipe >perf12 &&
	test_at_least 1 "$(wc -l <perf16)" "perf script samples" &&
	test_cmp perf16 perf12 &&
	! grep -i -E "warn|error|mismatch" new.pipe.perf.err old.pipe.perf.err
'

test_expect_success 'pmrec dump - prints the samples by name and fields, as perf script' '
	perf record -q -o - -e sched:sched_switch -- sleep 0.05 >new.pipe 2>rec.err &&
	rewrite new.pipe old.pipe &&
	perf_rows old.pipe >want &&
	test_at_least 1 "$(wc -l <want)" "perf script samples" &&
	pmrec_rows new.pipe >got16 &&
	pmrec_rows old.pipe >got12 &&
	test_cmp want got16 &&
	test_cmp want got12 &&
	test_grep " prev_comm=sleep prev_pid=[0-9]+ prev_prio=[0-9]+ prev_state=" old.pipe.dump &&
	test_equal "" "$(cat old.pipe.dump.err)" "dump stderr"
'

test_done
