#!/bin/sh
# annotate shows a source file only if the annotated binary's owner could
# read it.  A program owned by nobody whose debug info names (by #line) a
# root-only file: a 0600 file in a 0700 directory, by absolute path, by a
# ../ path, and through a symlinked directory.  Root's annotate must not
# print its lines, and says which file it withheld; the same program owned
# by root shows them.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event
command -v gcc >/dev/null 2>&1 || test_skip_all "gcc is not installed"

D=$TMP_ROOT/owner
export D

# build NAME LINE-DIRECTIVE: a program whose hot loop's lines are named by
# the directive, owned by nobody, recorded.
build() {
	mkdir -p "$D/build/$1" && cd "$D/build/$1" &&
	cat >prog.c <<-EOF &&
	#include <stdlib.h>
	volatile unsigned long sink;
	__attribute__((noinline)) static void hot(unsigned long n)
	{
	$2
		unsigned long i, x = 1;
		for (i = 0; i < n; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
		sink = x;
	}
	int main(int argc, char **argv)
	{
		hot(argc > 1 ? strtoul(argv[1], 0, 10) : 1000);
		return 0;
	}
	EOF
	gcc -O1 -g -o prog prog.c &&
	chown nobody prog && chmod 0755 prog &&
	"$PMREC" record -q -o "$D/$1.data" -- ./prog 300000000 &&
	test -s "$D/$1.data"
}

test_expect_success 'setup: a root-only source in a 0700 directory, programs that name it' '
	mkdir -p "$D/private" "$D/build" &&
	chmod 0755 "$D" "$D/build" "$TMP_ROOT" &&
	for i in 1 2 3 4 5 6 7 8 9 10; do echo "ROOT-ONLY-SECRET line $i"; done >"$D/private/secret.c" &&
	chmod 0600 "$D/private/secret.c" && chmod 0700 "$D/private" &&
	ln -s private "$D/link" &&
	build abs "#line 3 \"$D/private/secret.c\"" &&
	build rel "#line 3 \"../../private/secret.c\"" &&
	build sym "#line 3 \"$D/link/secret.c\""
'

for kind in abs rel sym; do
	test_expect_success "nobody's binary, source named by $kind path: withheld and named" '
		"$PMREC" annotate -i "$D/'$kind'.data" hot >out 2>err &&
		grep -q "hot()" out &&
		! grep -q ROOT-ONLY-SECRET out &&
		grep -q "secret.c:[0-9]" out &&
		grep -q "note: source file .*secret.c. not shown: the binary.s owner (uid 65534) cannot read it" err
	'
done

test_expect_success 'JSON: no text of the withheld file either' '
	"$PMREC" annotate --json -i "$D/abs.data" hot >out.json 2>err &&
	grep -q "\"file\":\"[^\"]*secret.c\"" out.json &&
	! grep -q ROOT-ONLY-SECRET out.json
'

test_expect_success 'the same program owned by root: the source is shown' '
	chown root "$D/build/abs/prog" &&
	"$PMREC" annotate -i "$D/abs.data" hot >out 2>err &&
	grep -q "ROOT-ONLY-SECRET line" out &&
	! grep -q "not shown" err
'

test_done
