#!/bin/sh
# dump-hashes.sh: fingerprints of `pmrec dump` output, for refactors that must
# not change a byte of it.
#
#   tests/golden/dump-hashes.sh PMREC GEN-PERFDATA [INPUT-DIR] >hashes
#
# Prints one line per (input, how it is read, mode):
#   SHA256-OF-STDOUT  SHA256-OF-STDERR  rc=N  MODE  INPUT  file|pipe
# over every gen-perfdata variant (file and pipe streams, some truncated),
# the fuzz regression files (tests/fuzz/regress) and every file of INPUT-DIR
# (perf- or pmrec-written recordings: make them ONCE and keep them, since a
# new recording never has the same bytes), each read as a file argument and
# from a pipe (`cat FILE | pmrec dump ... -`).
#
# Use: run it with the old binary and the new one on the same machine, one
# right after the other (symbol names depend on /proc/kallsyms and on the
# binaries on disk), then `diff` the two outputs: any line that differs is
# a change of output.
#
#   make -C OLD-TREE && make
#   tests/golden/dump-hashes.sh OLD-TREE/build/pmrec build/tests/helpers/gen-perfdata \
#       ~/rec >before
#   tests/golden/dump-hashes.sh build/pmrec build/tests/helpers/gen-perfdata ~/rec >after
#   diff before after && echo identical
#
# Inputs are copied to a scratch directory and named by a relative path, so
# the file names that messages print are the same in both runs.
# Names must not depend on a symbol server the user may have set.
unset DEBUGINFOD_URLS
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 PMREC GEN-PERFDATA [INPUT-DIR]" >&2
	exit 64
fi
pmrec=$(realpath "$1")
gen=$(realpath "$2")
indir=${3:+$(realpath "$3")}
regress=$(realpath "$(dirname "$0")/../fuzz/regress")

work=$(mktemp -d "${TMPDIR:-/tmp}/dump-hashes.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/in"

variants="good minimal unknown compressed compressed-bad auxtrace zero-size oversize garbage
unfinished unfinished-torn short-sample cut-sample unknown-id bad-attr
bad-tracing bad-feature"

for v in $variants; do
	"$gen" --variant="$v" -o "$work/in/gen-$v.data"
	"$gen" --pipe --variant="$v" -o "$work/in/gen-$v.pipe"
done
"$gen" --no-names -o "$work/in/gen-no-names.data"
"$gen" --pipe --no-names -o "$work/in/gen-no-names.pipe"
# Big enough to go through the output buffer (1 MiB) several times.
"$gen" --repeat=3000 -o "$work/in/gen-repeat.data"
"$gen" --pipe --repeat=3000 -o "$work/in/gen-repeat.pipe"
for n in 100 700 1500 2600; do
	"$gen" --truncate=$n -o "$work/in/gen-trunc$n.data"
	"$gen" --pipe --truncate=$n -o "$work/in/gen-trunc$n.pipe"
done
for f in "$regress"/*; do
	cp "$f" "$work/in/regress-$(basename "$f")"
done
if [ -n "$indir" ]; then
	for f in "$indir"/*; do
		[ -f "$f" ] && cp "$f" "$work/in/rec-$(basename "$f")"
	done
fi

# One mode per line; a mode is the options given to dump.
modes='
--json
--stats
--header
--raw
--no-symbols
--ordered
--folded
--folded=period
--json --raw
--json --stats
--json --header
--json --no-symbols
--json --ordered --no-symbols
--ordered --no-symbols
--ordered --queue-size=4K
--raw --no-symbols
--type=sample,mmap2,comm,unknown --cpu=0-1,3 --no-symbols
--json --pid=100,4242 --type=sample
--stats --type=lost,lost_samples --pid=0-100000'

cd "$work/in"
hash() {
	sha256sum | cut -d' ' -f1
}
# run MODE INPUT HOW
run() {
	rc=0
	if [ "$3" = file ]; then
		# shellcheck disable=SC2086
		timeout 60 "$pmrec" dump $1 "$2" >"$work/out" 2>"$work/err" || rc=$?
	else
		# shellcheck disable=SC2086
		cat "$2" | timeout 60 "$pmrec" dump $1 - >"$work/out" 2>"$work/err" || rc=$?
	fi
	printf '%s  %s  rc=%d  %s  %s  %s\n' "$(hash <"$work/out")" "$(hash <"$work/err")" \
		"$rc" "${1:-(default)}" "$2" "$3"
}

for f in *; do
	printf '%s\n' "$modes" | while IFS= read -r mode; do
		run "$mode" "$f" file
		run "$mode" "$f" pipe
	done
done
