#!/bin/sh
# --control=fifo:CTL[,ACK] | fd:CTL[,ACK] and -D/--delay: perf's words, acked.
. "$(dirname "$0")/test-lib.sh"
test_require_perf_event
test_require_perf_tool

# The next line on fd 8 (the ack channel), or "timeout".
next_ack() {
	timeout 10 sh -c 'read -r l && echo "$l"' <&8 || echo timeout
}

# say WORD: sends WORD on ctl, checks the answer is WANT (default ack).
say() {
	echo "$1" >ctl
	got=$(next_ack)
	test_equal "${2:-ack}" "$got" "answer to $1"
}

# Samples of processes named COMM in FILE.
comm_samples() {
	perf script -F comm -i "$2" 2>/dev/null | awk -v c="$1" '$1 == c { n++ } END { print n + 0 }'
}

test_expect_success 'the flight recorder steered: enable, snapshot, disable, snapshot, stop' '
	rm -f ctl ack && mkfifo ctl ack &&
	exec 8<>ack &&
	for n in beforeenable enabled disabled; do cp "$HELPERS/spin" $n; done
	"$PMREC" --overwrite -a -q -o fr.data --control=fifo:ctl,ack --delay=-1 2>err &
	pid=$! &&
	say ping &&
	./beforeenable 0.3 &&
	say enable &&
	./enabled 0.3 &&
	say snapshot &&
	say disable &&
	./disabled 0.3 &&
	say snapshot &&
	say stop &&
	wait $pid &&
	set -- fr.data.* &&
	test "$#" -ge 2 &&
	echo "snapshots: $*" &&
	test "$(comm_samples enabled $1)" -gt 0 &&
	test "$(comm_samples enabled $2)" -gt 0 &&
	test_equal 0 "$(comm_samples disabled $2)" "samples after the disable" &&
	for f in "$@"; do
		test_equal 0 "$(comm_samples beforeenable $f)" "samples before the enable in $f" || exit 1
	done
'

test_expect_success 'fd:CTL,ACK: unknown words get an error line and are ignored' '
	rm -f c a && mkfifo c a &&
	exec 3<>c 8<>a
	"$PMREC" -a -q -o fd.data --control=fd:3,8 2>err &
	pid=$! &&
	echo ping >c && test_equal ack "$(next_ack)" ping &&
	echo frobnicate >c &&
	test_equal "error: unknown command '\''frobnicate'\'' ignored" "$(next_ack)" &&
	echo snapshot >c &&
	test_equal "error: snapshot needs --overwrite or --switch-output" "$(next_ack)" &&
	echo stop >c && test_equal ack "$(next_ack)" stop &&
	wait $pid &&
	test_grep "unknown command .frobnicate." err &&
	test "$(perf_sample_count fd.data)" -gt 0
'

test_expect_success 'an ack reader that goes away: said once, the recording goes on' '
	rm -f c && mkfifo c &&
	exec 3<>c
	{ "$PMREC" -a -q -o g.data --control=fd:3,1 2>err; echo $? >rc; } | true &
	while [ ! -e g.data ]; do sleep 0.01; done
	echo ping >c && echo ping >c && echo stop >c &&
	wait &&
	test_equal 0 "$(cat rc)" "exit status" &&
	test_equal 1 "$(grep -c "cannot write to the ack channel: Broken pipe; no more acks" err)" &&
	test "$(perf_sample_count g.data)" -gt 0
'

test_expect_success 'snapshot with --switch-output starts a new file, as SIGUSR2 does' '
	rm -f ctl ack && mkfifo ctl ack &&
	exec 8<>ack
	"$PMREC" -a -q -z --switch-output -o sw.data --control=fifo:ctl,ack 2>err &
	pid=$! &&
	say ping && say snapshot && say snapshot && say stop &&
	wait $pid &&
	set -- sw.data.* &&
	test_equal 3 "$#" files &&
	for f in "$@"; do perf report --stats -i $f >/dev/null 2>&1 || exit 1; done
'

test_expect_success '-D: events stay disabled until the delay has passed' '
	"$PMREC" -D 100000 -q -o d.data -- "$HELPERS/spin" 0.3 &&
	test_equal 0 "$(perf_sample_count d.data)" "samples within the delay" &&
	"$PMREC" -D 1 -q -o d1.data -- "$HELPERS/spin" 0.3 &&
	test "$(perf_sample_count d1.data)" -gt 0
'

test_expect_success 'bad inputs: a missing fifo, a closed ack fd, bad specs and delays' '
	test_expect_code 1 "$PMREC" -a -q -o x.data --control=fifo:nope -- true 2>e1 &&
	test_grep "cannot open the control fifo .nope.: No such file" e1 &&
	rm -f c && mkfifo c &&
	test_expect_code 1 "$PMREC" -a -q -o x.data --control=fifo:c,nope -- true 2>e2 &&
	test_grep "ack fifo .nope." e2 &&
	exec 3<>c &&
	test_expect_code 1 "$PMREC" -a -q -o x.data --control=fd:3,9 -- true 2>e3 9>&- &&
	test_grep "cannot open the ack fd .9.: Bad file descriptor" e3 &&
	test_expect_code 64 "$PMREC" -a -q -o x.data --control=pipe:c -- true 2>e4 &&
	test_expect_code 64 "$PMREC" -a -q -o x.data --control=fd:3,4,5 -- true 2>e5 &&
	test_expect_code 64 "$PMREC" -D -2 -q -o x.data -- true 2>e6 &&
	test_expect_code 64 "$PMREC" --delay=soon -q -o x.data -- true 2>e7 &&
	test_grep "bad delay" e7
'

test_done
