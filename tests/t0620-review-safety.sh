#!/bin/sh
# The second adversarial review's findings: outputs never deleted, no hang
# on a name a recording gives, every output error in the exit status, no
# silent loss in compressed data, a control channel that cannot reach the
# terminal, --time in range, names bounded in every report mode, no libdw
# leak on looping CFI, and the opener rule kept by grep.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_root

GEN=$HELPERS/gen-perfdata

# A small recording with call chains: what the report outputs are made of.
record_g() {
	"$PMREC" record -q -g -o g.data -- "$HELPERS/spin" 0.2 >/dev/null
}

# fill DIR: a tmpfs of 1 MiB at DIR holding a precious file and nothing free.
fill() {
	mkdir "$1" &&
	mount -t tmpfs -o size=1m tmpfs "$1" &&
	echo precious >"$1/out" &&
	{ dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null || true; }
}

test_expect_success '--pprof to a device that fails: exit 1, the device is still there' '
	record_g &&
	mknod full c 1 7 &&
	test_expect_code 1 "$PMREC" report --pprof=full g.data 2>err &&
	test_grep "cannot write .full.: No space left on device" err &&
	test -c full
'

test_expect_success '--pprof and --flamegraph through a symlink to a pipe whose reader left' '
	record_g &&
	ln -s /proc/self/fd/1 out &&
	{ "$PMREC" report --pprof=out g.data | true; } &&
	{ "$PMREC" report --flamegraph=out g.data | true; } &&
	test -L out
'

test_expect_success 'a full disk: the file there before stays whole, no temporary is left' '
	record_g &&
	fill small &&
	rc=0 && { "$PMREC" report --pprof=small/out g.data 2>err || rc=$?; } &&
	rc2=0 && { "$PMREC" report --flamegraph=small/out g.data 2>err2 || rc2=$?; } &&
	content=$(cat small/out) && files=$(ls small | tr "\n" " ") &&
	umount small &&
	test_equal 1 "$rc" "--pprof exit" &&
	test_equal 1 "$rc2" "--flamegraph exit" &&
	test_equal precious "$content" "the old output" &&
	test_equal "filler out " "$files" "files on the full disk"
'

test_expect_success 'a written output replaces the file and keeps its mode' '
	record_g &&
	echo old >p.pb.gz && chmod 640 p.pb.gz &&
	"$PMREC" report --pprof=p.pb.gz g.data &&
	gzip -t p.pb.gz &&
	test_equal 640 "$(stat -c %a p.pb.gz)" "mode"
'

# A program run from a path that, when read, is a FIFO: a recording made
# on one machine, a FIFO planted at that path on the one that reads it.
test_expect_success 'a mapped file that is now a FIFO: every reader finishes' '
	cp "$HELPERS/spin-nofp" prog &&
	"$PMREC" record -q --call-graph dwarf -o d.data -- ./prog 0.2 >/dev/null &&
	rm prog && mkfifo prog &&
	for mode in "dump" "dump --folded" "report" "report --flamegraph=f.svg" \
		    "report --pprof=f.pb.gz"; do
		rc=0 && timeout 20 "$PMREC" $mode d.data >out 2>err || rc=$?
		test_equal 0 "$rc" "exit of $mode" || exit 1
	done
'

# spin.c built without .eh_frame or frame pointers: only the debug file's
# .debug_frame unwinds it.
build_debuglinked() {
	cc -O1 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-Wl,--no-eh-frame-hdr -o prog "$SRC_DIR/tests/helpers/spin.c" &&
	objcopy --only-keep-debug prog prog.debug &&
	objcopy --strip-debug --add-gnu-debuglink=prog.debug prog &&
	! readelf -lW prog | grep -q GNU_EH_FRAME
}

test_expect_success 'a debug file found by .gnu_debuglink beside the program unwinds it' '
	build_debuglinked &&
	"$PMREC" record -q --call-graph dwarf -o d.data -- ./prog 0.3 >/dev/null &&
	"$PMREC" dump --folded d.data >out &&
	test_grep ";main;alpha;beta;spin " out
'

test_expect_success 'a .gnu_debuglink naming a FIFO: no hang, the chain is not invented' '
	build_debuglinked &&
	"$PMREC" record -q --call-graph dwarf -o d.data -- ./prog 0.3 >/dev/null &&
	rm prog.debug && mkfifo prog.debug &&
	for mode in "dump --folded" "report -g caller"; do
		rc=0 && timeout 20 "$PMREC" $mode d.data >out 2>err || rc=$?
		test_equal 0 "$rc" "exit of $mode" || exit 1
	done &&
	"$PMREC" dump --folded d.data >folded &&
	! grep -q "alpha;beta;spin" folded
'

test_expect_success 'report to a full device: exit 1 for the table, --json and -g caller' '
	record_g &&
	for mode in "" "--json" "-g caller"; do
		rc=0 && "$PMREC" report $mode g.data >/dev/full 2>err || rc=$?
		test_equal 1 "$rc" "exit of report $mode" || exit 1
		test_grep "write error: No space left on device" err || exit 1
	done
'

test_expect_success 'report into a closed pipe stays quiet and succeeds' '
	record_g &&
	{ "$PMREC" report -g caller g.data 2>err; echo $? >rc; } | head -n 1 >/dev/null &&
	test_equal 0 "$(cat rc)" "exit" &&
	test_equal 0 "$(grep -c . err)" "lines on stderr"
