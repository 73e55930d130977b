#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Facts about a flame graph's time strip (report --flamegraph --timeline),
for t0720 and t0730.  Totals print as "root WEIGHT SAMPLES" and "NAME WEIGHT"
(NAME's frames summed, a frame inside another of the name counted once), so
that the strip's data, a browser's redrawn frames and report --time compare
with test_cmp.

  flamestrip.py cols SVG           the strip's columns, or 0 without a strip
  flamestrip.py check SVG          the data's shape: a column list per column,
                                   every frame index a drawn frame
  flamestrip.py half SVG           ?t= of the second half's columns, as
                                   seconds from the strip's start
  flamestrip.py time SVG A B       report --time of columns [A, B)
  flamestrip.py sums SVG A B NAME  totals of columns [A, B), from the data
  flamestrip.py dom DOM NAME       totals of the frames a browser drew
  flamestrip.py report JSON NAME   totals of report --json --children
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
FG = '{urn:x-pmrec:flamegraph}'


def fail(msg):
    sys.exit('flamestrip.py: ' + msg)


def load(path):
    root = ET.parse(path).getroot()
    strip = root.find('.//' + NS + 'g[@id="strip"]')
    data = None
    for s in root.iter(NS + 'script'):
        if s.get('id') == 'strip-data':
            data = json.loads(s.text)
    names = []
    for g in root.find(NS + 'g[@id="frames"]'):
        names.append(re.sub(r' \([^()]*\)$', '', g.find(NS + 'title').text))
    return root, strip, data, names


def secs(ns):
    return '%d.%09d' % (ns // 10**9, ns % 10**9)


def named_total(names, parents, weight, name):
    """Sum of NAME's frames not inside another NAME frame."""
    total = 0
    for i, n in enumerate(names):
        if n != name:
            continue
        j, inner = i, False
        while j:
            j = parents[j]
            inner |= names[j] == name
        if not inner:
            total += weight[i]
    return total


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == 'report':
        ev = json.load(open(path))['events'][0]
        print('root %d %d' % (ev['period'], ev['samples']))
        print('%s %d' % (sys.argv[3], sum(r['children_period'] for r in ev['rows']
                                          if r['sym'] == sys.argv[3])))
        return
    if cmd == 'dom':
        d = open(path).read()
        frames = re.findall(r'<g(?: class="[^"]*")?><title>([^<]*) \((\d+) samples, [^<]*</title>'
                            r'<rect [^>]*fg:w="(\d+)"', d)
        if not frames:
            fail('no frames in ' + path)
        print('root %s %s' % (frames[0][2], frames[0][1]))
        # The browser test names a function that does not recurse.
        print('%s %d' % (sys.argv[3], sum(int(w) for n, _, w in frames if n == sys.argv[3])))
        return
    root, strip, data, names = load(path)
    if cmd == 'cols':
        print(strip.get(FG + 'cols') if strip is not None else 0)
        return
    if strip is None or data is None:
        fail('no strip in ' + path)
    n, tw, t0 = int(strip.get(FG + 'cols')), int(strip.get(FG + 'tw')), int(strip.get(FG + 't0'))
    if cmd == 'check':
        k = data['k']
        if len(data['c']) != n or len(data['a']) != n or len(data['p']) != len(names):
            fail('%d columns, %d and %d in the data; %d parents for %d frames' %
                 (n, len(data['c']), len(data['a']), len(data['p']), len(names)))
        for c in data['c']:
            if len(c) % k or any(f >= len(names) for f in c[::k]):
                fail('a bad column: %s' % c[:12])
        print('ok %d columns' % n)
    elif cmd == 'half':
        print('%s,%s' % (secs(n // 2 * tw), secs(n * tw)))
    elif cmd == 'time':
        a, b = int(sys.argv[3]), int(sys.argv[4])
        print('%s,%s' % (secs(t0 + a * tw), secs(t0 + b * tw - 1)))
    elif cmd == 'sums':
        a, b, name = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        k, p = data['k'], data['p']
        w, s = [0] * len(names), [0] * len(names)
        for c in data['c'][a:b]:
            for i in range(0, len(c), k):
                w[c[i]] += c[i + 1]
                s[c[i]] += c[i + k - 1]
        for i in range(len(names) - 1, 0, -1):
            w[p[i]] += w[i]
            s[p[i]] += s[i]
        print('root %d %d' % (w[0], s[0]))
        print('%s %d' % (name, named_total(names, p, w, name)))
    else:
        fail('unknown command ' + cmd)


main()
