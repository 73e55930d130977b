#!/bin/sh
# pmrec diff --children and -g on twocallers, whose slow function has two
# callers: made 2x slower, slow's share grows; the callers' own shares do
# not, their inclusive ones (--children) do, significantly; -g shows under
# slow both callers' paths grown; --flamegraph is report --diff's graph.
. "$(dirname "$0")/test-lib.sh"

test_require_perf_event

T=$TMP_ROOT

test_expect_success 'record twocallers -g: slow 1x then 2x' '
	"$PMREC" record -q -g -F 2000 -o "$T/old.data" -- "$HELPERS/twocallers" 1 40 &&
	"$PMREC" record -q -g -F 2000 -o "$T/new.data" -- "$HELPERS/twocallers" 2 40
'

# delta FILE SYM: the Delta column of SYM's row (the table of -c delta -s sym).
delta() {
	awk -v s="$2" "\$NF == s && \$1 ~ /%\$/ { print \$2 }" "$1"
}

# above LIMIT VALUE: VALUE ("+12.34%") is above LIMIT.
above() {
	awk -v l="$1" -v v="$2" "BEGIN { v += 0; exit !(v > l) }"
}

test_expect_success 'flat: slow grew, its callers'"'"' own shares did not' '
	"$PMREC" diff -c delta -s sym --interval "$T/old.data" "$T/new.data" >out &&
	above 8 "$(delta out slow)" &&
	! above 1 "$(delta out left)" && ! above 1 "$(delta out right)" &&
	test_expect_code 0 "$PMREC" diff -s sym --fail-above=left:2 --fail-above=right:2 \
		"$T/old.data" "$T/new.data" >/dev/null
'

test_expect_success '--children: both callers grew, the gate names them' '
	"$PMREC" diff -c delta -s sym --children "$T/old.data" "$T/new.data" >out &&
	above 3 "$(delta out left)" && above 3 "$(delta out right)" && above 8 "$(delta out slow)" &&
	test_expect_code 3 "$PMREC" diff -s sym --children --fail-above=left:2 \
		--fail-above=right:2 --fail-above=100 "$T/old.data" "$T/new.data" >/dev/null 2>err &&
	test_grep "left grew" err && test_grep "right grew" err && ! grep -q "slow grew" err
'

test_expect_success '-g: under slow, both callers'"'"' paths grew' '
	"$PMREC" diff -c delta -s sym -g "$T/old.data" "$T/new.data" >out &&
	sed -n "/\[\.\] slow\$/,/^ *[0-9.]*%  /p" out >graph &&
	for c in left right; do
		line=$(grep -E "^ +--\+[0-9.]+%-- $c \(" graph) &&
		p=$(echo "$line" | sed -E "s/^ +--([-+][0-9.]+)%--.*/\1/") &&
		above 3 "$p" || { cat graph; exit 1; }
	done
'

test_expect_success '-g and --interval are the table'"'"'s: not with --json' '
	test_expect_code 64 "$PMREC" diff -g --json "$T/old.data" "$T/new.data" 2>err &&
	test_grep "call-graph" err
'

test_expect_success '--flamegraph: report --flamegraph --diff=OLD'"'"'s graph, byte for byte' '
	"$PMREC" diff --flamegraph=d.svg "$T/old.data" "$T/new.data" 2>err &&
	test_grep "wrote .d.svg." err &&
	"$PMREC" report --flamegraph=r.svg --diff="$T/old.data" "$T/new.data" 2>/dev/null &&
	test_cmp r.svg d.svg &&
	grep -q "red grew, blue shrank" d.svg &&
	"$PMREC" diff --flamegraph=- "$T/old.data" "$T/new.data" 2>/dev/null | cmp - r.svg &&
	test_expect_code 64 "$PMREC" diff --flamegraph --json "$T/old.data" "$T/new.data" \
		2>err &&
	test_grep "instead of the table" err
'

test_done
