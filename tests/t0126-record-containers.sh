#!/bin/sh
# Files that their recorded path will not find again: a container's (its
# own mount namespace and root), one replaced while it runs.  The recorder
# keeps their build ids and symbols while their processes live, read
# through the process's root (its symlinks resolved inside it) or its
# mapping, never through the host's file of the same name; report names
# their frames after the processes are gone.
. "$(dirname "$0")/test-lib.sh"
test_require_root
test_require_perf_event
command -v unshare >/dev/null 2>&1 && command -v chroot >/dev/null 2>&1 ||
	test_skip_all "unshare and chroot (util-linux, coreutils) are not installed"
command -v gcc >/dev/null 2>&1 || test_skip_all "gcc is not installed"
unshare -m true 2>/dev/null || test_skip_all "unshare -m is not allowed here"

# box: a static program, so that a root of its own needs no libraries.
# ACTION, once it runs, changes its own tree as a hostile container may:
# "relink DIR TO" moves DIR to TO and leaves an absolute symlink DIR -> TO;
# "shadow SELF TARGET" replaces its own file by a symlink to TARGET;
# "name NAME -" calls itself NAME (its comm).  Then it burns SECONDS in WORK.
cat >"$TMP_ROOT/box.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long WORK(double seconds)
{
	double end = now() + seconds;
	unsigned long n = 0;

	while (now() < end)
		for (int i = 0; i < 10000; i++)
			n += i ^ n;
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	if (!strcmp(argv[1], "relink") && (rename(argv[2], argv[3]) || symlink(argv[3], argv[2])))
		return 3;
	if (!strcmp(argv[1], "shadow") && (unlink(argv[2]) || symlink(argv[3], argv[2])))
		return 3;
	if (!strcmp(argv[1], "name") && prctl(PR_SET_NAME, argv[2]))
		return 3;
	return WORK(atof(argv[4])) == 1;
}
EOF
gcc -O1 -static -fno-omit-frame-pointer -DWORK=inside_work -o "$TMP_ROOT/inside" \
	"$TMP_ROOT/box.c" 2>"$TMP_ROOT/cc.log" &&
	gcc -O1 -static -fno-omit-frame-pointer -DWORK=decoy_work -o "$TMP_ROOT/decoy" \
		"$TMP_ROOT/box.c" 2>>"$TMP_ROOT/cc.log" ||
	test_skip_all "no static C library to build the container's program: $(head -n 1 "$TMP_ROOT/cc.log")"
export TMP_ROOT

elf_build_id() {
	readelf -n "$1" | awk "/Build ID:/ { print \$3; exit }"
}

# The functions report names, one row per (command, symbol).
names() {
	"$PMREC" report -i "$1" --stdio --no-children -g none --sort comm,sym >"$2" 2>"$2.err"
}

# traced FILE CMD...: CMD under strace, every open and the file each fd
# names written to FILE; without strace, CMD alone (FILE empty).
traced() {
	out=$1
	shift
	if command -v strace >/dev/null 2>&1; then
		# LeakSanitizer cannot run under ptrace (the SAN build of the suite).
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -y -qq -e trace=open,openat,openat2 -o "$out" "$@"
	else
		: >"$out"
		"$@"
	fi
}

test_expect_success 'a program that lives only in its own mount namespace is named after it exits (perf 6.1 prints its frames in hex)' '
	cp "$HELPERS/spin" prog && mkdir box &&
	"$PMREC" record -v -g -o c.data -- unshare -m sh -c \
		"mount -t tmpfs none $PWD/box && cp $PWD/prog $PWD/box/ && $PWD/box/prog 0.5" 2>err &&
	test ! -e box/prog &&
	test_grep "1 kept through the process.s root, 0 through its mapping" err &&
	names c.data rep &&
	test_grep "^ +[0-9.]+% +prog +\[\.\] spin$" rep &&
	"$PMREC" report -i c.data --stdio --no-children --sort sym -g caller >calls 2>/dev/null &&
	test_grep "alpha" calls && test_grep "beta" calls &&
	perf buildid-list -i c.data >ids 2>/dev/null &&
	test_grep "^$(elf_build_id prog) $PWD/box/prog$" ids &&
	{ perf report -i c.data --stdio --no-children --sort sym 2>/dev/null | grep -E "spin|0x0" || :; }
'

test_expect_success '--buildid-mmap: the namespace'"'"'s own program is kept, the host'"'"'s files it shares are not' '
	cp "$HELPERS/spin" prog && mkdir box &&
	"$PMREC" record --buildid-mmap -v -o c.data -- unshare -m sh -c \
		"mount -t tmpfs none $PWD/box && cp $PWD/prog $PWD/box/ && $PWD/box/prog 0.5" 2>err &&
	test_grep " 1 kept through the process.s root, 0 through its mapping" err &&
	names c.data rep &&
	test_grep "^ +[0-9.]+% +prog +\[\.\] spin$" rep
'

# The root: a directory for the container at the path of this test
# directory, its /usr/lib a symlink to it, absolute: inside the root it
# leads to the root's copy, on the host to the decoy at the same path.
make_root() {
	mkdir -p "root$PWD/shared" root/usr shared moved &&
	cp "$TMP_ROOT/inside" "root$PWD/shared/prog" &&
	ln -s "$PWD/shared" root/usr/lib &&
	cp "$TMP_ROOT/decoy" shared/prog && cp "$TMP_ROOT/decoy" moved/prog
}