'

test_expect_success 'a COMPRESSED record holding half a zstd block: an error with its offset' '
	"$GEN" --variant=compressed-half -o h.data &&
	"$GEN" --pipe --variant=compressed-half -o hp.data &&
	for f in h.data hp.data; do
		dump_rc $f --stats &&
		test_equal 1 "$rc" "dump exit for $f" &&
		dump_error_has_offset &&
		test_grep "ends inside a zstd block that lacks [0-9]+ bytes" err || exit 1
		test_expect_code 1 "$PMREC" report $f >/dev/null 2>err || exit 1
	done
'

test_expect_success 'compressed data flushed between blocks, as perf -z writes it, reads whole' '
	"$GEN" --variant=compressed -o c.data &&
	dump_rc c.data --stats &&
	test_equal 0 "$rc" "dump exit" &&
	test_equal 0 "$(grep -c . err)" "lines on stderr"
'

# The control words a writer sends reach stderr and the ack fifo escaped,
# and an endless line is one unknown word, not one per 256 bytes.
test_expect_success '--control: hostile words are escaped, a long line is one warning' '
	mkfifo ctl ack &&
	exec 8<>ack
	"$PMREC" -a -q -o c.data --control=fifo:ctl,ack 2>err &
	pid=$! &&
	printf "\377\033[31mred\n" >ctl &&
	head -c 100000 /dev/zero | tr "\000" x >ctl && echo >ctl &&
	echo stop >ctl &&
	wait $pid &&
	timeout 5 head -n 3 <&8 >acks &&
	cat err acks &&
	! grep -q "$(printf "\033")" err &&
	! grep -q "$(printf "\033")" acks &&
	test_grep "unknown command .\\\\xff\\\\x1b\[31mred. ignored" err &&
	test_equal 2 "$(grep -c "unknown command" err)" "warnings" &&
	test_equal ack "$(sed -n 3p acks)" "the third answer"
'

test_expect_success '--control fifo: a symlink to a FIFO is refused' '
	mkfifo real && ln -s real link &&
	test_expect_code 1 "$PMREC" -a -q -o c.data --control=fifo:link -- true 2>err &&
	test_grep "control fifo" err
'

test_expect_success '--time: out of range is a usage error; END 0 means 0' '
	record_g &&
	test_expect_code 64 "$PMREC" report --time=18446744073.709552, g.data 2>err &&
	test_grep "bad --time" err &&
	"$PMREC" report --no-children --time=0,0 g.data >out &&
	test_grep "^# Samples: 0 " out
'

# Each of the 1024 symbols is its own row, as in perf, so the JSON is long:
# what must be short is every field in it.
test_expect_success 'names of 1 MiB: every report mode cuts them, with bounded memory' '
	"$HELPERS/gen-hostile" elf "$PWD/h.so" 1024 -o h.data &&
	"$PMREC" report --sort sym h.data >table &&
	"$PMREC" report --json h.data >j && tr , "\n" <j >json &&
	/usr/bin/time -f %M -o rss "$PMREC" report --flamegraph=h.svg h.data &&
	"$PMREC" report --pprof=h.pb.gz h.data &&
	for f in table json; do
		test "$(wc -L <$f)" -le 8192 || { echo "$f: a line of $(wc -L <$f) bytes"; exit 1; }
	done &&
	test_grep "nnn\.\.\." table &&
	test "$(gzip -dc h.pb.gz | wc -c)" -lt 8000000 &&
	test "$(cat rss)" -lt 262144
'

# A sample in loopy's loop stops at loopy.  (One in its prologue, before
# the looping CFI starts, would unwind through loopy to main, as it should:
# a few instructions run once.)
test_expect_success 'CFI whose expression loops: the unwind stops there, nothing leaks' '
	"$PMREC" record -q --call-graph dwarf -o l.data -- "$HELPERS/cfiloop" 0.3 >/dev/null &&
	"$PMREC" dump --folded l.data >out 2>err &&
	test_grep "^cfiloop;loopy [0-9]+$" out &&
	! grep -E "outer;loopy [0-9]+$" out
'

# The rules of the opener and of the output module, kept by grep.  opendir
# is left out: O_DIRECTORY neither blocks on a FIFO nor opens a device.
test_expect_success 'files are opened by the one opener, removed by the one output module' '
	cd "$SRC_DIR" &&
	grep -nE "(^|[^_[:alnum:]>.])(open|openat|fopen|freopen|creat)[[:space:]]*\(" lib/*.c lib/*/*.c cmd/*.c |
		grep -vE "^lib/base/(file|output)\.c:" |
		grep -vE "(open|openat)\((\"|s->procfd, )" |
		grep -vE ":[0-9]+:[[:space:]]*(/\*|\*)" >"$TMP_ROOT/opens" || true
	cat "$TMP_ROOT/opens" &&
	test_equal 0 "$(grep -c . "$TMP_ROOT/opens")" "opens outside the opener" &&
	grep -nE "(^|[^_[:alnum:]])(unlink|unlinkat|remove|rmdir)[[:space:]]*\(" lib/*.c lib/*/*.c cmd/*.c |
		grep -v "^lib/base/output\.c:" | grep -v "classList" >"$TMP_ROOT/unlinks" || true
	cat "$TMP_ROOT/unlinks" &&
	test_equal 0 "$(grep -c . "$TMP_ROOT/unlinks")" "unlinks outside lib/base/output.c"
'

test_done
