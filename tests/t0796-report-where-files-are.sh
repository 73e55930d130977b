#!/bin/sh
# A recorded program named wherever its file is, as perf names it: a copy
# at the recorded path (same build id, new inode), --symfs (the recorded
# path under DIR, and DIR/base name), perf's build-id cache ($HOME/.debug
# filled by perf buildid-cache -a, and --buildid-dir).  The oracle: perf
# report's rows (symbol and share) on the same recording and the same tree.
# A file of another build id is passed over, and a cache link leading out
# of the cache is not followed.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
test_require_perf_tool

D=$TMP_ROOT/w
PROG=$D/bin/prog

# rows FILE: "SHARE SYMBOL" of the share_* rows of a report --stdio.
rows() {
	grep -v "^#" "$1" | sed -n "s/^ *\([0-9.]*%\) .*\[\.\] \(share_[abc]\).*/\1 \2/p"
}

# perf_rows OUT ARGS...: perf report's rows, with ARGS before "report".
perf_rows() {
	out=$1
	shift
	perf "$@" report -i "$D/rec.data" --stdio --no-children --sort sym -g none \
		>"$out.perf" 2>/dev/null &&
	rows "$out.perf" >"$out"
}

# pm_rows OUT ARGS...: pmrec report's rows, with ARGS after "report".
pm_rows() {
	out=$1
	shift
	"$PMREC" report -i "$D/rec.data" --no-children --sort sym -g none "$@" \
		>"$out.pm" 2>"$out.err" &&
	rows "$out.pm" >"$out"
}

test_expect_success 'setup: a program recorded at its path; perf and pmrec name it alike' '
	mkdir -p "$D/bin" && cd "$D" &&
	cp "$HELPERS/shares" "$PROG" &&
	"$PMREC" record -q -F 2000 -o "$D/rec.data" -- "$PROG" 1 2 3 3 &&
	perf_rows want &&
	pm_rows got &&
	test "$(wc -l <want)" -eq 3 &&
	test_cmp want got
'

test_expect_success 'a copy in its place (same build id, new inode) names what the original did' '
	cd "$D" &&
	ino=$(stat -c %i "$PROG") &&
	cp "$PROG" "$D/copy" && mv "$D/copy" "$PROG" &&
	test "$(stat -c %i "$PROG")" != "$ino" &&
	pm_rows got &&
	test_cmp want got &&
	! grep -q "replaced" got.err
'

test_expect_success 'a program of another build id at the path is passed over, with the reason' '
	cd "$D" &&
	mv "$PROG" "$D/real" &&
	printf "int main(void) { return 0; }\n" >"$D/other.c" &&
	cc -o "$PROG" "$D/other.c" &&
	pm_rows got -v &&
	! test -s got &&
	grep -q "its build id differs from the recorded one" got.err
'

test_expect_success '--symfs: the recorded path under DIR, as perf report --symfs' '
	cd "$D" &&
	mkdir -p "$D/root$D/bin" &&
	cp "$D/real" "$D/root$PROG" &&
	perf_rows want.symfs --symfs="$D/root" 2>/dev/null ||
	{ perf report -i "$D/rec.data" --symfs="$D/root" --stdio --no-children --sort sym \
		-g none >want.symfs.perf 2>/dev/null && rows want.symfs.perf >want.symfs; } &&
	"$PMREC" report -i "$D/rec.data" --symfs="$D/root" --no-children --sort sym -g none \
		-v >got.symfs.pm 2>got.symfs.err &&
	rows got.symfs.pm >got.symfs &&
	test "$(wc -l <want.symfs)" -eq 3 &&
	test_cmp want.symfs got.symfs &&
	test_grep "build id matches.*: $D/root$PROG" got.symfs.err
'

