#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/smp/guest.sh: the scenarios, run inside the guest that bench/smp/run
# boots (busybox sh, every tool in /usr/bin).  Each result is one line on
# the console,
#
#   @R scen=S tool=T rep=R key=value ...
#
# which the host collects from the serial log; nothing else is kept.  The
# tools alternate inside every repetition, so both see the same guest.
#
# /bench/conf sets: NCPU, TOOLS, SCENARIOS, REPS and the scenarios' sizes.
set -u
. /bench/conf

W=/tmp/w
mkdir -p "$W"

say() { echo "@R $*"; }
ct() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" "$2" 2>/dev/null | head -1; }

# samples and lost, the way each tool counts them (as bench/run)
counts() {	# counts TOOL DIR -> "samples lost"
	local sl=""
	case $1 in
	pmrec*) sl=$(sed -n 's/.*wrote \([0-9]*\) samples.*, lost \([0-9]*\).*/\1 \2/p' "$2/err" | tail -1) ;;
	esac
	[ -n "$sl" ] || sl=$(perf report --stats -i "$2/f.data" 2>/dev/null | awk '
		/^Aggregated stats:$/ { next }
		/ stats:$/ { ev = 1; next }
		ev && /SAMPLE events:/ { s += $3 }
		ev && /LOST/ { if ($3 > l) l = $3 }
		!ev && /SAMPLE events:/ { as = $3 }
		!ev && /LOST_SAMPLES events:/ { al = $3 }
		END { if (!ev) { s = as; l = al }; print s + 0, l + 0 }')
	echo "${sl:-NA NA}"
}

# "span=S life=L pre=P post=Q": seconds between the first and the last
# sample, and between COMM's exec and the EXIT of the recorded command (one
# reader for both tools): the time the workload itself took, emulated exec
# included; then the samples' time before the exec and after the exit.
span() {	# span FILE COMM
	perf script --show-task-events -F comm,pid,time,event -i "$1" 2>/dev/null | awk -v c="$2" '
		function when(   i) {
			for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) + 0
			return -1
		}
		/PERF_RECORD_COMM exec: / { if ($1 == c && !x) x = when(); next }
		/PERF_RECORD_EXIT/ { if ($1 == c && x && !e) e = when(); next }
		/PERF_RECORD_/ { next }
		{ t = when(); if (t < 0) next; n++ }
		n == 1 || t < lo { lo = t }
		t > hi { hi = t }
		END {
			printf "span=%s life=%s", n ? sprintf("%.3f", hi - lo) : "NA",
				x && e ? sprintf("%.3f", e - x) : "NA"
			printf " pre=%s post=%s", n && x ? sprintf("%.3f", x - lo) : "NA",
				n && e ? sprintf("%.3f", hi - e) : "NA"
		}'
}

# The common fields of a recording in DIR.
fields() {	# fields TOOL DIR
	local s l
	read -r s l <<EOF
$(counts "$1" "$2")
EOF
	# a failed recording's first words, for the log
	[ "$(ct status "$2/ct")" = 0 ] || head -3 "$2/err" | sed "s|^|@E $1: |" >&2
	echo "wall=$(ct wall "$2/ct") user=$(ct user "$2/ct") sys=$(ct sys "$2/ct")" \
		"cpu=$(ct cpu "$2/ct") status=$(ct status "$2/ct") samples=$s lost=$l"
}

# rec TOOL DIR LOAD -- ARGS: ARGS recorded over `gate GO DONE`; LOAD runs
# once GO exists (the recorder is set up) and touches DONE at its end.
rec() {
	local tool=$1 d=$2 load=$3 w
	shift 4
	rm -rf "$d"
	mkdir -p "$d"
	(
		while [ ! -e "$d/go" ]; do sleep 0.01; done
		eval "$load" >"$d/load.out" 2>&1
		touch "$d/done"
	) &
	w=$!
	cputime -o "$d/ct" -- "$tool" record -o "$d/f.data" "$@" \
		-- gate "$d/go" "$d/done" 900 >/dev/null 2>"$d/err"
	[ -e "$d/go" ] || { touch "$d/go"; echo "$tool failed: $(head -3 "$d/err")"; }
	wait "$w"
}

# rec_cmd TOOL DIR ARGS: ARGS recorded, their own workload included.
rec_cmd() {
	local tool=$1 d=$2
	shift 2
	rm -rf "$d"
	mkdir -p "$d"
	cputime -o "$d/ct" -- "$tool" record -o "$d/f.data" "$@" >/dev/null 2>"$d/err" ||
		echo "$tool failed: $(head -3 "$d/err")"
}

seqfields() {	# seqfields DIR N: "dups= missing=" of a seqcall recording
	local c
	c=$(perf script -F trace -i "$1/f.data" 2>/dev/null | seqcheck "$2")
	echo "dups=$(echo "$c" | sed -n 's/.*dups=\([0-9]*\).*/\1/p')" \
		"missing=$(echo "$c" | sed -n 's/.*missing=\([0-9]*\).*/\1/p')"
}

