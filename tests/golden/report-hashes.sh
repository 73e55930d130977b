#!/bin/sh
# report-hashes.sh: fingerprints of what the analysing commands print
# (report's table, JSON and call graphs, flame graphs, pprof, speedscope,
# folded stacks, annotate) for refactors that must not change a byte.
#
#   tests/golden/report-hashes.sh PMREC INPUT-DIR >hashes
#
# Prints one line per (input, command line):
#   SHA256-OF-STDOUT  SHA256-OF-STDERR  rc=N  INPUT  ARGS
#
# INPUT-DIR holds recordings made ONCE and kept (pmrec's and perf's, with
# and without call chains, DWARF, off-CPU), since a new recording never has
# the same bytes.  Names depend on the binaries on disk and on
# /proc/kallsyms: run the old and the new binary one right after the other,
# then diff the two outputs (as dump-hashes.sh).
# Names must not depend on a symbol server the user may have set.
unset DEBUGINFOD_URLS
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 PMREC INPUT-DIR" >&2
	exit 64
fi
pmrec=$(realpath "$1")
cd "$(realpath "$2")"

hash() {
	sha256sum | cut -c1-16
}

# run INPUT ARGS...: one line for `pmrec ARGS INPUT`.
run() {
	in=$1
	shift
	out=$(mktemp) err=$(mktemp)
	rc=0
	"$pmrec" "$@" "$in" >"$out" 2>"$err" || rc=$?
	printf '%s %s rc=%d %s %s\n' "$(hash <"$out")" "$(hash <"$err")" "$rc" "$in" "$*"
	rm -f "$out" "$err"
}

for f in *.data; do
	run "$f" report
	run "$f" report --no-children
	run "$f" report --children -g caller
	run "$f" report --no-children -g callee --percent-limit=0
	run "$f" report --json
	run "$f" report --json -g caller
	run "$f" report -n -s pid,comm,dso
	run "$f" report -s sym,srcline --no-children
	run "$f" report --flamegraph=-
	run "$f" report --flamegraph=- --inverted
	run "$f" report --pprof=-
	run "$f" report --speedscope=-
	run "$f" report --wall
	run "$f" dump --folded
	run "$f" dump --stats
	run "$f" annotate --stdio -i
	run "$f" annotate --json -i
	run "$f" annotate --no-source -i
done
