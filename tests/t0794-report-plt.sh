#!/bin/sh
# A sample in a PLT stub names the function the stub calls, "name@plt", as
# perf and objdump name it: a program that calls two functions of its own
# library through its PLT in a loop (one with a C++ name, demangled
# before the suffix), recorded; report's rows are perf report's, and dump
# and the folded stacks name the stubs.
. "$(dirname "$0")/test-lib.sh"

test_require_perf_event
test_require_perf_tool
command -v gcc >/dev/null 2>&1 || test_skip_all "gcc is not installed"

T=$TMP_ROOT

test_expect_success 'setup: a program calling its library through the PLT, recorded' '
	cd "$T" &&
	cat >lib.c <<-\EOF &&
	void cbump(void) {}
	/* A C++ name: bump(int). */
	void bump(int i) __asm__("_Z4bumpi");
	void bump(int i) { (void)i; }
	EOF
	cat >main.c <<-\EOF &&
	#include <time.h>
	void cbump(void);
	void bump(int i) __asm__("_Z4bumpi");
	int main(void)
	{
		struct timespec t;
		long i;

		/* 0.3 s of CPU time, however loaded the machine is. */
		do {
			for (i = 0; i < 1000000; i++) {
				cbump();
				bump(i);
			}
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		} while (t.tv_sec == 0 && t.tv_nsec < 300000000);
		return 0;
	}
	EOF
	gcc -O1 -shared -fPIC -o libbump.so lib.c &&
	gcc -O1 -Wl,-z,lazy -o plt main.c -L. -lbump -Wl,-rpath,"$T" &&
	objdump -d -j .plt plt >plt.dis &&
	test_grep "<cbump@plt>:" plt.dis &&
	"$PMREC" record -q -F 5000 -o plt.data -- "$T/plt"
'

test_expect_success 'report names both stubs, the C++ one demangled' '
	"$PMREC" report -i "$T/plt.data" -s dso,sym >out &&
	test_grep "plt  *\[\.\] cbump@plt\$" out &&
	test_grep "plt  *\[\.\] bump@plt\$" out
'

test_expect_success 'the rows are perf report'"'"'s' '
	perf report -i "$T/plt.data" -s dso,sym --stdio 2>/dev/null | grep "%" >want &&
	"$PMREC" report -i "$T/plt.data" -s dso,sym | grep "%" >got &&
	test_at_least 4 "$(wc -l <got)" "rows" &&
	test_cmp want got
'

test_expect_success 'dump and the folded stacks name the stubs' '
	"$PMREC" dump --json --type sample "$T/plt.data" >dump &&
	test_grep "\"sym\":\"cbump@plt\"" dump &&
	"$PMREC" dump --folded "$T/plt.data" >folded &&
	test_grep "^plt;bump@plt [0-9]*\$" folded
'

test_expect_success '--no-demangle keeps the mangled name before the suffix' '
	"$PMREC" report -i "$T/plt.data" -s sym --no-demangle >out &&
	test_grep "\[\.\] _Z4bumpi@plt\$" out
'

test_done
