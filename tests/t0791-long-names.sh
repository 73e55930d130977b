#!/bin/sh
# Long names come out whole: a program whose function has a 2,000-character
# name, built with frame pointers in a directory whose path is over 600
# characters, recorded with call chains.  report's table, its call graph
# and its JSON, and annotate's headers, jump targets and "Sorted summary"
# line name the function and the file in full, on lines that end as they
# should (printf pieces were once cut at 511 bytes: jump targets lost their
# "+0x4e>", headers their ">:" and newline).
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
command -v gcc >/dev/null 2>&1 || test_skip_all "gcc is not installed"

D=$TMP_ROOT/rec
# f and 1,999 x's; the directory: three components of 200 characters.
NAME=f$(printf '%1999s' '' | tr ' ' x)
PART=$(printf '%200s' '' | tr ' ' d)
LONGDIR=$D/$PART/$PART/$PART
export D NAME LONGDIR

# only_whole FILE: every line that names the function names all of it.
only_whole() {
	awk -v name="$NAME" '
	index($0, "fxxxxxxxxx") { n++; if (!index($0, name)) { print "cut: " substr($0, 1, 80) "..."; bad = 1 } }
	END { if (!n) { print "no line names the function"; bad = 1 } exit bad }' "$1"
}

test_expect_success 'setup: the program recorded with call chains' '
	mkdir -p "$LONGDIR" && cd "$LONGDIR" &&
	cat >long.c <<-EOF &&
	#include <stdlib.h>
	volatile unsigned long sink;
	__attribute__((noinline)) void $NAME(unsigned long n)
	{
		unsigned long i, x = 1;

		for (i = 0; i < n; i++) {
			if (x & 1)
				x = 3 * x + 1;
			else
				x /= 2;
		}
		sink = x;
	}
	int main(int argc, char **argv)
	{
		$NAME(argc > 1 ? strtoul(argv[1], 0, 10) : 1000);
		return 0;
	}
	EOF
	gcc -O0 -fno-omit-frame-pointer -g -o long long.c &&
	"$PMREC" record -g -q -o "$D/long.data" -- ./long 200000000 &&
	test -s "$D/long.data"
'

test_expect_success 'report: the table row names the function whole' '
	"$PMREC" report --no-children -i "$D/long.data" >out &&
	grep -q "\[\.\] $NAME\$" out &&
	only_whole out
'

test_expect_success 'report -g: every call graph line names it whole' '
	"$PMREC" report -g caller -i "$D/long.data" >out &&
	grep -E -q "^ +(---|\\|? +)$NAME\$" out &&
	only_whole out
'

test_expect_success 'report --json: the name is the whole string' '
	"$PMREC" report --json -g caller -i "$D/long.data" >out.json &&
	grep -o "\"fxxxxxxxxx[^\"]*\"" out.json >names &&
	test -s names &&
	! grep -v -x "\"$NAME\"" names
'

test_expect_success 'annotate: headers, jump targets and the file name whole' '
	"$PMREC" annotate --stdio -i "$D/long.data" "$NAME" >out &&
	grep -q "^         : [0-9a-f]\{16\} <$NAME>:\$" out &&
	grep -q "^         : $NAME():\$" out &&
	grep -E "^ +[0-9.]+ : +[0-9a-f]+: +j[a-z]+ +[0-9a-f]+ <f" out >jumps &&
	test -s jumps &&
	! grep -E -v "<$NAME\\+0x[0-9a-f]+>\$" jumps &&
	grep -q -x "Sorted summary for file $LONGDIR/long" out &&
	only_whole out
'

test_done
