#!/bin/sh
# A user's JIT files cannot stall root's recorder (issue 38): a process run
# as nobody writes a jitdump of 64 GB made of holes (a header, then a
# 16-byte record claiming 16 MiB every 16 MiB), maps it as its marker and
# exits.  Read at its EXIT record, in the drain's path, it took a minute
# and lost most samples; now the file is refused as sparse, on a reader
# thread, and the recording ends on time with every sample.
. "$(dirname "$0")/test-lib.sh"
test_require_root
test_require_perf_event
test_require_perf_tool

# The jitdumps the helper made, deleted at the end (nobody's, in /tmp).
DUMPS=$TMP_ROOT/dumps
: >"$DUMPS"
trap 'xargs rm -f <"$DUMPS"; rm -rf "$TMP_ROOT"' EXIT

# now_ms: the wall clock in milliseconds.
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

test_alone
test_expect_success 'record -a beside a 64 GB sparse jitdump of nobody: on time, nothing lost' '
	cd "$TMP_ROOT" &&
	start=$(now_ms) &&
	{ "$PMREC" record -a -F 4000 -o s.data -- sleep 3 2>err & } &&
	rec=$! &&
	wait_until test -s s.data &&
	su nobody -s /bin/sh -c "cd /tmp && exec \"$HELPERS/jitsparse\" 64" >>"$DUMPS" &&
	dump=$(cat "$DUMPS") && test -n "$dump" &&
	wait $rec &&
	took=$(($(now_ms) - start)) &&
	cat err >&2 &&
	echo "took $took ms" >&2 &&
	test "$took" -le 4000 &&
	test_equal 0 "$(perf_lost_samples s.data)" "samples perf counts lost" &&
	"$PMREC" dump --stats s.data >stats &&
	test_equal 0 "$(awk "/^total +lost / { print \$3 }" stats)" "samples pmrec counts lost" &&
	test_at_least 1000 "$(perf_sample_count s.data)" "samples" &&
	test_grep "jitdump .$dump. is not read: it is mostly holes" err
'

test_expect_success 'report as its owner refuses it too, at once' '
	cd "$TMP_ROOT" &&
	dump=$(cat "$DUMPS") && test -f "$dump" &&
	chmod 755 "$TMP_ROOT" && chmod 644 s.data &&
	start=$(now_ms) &&
	su nobody -s /bin/sh -c "\"$PMREC\" report \"$TMP_ROOT/s.data\"" >out 2>err &&
	took=$(($(now_ms) - start)) &&
	echo "took $took ms" >&2 &&
	test "$took" -le 2000 &&
	test_grep "jitdump .$dump. is not read: it is mostly holes" err
'

test_done
