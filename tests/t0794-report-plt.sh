#!/bin/sh
# A sample in a PLT stub names the function the stub calls, "name@plt", as
# perf and objdump name it: a program that calls two functions of its own
# library through its PLT in a loop (one with a C++ name, demangled
# before the suffix), recorded; report's rows are perf report's, and dump
# and the folded stacks name the stubs.  (test-dso checks every stub of
# a program and of libc against objdump.)
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
	void cbump(void);
	void bump(int i) __asm__("_Z4bumpi");
	int main(void)
	{
		long i;

		/* No clock call: its vDSO frames would be rows too. */
		for (i = 0; i < 100000000; i++) {
			cbump();
			bump(i);
		}
		return 0;
	}
	EOF
	gcc -O1 -shared -fPIC -o libbump.so lib.c &&
	gcc -O1 -Wl,-z,lazy -o plt main.c -L. -lbump -Wl,-rpath,"$T" &&
	objdump -d -j .plt plt >plt.dis &&
	test_grep "<cbump@plt>:" plt.dis &&
	c=$(sed -n "s/^0*\([0-9a-f]*\) <cbump@plt>:/\1/p" plt.dis) &&
	b=$(sed -n "s/^0*\([0-9a-f]*\) <_Z4bumpi@plt>:/\1/p" plt.dis) &&
	# Under load one stub can go unsampled for a whole run (the CPU is
	# interrupted where it pleases): record until each holds samples, by
	# their raw addresses, so that the tests below test the names.
	for try in 1 2 3 4 5; do
		"$PMREC" record -q -F 5000 -o plt.data -- "$T/plt" &&
		"$PMREC" dump plt.data >raw &&
		awk -v c=$((0x$c)) -v b=$((0x$b)) -v f="$T/plt" "
			function hex(s,  n, i) {
				for (i = 3; i <= length(s); i++)
					n = n * 16 + index(\"0123456789abcdef\", substr(s, i, 1)) - 1
				return n
			}
			/ MMAP2 / && \$NF == \"filename=\" f && / prot=0x5 / {
				split(\$0, kv, /[ =]/)
				for (i = 1; i < length(kv); i++) {
					if (kv[i] == \"addr\") a = hex(kv[i + 1])
					if (kv[i] == \"pgoff\") o = hex(kv[i + 1])
					if (kv[i] == \"len\") l = hex(kv[i + 1])
				}
			}
			/ SAMPLE / && match(\$0, / ip=0x[0-9a-f]+/) {
				ip = hex(substr(\$0, RSTART + 4, RLENGTH - 4))
				if (ip >= a && ip < a + l) {
					off = ip - a + o
					if (off >= c && off < c + 16) nc++
					if (off >= b && off < b + 16) nb++
				}
			}
			END { exit !(nc > 0 && nb > 0) }" raw && break
		test $try -lt 5 || { echo "a stub unsampled in 5 recordings"; exit 1; }
	done
'

test_expect_success 'report names both stubs, the C++ one demangled' '
	"$PMREC" report -i "$T/plt.data" -s dso,sym >out &&
	test_grep "plt  *\[\.\] cbump@plt\$" out &&
	test_grep "plt  *\[\.\] bump@plt\$" out
'

# perf 6.1 stretches the sizeless _init before the PLT over it, and which
# of the two names a stub then depends on the shape of its symbol tree
# (perf 6.2 cuts _init short): the program's stub samples are perf's
# _init or name@plt rows, sample for sample.  libc's stubs perf 6.1 names
# after other stubs' functions (pmrec-report(1), NOTES).
test_expect_success 'the rows are perf report'"'"'s; the stubs hold perf'"'"'s samples there' '
	perf report -i "$T/plt.data" -n -s dso,sym --stdio 2>/dev/null | grep "%" | grep -v "Tip:" >want &&
	"$PMREC" report -i "$T/plt.data" -n -s dso,sym | grep "%" >got &&
	stubs() {
		awk "\$3 == \"plt\" && (\$5 == \"_init\" || \$5 ~ /@plt\$/) { n += \$2 } END { print n + 0 }" "$1"
	} &&
	test_at_least 10 "$(stubs got)" "samples in the stubs" &&
	test_equal "$(stubs want)" "$(stubs got)" "samples in the program'"'"'s stubs" &&
	others() {
		awk "!(\$3 == \"plt\" && (\$5 == \"_init\" || \$5 ~ /@plt\$/)) && !(\$3 == \"libc.so.6\" && \$5 ~ /@plt\$/)" "$1"
	} &&
	others want >want.rest && others got >got.rest &&
	test_at_least 3 "$(wc -l <got.rest)" "other rows" &&
	test_cmp want.rest got.rest
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
