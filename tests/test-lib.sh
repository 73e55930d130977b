# tests/test-lib.sh: sourced by every tests/tNNNN-*.sh script.
#
# Each test runs in a fresh temporary directory, in a subshell with `set -e`,
# and prints one TAP line.  Tests that need the kernel's perf_event_open or the
# perf binary call test_require_*; the requirement skips the whole script,
# except when PMREC_REQUIRE_PERF=1 (CI), where a missing requirement fails it.
#
# `make check` runs the scripts in parallel (prove -j).  Every test holds the
# suite's lock while it runs: shared, or exclusive when test_alone comes
# before it, for the tests that must have the machine to themselves (see
# test_alone).

set -u
TEST_NAME=$(basename "$0" .sh)
SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${PMREC_BUILD:-$SRC_DIR/build}
PMREC=$BUILD/pmrec
HELPERS=$BUILD/tests/helpers
export PMREC HELPERS SRC_DIR BUILD
export LC_ALL=C
# No symbol server unless a test starts its own (tests/helpers/debuginfod-server.sh).
unset DEBUGINFOD_URLS

TMP_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/$TEST_NAME.XXXXXX")
test_count=0
test_failed=0
trap 'rm -rf "$TMP_ROOT"' EXIT

# A HOME of the script's own.  pmrec and perf look for a file by its build
# id under $HOME/.debug, which perf record fills with every file it sampled,
# the programs other scripts build, replace and remove included: a test that
# a replaced program is refused found the original there whenever another
# script's perf record had run first.  perf record here keeps the build ids
# in the file but copies nothing (50 MB for a -a recording).  The download
# cache of test-only tools (lib-speedscope.sh) stays in the real HOME.
# Toolchains installed under the real HOME (rustup's rustc, pyenv's
# python3) find themselves through these, as they did through HOME.
export PMREC_TEST_CACHE="${PMREC_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmrec-tests}"
[ -d "$HOME/.rustup" ] && export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
[ -d "$HOME/.cargo" ] && export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
[ -d "$HOME/.pyenv" ] && export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
export HOME="$TMP_ROOT/home"
unset XDG_CACHE_HOME
mkdir "$HOME"
printf '[record]\n\tbuild-id = no-cache\n' >"$HOME/.perfconfig"

if [ ! -x "$PMREC" ]; then
	echo "Bail out! $PMREC is not built (run make)"
	exit 1
fi

# The lock of the scripts running on one build (fd 9), and a turnstile
# (fd 8): a test waiting for the exclusive lock holds the turnstile, so the
# tests that start after it wait behind it instead of keeping the shared
# lock taken for ever.  Test bodies run with both closed.  PMREC_TEST_LOCK
# names another lock file: suites of several builds given the same one run
# each other's alone tests alone too.
TEST_LOCK=${PMREC_TEST_LOCK:-$BUILD/.test-lock}
if ! command -v flock >/dev/null 2>&1 ||
   ! command exec 8>>"$TEST_LOCK.turnstile" 9>>"$TEST_LOCK"; then
	echo "Bail out! cannot lock $TEST_LOCK (flock(1) is in util-linux)"
	exit 1
fi
test_lock_mode=-s
test_lock_held=

# test_lock -s|-x: takes the suite's lock, shared or exclusive.
test_lock() {
	flock -x 8 && flock "$1" 9 && flock -u 8
}

# test_alone: the next test runs with no other test of the suite beside it.
# For a test that asserts nothing is lost (it needs the CPUs: others' storms
# and drains would take them), that checks a whole-machine recording against
# files others may replace, or that changes a system-wide setting.
test_alone() {
	test_lock_mode=-x
}

# test_skip_all REASON: the script cannot run here.
test_skip_all() {
	if [ "${PMREC_REQUIRE_PERF:-0}" = 1 ]; then
		echo "1..1"
		echo "not ok 1 - requirement missing (PMREC_REQUIRE_PERF=1): $1"
		exit 1
	fi
	echo "1..0 # SKIP $1"
	exit 0
}

# Probe once per script: can we open and map a perf event?
test_require_perf_event() {
	if ! "$PMREC" record -q -C 0 --duration=0.05 -o "$TMP_ROOT/.probe.data" \
		>"$TMP_ROOT/.probe.log" 2>&1; then
		test_skip_all "perf_event_open unavailable: $(head -n 1 "$TMP_ROOT/.probe.log")"
	fi
}

test_require_perf_tool() {
	command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1 ||
		test_skip_all "the perf binary is not installed (apt-get install linux-perf)"
}

test_require_root() {
	[ "$(id -u)" = 0 ] || test_skip_all "needs root"
}

