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

# lib/'s folders follow a sample's journey (lib/README.md).  The recording
# engine (record/) reaches only what it needs to write a file: base/,
# format/ and, of symbols/, the JIT tables, build ids (the vDSO's too) and the writer of
# the symbols a recording carries; never the reader, the profile, an
# export or a printer, directly or through another header.
test_expect_success 'record/ reaches no reading-side folder through any include' '
	python3 "$SRC_DIR/tests/helpers/include-graph.py" "$SRC_DIR" >graph &&
	awk "\$1 ~ /^lib\/record\// && \$2 !~ /^lib\/(record|base|format|symbols)\//" graph >bad &&
	test_equal "" "$(cat bad)" "record/ files that reach a reading-side header" &&
	awk "\$1 ~ /^lib\/record\// && \$2 ~ /^lib\/symbols\// && \$2 !~ /\/(jit[a-z]*|perfmap|dso|elf|vdso|symarchive)\.h\$/" graph >bad &&
	test_equal "" "$(cat bad)" "record/ files that reach symbols/ beyond the JIT tables, build ids and carried symbols"
'

# base/ and format/ are the floor: they include nothing above them.
test_expect_success 'base/ and format/ reach nothing above them' '
	python3 "$SRC_DIR/tests/helpers/include-graph.py" "$SRC_DIR" >graph &&
	awk "\$1 ~ /^lib\/base\// && \$2 !~ /^lib\/base\//" graph >bad &&
	test_equal "" "$(cat bad)" "base/ files that reach another folder" &&
	awk "\$1 ~ /^lib\/format\// && \$2 !~ /^lib\/(base|format)\//" graph >bad &&
	test_equal "" "$(cat bad)" "format/ files that reach above base/"
'

# pmrec top's live profile decodes the rings' records with the reader's
# decoder and names them with the namer: profile/live.[ch] is the one
# bridge (live.h says how), the one file outside record/ and cmd/ that
# includes the engine's headers itself.
test_expect_success 'only profile/live.[ch] include the engine from outside record/' '
	cd "$SRC_DIR" &&
	both= &&
	for src in lib/*/*.[ch]; do
		case $src in lib/record/*) continue ;; esac
		grep -q -E "^#include \"record/" "$src" && both="$both $src"
	done
	test_equal " lib/profile/live.c lib/profile/live.h" "$both" "files that include the engine"
'

test_expect_success 'the top of lib/ holds README.md and folders only' '
	cd "$SRC_DIR/lib" &&
	test_equal "README.md" "$(find . -maxdepth 1 -type f | sed "s|^./||")" "files at the top of lib/" &&
	for d in */; do
		grep -q "^- \`${d%/}/\`" README.md || { echo "lib/README.md has no paragraph for $d"; exit 1; }
	done
'

# A folder's internal headers (*_int.h) are for its own files (and for
# the unit tests, which look inside).
test_expect_success 'internal headers of lib/ folders are included from inside only' '
	cd "$SRC_DIR" &&
	bad= &&
	for h in lib/*/*_int.h; do
		dir=${h%/*} &&
		for src in $(grep -rlE "^#include \"([a-z]+/)?${h##*/}\"" lib cmd); do
			case $src in "$dir"/*) ;; *) bad="$bad $src:${h##*/}" ;; esac
		done
	done &&
	test_equal "" "$bad" "files outside a folder that include its internal header"
'

