#!/bin/sh
# Commands started with fd 0, 1 or 2 closed: the fd is /dev/null before
# anything is opened, so no message or output lands in a file the command
# opens.  (`pmrec archive FILE 2>&-` once opened FILE as fd 2 and wrote its
# summary over the magic; `top >&-` wrote to a perf fd.)
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event

# magic_ok FILE: a perf.data file whose first bytes are the magic, and that
# pmrec reads to its end.
magic_ok() {
	test "$(head -c 8 "$1")" = PERFILE2 &&
	"$PMREC" dump --stats "$1" >/dev/null
}

test_expect_success 'setup: a recording with call chains' '
	"$PMREC" record -q -g -o "$TMP_ROOT/base.data" -- "$HELPERS/spin" 0.3 &&
	magic_ok "$TMP_ROOT/base.data"
'

for fd in 0 1 2; do
	test_expect_success "archive with fd $fd closed: the recording stays whole" '
		cp "$TMP_ROOT/base.data" a.data &&
		"$PMREC" archive a.data '$fd'>&- &&
		magic_ok a.data &&
		"$PMREC" dump --stats a.data >stats &&
		! grep -q "pmrec archive" a.data
	'

	test_expect_success "record with fd $fd closed: the file is a recording" '
		"$PMREC" record -g -o r.data -- "$HELPERS/spin" 0.1 '$fd'>&- &&
		magic_ok r.data &&
		! grep -q "pmrec record" r.data
	'

	test_expect_success "report's exports with fd $fd closed: each file whole" '
		"$PMREC" report --flamegraph=f.svg "$TMP_ROOT/base.data" '$fd'>&- &&
		"$PMREC" report --pprof=p.pb.gz "$TMP_ROOT/base.data" '$fd'>&- &&
		"$PMREC" report --speedscope=s.json "$TMP_ROOT/base.data" '$fd'>&- &&
		head -c 5 f.svg | grep -q "^<?xml" &&
		gzip -t p.pb.gz &&
		head -c 1 s.json | grep -q "{" &&
		! grep -q "pmrec report: wrote" f.svg s.json
	'
done

test_expect_success 'top --batch with stdout closed: no write error, exit 0' '
	"$PMREC" top -b -d 0.2 -n 2 >&- 2>err &&
	! grep -q "write error" err
'

test_expect_success 'record -o - with stdout closed is still refused' '
	test_expect_code 1 "$PMREC" record -a -o - -- true >&- 2>err &&
	test_grep "standard output: it is closed" err
'

test_done
