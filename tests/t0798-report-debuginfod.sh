#!/bin/sh
# report names a program that is gone from this machine from elfutils'
# debuginfod on 127.0.0.1, only when DEBUGINFOD_URLS names it (no request
# otherwise: the server's metrics say so), with a one-line summary on
# standard error; a server that never answers costs about its timeout and
# names nothing; one that sends another program under the build id asked
# names nothing wrong.  perf 6.1 here is built without debuginfod
# (perf version --build-options): the oracle is the report of the program
# in place, before it was removed.
. "$(dirname "$0")/test-lib.sh"
. "$SRC_DIR/tests/helpers/debuginfod-server.sh"

test_require_root
test_require_perf_event
test_require_debuginfod

D=$TMP_ROOT/w
PROG=$D/bin/prog
unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE DEBUGINFOD_TIMEOUT \
	DEBUGINFOD_RETRY_LIMIT DEBUGINFOD_MAXTIME DEBUGINFOD_MAXSIZE

# rows FILE: "SHARE SYMBOL" of the share_* rows of a report.
rows() {
	grep -v "^#" "$1" | sed -n "s/^ *\([0-9.]*%\) .*\[\.\] \(share_[abc]\).*/\1 \2/p"
}

# pm_rows OUT URL ARGS...: report with DEBUGINFOD_URLS=URL ("" unset), a
# client cache in $D/cache; rows in OUT, stderr in OUT.err.
pm_rows() {
	out=$1 url=$2
	shift 2
	if [ -n "$url" ]; then
		DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$D/cache DEBUGINFOD_TIMEOUT=2 \
			"$PMREC" report -i "$D/rec.data" --no-children --sort sym -g none "$@" \
			>"$out.pm" 2>"$out.err"
	else
		DEBUGINFOD_CACHE_PATH=$D/cache \
			"$PMREC" report -i "$D/rec.data" --no-children --sort sym -g none "$@" \
			>"$out.pm" 2>"$out.err"
	fi &&
	rows "$out.pm" >"$out"
}

test_expect_success 'setup: a program recorded, then moved to a debuginfod server'"'"'s tree' '
	mkdir -p "$D/bin" "$D/srv" &&
	cp "$HELPERS/shares" "$PROG" &&
	"$PMREC" record -q -F 2000 -o "$D/rec.data" -- "$PROG" 1 2 3 3 &&
	pm_rows "$D/want" "" &&
	test "$(wc -l <"$D/want")" -eq 3 &&
	mv "$PROG" "$D/srv/prog" &&
	dbgd_start "$D/srv" "$D/real" &&
	test_equal 0 "$(dbgd_requests "$D/real")" "requests before any"
'

test_expect_success 'without DEBUGINFOD_URLS: nothing named, no request made' '
	pm_rows got "" &&
	! test -s got &&
	test_equal 0 "$(dbgd_requests "$D/real")" "requests" &&
	! grep -q debuginfod got.err
'

test_expect_success 'with it: the frames named as before, from the server, said in one line' '
	pm_rows got "$(cat "$D/real/url")" -v &&
	test_cmp "$D/want" got &&
	test_grep "debuginfod: 1 files fetched" got.err &&
	test_equal 1 "$(grep -c "debuginfod:" got.err)" "summary lines" &&
	test_grep "prog: named from the file .build id matches.: $D/cache/" got.err
'

test_expect_success 'a second report asks again for nothing: the client cache has it' '
	n=$(dbgd_requests "$D/real") &&
	pm_rows got "$(cat "$D/real/url")" &&
	pm_rows again "$(cat "$D/real/url")" &&
	test_cmp "$D/want" again &&
	test_equal "$n" "$(dbgd_requests "$D/real")" "requests" &&
	test_grep "debuginfod: 0 files fetched, 1 from its cache" again.err
'

test_expect_success 'a server that never answers: report ends within the timeout, names nothing' '
	dbgd_fake_start --stall "$D/stall" &&
	timeout 60 sh -c "DEBUGINFOD_URLS=$(cat "$D/stall/url") DEBUGINFOD_CACHE_PATH=$PWD/c2 \
		DEBUGINFOD_TIMEOUT=2 \"$PMREC\" report -i \"$D/rec.data\" --no-children \
		--sort sym -g none >stall.pm 2>stall.err" &&
	rows stall.pm >stall &&
	! test -s stall &&
	test_grep "debuginfod: 0 files fetched.*timed out" stall.err
'

test_expect_success 'a server that sends another program under the build id: nothing named wrongly' '
	id=$(LC_ALL=C readelf -n "$D/srv/prog" | sed -n "s/.*Build ID: //p") &&
	test -n "$id" &&
	mkdir lie &&
	printf "int share_a(void) { return 0; }\nint main(void) { return share_a(); }\n" >o.c &&
	cc -o "lie/$id" o.c &&
	dbgd_fake_start "--serve $PWD/lie" "$D/liar" &&
	DEBUGINFOD_URLS=$(cat "$D/liar/url") DEBUGINFOD_CACHE_PATH=$PWD/c3 \
		"$PMREC" report -i "$D/rec.data" --no-children --sort sym -g none -v \
		>liar.pm 2>liar.err &&
	rows liar.pm >liar &&
	! test -s liar &&
	test_grep "^GET /buildid/$id/executable " "$D/liar/requests" &&
	test_grep "its build id differs from the recorded one" liar.err
'

test_expect_success 'a stripped program in place: its symbols and source lines from the server'"'"'s debug file' '
	mkdir -p "$D/srv2" "$D/bin2" &&
	cp "$HELPERS/shares" "$D/srv2/prog.full" &&
	objcopy --only-keep-debug "$D/srv2/prog.full" "$D/srv2/prog.debug" &&
	strip --strip-all -o "$D/bin2/prog" "$D/srv2/prog.full" &&
	rm "$D/srv2/prog.full" &&
	"$PMREC" record -q -F 2000 -o "$D/stripped.data" -- "$D/bin2/prog" 1 2 3 3 &&
	"$PMREC" report -i "$D/stripped.data" --no-children --sort sym -g none >plain.pm 2>/dev/null &&
	rows plain.pm >plain &&
	! test -s plain &&
	dbgd_start "$D/srv2" "$D/real2" &&
	DEBUGINFOD_URLS=$(cat "$D/real2/url") DEBUGINFOD_CACHE_PATH=$PWD/c4 \
		"$PMREC" report -i "$D/stripped.data" --no-children --sort sym,srcline -g none \
		>lines.pm 2>lines.err &&
	test_grep "\[\.\] share_c +shares\.c:[0-9]+" lines.pm &&
	test_grep "debuginfod: 1 files fetched" lines.err
'

test_done