# One copy of each thing: a second definition would be found here first.
test_expect_success 'one write_all, one base name, one frame label, one write callback type' '
	cd "$SRC_DIR" &&
	test_equal 1 "$(grep -cE "^int pm_write_all\(" lib/*.c lib/*/*.c | awk -F: "{ n += \$2 } END { print n }")" \
		"definitions of pm_write_all" &&
	test_equal 0 "$(grep -lE "(^|[^_[:alnum:]])write_all\(" lib/*.c lib/*/*.c cmd/*.c | grep -vc lib/base/file.c)" \
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
	test_equal "lib/base/emit.h lib/export/gzout.h " "$holders" \
		"files with a struct holding a write callback" &&
	test_grep "struct pm_out out;" lib/export/flamegraph.c
'

# Full reads and writes: one loop each, in base/file.c, where a zero return
# is an error rather than a reason to try again for ever.
test_expect_success 'no pread( or pwrite( outside lib/base/file.c' '
	here=$PWD && cd "$SRC_DIR" &&
	{ grep -nE "(^|[^_[:alnum:]])p(read|write)v?[[:space:]]*\(" lib/*/*.c cmd/*.c |
		grep -v "^lib/base/file\.c:" || :; } >"$here/bad" &&
	test_equal "" "$(cat "$here/bad")" "full-I/O loops outside the file module"
'

# Tables keyed by input are pm_hashtab's (seeded, with a probe bound); a
# cache is an array indexed by pm_cache__slot.  A chained table or a private
# mix is a second copy, and the unseeded ones are open to chosen keys.
test_expect_success 'no bucket arrays or hash mixes outside the hash table and the cache rule' '
	here=$PWD && cd "$SRC_DIR" &&
	{ grep -nE "buckets|0x9e3779b9|0xff51afd7|0xc4ceb9fe|0xd6e8feb8|0x100000001b3|0xcbf29ce4|[^_]FNV" \
		lib/*/*.[ch] cmd/*.[ch] |
		grep -vE "^lib/base/(hashtab\.[ch]|hash\.h|cache\.h):" || :; } >"$here/bad" &&
	test_equal "" "$(cat "$here/bad")" "hash tables or mixes of their own"
'

# One JSON string policy: strings are escaped by the emitter only (a
# second escaper is found by the escapes it writes).
test_expect_success 'one JSON string escaper' '
	here=$PWD && cd "$SRC_DIR" &&
	{ grep -lE "\\\\\\\\u%04|\\\\\\\\ufffd|\\\\\\\\u00" lib/*/*.c cmd/*.c || :; } >"$here/escapers" &&
	test_equal "lib/base/emit.c" "$(cat "$here/escapers")" "files that write JSON escapes"
'

# One base name: a path is cut at its last slash by pm_path__base and
# pm_path__dir_len only.
test_expect_success 'one base name: no strrchr(..., '"'"'/'"'"') outside lib/base/file.c' '
	here=$PWD && cd "$SRC_DIR" &&
	{ grep -nE "strrchr\([^,]*, *'"'"'/'"'"'\)" lib/*/*.c cmd/*.c |
		grep -v "^lib/base/file\.c:" || :; } >"$here/cuts" &&
	test_equal "" "$(cat "$here/cuts")" "places that cut a path at its last slash"
'

# A file does one job and a function one step: over 800 lines a file
# usually does two, over 80 a function.
test_expect_success 'no file over 800 lines, no function over 80, in lib/ and cmd/' '
	here=$PWD && cd "$SRC_DIR" &&
	wc -l lib/*/*.[ch] cmd/*.[ch] | awk "\$2 != \"total\" && \$1 > 800" >"$here/big" &&
	test_equal "" "$(cat "$here/big")" "files over 800 lines" &&
	awk "/^\\{/ { start = FNR; name = prev }
	     /^\\}/ && start { if (FNR - start + 1 > 80) print FILENAME \":\" start \": \" FNR - start + 1 \" lines: \" name; start = 0 }
	     /^[A-Za-z_]/ { prev = \$0 }" lib/*/*.c cmd/*.c >"$here/long" &&
	test_equal "" "$(cat "$here/long")" "functions over 80 lines"
'

# cmd/ says every message through error()/warning() (cmd/message.c), the
# one place that writes the command's name before it: no other file of
# cmd/ writes to stderr (pmrec.c's usage text has no prefix).
test_expect_success 'cmd/: one place formats the message prefix' '
	here=$PWD && cd "$SRC_DIR" &&
	{ grep -nE "stderr|perror\(" cmd/*.c | grep -v "^cmd/message\.c:" |
		grep -vE "^cmd/pmrec\.c:[0-9]+:[[:space:]]*usage\(stderr\);" || :; } >"$here/writers" &&
	test_equal "" "$(cat "$here/writers")" "cmd/ files writing to stderr themselves" &&
	test_equal 1 "$(grep -c "fprintf(stderr, \"%s: \", cmd_name)" cmd/message.c)" \
		"places in message.c that write the command name"
'

# One rule for text on a terminal (pm_utf8__safe_run): a printer that
# writes its own '?' for a byte it dislikes is a second rule.
test_expect_success 'one terminal text rule: no printer writes its own '"'"'?'"'"'' '
	here=$PWD && cd "$SRC_DIR" &&
	{ grep -nE "'"'"'\\?'"'"'" lib/*/*.c cmd/*.c |
		grep -vE "^lib/(base/emit|export/folded)\.c:" |
		grep -vE ":[0-9]+:[[:space:]]*(/?\*)" || :; } >"$here/subst" &&
	test_equal "" "$(cat "$here/subst")" "printers with a substitution of their own"
'

test_expect_success 'report colours the printer'"'"'s spans, it does not parse its own output' '
	sed -n "/^static void write_colored/,/^}/p" "$SRC_DIR/cmd/report.c" >colour &&
	test_grep "pm_color_span" colour &&
	! grep -q strtod colour
'

test_done
