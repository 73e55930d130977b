#!/bin/sh
# pmrec archive: a recording carries the symbols of its sampled files and
# kernel functions, and report names every frame with them on "another
# machine": the program deleted, kallsyms unreadable (--kallsyms with an
# empty file).  Without them the same frames are unnamed, and --verbose
# says why.  perf still reads the archived file.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

SHARED=$TMP_ROOT/shared
mkdir -p "$SHARED"

# The rows of report for the program alone (a -a recording sees others).
rows() {
	"$PMREC" report --no-children -g none --sort dso,sym --comm embedprog "$@"
}

test_expect_success 'setup: record -a -g a program built in a temp dir, and archive a copy' '
	mkdir -p "$SHARED/progdir" &&
	cat >"$SHARED/progdir/prog.c" <<-\PROG &&
	#include <fcntl.h>
	#include <stdlib.h>
	#include <unistd.h>
	static volatile unsigned long sink;
	__attribute__((noinline)) void embed_leaf(unsigned long n)
	{ for (unsigned long i = 0; i < n; i++) sink += i * 7; }
	__attribute__((noinline)) void embed_mid(unsigned long n) { embed_leaf(n); }
	__attribute__((noinline)) void embed_sys(int n)
	{ char b[64]; int fd = open("/dev/zero", O_RDONLY);
	  for (int i = 0; i < n; i++) read(fd, b, sizeof(b)); close(fd); }
	int main(void)
	{ for (int k = 0; k < 4; k++) { embed_mid(3000000); embed_sys(8000); } return 0; }
	PROG
	cc -O1 -fno-omit-frame-pointer -Wl,--build-id -o "$SHARED/progdir/embedprog" \
		"$SHARED/progdir/prog.c" &&
	"$PMREC" -q -a -g -o "$SHARED/plain.data" -- "$SHARED/progdir/embedprog" &&
	cp "$SHARED/plain.data" "$SHARED/arch.data" &&
	"$PMREC" archive "$SHARED/arch.data" 2>err &&
	test_grep "files .* and [1-9][0-9]* kernel symbols, [0-9]* bytes" err &&
	: >"$SHARED/empty"
'

test_expect_success 'on the recording machine, user and kernel frames are named' '
	rows "$SHARED/arch.data" >"$SHARED/before" &&
	rows "$SHARED/plain.data" >plain &&
	test_cmp "$SHARED/before" plain &&
	test_grep "embedprog  *\[\.\] embed_leaf" "$SHARED/before" &&
	test_grep "\[kernel.kallsyms\]  *\[k\] [a-z_]" "$SHARED/before"
'

test_expect_success 'program deleted, kallsyms empty: the same rows, from the recording' '
	rm -r "$SHARED/progdir" &&
	rows --kallsyms="$SHARED/empty" -v "$SHARED/arch.data" >after 2>err &&
	test_cmp "$SHARED/before" after &&
	test_grep "embedprog: named from the symbols embedded in the recording" err &&
	test_grep "\[kernel.kallsyms\]: named from the symbols embedded in the recording" err &&
	test_equal 1 "$(grep -c "progdir/embedprog:" err)" "notes of the program (once per file)"
'

test_expect_success 'the same without archive: frames unnamed, and --verbose says why' '
	rows --kallsyms="$SHARED/empty" -v "$SHARED/plain.data" >after 2>err &&
	! test_grep embed_leaf after &&
	! test_grep "\[k\] [a-z_]" after &&
	test_grep "embedprog: not named: build id not found" err &&
	test_grep "cannot read kernel symbols from .*empty.*: no text symbols" err
'

test_expect_success 'dump --folded and the flame graph name frames from the recording too' '
	"$PMREC" dump --folded --kallsyms="$SHARED/empty" "$SHARED/arch.data" >folded &&
	test_grep "^embedprog;.*;main;embed_leaf [0-9]" folded &&
	test_grep "^embedprog;.*;main;read;entry_SYSCALL_64[a-z_]*;do_syscall_64;[a-z_]" folded &&
	"$PMREC" report --kallsyms="$SHARED/empty" --flamegraph=g.svg "$SHARED/arch.data" &&
	test_grep "embed_leaf" g.svg
'

test_expect_success 'perf reads the archived file alike (it skips feature 241)' '
	perf script -i "$SHARED/plain.data" -F ip >plain 2>/dev/null &&
	perf script -i "$SHARED/arch.data" -F ip >arch 2>perr &&
	test_cmp plain arch &&
	test -s arch &&
	! test_grep -i "error\|fail" perr
'

test_expect_success 'archiving again replaces the section: one feature, same names' '
	cp "$SHARED/arch.data" again.data &&
	"$PMREC" archive -q again.data &&
	"$PMREC" dump --header again.data >h &&
	test_equal 1 "$(grep -o " PMREC_SYMBOLS(" h | wc -l)" "sections of bit 241" &&
	rows --kallsyms="$SHARED/empty" again.data >after &&
	test_cmp "$SHARED/before" after
'

test_expect_success 'archive --all: all of kallsyms, and what is gone is left out, said' '
	cp "$SHARED/plain.data" all.data &&
	"$PMREC" archive --all all.data 2>err &&
	test "$(stat -c %s all.data)" -gt "$(stat -c %s "$SHARED/arch.data")" &&
	test_grep "embedprog is not archived: no file here has the recorded build id" err &&
	rows --kallsyms="$SHARED/empty" all.data >after &&
	grep "\[k\]" "$SHARED/before" >want &&
	grep "\[k\]" after >got &&
	test_cmp want got
'

test_expect_success 'a damaged section is not used, and the warning says where' '
	cp "$SHARED/arch.data" bad.data &&
	size=$(stat -c %s bad.data) &&
	"$PMREC" dump --header bad.data | grep -o " PMREC_SYMBOLS([0-9]*)" | tr -dc 0-9 >len &&
	len=$(cat len) &&
	printf X | dd of=bad.data bs=1 seek=$((size - len)) conv=notrunc 2>/dev/null &&
	rows --kallsyms="$SHARED/empty" bad.data >out 2>err &&
	test_grep "offset 0x$(printf %x $((size - len))): the symbols embedded in the recording are not used: bad magic" err
'

test_expect_success 'archive refuses a pipe-mode file and a missing one' '
	"$PMREC" -q -o - -- true >pipe.data &&
	test_expect_code 1 "$PMREC" archive pipe.data 2>err &&
	test_grep "pipe-mode file has no feature sections" err &&
	test_expect_code 1 "$PMREC" archive nonexistent.data 2>err &&
	test_grep "cannot open .nonexistent.data." err &&
	test_expect_code 64 "$PMREC" archive 2>err
'

test_done
