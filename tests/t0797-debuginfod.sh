#!/bin/sh
# lib/symbols/debuginfod.c (driven by tests/helpers/debuginfod-find)
# against elfutils' debuginfod on 127.0.0.1 serving a program built here,
# and against fakes: a server that accepts and never answers, and one that
# sends another program under the build id asked.  Nothing is asked
# without DEBUGINFOD_URLS; each build id is asked once; a stalled server
# costs about its timeout once, not once per file; the file a liar sends
# is named as it is (another build id: the lookup chain refuses it).
. "$(dirname "$0")/test-lib.sh"
. "$SRC_DIR/tests/helpers/debuginfod-server.sh"
test_require_debuginfod

FIND=$HELPERS/debuginfod-find
S=$TMP_ROOT/shared
mkdir -p "$S"
unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE DEBUGINFOD_TIMEOUT \
	DEBUGINFOD_RETRY_LIMIT DEBUGINFOD_MAXTIME DEBUGINFOD_MAXSIZE

# new_id: a random 20-byte build id, in hex.
new_id() {
	od -An -N20 -tx1 /dev/urandom | tr -d ' \n'
}

# prog ID FILE: a program of build id ID, with debug info.
prog() {
	printf 'int main(void) { return 0; }\n' >"$2.c"
	${CC:-cc} -g -O0 -Wl,--build-id=0x"$1" -o "$2" "$2.c"
}

# find_in URL CACHE ARGS...: debuginfod-find with DEBUGINFOD_URLS=URL and
# its client cache in CACHE; its output in out, its stderr in err.
find_in() {
	url=$1 cache=$2
	shift 2
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$cache "$FIND" "$@" >out 2>err
	cat out err
}

# path_of ID: the path the last find_in named for ID (it succeeded).
path_of() {
	awk -v id="$1" '$1 == id && $2 == 0 { print $3; exit }' out
}

test_expect_success 'setup: two programs, the first served by debuginfod' '
	new_id >"$S/A" && new_id >"$S/B" &&
	mkdir "$S/srv" &&
	prog "$(cat "$S/A")" "$S/srv/prog" &&
	prog "$(cat "$S/B")" "$S/progB" &&
	dbgd_start "$S/srv" "$S/real" &&
	test_equal 0 "$(dbgd_requests "$S/real")" "requests before any"
'

A=$(cat "$S/A")
B=$(cat "$S/B")
REAL=$(cat "$S/real/url")

test_expect_success 'without DEBUGINFOD_URLS, or with it empty, no handle and no request' '
	DEBUGINFOD_CACHE_PATH=$PWD/cache "$FIND" "$A" >out &&
	test_equal "new -2" "$(cat out)" &&
	find_in "" "$PWD/cache" "$A" &&
	test_equal "new -2" "$(cat out)" &&
	test_equal 0 "$(dbgd_requests "$S/real")" "requests" &&
	test ! -e cache
'

test_expect_success 'the program is fetched byte for byte, one request for two finds' '
	find_in "$REAL" "$S/cache" "$A" "$A" &&
	test_equal 2 "$(grep -c "^$A 0 $S/cache/$A/executable\$" out)" "finds naming the cache file" &&
	cmp "$S/srv/prog" "$(path_of "$A")" &&
	test_grep "^stats fetched=1 cached=0 failed=0 " out &&
	test_equal 1 "$(dbgd_requests "$S/real")" "requests" &&
	test ! -s err
'

test_expect_success 'another run takes it from the client cache: no request' '
	find_in "$REAL" "$S/cache" "$A" &&
	cmp "$S/srv/prog" "$(path_of "$A")" &&
	test_grep "^stats fetched=0 cached=1 failed=0 " out &&
	test_equal 1 "$(dbgd_requests "$S/real")" "requests"
'

test_expect_success 'its debug file: the program itself, which has its DWARF' '
	find_in "$REAL" "$S/cache" -d "$A" &&
	test_equal "$S/cache/$A/debuginfo" "$(path_of "$A")" &&
	cmp "$S/srv/prog" "$S/cache/$A/debuginfo" &&
	test_equal 2 "$(dbgd_requests "$S/real")" "requests"
'

test_expect_success 'a build id no server has: -ENOENT, asked once' '
	C=$(new_id) &&
	find_in "$REAL" "$S/cache" "$C" "$C" &&
	test_equal 2 "$(grep -c "^$C -2 -\$" out)" "failed finds" &&
	test_grep "^stats fetched=0 cached=0 failed=1 not_found=1 timed_out=0 unasked=0 bytes=0 first_error=0\$" out &&
	test_equal 3 "$(dbgd_requests "$S/real")" "requests"
'

test_expect_success 'DEBUGINFOD_PROGRESS set: libdebuginfod prints nothing' '
	DEBUGINFOD_PROGRESS=1 find_in "$REAL" "$PWD/cache" "$A" &&
	test_grep "^stats fetched=1 " out &&
	test ! -s err
'

# stalled MODE STATE CACHE: asks a fake server of MODE for A then for a
# build id C with DEBUGINFOD_TIMEOUT=2.  libdebuginfod alone asks such a
# server three times, a timeout each (three requests): the first build id
# costs about one timeout here (at most two requests: libdebuginfod's
# first retry may start before the query is given up), the second none.
# The bound on the time is generous (a loaded machine): that it returns is
# the point.
stalled() {
	dbgd_fake_start "$1" "$2" &&
	C=$(new_id) &&
	start=$(date +%s) &&
	DEBUGINFOD_TIMEOUT=2 find_in "$(cat "$2/url")" "$3" "$A" "$C" &&
	end=$(date +%s) &&
	test_grep "^$A -110 -\$" out &&
	test_grep "^$C -110 -\$" out &&
	test_grep "^stats fetched=0 cached=0 failed=2 not_found=0 timed_out=2 unasked=1 bytes=0 first_error=-110\$" out &&
	test "$((end - start))" -le 30 &&
	test_grep "^GET /buildid/$A/executable " "$2/requests" &&
	test "$(grep -c . "$2/requests")" -le 2 &&
	! grep "$C" "$2/requests" &&
	test ! -s err
}

test_expect_success 'a server that never answers: given up after DEBUGINFOD_TIMEOUT, then not asked again' '
	stalled --stall "$S/stall" "$S/stalled"
'

test_expect_success 'one that trickles (2 KiB/s): the same' '
	stalled --trickle "$S/trickle" "$PWD/cache" &&
	test ! -e "cache/$A/executable"
'

test_expect_success 'after a stall no miss is remembered: the next run asks again' '
	test ! -e "$S/stalled/$A/executable" &&
	find_in "$REAL" "$S/stalled" "$A" &&
	test_grep "^stats fetched=1 " out &&
	cmp "$S/srv/prog" "$(path_of "$A")"
'

test_expect_success 'a server that lies: the file it sent is named, with its own build id' '
	mkdir lie &&
	cp "$S/progB" "lie/$A" &&
	dbgd_fake_start "--serve $PWD/lie" "$S/liar" &&
	find_in "$(cat "$S/liar/url")" "$PWD/cache" "$A" &&
	cmp "$S/progB" "$(path_of "$A")" &&
	LC_ALL=C readelf -n "$(path_of "$A")" >notes &&
	test_grep "Build ID: $B\$" notes &&
	! grep -q "$A" notes &&
	test_grep "^GET /buildid/$A/executable " "$S/liar/requests"
'

test_done
