#!/bin/sh
# perf record's options that only change the events or when recording stops
# (--all-user, --all-kernel, -d, --sample-cpu, -T, --switch-events,
# --max-size), each against perf record with the same option and workload.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

# Samples in user space and in the kernel (by address) of a perf.data file.
ip_modes() {
	perf script -i "$1" -F ip 2>/dev/null |
		awk '{ if ($1 ~ /^ffff/) k++; else u++ } END { printf "user=%d kernel=%d\n", u, k }'
}

# The attr line of a file's first event, as perf reads it.
attr_of() {
	perf evlist -v -i "$1" 2>/dev/null | head -n 1
}

# perf record -B: build ids play no part here, and perf 6.1 reading them at
# the end of a recording beside the rest of the suite once died of a build
# id longer than its buffer ("assertion failed at util/build-id.c",
# "stack smashing detected").

# 300000 getppid calls: mostly kernel time, some user time.
SYSCALLS="$HELPERS/seqcall 300000"

test_expect_success '--all-user: user samples only, exclude_kernel as perf sets it' '
	test_expect_code 0 "$PMREC" -q --all-user -o u.data -- $SYSCALLS &&
	test_expect_code 0 perf record -q -B --all-user -e cpu-clock -o p.data -- $SYSCALLS &&
	attr_of u.data >a && attr_of p.data >pa &&
	test_grep "exclude_kernel: 1" a && test_grep "exclude_kernel: 1" pa &&
	! grep "exclude_user" a pa &&
	test_equal kernel=0 "$(ip_modes u.data | cut -d" " -f2)" "pmrec kernel samples" &&
	test_equal kernel=0 "$(ip_modes p.data | cut -d" " -f2)" "perf kernel samples" &&
	test_at_least 1 "$(perf_sample_count u.data)" "pmrec samples"
'

test_expect_success 'without it the same workload has kernel samples' '
	test_expect_code 0 "$PMREC" -q -o k.data -- $SYSCALLS &&
	test_at_least 1 "$(ip_modes k.data | sed "s/.*kernel=//")" "kernel samples"
'

test_expect_success '--all-kernel: kernel samples only, over a :u modifier' '
	test_expect_code 0 "$PMREC" -q --all-kernel -e cpu-clock:u -o k.data -- $SYSCALLS &&
	test_expect_code 0 perf record -q -B --all-kernel -e cpu-clock:u -o p.data -- $SYSCALLS &&
	attr_of k.data >a && attr_of p.data >pa &&
	test_grep "exclude_user: 1" a && test_grep "exclude_user: 1" pa &&
	! grep "exclude_kernel" a pa &&
	test_equal user=0 "$(ip_modes k.data | cut -d" " -f1)" "pmrec user samples" &&
	test_equal user=0 "$(ip_modes p.data | cut -d" " -f1)" "perf user samples" &&
	test_at_least 1 "$(perf_sample_count k.data)" "pmrec samples"
'

test_expect_success '--all-user and --all-kernel together are a usage error' '
	test_expect_code 64 "$PMREC" --all-user --all-kernel -o x.data -- true 2>err &&
	test_grep "exclude each other" err &&
	test ! -e x.data
'

test_expect_success '-d: every page fault sample has its address, as perf script reads it' '
	test_expect_code 0 "$PMREC" -q -d -e page-faults -c 1 -o d.data -- "$HELPERS/spin" 0.05 &&
	test_expect_code 0 perf record -q -B -d -e page-faults -c 1 -o p.data -- "$HELPERS/spin" 0.05 &&
	test_grep "sample_type: [A-Z|]*ADDR" "$(attr_of d.data >a; echo a)" &&
	test_grep "sample_type: [A-Z|]*ADDR" "$(attr_of p.data >pa; echo pa)" &&
	test_grep "mmap_data: 1" a &&
	perf script -i d.data -F addr 2>/dev/null | awk "{ print \$1 }" >perf.addrs &&
	"$PMREC" dump --type=sample d.data | sed -n "s/.* addr=0x\([0-9a-f]*\).*/\1/p" >dump.addrs &&
	test_equal "$(perf_sample_count d.data)" "$(wc -l <perf.addrs)" "addresses" &&
	test_cmp perf.addrs dump.addrs &&
	! grep -x -E "0+" perf.addrs &&
	test_at_least 11 "$(wc -l <perf.addrs)" "page fault addresses"
'

test_expect_success '--sample-cpu and -T are accepted: CPU and TIME are always sampled' '
	test_expect_code 0 "$PMREC" -q --sample-cpu -T -o c.data -- "$HELPERS/spin" 0.05 &&
	test_expect_code 0 perf record -q -B --sample-cpu -T -e cpu-clock -o p.data -- "$HELPERS/spin" 0.05 &&
	for f in c.data p.data; do
		attr_of $f >a &&
		test_grep "sample_type: [A-Z|]*TIME" a &&
		test_grep "sample_type: [A-Z|]*CPU" a || exit 1
	done &&
	test_expect_code 0 "$PMREC" -q --timestamp -o t.data -- true