burners() {	# burners N SECONDS: N burns in the background, their pids in $BURN
	local i
	BURN=
	i=0
	while [ "$i" -lt "$1" ]; do
		burn "$2" >/dev/null 2>&1 &
		BURN="$BURN $!"
		i=$((i + 1))
	done
}

# How long each phase of pmrec's idle and busy recordings took, as -vv
# says it (pmrec-before may not say it).
phases() {
	local tool kind n d=$W/phases
	for kind in idle busy; do
		for tool in $TOOLS; do
			case $tool in pmrec*) ;; *) continue ;; esac
			rm -rf "$d"
			mkdir -p "$d"
			[ "$kind" = busy ] && burners "$NCPU" $((BUSY_S + 30))
			cputime -o "$d/ct" -- "$tool" record -vv -a -F "$IDLE_F" -o "$d/f.data" \
				-- sleep "$IDLE_S" >/dev/null 2>"$d/err"
			if [ "$kind" = busy ]; then
				# shellcheck disable=SC2086
				kill $BURN 2>/dev/null
				wait
			fi
			say "scen=phases tool=$tool rep=0 wall=$(ct wall "$d/ct")"
			# "PHASE: S s" or, since -vv says it, "PHASE: S s, C s CPU"
			sed -n 's/^[^:]*: \([^:]*\): \([0-9.]*\) s\(, \([0-9.]*\) s CPU\)\{0,1\}$/\1|\2|\4/p' "$d/err" |
				while IFS='|' read -r ph t c; do
					echo "@P tool=$tool kind=$kind phase=$(echo "$ph" | tr ' ' '_') s=$t cpu=${c:-NA}"
				done
			n=$(sed -n 's/^[^:]*: left out \([0-9]*\) samples.*/\1/p' "$d/err")
			[ -z "$n" ] || echo "@P tool=$tool kind=$kind note=left_out_${n}_samples_of_the_rounds"
		done
	done
}

# Where the recorders' threads spend their system calls, idle and busy:
# `perf trace -s` over the same recording as phases, the busiest calls of
# each thread that took 50 ms or more.
syscalls() {
	local tool kind d=$W/syscalls
	for kind in idle busy; do
		for tool in $TOOLS; do
			rm -rf "$d"
			mkdir -p "$d"
			[ "$kind" = busy ] && burners "$NCPU" $((BUSY_S + 60))
			perf trace -s -o "$d/trace" -- "$tool" record -a -F "$IDLE_F" -o "$d/f.data" \
				-- sleep "$IDLE_S" >/dev/null 2>"$d/err"
			if [ "$kind" = busy ]; then
				# shellcheck disable=SC2086
				kill $BURN 2>/dev/null
				wait
			fi
			awk -v t="$tool" -v k="$kind" '
				/ events, / { th = $1 "/" $2; gsub(/[(),]/, "", th); n = 0; next }
				$1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 8 && n < 6 && $4 >= 50 {
					n++
					printf "@S tool=%s kind=%s thread=%s syscall=%s calls=%s ms=%s\n", t, k, th, $1, $2, $4
				}' "$d/trace"
		done
	done
}

REP=1
while [ "$REP" -le "$REPS" ]; do
	for scen in $SCENARIOS; do
		for tool in $TOOLS; do
			d=$W/$scen
			case $scen in
			idle)
				rec_cmd "$tool" "$d" -a -F "$IDLE_F" -- sleep "$IDLE_S"
				say "scen=idle tool=$tool rep=$REP $(fields "$tool" "$d") $(span "$d/f.data" sleep)"
				;;
			busy)
				burners "$NCPU" $((BUSY_S + 30))
				rec_cmd "$tool" "$d" -a -F "$BUSY_F" -- sleep "$BUSY_S"
				# shellcheck disable=SC2086
				kill $BURN 2>/dev/null
				wait
				say "scen=busy tool=$tool rep=$REP $(fields "$tool" "$d") $(span "$d/f.data" sleep)"
				;;
			paced)
				n=$((NCPU * PACED_RATE * PACED_S))
				rec "$tool" "$d" "seqcall -t $NCPU -r $((NCPU * PACED_RATE)) $n" -- \
					-a -e raw_syscalls:sys_enter -c 1
				say "scen=paced tool=$tool rep=$REP $(fields "$tool" "$d") $(seqfields "$d" "$n")"
				;;
			unpaced)
				n=$((NCPU * UNPACED_PER))
				rec "$tool" "$d" "seqcall -t $NCPU $n" -- -a -e raw_syscalls:sys_enter -c 1
				say "scen=unpaced tool=$tool rep=$REP $(fields "$tool" "$d") $(seqfields "$d" "$n")"
				;;
			startstop)
				rec_cmd "$tool" "$d" -a -- true
				say "scen=startstop tool=$tool rep=$REP $(fields "$tool" "$d")"
				;;
			long)
				rec_cmd "$tool" "$d" -a -F 97 -g -- burn "$LONG_S"
				say "scen=long tool=$tool rep=$REP $(fields "$tool" "$d") $(span "$d/f.data" burn)"
				;;
			esac
			rm -rf "$d"
		done
	done
	REP=$((REP + 1))
done
case " $SCENARIOS " in *" phases "*) phases ;; esac
case " $SCENARIOS " in *" syscalls "*) syscalls ;; esac