# test_expect_success DESCRIPTION BODY
test_expect_success() {
	test_count=$((test_count + 1))
	dir="$TMP_ROOT/$test_count"
	mkdir -p "$dir"
	# An exclusive lock is kept for the next test if it is alone too: one
	# wait for the running tests to end, not one per test.
	if [ "$test_lock_mode" != "$test_lock_held" ]; then
		[ -z "$test_lock_held" ] || flock -u 9
		test_lock $test_lock_mode
	fi
	(
		cd "$dir" || exit 1
		set -e
		eval "$2"
	) >"$dir/.log" 2>&1 </dev/null 8>&- 9>&-
	rc=$?
	if [ "$test_lock_mode" = -x ]; then
		test_lock_held=-x
	else
		flock -u 9
		test_lock_held=
	fi
	test_lock_mode=-s
	if [ $rc = 0 ]; then
		echo "ok $test_count - $1"
	else
		echo "not ok $test_count - $1"
		# On stderr too: prove shows it without -v, so a CI log says why.
		# (Not tee /dev/stderr: reopening a log file truncates it.)
		sed -e 's/^/#   /' "$dir/.log" | tail -n 40 >"$dir/.why"
		cat "$dir/.why"
		{ echo "# failed $test_count - $1"; cat "$dir/.why"; } >&2
		test_failed=$((test_failed + 1))
	fi
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
	exit $?
}

# Assertions, usable inside test bodies.

# test_expect_code CODE CMD...: CMD exits with exactly CODE.
test_expect_code() {
	want=$1
	shift
	set +e
	"$@"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		echo "expected exit $want, got $got: $*"
		return 1
	fi
}

# test_must_fail CMD...: CMD exits non-zero but was not killed by a signal.
test_must_fail() {
	set +e
	"$@"
	got=$?
	set -e
	if [ "$got" = 0 ] || [ "$got" -gt 128 ]; then
		echo "expected failure, got exit $got: $*"
		return 1
	fi
}

# dump_rc FILE [ARGS...]: pmrec dump ARGS FILE with a 10 s limit; its exit
# status is left in rc (124: the limit), its output in out and err.
dump_rc() {
	dump_file=$1
	shift
	set +e
	timeout 10 "$PMREC" dump "$@" "$dump_file" >out 2>err
	rc=$?
	set -e
}

# dump_error_has_offset: err holds the error line of a malformed input,
# which names the byte offset; shows err otherwise.
dump_error_has_offset() {
	grep -q -E "^pmrec dump: .*: offset 0x[0-9a-f]+: " err || {
		echo "no offset in the error:"
		cat err
		return 1
	}
}

# test_equal WANT GOT [WHAT]
test_equal() {
	if [ "$1" != "$2" ]; then
		echo "${3:-value}: expected '$1', got '$2'"
		return 1
	fi
}

# test_at_least MIN VALUE [WHAT]: VALUE >= MIN, or says what it was.
test_at_least() {
	if ! [ "$2" -ge "$1" ] 2>/dev/null; then
		echo "${3:-value}: expected at least $1, got '$2'"
		return 1
	fi
}

test_cmp() {
	diff -u "$1" "$2"
}

# test_grep PATTERN FILE: like grep -q, but shows the file when it fails.
test_grep() {
	if ! grep -E -q -e "$1" "$2"; then
		echo "no line matches '$1' in $2:"
		head -n 20 "$2"
		return 1
	fi
}

# wait_until CMD...: runs CMD every 50 ms until it succeeds; fails after
# 30 s.  For a pmrec started in the background: its output file appears,
# or -v says "recording", once its events are open and the signals it
# handles are handled.  A fixed sleep is not enough on a loaded machine (a
# sanitized pmrec beside other tests took more than half a second).
wait_until() {
	i=0
	until "$@"; do
		[ $i -lt 600 ] || return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# Number of SAMPLE records perf counts in a perf.data file.
perf_sample_count() {
	perf report -f -i "$1" --stats 2>/dev/null |
		awk '/^ *SAMPLE events:/ { print $3; found = 1; exit } END { if (!found) print 0 }'
}

# Samples the kernel reported dropped (LOST_SAMPLES records), summed over
# the events as perf's "Total Lost Samples": a system-wide recording's
# side-band records (EXIT included) are its dummy event's, and the kernel
# counts their drops there.
perf_lost_samples() {
	perf report -i "$1" --stats 2>/dev/null |
		awk '/^ *LOST_SAMPLES events:/ && !/\(/ { n += $3 } END { print n + 0 }'
}

# seq_check FILE N: the seqcheck oracle over a raw_syscalls:sys_enter file;
# prints "samples=S unique=U dups=D missing=M last=L lost=X exits=E": X the
# samples perf counts lost (as perf_lost_samples), E its EXIT records.
seq_check() {
	echo "$(perf script -i "$1" -F trace 2>/dev/null | "$HELPERS/seqcheck" "$2")" \
	     "$(perf report -i "$1" --stats 2>/dev/null |
		awk '/^ *LOST_SAMPLES events:/ && !/\(/ { lost += $3 }
		     /^ *EXIT events:/ && !e++ { exits = $3 }
		     END { printf "lost=%d exits=%d\n", lost, exits }')"
}

# seq_accounted R N: in the seq_check line R of a one-task seqcall of N
# calls, every seq and the task's EXIT record is recorded or counted lost.
# The kernel counts every record it drops, whatever its type, in the
# event's loss: a ring still full when the task ends drops its EXIT.
seq_accounted() {
	test_equal "$(($2 + 1))" \
		"$(($(field unique "$1") + $(field exits "$1") + $(field lost "$1")))" \
		"seqs and EXIT recorded + lost"
}

# field NAME LINE: the value of NAME=VALUE in a seq_check line.
field() {
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
