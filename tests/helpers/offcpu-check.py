#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""offcpu-check: compares pmrec report's off-CPU numbers with what
tests/helpers/offcpu measured (its lines "NAME TID BLOCKED_NS LIFE_NS
CPU_NS START_NS") and with perf script's switches.  Given EXITS (pmrec
dump --json --type=exit of a recording made with -k mono), a thread's
life ends at its EXIT record, not when it last looked at the clock: it
may be preempted in between.  Life less CPU_NS, the time a thread was
alive and not running, is the oracle of its whole off-CPU time: it holds
however loaded the machine is.  Prints the numbers it compared; exits 1
with the first one out of tolerance.

offcpu-check.py blocked OUT JSON [EXITS]
    JSON (here and for queue): report --event offcpu-time --children
    --sort tid,sym,state --json of a recording with call chains.  The
    blocked time under nap() (sleeper) and pipe_wait() (reader) within
    5 % of what they measured around them; every thread
    whose name starts with spin or queue: blocked under 2 % of its life,
    and its off-CPU time (blocked and runnable) within 5 % of the time it
    was not running (or 0.5 % of its life, for a spinner the machine left
    alone: then it is also under 2 % of its life).  $UNCHARGED_NS, the
    off-CPU time report said it charged to none, may be missing on top.
offcpu-check.py queue OUT JSON [EXITS]
    queueN threads (three on one CPU): runnable time within 5 % of the
    time each was not running, which is at least 2/3 - 5 % of its life
    (other load only adds to it).
offcpu-check.py wall OUT JSON [EXITS]
    JSON: report --wall --sort tid --json.  Every thread: on + off CPU
    within 5 % of its life (up to its EXIT: report's wall time runs there).
offcpu-check.py oracle OUT JSON SCRIPT
    SCRIPT: perf script --show-switch-events -F tid,cpu,time,event,trace.
    Pairing its lines (sched_switch prev_pid out; next_pid or
    PERF_RECORD_SWITCH IN in) gives each thread of OUT the same off-CPU
    total as the JSON, within 1 %; prints how many pairs migrated.
"""
import json
import os
import re
import sys


def threads(path, exits=None):
    """tid -> (name, blocked, life, cpu); life up to the EXIT record if known."""
    end = {}
    if exits:
        for line in open(exits):
            r = json.loads(line)
            if r.get('type') == 'EXIT':
                end[r['tid']] = r['time']
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) == 6:
            tid, life, start = int(f[1]), int(f[3]), int(f[5])
            if tid in end:
                life = end[tid] - start
            out[tid] = (f[0], int(f[2]), life, int(f[4]))
    return out


def rows(path, under=None):
    """Self time per (tid, state); with under, children time per (tid, sym, state)."""
    per = {}
    doc = json.load(open(path))
    for r in doc['events'][0]['rows']:
        key = (r['tid'], r.get('state', ''))
        per[key] = per.get(key, 0) + r['self_period']
        if under is not None and 'sym' in r:
            under[(r['tid'], r['sym'], r.get('state', ''))] = r['children_period']
    return per


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def near(got, want, tol, short):
    """got within tol of want, or short of it by at most tol + short."""
    return want - tol - short <= got <= want + tol


def blocked(out, js):
    under = {}
    per = rows(js, under)
    funcs = {'sleeper': 'nap', 'reader': 'pipe_wait'}
    short = int(os.environ.get('UNCHARGED_NS', '0'))
    for tid, (name, want, life, cpu) in sorted(out.items()):
        got = per.get((tid, 'blocked'), 0)
        off = got + per.get((tid, 'runnable'), 0)
        print('%s tid=%d blocked=%d measured=%d life=%d off=%d not-running=%d' %
              (name, tid, got, want, life, off, life - cpu))
        if name in funcs:
            got = under.get((tid, funcs[name], 'blocked'), 0)
            print('  under %s: %d' % (funcs[name], got))
            if not near(got, want, 0.05 * want, short):
                fail('%s: %d ns blocked under %s, measured %d' % (name, got, funcs[name], want))
        if name.startswith(('spin', 'queue')):
            if got > 0.02 * life:
                fail('%s: %d ns blocked in a life of %d' % (name, got, life))
            if not near(off, life - cpu, max(0.05 * (life - cpu), 0.005 * life), short):
                fail('%s: %d ns off CPU, not running for %d' % (name, off, life - cpu))


def queue(out, js):
    per = rows(js)
    for tid, (name, _, life, cpu) in sorted(out.items()):
        got = per.get((tid, 'runnable'), 0)
        print('%s tid=%d runnable=%d not-running=%d life=%d share=%.3f' %
              (name, tid, got, life - cpu, life, got / life))
        if abs(got - (life - cpu)) > 0.05 * (life - cpu):
            fail('%s: runnable %d ns, not running for %d' % (name, got, life - cpu))
        if got / life < 2 / 3 - 0.05:
            fail('%s: runnable %.3f of its life' % (name, got / life))


def wall(out, js):
    per = rows(js)
    for tid, (name, _, life, _) in sorted(out.items()):
        got = per.get((tid, ''), 0)
        print('%s tid=%d wall=%d life=%d' % (name, tid, got, life))
        if abs(got - life) > 0.05 * life:
            fail('%s: wall %d ns, life %d' % (name, got, life))


def oracle(out, js, script):
    per = rows(js)
    opened, total, migrated = {}, {}, 0
    sw = re.compile(r'^\s*(\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(\S+)(.*)$')
    for line in open(script):
        m = sw.match(line)
        if not m:
            continue
        tid, cpu = int(m.group(1)), int(m.group(2))
        t = round(float(m.group(3)) * 1e9)
        ev, rest = m.group(4), m.group(5)
        ins = []
        if ev == 'sched:sched_switch:':
            prev = int(re.search(r'prev_pid=(\d+)', rest).group(1))
            state = re.search(r'prev_state=(\S+)', rest).group(1)
            ins.append(int(re.search(r'next_pid=(\d+)', rest).group(1)))
            if prev and state[0] not in 'XZ':
                opened[prev] = (t, cpu)
        elif ev == 'PERF_RECORD_SWITCH' and rest.split()[:1] == ['IN']:
            ins.append(tid)
        for i in ins:
            if i in opened:
                start, was = opened.pop(i)
                total[i] = total.get(i, 0) + t - start
                migrated += i in out and was != cpu
    for tid, (name, _, _, _) in sorted(out.items()):
        got = per.get((tid, 'blocked'), 0) + per.get((tid, 'runnable'), 0)
        want = total.get(tid, 0)
        print('%s tid=%d pmrec=%d perf-script=%d' % (name, tid, got, want))
        if abs(got - want) > 0.01 * max(want, 1) + 1000:
            fail('%s: pmrec %d ns off CPU, perf script pairs %d' % (name, got, want))
    print('migrated=%d' % migrated)


def main():
    mode = sys.argv[1]
    exits = sys.argv[4] if mode in ('blocked', 'queue', 'wall') and len(sys.argv) > 4 else None
    out = threads(sys.argv[2], exits)
    if not out:
        fail('no thread lines in ' + sys.argv[2])
    if mode == 'blocked':
        blocked(out, sys.argv[3])
    elif mode == 'queue':
        queue(out, sys.argv[3])
    elif mode == 'wall':
        wall(out, sys.argv[3])
    elif mode == 'oracle':
        oracle(out, sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


main()