test_expect_success 'a container whose /usr/lib is a symlink to a host directory: its own file is read, inside its root, never the host one of that path' '
	make_root &&
	traced trace "$PMREC" record -v -o c.data -- unshare -m chroot root \
		/usr/lib/prog relink "$PWD/shared" "$PWD/moved" 0.6 2>err &&
	test -L "root$PWD/shared" &&
	test_grep "1 kept through the process.s root, 0 through its mapping" err &&
	names c.data rep &&
	test_grep "^ +[0-9.]+% +prog +\[\.\] inside_work$" rep &&
	! grep -q decoy rep &&
	perf buildid-list -i c.data >ids 2>/dev/null &&
	test_grep "^$(elf_build_id "$TMP_ROOT/inside") $PWD/shared/prog$" ids &&
	! grep -q "$(elf_build_id "$TMP_ROOT/decoy")" ids &&
	! grep -E "<$PWD/(shared|moved)/prog>" trace
'

# The program replaces itself as soon as it runs; a drain pass that sees
# its MMAP2 record before that (now and then) finds the file itself in
# the root.  Otherwise the symlink leads to the root's /etc/shadow, which
# is none, and the file is read through the mapping.
test_expect_success 'a container whose program is then a symlink to /etc/shadow: named, nothing of the host file opened or kept' '
	mkdir -p root/opt/app && cp "$TMP_ROOT/inside" root/opt/app/prog &&
	traced trace "$PMREC" record -v -o c.data -- unshare -m chroot root \
		/opt/app/prog shadow /opt/app/prog /etc/shadow 0.6 2>err &&
	test "$(readlink root/opt/app/prog)" = /etc/shadow &&
	test_grep "(1 kept through the process.s root, 0|0 kept through the process.s root, 1) through its mapping" err &&
	names c.data rep &&
	test_grep "^ +[0-9.]+% +prog +\[\.\] inside_work$" rep &&
	! grep "</etc/shadow>" trace &&
	first=$(head -n 1 /etc/shadow) && test -n "$first" &&
	! grep -q -F "$first" c.data
'

test_expect_success 'a program replaced (cp a b && mv b prog) while it runs: its own build id and names, not the new file'"'"'s' '
	cp "$HELPERS/spin" prog &&
	want=$(elf_build_id prog) && new=$(elf_build_id "$HELPERS/calltree") &&
	test -n "$want" && test -n "$new"
	./prog 3 & pid=$!
	sleep 0.2
	"$PMREC" record -p "$pid" -v --duration=1.2 -o r.data 2>err & rec=$!
	wait_until test -e r.data && sleep 0.3 &&
	cp "$HELPERS/calltree" prog.new && mv prog.new prog &&
	rc=0 && wait "$rec" || rc=$?
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || :
	test_equal 0 "$rc" "record status" &&
	test_grep "0 kept through the process.s root, 1 through its mapping" err &&
	perf buildid-list -i r.data >ids 2>/dev/null &&
	test_grep "^$want .*/prog$" ids && ! grep -q "^$new" ids &&
	names r.data rep &&
	test_grep "^ +[0-9.]+% +prog +\[\.\] spin$" rep
'

# Replaced after the recorder first saw it, then exited before the end:
# held through its mapping when its link count fell (inotify), read at the
# end.
test_expect_success 'a program replaced while it runs and gone before the end: its own id and names' '
	cp "$HELPERS/spin" prog &&
	want=$(elf_build_id prog) && new=$(elf_build_id "$HELPERS/calltree") &&
	"$PMREC" record -v -o w.data -- sh -c "./prog 0.8 & sleep 0.4;
		cp $HELPERS/calltree prog.new && mv prog.new prog; wait; sleep 0.3" 2>err &&
	test_grep "through its mapping \(1 of the [0-9]+ watched at their paths, once replaced\)" err &&
	perf buildid-list -i w.data >ids 2>/dev/null &&
	test_grep "^$want .*/prog$" ids && ! grep -q "^$new" ids &&
	names w.data rep &&
	test_grep "^ +[0-9.]+% +prog +\[\.\] spin$" rep
'

test_expect_success 'a program deleted while it runs and gone before the end: named' '
	cp "$HELPERS/spin" prog &&
	"$PMREC" record -v -o d.data -- sh -c "./prog 0.8 & sleep 0.4; rm prog; wait" 2>err &&
	test_grep "\(1 of the [0-9]+ watched at their paths, once replaced\)" err &&
	names d.data rep &&
	test_grep "^ +[0-9.]+% +prog +\[\.\] spin$" rep
'

# Report finds a mapping's build id by its path: two files at one path, in
# two namespaces, would name each other's frames.
test_expect_success 'two containers with other programs at one path: neither named with the other'"'"'s symbols' '
	mkdir box &&
	"$PMREC" record -v -o c.data -- sh -c "
		unshare -m sh -c \"mount -t tmpfs none $PWD/box && cp $TMP_ROOT/inside $PWD/box/prog &&
			$PWD/box/prog name in_a - 0.5\" &
		unshare -m sh -c \"mount -t tmpfs none $PWD/box && cp $TMP_ROOT/decoy $PWD/box/prog &&
			$PWD/box/prog name in_b - 0.5\" &
		wait" 2>err &&
	test_grep "2 mapped files kept from other mount namespaces share their path" err &&
	names c.data rep &&
	test_grep "^ +[0-9.]+% +in_a " rep && test_grep "^ +[0-9.]+% +in_b " rep &&
	! grep -E "in_a +\[\.\] decoy_work|in_b +\[\.\] inside_work" rep
'

test_done
