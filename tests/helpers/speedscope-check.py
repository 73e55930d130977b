#!/usr/bin/env python3
"""Reads a speedscope JSON file of sampled profiles and checks what the
schema cannot: as many weights as samples, every weight positive, every
frame id resolves, the weights fit between startValue and endValue.
Empty samples are time in which the thread was not sampled.

speedscope-check.py FILE               prints "NAME<TAB>TOTAL<TAB>UNIT" per profile:
                                       the weight of its non-empty samples
speedscope-check.py --against REPORT FILE
                                       prints "TID TOTAL" per profile, the tid
                                       ending its name, and fails unless they are
                                       the tids and self_period of REPORT's rows
                                       (report --json -s tid)
speedscope-check.py --windows FILE WINDOW FUNC,... NAME...
                                       for each FUNC and profile NAME, from the
                                       earliest non-empty sample of those profiles
                                       (or, with START set to a wall-clock time in
                                       seconds, from START as the file's name dates
                                       its time 0), prints "FUNC NAME WINDOW-INDEX
                                       WEIGHT" for the
                                       samples with FUNC on their stack in each window
                                       of WINDOW units, leaving out those whose middle
                                       lies within WINDOW/10 of a boundary
Exits 1 with the reason when a check fails."""
import datetime
import json
import os
import re
import sys


def fail(msg):
    sys.exit('speedscope-check: ' + msg)


def intervals(doc, prof):
    """The profile's non-empty samples: (start, end, stack of frame names), checked."""
    frames = doc['shared']['frames']
    name, samples, weights = prof['name'], prof['samples'], prof['weights']
    if prof['type'] != 'sampled':
        fail('%s: not a sampled profile' % name)
    if len(samples) != len(weights):
        fail('%s: %d samples, %d weights' % (name, len(samples), len(weights)))
    at, out = prof['startValue'], []
    for st, w in zip(samples, weights):
        if w <= 0:
            fail('%s: weight %d' % (name, w))
        for f in st:
            if not 0 <= f < len(frames):
                fail('%s: frame %d out of range' % (name, f))
        if st:
            out.append((at, at + w, [frames[f]['name'] for f in st]))
        at += w
    if at > prof['endValue']:
        fail('%s: weights end at %d, past endValue %d' % (name, at, prof['endValue']))
    return out


def named_start(doc):
    """The wall-clock time of time 0, from the name's "from YYYY-MM-DD HH:MM:SS.ffffff UTC"."""
    m = re.search(r'from (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(\d{6}) UTC$', doc['name'])
    if not m:
        fail('no wall-clock start in the name %r' % doc['name'])
    day = datetime.datetime.strptime(m.group(1), '%Y-%m-%d %H:%M:%S')
    return day.replace(tzinfo=datetime.timezone.utc).timestamp() + int(m.group(2)) / 1e6


def main(argv):
    if len(argv) < 2:
        fail('usage: see the top of this file')
    mode = argv[1] if argv[1].startswith('--') else None
    path = argv[3] if mode == '--against' else argv[2] if mode else argv[1]
    doc = json.load(open(path, encoding='utf-8'))
    profs = {p['name']: p for p in doc['profiles']}
    total = {p['name']: sum(e - s for s, e, _ in intervals(doc, p)) for p in doc['profiles']}
    if mode is None:
        for p in doc['profiles']:
            print('%s\t%d\t%s' % (p['name'], total[p['name']], p['unit']))
    elif mode == '--against':
        got = sorted((int(n.rsplit(' ', 1)[1]), t) for n, t in total.items())
        want = sorted((r['tid'], r['self_period'])
                      for ev in json.load(open(argv[2]))['events'] for r in ev['rows'])
        for tid, t in got:
            print(tid, t)
        if got != want:
            fail('report has %s' % want)
    elif mode == '--windows':
        window, funcs, names = int(argv[3]), argv[4].split(','), argv[5:]
        runs = {n: intervals(doc, profs[n]) for n in names}
        t0 = min(r[0][0] for r in runs.values() if r)
        if os.environ.get('START'):
            t0 = round((float(os.environ['START']) - named_start(doc)) * 1e9)
        margin = window // 10
        for func in funcs:
            for n in names:
                per = {}
                for s, e, st in runs[n]:
                    if func not in st:
                        continue
                    w, off = divmod((s + e) // 2 - t0, window)
                    if margin <= off <= window - margin:
                        per[w] = per.get(w, 0) + e - s
                for w in sorted(per):
                    print(func, n, w, per[w])
    else:
        fail('unknown mode ' + mode)


main(sys.argv)
