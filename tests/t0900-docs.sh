#!/bin/sh
# Every option is documented: each long option of --help is in the man page,
# and every man page is lint-clean.
. "$(dirname "$0")/test-lib.sh"

# Long options of a command's --help, one per line, without the dashes.
long_options() {
	"$PMREC" "$1" --help | grep -o -E -- "--[a-z][a-z0-9-]*" | sed "s/^--//" | sort -u
}

# Options of $1 whose troff spelling (\-\-name\-part) is not in its page.
undocumented() {
	for o in $(long_options "$1"); do
		troff=$(printf '%s' "--$o" | sed 's/-/\\-/g')
		grep -q -F -e "$troff" "$SRC_DIR/man/pmrec-$1.1" || printf ' %s' "$o"
	done
}

for cmd in record dump report; do
	test_expect_success "every long option of $cmd is in pmrec-$cmd.1" "
		long_options $cmd >opts &&
		test -s opts &&
		test_equal '' \"\$(undocumented $cmd)\" 'options missing from the man page'
	"
done

test_expect_success 'man pages are lint-clean (groff -ww)' '
	for m in "$SRC_DIR"/man/*.1; do
		out=$(groff -man -ww -z "$m" 2>&1)
		test -z "$out" || { echo "$m: $out"; exit 1; }
	done
'

test_expect_success 'pmrec --version names the version and features' '
	"$PMREC" --version >v &&
	test_grep "^pmrec [0-9]+\.[0-9]+\.[0-9]+" v &&
	test_grep "^features: " v
'

test_expect_success 'pmrec help record shows the record options' '
	"$PMREC" help record >h &&
	test_grep "mmap-pages" h
'

test_done
