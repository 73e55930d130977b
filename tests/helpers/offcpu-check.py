#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""offcpu-check: compares pmrec report's off-CPU numbers with what
tests/helpers/offcpu measured (its lines "NAME TID BLOCKED_NS LIFE_NS")
and with perf script's switches.  Prints the numbers it compared; exits 1
with the first one out of tolerance.

offcpu-check.py blocked OUT JSON
    JSON: report --event offcpu-time --children --sort tid,sym,state
    --json.  The blocked time under nap() (sleeper) and pipe_wait()
    (reader) within 5 % of what they measured around them; every thread
    whose name starts with spin or queue: blocked under 2 % of its life.
offcpu-check.py queue OUT JSON
    queueN threads (three on one CPU): runnable time about 2/3 of their
    life (at least 2/3 - 5 %: other load only adds to it, at most 95 %).
offcpu-check.py wall OUT JSON
    JSON: report --wall --sort tid --json.  Every thread: on + off CPU
    within 5 % of its life.
offcpu-check.py oracle OUT JSON SCRIPT
    SCRIPT: perf script --show-switch-events -F tid,cpu,time,event,trace.
    Pairing its lines (sched_switch prev_pid out; next_pid or
    PERF_RECORD_SWITCH IN in) gives each thread of OUT the same off-CPU
    total as the JSON, within 1 %; prints how many pairs migrated.
"""
import json
import re
import sys


def threads(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) == 4:
            out[int(f[1])] = (f[0], int(f[2]), int(f[3]))
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


def blocked(out, js):
    under = {}
    per = rows(js, under)
    funcs = {'sleeper': 'nap', 'reader': 'pipe_wait'}
    for tid, (name, want, life) in sorted(out.items()):
        got = per.get((tid, 'blocked'), 0)
        print('%s tid=%d blocked=%d measured=%d life=%d' % (name, tid, got, want, life))
        if name in funcs:
            got = under.get((tid, funcs[name], 'blocked'), 0)
            print('  under %s: %d' % (funcs[name], got))
            if abs(got - want) > 0.05 * want:
                fail('%s: %d ns blocked under %s, measured %d' % (name, got, funcs[name], want))
        if name.startswith(('spin', 'queue')) and got > 0.02 * life:
            fail('%s: %d ns blocked in a life of %d' % (name, got, life))


def queue(out, js):
    per = rows(js)
    for tid, (name, _, life) in sorted(out.items()):
        got = per.get((tid, 'runnable'), 0)
        print('%s tid=%d runnable=%d life=%d share=%.3f' % (name, tid, got, life, got / life))
        if not 2 / 3 - 0.05 <= got / life <= 0.95:
            fail('%s: runnable %.3f of its life' % (name, got / life))


def wall(out, js):
    per = rows(js)
    for tid, (name, _, life) in sorted(out.items()):
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
    for tid, (name, _, _) in sorted(out.items()):
        got = per.get((tid, 'blocked'), 0) + per.get((tid, 'runnable'), 0)
        want = total.get(tid, 0)
        print('%s tid=%d pmrec=%d perf-script=%d' % (name, tid, got, want))
        if abs(got - want) > 0.01 * max(want, 1) + 1000:
            fail('%s: pmrec %d ns off CPU, perf script pairs %d' % (name, got, want))
    print('migrated=%d' % migrated)


def main():
    mode = sys.argv[1]
    out = threads(sys.argv[2])
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