test_expect_success 'dump, annotate and archive look under --symfs too' '
	cd "$D" &&
	"$PMREC" dump --json --type sample --symfs="$D/root" rec.data >dump.json 2>/dev/null &&
	test_grep "\"sym\":\"share_c\"" dump.json &&
	! grep -q "\"sym\":\"share_c\"" dump.nosymfs 2>/dev/null &&
	"$PMREC" dump --json --type sample rec.data >dump.plain 2>/dev/null &&
	! grep -q "\"sym\":\"share_c\"" dump.plain &&
	"$PMREC" annotate --stdio --symfs="$D/root" -i rec.data share_c >ann 2>ann.err &&
	test_grep "share_c" ann &&
	cp rec.data arch.data &&
	"$PMREC" archive --symfs="$D/root" arch.data 2>/dev/null &&
	"$PMREC" report -i arch.data --no-children --sort sym -g none >arch.pm 2>/dev/null &&
	rows arch.pm >arch.rows &&
	test_cmp want arch.rows
'

test_expect_success '--symfs: DIR and the base name, where the path is not under DIR' '
	cd "$D" &&
	mkdir -p "$D/flat" &&
	cp "$D/real" "$D/flat/prog" &&
	"$PMREC" report -i "$D/rec.data" --symfs="$D/flat" --no-children --sort sym -g none \
		>got.flat.pm 2>/dev/null &&
	rows got.flat.pm >got.flat &&
	test_cmp want got.flat
'

test_expect_success '--symfs: a symlink inside DIR resolves inside DIR, not on this machine' '
	cd "$D" &&
	mkdir -p "$D/linked$D" &&
	ln -s "/elsewhere" "$D/linked$D/bin" &&
	mkdir -p "$D/linked/elsewhere" &&
	cp "$D/real" "$D/linked/elsewhere/prog" &&
	"$PMREC" report -i "$D/rec.data" --symfs="$D/linked" --no-children --sort sym -g none \
		>got.linked.pm 2>/dev/null &&
	rows got.linked.pm >got.linked &&
	test_cmp want got.linked
'

test_expect_success 'perf buildid-cache -a, program removed: named from $HOME/.debug as perf names it' '
	cd "$D" &&
	rm -f "$PROG" &&
	cp "$D/real" "$PROG" &&
	HOME=$D/home perf buildid-cache -a "$PROG" &&
	rm -f "$PROG" &&
	HOME=$D/home perf_rows want.cache &&
	test "$(wc -l <want.cache)" -eq 3 &&
	HOME=$D/home pm_rows got.cache -v &&
	test_cmp want.cache got.cache &&
	test_grep "build id matches.*: $D/home/.debug/" got.cache.err
'

test_expect_success '--buildid-dir names the cache, as perf --buildid-dir' '
	cd "$D" &&
	mv "$D/home/.debug" "$D/cache" &&
	HOME=$D/nohome perf_rows want.dir --buildid-dir "$D/cache" &&
	test "$(wc -l <want.dir)" -eq 3 &&
	HOME=$D/nohome pm_rows got.dir --buildid-dir="$D/cache" &&
	test_cmp want.dir got.dir &&
	HOME=$D/nohome pm_rows none &&
	! test -s none
'

test_expect_success 'the cache'"'"'s PATH/BUILDID/elf alone names it (no .build-id link)' '
	cd "$D" &&
	rm -rf "$D/cache/.build-id" &&
	HOME=$D/nohome pm_rows got.path --buildid-dir="$D/cache" &&
	test_cmp want.dir got.path
'

test_expect_success 'a cache link leading out of the cache is not followed' '
	cd "$D" &&
	id=$(ls "$D/cache$PROG") &&
	xx=$(echo "$id" | cut -c1-2) &&
	mkdir -p "$D/outside/$id" "$D/cache2/.build-id/$xx" "$D/cache3/.build-id/$xx" &&
	cp "$D/real" "$D/outside/$id/elf" &&
	ln -s "$D/outside/$id" "$D/cache2/.build-id/$xx/$(echo "$id" | cut -c3-)" &&
	ln -s "../../../outside/$id" "$D/cache3/.build-id/$xx/$(echo "$id" | cut -c3-)" &&
	test -f "$D/cache3/.build-id/$xx/$(echo "$id" | cut -c3-)/elf" &&
	HOME=$D/nohome pm_rows got.out --buildid-dir="$D/cache2" &&
	! test -s got.out &&
	HOME=$D/nohome pm_rows got.out2 --buildid-dir="$D/cache3" &&
	! test -s got.out2
'

test_done
