#!/bin/sh
# -u USER: the processes of a user this script creates (and removes), and
# only theirs, while root runs the same workload beside them; as perf
# record -u does.
. "$(dirname "$0")/test-lib.sh"
test_require_root
test_require_perf_event
test_require_perf_tool

NAME=pmrec-t0181-$$
cleanup() {
	userdel -f "$NAME" >/dev/null 2>&1
	rm -rf "$TMP_ROOT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
useradd -M -N -r -s /usr/sbin/nologin "$NAME" ||
	test_skip_all "useradd cannot create a user"
USER_ID=$(id -u "$NAME")
export NAME USER_ID

# as_user CMD...: CMD as the user, in the background, exec'd by the time
# this returns (before its exec /proc/PID is still root's); its pid in $!.
as_user() {
	setpriv --reuid="$USER_ID" --regid="$(id -g "$NAME")" --clear-groups -- "$@" &
	tries=0
	while [ "$(stat -c %u /proc/$!)" != "$USER_ID" ] && [ $tries -lt 500 ]; do
		sleep 0.01
		tries=$((tries + 1))
	done
}

# The pids that samples of a file come from, one per line.
sample_pids() {
	perf script -i "$1" -F pid 2>/dev/null | awk '{ print $1 }' | sort -u
}

test_expect_success '-u NAME: only the user process samples, as perf record -u' '
	"$HELPERS/spin" 10 & root=$! &&
	as_user "$HELPERS/spin" 10 && user=$! &&
	"$PMREC" -u "$NAME" -o u.data -- sleep 0.4 2>err &&
	perf record -q -u "$NAME" -e cpu-clock -o p.data -- sleep 0.4 &&
	kill $root $user && wait &&
	test_equal "$user" "$(sample_pids u.data)" "pmrec sample pids" &&
	test_equal "$user" "$(sample_pids p.data)" "perf sample pids" &&
	test "$(perf_sample_count u.data)" -gt 100 &&
	test "$(perf_sample_count p.data)" -gt 100 &&
	perf script -i u.data -F comm 2>/dev/null | awk "{ print \$1 }" | sort -u >comms &&
	test_equal spin "$(cat comms)" "command"
'

test_expect_success '-u UID: a number names the same user' '
	as_user "$HELPERS/spin" 10 && user=$! &&
	"$PMREC" -q -u "$USER_ID" -o u.data -- sleep 0.3 &&
	kill $user && wait &&
	test_equal "$user" "$(sample_pids u.data)" "sample pids"
'

test_expect_success '-u follows the children the user processes start later' '
	# The child starts a second in, after pmrec has set up (slowly under ASan).
	as_user sh -c "sleep 1; exec \"$HELPERS/spin\" 0.4 & wait" && user=$! &&
	"$PMREC" -q -u "$NAME" -o u.data --duration=2.5 &&
	wait &&
	perf script -i u.data -F comm,pid 2>/dev/null | awk "\$1 == \"spin\" { print \$2 }" |
		sort -u >spins &&
	test_equal 1 "$(wc -l <spins)" "spin processes" &&
	test "$(cat spins)" != "$user" &&
	test "$(grep -c . spins)" = 1 &&
	test "$(perf script -i u.data -F comm 2>/dev/null | grep -c spin)" -gt 100
'

test_expect_success 'without -u the root workload is recorded too (the filter is real)' '
	"$HELPERS/spin" 10 & root=$! &&
	as_user "$HELPERS/spin" 10 && user=$! &&
	"$PMREC" -q -a -o a.data -- sleep 0.3 &&
	kill $root $user && wait &&
	sample_pids a.data >pids &&
	grep -q -x "$root" pids && grep -q -x "$user" pids
'

test_expect_success 'a user without processes is an error' '
	test_expect_code 1 "$PMREC" -u "$NAME" -o n.data -- true 2>err &&
	test_grep "user .$NAME. \(uid $USER_ID\) has no process to record" err &&
	test ! -e n.data
'

test_expect_success 'an unknown user and -u with -a are usage errors' '
	test_expect_code 64 "$PMREC" -u pmrec-no-such-user -o n.data -- true 2>err &&
	test_grep "unknown user .pmrec-no-such-user." err &&
	test_expect_code 64 "$PMREC" -u "$NAME" -a -o n.data -- true 2>err &&
	test_grep "exclude each other" err
'

test_done
