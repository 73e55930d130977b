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

for cmd in record dump report annotate top archive diff agent; do
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

# Lines of an option's text that start at column 0: argp indents every line
# of the options list (group titles by one space), as pmrec's own help does
# its command list; the text after the list follows a blank line.  Prints
# them, with their line numbers.
misplaced_help_lines() {
	awk 'end { next }
	     listing && /^[^ ]/ { if (prev == "") end = 1; else print NR ": " $0 }
	     /^ +-/ || /^ +[a-z]+  / { listing = 1 }
	     { prev = $0 }'
}

for cmd in "" record dump report annotate top archive diff agent; do
	test_expect_success "pmrec $cmd --help: no option text starts at column 0" "
		\"\$PMREC\" $cmd --help >help &&
		grep -q -E '^ +(-|[a-z]+  )' help &&
		misplaced_help_lines <help >bad &&
		test_equal '' \"\$(cat bad)\" 'lines at column 0 inside the options'
	"
done

test_expect_success 'the layout check finds a description that wrapped to column 0' '
	printf "%s\n" "  -a, --all   text" "      --switch-output[=signal|SIZE|TIME]" \
		"start a new file" "                more text" "" "After the list." |
		misplaced_help_lines >bad &&
	test_equal "3: start a new file" "$(cat bad)"
'

test_expect_success 'README names every man page' '
	for m in "$SRC_DIR"/man/*.1; do
		page=$(basename "$m" .1)
		grep -q -F "\`man $page\`" "$SRC_DIR/README.md" || { echo "README does not name $page"; exit 1; }
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