'

# 5 sleeps: at least one switch out and one in each.
SLEEPER="sh -c \"for i in 1 2 3 4 5; do sleep 0.01; done\""

# SWITCH records of a file: perf report --stats, perf script, pmrec dump --stats.
switch_counts() {
	type=$2
	printf "%s %s %s\n" \
		"$(perf report --stats -i "$1" 2>/dev/null | awk -v t="$type events:" "index(\$0, t) { print \$3 }")" \
		"$(perf script --show-switch-events -i "$1" 2>/dev/null | grep -c "PERF_RECORD_$type\$\|PERF_RECORD_$type ")" \
		"$("$PMREC" dump --stats "$1" | awk -v t="$type" "\$1 == \"type\" && \$2 == t { n = \$3 } END { print n + 0 }")"
}

test_expect_success '--switch-events: SWITCH records, counted alike by perf and pmrec dump' '
	eval "\"\$PMREC\" -q --switch-events -o s.data -- $SLEEPER" &&
	eval "perf record -q --switch-events -e cpu-clock -o p.data -- $SLEEPER" &&
	test_grep "context_switch: 1" "$(attr_of s.data >a; echo a)" &&
	set -- $(switch_counts s.data SWITCH) &&
	test_equal "$1" "$2" "perf script vs perf report --stats" &&
	test_equal "$1" "$3" "pmrec dump --stats vs perf report --stats" &&
	test "$1" -ge 10 &&
	test "$(switch_counts p.data SWITCH | cut -d" " -f1)" -ge 10 &&
	"$PMREC" dump s.data | grep -c " SWITCH out=1" >outs &&
	test "$(cat outs)" -ge 5
'

test_expect_success '--switch-events with -a: SWITCH_CPU_WIDE records' '
	test_expect_code 0 "$PMREC" -q -a --switch-events -o s.data -- sleep 0.2 &&
	set -- $(switch_counts s.data SWITCH_CPU_WIDE) &&
	test_equal "$1" "$2" "perf script vs perf report --stats" &&
	test_equal "$1" "$3" "pmrec dump --stats vs perf report --stats" &&
	test "$1" -gt 0
'

test_expect_success 'no switch records without the option' '
	eval "\"\$PMREC\" -q -o n.data -- $SLEEPER" &&
	test_equal "0 0" "$(switch_counts n.data SWITCH | cut -d" " -f2-)" "perf script, pmrec dump"
'

# Every getppid call a sample: far more data than the limit.
STORM="-e raw_syscalls:sys_enter -c 1 -m 16 -- $HELPERS/seqcall 20000000"

test_expect_success '--max-size stops at the size and leaves a file perf reads' '
	"$PMREC" --max-size=256K -o m.data $STORM 2>err &&
	test_grep "reached --max-size=256K: recording stopped" err &&
	size=$(stat -c %s m.data) &&
	test "$size" -ge $((256 * 1024)) &&
	test "$size" -lt $((1024 * 1024)) &&
	samples=$(sed -n "s/.*wrote \([0-9]*\) samples.*/\1/p" err) &&
	test_equal "$samples" "$(perf_sample_count m.data)" "samples" &&
	perf script -i m.data >/dev/null 2>perr &&
	! grep -i -E "error|truncat|corrupt|unexpected" perr &&
	test_equal "$samples" "$("$PMREC" dump --stats m.data | awk "\$1 == \"total\" && \$2 == \"samples\" { print \$3 }")"
'

# perf exits with the workload's status: 143, the SIGTERM that ended it.
test_expect_success 'perf record --max-size on the same workload stops near the size too' '
	test_expect_code 143 perf record --max-size=256K -o p.data $STORM >/dev/null 2>perr &&
	test_grep "size limit reached" perr &&
	test "$(stat -c %s p.data)" -lt $((1024 * 1024)) &&
	test "$(perf_sample_count p.data)" -gt 0
'

test_expect_success '--max-size takes B, K, M and G as perf does; bad sizes are usage errors' '
	test_expect_code 0 "$PMREC" -q --max-size=100M -o b.data -- true &&
	test_expect_code 0 "$PMREC" -q --max-size=1G -o b.data -- true &&
	test_expect_code 0 "$PMREC" -q --max-size=400000B -o b.data -- true &&
	test_expect_code 64 "$PMREC" --max-size=0 -o b.data -- true 2>err &&
	test_grep "bad --max-size" err &&
	test_expect_code 64 "$PMREC" --max-size=12X -o b.data -- true 2>err &&
	test_expect_code 64 "$PMREC" --max-size=1M --overwrite -o b.data -- true 2>err &&
	test_grep "cannot be combined" err
'

test_done
