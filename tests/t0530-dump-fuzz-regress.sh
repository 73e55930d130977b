#!/bin/sh
# The fuzz regression inputs (tests/fuzz/regress/, kept by tests/fuzz/run):
# pmrec dump, --json and --stats end with exit 0, or exit 1 and one
# "offset 0x..." error line; never a signal, a sanitizer report or a hang.
# Then the fuzz harness's replay driver, built here against the tree's
# libpmrec.a, reads every input as a file and through a pipe and checks
# what the reader returns.
. "$(dirname "$0")/test-lib.sh"

REGRESS=$SRC_DIR/tests/fuzz/regress
# A sanitizer report ends the process with a signal, not with exit 1.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}abort_on_error=1
UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:abort_on_error=1:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS

# dump_check FILE [ARGS...]: prints what is wrong with one dump of FILE.
dump_check() {
	f=$1
	shift
	dump_rc "$f" "$@"
	if grep -q -E "Sanitizer|runtime error:" err; then
		echo "dump $* $(basename "$f"): sanitizer report (exit $rc):"
		head -n 30 err
	elif [ "$rc" = 1 ]; then
		dump_error_has_offset >/dev/null || {
			echo "dump $* $(basename "$f"): exit 1 without an offset:"
			cat err
		}
	elif [ "$rc" != 0 ]; then
		[ "$rc" = 124 ] && echo "dump $* $(basename "$f"): no end in 10 s" ||
			echo "dump $* $(basename "$f"): exit $rc"
		tail -n 30 err
	fi
}

test_expect_success 'there are regression inputs' '
	test -n "$(ls "$REGRESS")"
'

for f in "$REGRESS"/*; do
	[ -f "$f" ] || continue
	test_expect_success "dump, --json, --stats: $(basename "$f")" '
		{
			dump_check "$f"
			dump_check "$f" --json
			dump_check "$f" --stats
		} >bad &&
		cat bad &&
		test_equal "" "$(cat bad)" "faults"
	'
done

# The replay driver links the tree's libpmrec.a: same compiler (from the
# objects' .comment) and, for a sanitizer build, the same sanitizers.
replay_build() {
	obj=$BUILD/lib/reader/reader.o
	[ -f "$BUILD/libpmrec.a" ] && [ -f "$obj" ] || {
		echo "no $BUILD/libpmrec.a"
		return 1
	}
	cc=cc
	readelf -p .comment "$obj" 2>/dev/null | grep -q clang && cc=clang
	command -v "$cc" >/dev/null 2>&1 || {
		echo "$cc is not installed"
		return 1
	}
	san=
	if nm "$obj" 2>/dev/null | grep -q " U __asan_"; then
		san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
	fi
	elf=$(pkg-config --libs libelf 2>/dev/null || echo -lelf)
	zstd=$(pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
	# shellcheck disable=SC2086
	"$cc" -std=gnu11 -D_GNU_SOURCE -DFUZZ_REPLAY -iquote "$SRC_DIR/lib" -g -O1 $san \
		-o "$TMP_ROOT/fuzz-reader-replay" "$SRC_DIR/tests/fuzz/fuzz-reader.c" \
		"$BUILD/libpmrec.a" ${elf:--lelf} ${zstd:--lzstd} -lpthread 2>&1
}

if out=$(replay_build); then
	test_expect_success 'replay driver: every input as a file and through a pipe' '
		set +e
		timeout 120 "$TMP_ROOT/fuzz-reader-replay" "$REGRESS" >out 2>err
		rc=$?
		set -e
		cat out err &&
		test_equal 0 "$rc" "replay exit status" &&
		! grep -q -E "Sanitizer|runtime error:|contract broken" err &&
		test_equal "$(ls "$REGRESS" | wc -l)" "$(grep -c " file: .* pipe: " out)" "inputs replayed"
	'
else
	# The tree was just built with this compiler: not building is a failure.
	test_expect_success 'replay driver builds against libpmrec.a' '
		echo "$out" && false
	'
fi

test_done
