#!/bin/sh
# The cache of the running kernel's symbols ($XDG_CACHE_HOME/pmrec): report's
# rows and call graphs are the same bytes with the cache written, used, or
# bypassed (--kallsyms=/proc/kallsyms); a cache is used while its key holds
# (a symbol renamed inside it shows), and not once the key is another
# kernel's build id, nor when it is another user's or group-writable.
. "$(dirname "$0")/test-lib.sh"

test_require_root
test_require_perf_event

export XDG_CACHE_HOME="$TMP_ROOT/cache"
R=$TMP_ROOT/rec.data
C=$XDG_CACHE_HOME/pmrec

# report ARGS...: the rows and call graphs of the recording, to stdout.
report() {
	"$PMREC" report --no-children -g caller --percent-limit=0 "$@" "$R" 2>/dev/null
}

# dd's samples alone (not -a): the reports below, minutes apart, must not
# depend on other scripts' programs, which they remove as they end.
test_expect_success 'record a -g file with kernel samples' '
	"$PMREC" record -g -F 2000 -o "$R" -- \
		dd if=/dev/zero of=/dev/null bs=512 count=400000 2>/dev/null &&
	report --kallsyms=/proc/kallsyms >"$TMP_ROOT/off.txt" &&
	test_grep "\[k\]" "$TMP_ROOT/off.txt"
'

test_expect_success 'the first report writes the cache: the same bytes as without it' '
	report >first.txt &&
	test_cmp "$TMP_ROOT/off.txt" first.txt &&
	set -- "$C"/kallsyms-* &&
	test -f "$1" &&
	test "$(stat -c %a "$1")" = 600 &&
	test "$(stat -c %a "$C")" = 700
'

# /proc/kallsyms may still be read after the cache: for an address the
# cache cannot vouch for (a [bpf] or trampoline symbol, a module's last).
test_expect_success 'the next one reads the cache, not /proc/kallsyms: the same bytes' '
	report >second.txt &&
	test_cmp "$TMP_ROOT/off.txt" second.txt &&
	if command -v strace >/dev/null 2>&1; then
		# LeakSanitizer cannot run under ptrace (the SAN build of the suite).
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -e trace=openat -o trace.txt "$PMREC" report "$R" >/dev/null 2>&1 &&
		first=$(grep -o -m 1 "pmrec/kallsyms-\|/proc/kallsyms" trace.txt) &&
		test_equal "pmrec/kallsyms-" "$first" "the first kernel symbols read"
	fi
'

# The hottest kernel symbol, renamed in the cache (same length): a report
# that says the new name read the cache.
rename_hottest() {
	sym=$(awk "/\\[k\\]/ { print \$NF; exit }" "$TMP_ROOT/off.txt")
	new=$(echo "$sym" | tr "a-z_0-9" "Z")
	perl -0777 -pi -e "s/\\0\\Q$sym\\E\\0/\\0$new\\0/" "$C"/kallsyms-* &&
	echo "$new"
}

test_expect_success 'a cache whose key matches is used (a renamed symbol shows)' '
	new=$(rename_hottest) &&
	test -n "$new" &&
	report >renamed.txt &&
	test_grep "$new" renamed.txt &&
	! cmp -s "$TMP_ROOT/off.txt" renamed.txt
'

test_expect_success 'another kernel build id in the key: not used, written again' '
	new=$(rename_hottest) &&
	perl -0777 -pi -e "s/build-id ([0-9a-f])/\"build-id \" . (\$1 eq \"0\" ? \"1\" : \"0\")/e" \
		"$C"/kallsyms-* &&
	report >stale.txt &&
	test_cmp "$TMP_ROOT/off.txt" stale.txt &&
	! grep -q "$new" "$C"/kallsyms-*
'

test_expect_success 'a cache of another user is not used' '
	new=$(rename_hottest) &&
	chown 65534 "$C"/kallsyms-* &&
	report >other.txt &&
	test_cmp "$TMP_ROOT/off.txt" other.txt &&
	test "$(stat -c %u "$C"/kallsyms-*)" = 0
'

test_expect_success 'a group-writable cache is not used' '
	new=$(rename_hottest) &&
	chmod 620 "$C"/kallsyms-* &&
	report >gw.txt &&
	test_cmp "$TMP_ROOT/off.txt" gw.txt &&
	test "$(stat -c %a "$C"/kallsyms-*)" = 600
'

test_expect_success 'flame graph, pprof and --json: the same bytes with the cache' '
	for a in --json --flamegraph=- "--pprof=-"; do
		"$PMREC" report $a --kallsyms=/proc/kallsyms "$R" >off 2>/dev/null &&
		"$PMREC" report $a "$R" >on 2>/dev/null &&
		cmp off on || exit 1
	done
'

test_done
