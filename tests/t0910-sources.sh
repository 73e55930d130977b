#!/bin/sh
# The sources explain themselves: no reference to documents outside the
# repository, and the recording engine does not depend on the reader.
. "$(dirname "$0")/test-lib.sh"

# Spelled in two halves, so this file does not match itself.
docs_dir="shared/""docs"

test_expect_success 'no reference to the shared documents directory anywhere' '
	{ grep -r -l -I --exclude-dir=.git --exclude-dir="build*" -e "$docs_dir" "$SRC_DIR" \
		>refs || :; } &&
	test_equal "" "$(cat refs)" "files that cite $docs_dir"
'

test_expect_success 'no ../ document reference in lib/ and cmd/' '
	{ grep -l -E "\.\./[A-Za-z0-9_/.-]*\.(md|txt)" "$SRC_DIR"/lib/*.[ch] "$SRC_DIR"/lib/*/*.[ch] "$SRC_DIR"/cmd/*.[ch] \
		>refs || :; } &&
	test_equal "" "$(cat refs)" "sources that cite a document by a relative path"
'

# The recording engine: events, rings, drain, output file, synthesis.
record_side="ring drain drain_int evset event perf_ops stage snapshot recfile pmdata output
synth target workload zsink control tracing cpumap hostinfo buildid clock"

test_expect_success 'record-side lib files include no reader header' '
	bad=
	for f in $record_side; do
		for src in "$SRC_DIR/lib/$f.c" "$SRC_DIR/lib/$f.h"; do
			test -f "$src" || continue
			grep -q -E "^#include \"reader([a-z_]*\.h|/)" "$src" && bad="$bad $f"
		done
	done
	test_equal "" "$bad" "record-side files that include reader headers"
'

# pmrec top's live profile decodes the rings' records with the reader's
# decoder and names them with the namer, which want a reader that knows
# the events: lib/live.[ch] is the one bridge (lib/live.h says how), so the
# engine and the reader meet in one file only.
test_expect_success 'only lib/live.[ch] include both the drain engine and a reader header' '
	cd "$SRC_DIR" &&
	both= &&
	for src in lib/*.[ch] lib/*/*.[ch]; do
		grep -q -E "^#include \"(drain|evset|ring)\.h\"" "$src" &&
		grep -q -E "^#include \"(reader[a-z_]*|rec_info|naming|report_sink)\.h\"" "$src" &&
		both="$both $src"
	done
	test_equal " lib/live.c lib/live.h" "$both" "files that include the engine and the reader"
'

test_expect_success 'the record-side list names files that exist' '
	for f in $record_side; do
		test -f "$SRC_DIR/lib/$f.c" || test -f "$SRC_DIR/lib/$f.h" || {
			echo "lib/$f.[ch] is gone: update the list"; exit 1; }
	done
'

# A folder of lib/ is the files behind one internal header (lib/README.md).
test_expect_success 'internal headers of lib/ folders are included from inside only' '
	cd "$SRC_DIR" &&
	bad= &&
	for h in lib/*/*_int.h; do
		dir=${h%/*} &&
		for src in $(grep -rlE "^#include \"([a-z]+/)?${h##*/}\"" lib cmd tests/unit tests/fuzz); do
			case $src in "$dir"/*) ;; *) bad="$bad $src:${h##*/}" ;; esac
		done
	done &&
	test_equal "" "$bad" "files outside a folder that include its internal header" &&
	for d in lib/*/; do
		ls "$d"*_int.h >/dev/null 2>&1 || { echo "$d has no internal header"; exit 1; }
	done
'

# One copy of each thing: a second definition would be found here first.
test_expect_success 'one write_all, one base name, one frame label, one write callback type' '
	cd "$SRC_DIR" &&
	test_equal 1 "$(grep -cE "^int pm_write_all\(" lib/*.c lib/*/*.c | awk -F: "{ n += \$2 } END { print n }")" \
		"definitions of pm_write_all" &&
	test_equal 0 "$(grep -lE "(^|[^_[:alnum:]])write_all\(" lib/*.c lib/*/*.c cmd/*.c | grep -vc lib/file.c)" \
		"files with a write_all of their own" &&
	test_equal 0 "$(grep -lE "base_name\(" lib/*.c lib/*/*.c cmd/*.c | wc -l)" "base_name copies" &&
	test_equal 1 "$(grep -lE "^int pm_frame__label\(" lib/*.c lib/*/*.c | wc -l)" "frame label definitions" &&
	test_equal 1 "$(grep -hcE "^typedef int pm_[a-z_]*write_fn\(" lib/*.h lib/*/*.h | awk "{ n += \$1 } END { print n }")" \
		"write callback types"
'

# The buffered writer is pm_out (emit.h); gzip is a filter in front of a
# callback, not a second buffer of output.
test_expect_success 'one buffered writer: only pm_out and gzip hold a write callback' '
	cd "$SRC_DIR" &&
	holders=$(grep -lE "^[[:space:]]*pm_write_fn \*[a-z_]*;" lib/*.[ch] lib/*/*.[ch] cmd/*.[ch] |
		sort | tr "\n" " ") &&
	test_equal "lib/emit.h lib/gzout.h " "$holders" \
		"files with a struct holding a write callback" &&
	test_grep "struct pm_out out;" lib/flamegraph.c
'

test_expect_success 'report colours the printer'"'"'s spans, it does not parse its own output' '
	sed -n "/^static void write_colored/,/^}/p" "$SRC_DIR/cmd/report.c" >colour &&
	test_grep "pm_color_span" colour &&
	! grep -q strtod colour
'

test_done
