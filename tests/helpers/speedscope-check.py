#!/usr/bin/env python3
"""Reads a speedscope JSON file of evented profiles and checks what the
schema cannot: events in time order, every close matches the open frame on
top, every frame id resolves, nothing stays open, no "at" past endValue.

speedscope-check.py FILE               prints "NAME<TAB>TOTAL" per profile: the time
                                       some stack was open (its samples' periods)
speedscope-check.py --folded FILE      prints "NAME;outer;...;inner DURATION" per
                                       stack and profile, summed
speedscope-check.py --windows FILE WINDOW FUNC NAME...
                                       for each profile NAME, from the earliest open
                                       of those profiles, prints "NAME WINDOW-INDEX
                                       DURATION" for the time FUNC was on the stack in
                                       each window of WINDOW units, leaving out what
                                       lies within WINDOW/10 of a boundary
Exits 1 with the reason when a check fails."""
import json
import sys


def fail(msg):
    sys.exit('speedscope-check: ' + msg)


def intervals(doc, prof):
    """The profile's runs: (start, end, stack of frame names), checked."""
    frames = doc['shared']['frames']
    stack, last, opened, out = [], prof['startValue'], None, []
    for ev in prof['events']:
        at, fr = ev['at'], ev['frame']
        if not 0 <= fr < len(frames):
            fail('%s: frame %d out of range' % (prof['name'], fr))
        if at < last:
            fail('%s: event at %d before %d' % (prof['name'], at, last))
        if at > prof['endValue']:
            fail('%s: event at %d past endValue' % (prof['name'], at))
        if stack and at > opened:
            out.append((opened, at, [frames[f]['name'] for f in stack]))
        if ev['type'] == 'O':
            stack.append(fr)
        elif not stack or stack[-1] != fr:
            fail('%s: close of frame %d not on top' % (prof['name'], fr))
        else:
            stack.pop()
        opened = last = at
    if stack:
        fail('%s: frames left open' % prof['name'])
    return out


def main(argv):
    if len(argv) < 2:
        fail('usage: see the top of this file')
    mode = argv[1] if argv[1].startswith('--') else None
    path = argv[2] if mode else argv[1]
    doc = json.load(open(path, encoding='utf-8'))
    profs = {p['name']: p for p in doc['profiles']}
    if mode is None:
        for p in doc['profiles']:
            print('%s\t%d' % (p['name'], sum(e - s for s, e, _ in intervals(doc, p))))
    elif mode == '--folded':
        for p in doc['profiles']:
            sums = {}
            for s, e, st in intervals(doc, p):
                key = ';'.join([p['name']] + st)
                sums[key] = sums.get(key, 0) + e - s
            for k in sorted(sums):
                print(k, sums[k])
    elif mode == '--windows':
        window, func, names = int(argv[3]), argv[4], argv[5:]
        runs = {n: intervals(doc, profs[n]) for n in names}
        t0 = min(r[0][0] for r in runs.values() if r)
        margin = window // 10
        for n in names:
            per = {}
            for s, e, st in runs[n]:
                if func not in st:
                    continue
                mid = (s + e) // 2 - t0
                w, off = divmod(mid, window)
                if margin <= off <= window - margin:
                    per[w] = per.get(w, 0) + e - s
            for w in sorted(per):
                print(n, w, per[w])
    else:
        fail('unknown mode ' + mode)


main(sys.argv)
