#!/bin/sh
# Hostile inputs, small on disk (streams, sparse files), built to exhaust
# memory or time (issue 19, items 7-11): every dump mode stays within a
# memory bound and ends within dump_rc's 10 s, or stops at once with exit 1
# and an error naming the offset.  Peak RSS comes from /usr/bin/time; the
# bounds are generous (several times what the fixed code takes) and are
# not checked in a sanitizer build, whose allocator keeps freed memory.
. "$(dirname "$0")/test-lib.sh"

GEN=$HELPERS/gen-hostile
MODES="text --json --stats --ordered --folded"
[ -x /usr/bin/time ] || test_skip_all "/usr/bin/time is missing (apt-get install time)"

# bounded FILE MAX_MIB WANT_RC [ARGS...]: every dump mode of FILE ("-":
# stdin, remade by the gen variable's command for each mode) exits WANT_RC
# (an exit 1 names the offset), within $secs s (default 10: a hang, or
# work quadratic in the input) and MAX_MIB MiB of RSS.
bounded() {
	file=$1 max=$2 want=$3 limit=${secs:-10}
	shift 3
	bad=0
	for mode in $MODES; do
		m=$mode
		[ "$m" = text ] && m=
		set +e
		if [ "$file" = - ]; then
			$gen | /usr/bin/time -f "%M %e" -o time.out timeout "$limit" \
				"$PMREC" dump $m "$@" - >/dev/null 2>err
		else
			/usr/bin/time -f "%M %e" -o time.out timeout "$limit" \
				"$PMREC" dump $m "$@" "$file" >/dev/null 2>err
		fi
		rc=$?
		set -e
		# time(1) puts a line of its own before when the command fails.
		rss=$(tail -n 1 time.out | cut -d" " -f1)
		secs=$(tail -n 1 time.out | cut -d" " -f2)
		echo "dump $mode: exit $rc, $((rss / 1024)) MiB, $secs s"
		if [ "$rc" = 124 ]; then
			echo "  no end in $limit s"
			bad=1
		elif [ "$rc" != "$want" ]; then
			echo "  expected exit $want:"
			head -n 3 err
			bad=1
		elif [ "$rc" = 1 ] && ! dump_error_has_offset >/dev/null; then
			echo "  exit 1 without an offset:"
			cat err
			bad=1
		fi
		if [ "${PMREC_SANITIZED:-0}" != 1 ] && [ "$rss" -gt $((max * 1024)) ]; then
			echo "  over $max MiB"
			bad=1
		fi
	done
	return $bad
}

test_expect_success 'item 7: random time order, no rounds: --queue-size bounds memory (pipe)' '
	gen="$GEN queue 1000000" &&
	bounded - 24 0 --queue-size=1M
'

test_expect_success 'item 7: the same as file-mode data read from a pipe' '
	gen="$GEN queue 1000000 --file" &&
	bounded - 24 0 --queue-size=1M
'

# 3M samples need 300 MB in a queue that holds them all; the sanitized
# build (memory not checked) reads fewer.  Printing 3M samples in time
# order takes 7 s on an idle machine of 2 CPUs: the hang guard is 60 s
# here, the check is the memory.
test_expect_success 'item 7: with the default --queue-size, time order stays under 256 MB' '
	n=3000000 &&
	if [ "${PMREC_SANITIZED:-0}" = 1 ]; then n=300000; fi &&
	gen="$GEN queue $n" &&
	secs=60 MODES=--ordered bounded - 200 0
'

test_expect_success 'item 8: 160k sample ids chosen to collide under a fixed hash' '
	"$GEN" ids 160000 -o ids.data &&
	test "$(wc -c <ids.data)" -lt 1400000 &&
	bounded ids.data 64 0
'

test_expect_success 'item 9: 60 attrs naming one 64 MiB id section stop at once' '
	"$GEN" shared-ids 60 8388608 -o shared.data &&
	test "$(du -k shared.data | cut -f1)" -lt 1024 &&
	bounded shared.data 32 1 &&
	test_grep "too many sample ids" err
'

test_expect_success 'item 9: attrs sharing a section under the id limit are read' '
	"$GEN" shared-ids 60 16000 -o shared.data &&
	bounded shared.data 64 0
'

test_expect_success 'item 10: 32 MiB of HEADER_ATTR with ids stop at the id limit' '
	gen="$GEN attrs 32768 8174" &&
	bounded - 96 1 &&
	test_grep "too many sample ids" err
'

test_expect_success 'item 10: 32 MiB of HEADER_ATTR without ids stop at the attr limit' '
	gen="$GEN attrs 32768 0" &&
	bounded - 96 1 &&
	test_grep "too many attrs" err
'

test_expect_success 'item 11: 2000 functions sharing one 1 MiB name cost it once' '
	"$GEN" elf "$PWD/bomb.so" 100 -o elf.data &&
	bounded elf.data 192 0 &&
	"$PMREC" dump --type sample elf.data >out &&
	test_equal 100 "$(grep -c " sym=nnnnnnnn" out)" "samples named"
'

test_done
