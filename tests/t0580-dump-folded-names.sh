#!/bin/sh
# Folded stacks cannot be forged by the names in a recording: a process may
# call itself anything (prctl PR_SET_NAME needs no privilege), so ';',
# newlines and control bytes in names are replaced (issue 19, items 12, 13).
. "$(dirname "$0")/test-lib.sh"

test_require_perf_event

GEN="$HELPERS/gen-hostile"

test_expect_success 'a comm with a newline and a semicolon stays one frame on one line' '
	"$GEN" comm "$(printf "a\nmain;pw 99999")" -o c.data &&
	"$PMREC" dump --folded c.data >out &&
	cat out &&
	test "$(wc -l <out)" = 1 &&
	test_equal "a?main:pw 99999;[unknown] 3" "$(cat out)" &&
	"$PMREC" dump --folded=period c.data >out &&
	test "$(wc -l <out)" = 1
'

test_expect_success 'control bytes in a comm become ?' '
	"$GEN" comm "$(printf "x\tq\033[31m")" -o t.data &&
	"$PMREC" dump --folded t.data >out &&
	test_equal "x?q?[31m;[unknown] 3" "$(cat out)"
'

test_expect_success 'an empty comm folds (no undefined behaviour under UBSan)' '
	"$GEN" comm "" -o e.data &&
	"$PMREC" dump --folded e.data >out 2>err &&
	test_equal ";[unknown] 3" "$(cat out)" &&
	test ! -s err
'

test_expect_success 'a real process naming itself with a newline cannot inject a line' '
	printf "%s\n" "import ctypes, time" \
		"ctypes.CDLL(None).prctl(15, b\"a\\nmain;pw 99999\", 0, 0, 0)" \
		"t = time.time()" \
		"while time.time() - t < 0.5: pass" >name.py &&
	"$PMREC" -q -o n.data -- python3 name.py &&
	"$PMREC" dump --folded n.data >out &&
	! grep -q "^main;pw" out &&
	grep -q "^a?main:pw 99999;" out
'

test_expect_success 'a forked task without a COMM of its own folds under its parent name, as perf names it' '
	"$PMREC" -q -o f.data -- sh -c "i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done & wait" &&
	"$PMREC" dump --folded f.data | awk "{ split(\$1, f, \";\"); n[f[1]] += \$NF } END { for (c in n) print c, n[c] }" |
		sort >pm &&
	perf script -F comm -i f.data 2>/dev/null | awk "{ n[\$1]++ } END { for (c in n) print c, n[c] }" |
		sort >pf &&
	cat pm &&
	test_cmp pf pm &&
	grep -q "^sh " pm &&
	! grep -q "^:" pm
'

test_done
