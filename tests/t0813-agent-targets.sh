#!/bin/sh
# pmrec agent's targets and call chains as pmrec record's: -u USER (only
# the user's processes), -G NAME (only a cgroup's tasks, in a perf_event
# hierarchy this script mounts and removes), --no-call-graph (one frame a
# sample); the combinations record refuses.
. "$(dirname "$0")/test-lib.sh"
. "$SRC_DIR/tests/lib-agent.sh"

NAME=pmrec-t0813-$$
CG_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/pmrec-cg.XXXXXX")
CG=pmrec-t0813
export NAME CG_ROOT CG

cleanup() {
	for p in "$TMP_ROOT"/*.pid; do
		[ -e "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	wait 2>/dev/null
	if mountpoint -q "$CG_ROOT"; then
		for i in 1 2 3 4 5 6 7 8 9 10; do
			rmdir "$CG_ROOT/$CG" 2>/dev/null
			[ -d "$CG_ROOT/$CG" ] || break
			sleep 0.1
		done
		umount "$CG_ROOT"
	fi
	rmdir "$CG_ROOT"
	userdel -f "$NAME" >/dev/null 2>&1
	rm -rf "$TMP_ROOT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# agent_files DIR ARGS...: the agent with ARGS writing 1 s windows into DIR
# until two are there, then SIGTERM; its messages in DIR.log.
agent_files() {
	d=$1
	shift
	mkdir -p "$d"
	"$PMREC" agent --output-dir="$d" --interval=1 --app-name=t "$@" 2>"$d.log" &
	echo $! >"$TMP_ROOT/agent.pid"
	wait_until sh -c "ls \"$d\"/*.pb.gz 2>/dev/null | sed -n 2p | grep -q ."
	kill -TERM "$(cat "$TMP_ROOT/agent.pid")"
	wait "$(cat "$TMP_ROOT/agent.pid")"
	rm "$TMP_ROOT/agent.pid"
	decodes "$d"
}

# pids_of DIR: the pid labels of DIR's samples, one per line.
pids_of() {
	cat "$1"/*.raw | sed -n "s/^ *pid:\[\([0-9]*\)\].*/\1/p" | sort -u
}

# spin_bg NAME SECONDS: spin in the background, its pid in $TMP_ROOT/NAME.pid.
spin_bg() {
	"$HELPERS/spin" "$2" >/dev/null &
	echo $! >"$TMP_ROOT/$1.pid"
}

test_expect_success '--no-call-graph: one location a sample; -g: stacks' '
	agent_files flat --no-call-graph &&
	awk "/^ +[0-9]+ +[0-9]+: / { n++; if (NF != 3) bad++ } END { print n + 0, bad + 0 }" \
		flat/*.raw >counts &&
	read n bad <counts &&
	test_at_least 50 "$n" "samples" &&
	test_equal 0 "$bad" "samples of more than one location" &&
	agent_files deep &&
	awk "/^ +[0-9]+ +[0-9]+: / && NF > 4 { deep++ } END { print deep + 0 }" deep/*.raw >deep.n &&
	test_at_least 10 "$(cat deep.n)" "samples with stacks (the default)"
'

if useradd -M -N -r -s /usr/sbin/nologin "$NAME"; then
	USER_ID=$(id -u "$NAME")
	export USER_ID
fi

test_expect_success '-u USER: only the user process, not root beside it' '
	test -n "${USER_ID:-}" || { echo "useradd failed"; exit 1; }
	spin_bg root 20
	setpriv --reuid="$USER_ID" --regid="$(id -g "$NAME")" --clear-groups -- \
		"$HELPERS/spin" 20 >/dev/null &
	echo $! >"$TMP_ROOT/user.pid"
	wait_until sh -c "test \"\$(stat -c %u /proc/$(cat "$TMP_ROOT/user.pid"))\" = $USER_ID"
	agent_files user -u "$NAME" &&
	test_equal "$(cat "$TMP_ROOT/user.pid")" "$(pids_of user)" "sample pids" &&
	kill "$(cat "$TMP_ROOT/root.pid")" "$(cat "$TMP_ROOT/user.pid")" &&
	rm "$TMP_ROOT/root.pid" "$TMP_ROOT/user.pid"
'

test_expect_success '-G NAME: only the cgroup task, not the one outside' '
	mount -t cgroup -o perf_event none "$CG_ROOT" &&
	mkdir "$CG_ROOT/$CG" &&
	spin_bg inside 20 &&
	spin_bg outside 20 &&
	echo "$(cat "$TMP_ROOT/inside.pid")" >"$CG_ROOT/$CG/cgroup.procs" &&
	agent_files cg -G "$CG" &&
	test_equal "$(cat "$TMP_ROOT/inside.pid")" "$(pids_of cg)" "sample pids" &&
	kill "$(cat "$TMP_ROOT/inside.pid")" "$(cat "$TMP_ROOT/outside.pid")" &&
	rm "$TMP_ROOT/inside.pid" "$TMP_ROOT/outside.pid"
'

test_expect_success 'errors: -u with -p or -C, -G with -u, an unknown user, a missing cgroup' '
	test_expect_code 64 "$PMREC" agent --output-dir=. -u root -p $$ 2>e1 &&
	test_grep "exclude each other" e1 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. -u root -C 0 2>e2 &&
	test_grep "exclude each other" e2 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. -G x -u root 2>e3 &&
	test_grep "exclude each other" e3 &&
	test_expect_code 64 "$PMREC" agent --output-dir=. -u pmrec-no-such-user 2>e4 &&
	test_grep "unknown user .pmrec-no-such-user." e4 &&
	test_expect_code 1 "$PMREC" agent --output-dir=. -G pmrec-no-such-cgroup 2>e5 &&
	test_grep "cannot open cgroup .pmrec-no-such-cgroup." e5
'

test_done
