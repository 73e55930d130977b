#!/usr/bin/env python3
"""Reads a gzipped pprof profile.proto without any protobuf library and checks
what go tool pprof does not: string_table[0] is "", every id is non-zero and
unique, every mapping id of a location, function id of a line, location id
of a sample and string index resolves, every sample has one value per
sample type.

pprof-check.py FILE           prints "samples=N period=N mappings=N locations=N functions=N"
pprof-check.py --folded FILE  prints the samples as folded stacks, "comm;outer;...;inner N"
                              (frames named by their lines, inlined ones innermost)
pprof-check.py --show FILE    prints the decoded profile (for a failing test's log)
Exits 1 with the reason when a check fails."""
import gzip
import sys


def fail(msg):
    sys.exit('pprof-check: ' + msg)


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b):
            fail('truncated varint')
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i
        if shift > 63:
            fail('varint longer than 10 bytes')


def fields(b):
    """(field, wire, value) of a message: ints for varints, bytes for the rest."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                fail('field %d runs past its message' % f)
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            fail('wire type %d' % w)
        yield f, w, v


def ints(w, v):
    """A repeated varint field: packed (bytes) or one value."""
    if w == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def msg(b, spec):
    """spec: field -> (name, repeated?, kind) with kind 'int', 'bytes' or a sub-spec."""
    out = {name: [] if rep else (b'' if kind == 'bytes' else 0)
           for name, rep, kind in spec.values() if not isinstance(kind, dict)}
    for name, rep, kind in spec.values():
        if isinstance(kind, dict):
            out[name] = [] if rep else None
    for f, w, v in fields(b):
        if f not in spec:
            continue
        name, rep, kind = spec[f]
        if kind == 'int':
            vals = ints(w, v)
            if rep:
                out[name].extend(vals)
            else:
                out[name] = vals[-1]
        elif kind == 'bytes':
            if rep:
                out[name].append(v)
            else:
                out[name] = v
        else:
            m = msg(v, kind)
            if rep:
                out[name].append(m)
            else:
                out[name] = m
    return out


VALUE_TYPE = {1: ('type', False, 'int'), 2: ('unit', False, 'int')}
LABEL = {1: ('key', False, 'int'), 2: ('str', False, 'int'), 3: ('num', False, 'int'),
         4: ('num_unit', False, 'int')}
SAMPLE = {1: ('location_id', True, 'int'), 2: ('value', True, 'int'), 3: ('label', True, LABEL)}
MAPPING = {1: ('id', False, 'int'), 2: ('memory_start', False, 'int'),
           3: ('memory_limit', False, 'int'), 4: ('file_offset', False, 'int'),
           5: ('filename', False, 'int'), 6: ('build_id', False, 'int'),
           7: ('has_functions', False, 'int'), 10: ('has_inline_frames', False, 'int')}
LINE = {1: ('function_id', False, 'int'), 2: ('line', False, 'int')}
LOCATION = {1: ('id', False, 'int'), 2: ('mapping_id', False, 'int'), 3: ('address', False, 'int'),
            4: ('line', True, LINE)}
FUNCTION = {1: ('id', False, 'int'), 2: ('name', False, 'int'), 3: ('system_name', False, 'int'),
            4: ('filename', False, 'int')}
PROFILE = {1: ('sample_type', True, VALUE_TYPE), 2: ('sample', True, SAMPLE),
           3: ('mapping', True, MAPPING), 4: ('location', True, LOCATION),
           5: ('function', True, FUNCTION), 6: ('string_table', True, 'bytes'),
           9: ('time_nanos', False, 'int'), 10: ('duration_nanos', False, 'int'),
           11: ('period_type', False, VALUE_TYPE), 12: ('period', False, 'int'),
           13: ('comment', True, 'int'), 14: ('default_sample_type', False, 'int')}


def load(path):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] != b'\x1f\x8b':
        fail('%s: not gzip' % path)
    return msg(gzip.decompress(raw), PROFILE)


def check(p):
    st = [s.decode('utf-8') for s in p['string_table']]   # fails on bad UTF-8
    if not st or st[0] != '':
        fail('string_table[0] is not ""')

    def s(i, what):
        if not 0 <= i < len(st):
            fail('%s: string index %d of %d' % (what, i, len(st)))
        return st[i]

    def table(items, what):
        t = {}
        for it in items:
            if it['id'] == 0 or it['id'] in t:
                fail('%s id %d zero or repeated' % (what, it['id']))
            t[it['id']] = it
        return t
    maps = table(p['mapping'], 'mapping')
    locs = table(p['location'], 'location')
    funcs = table(p['function'], 'function')
    for m in maps.values():
        s(m['filename'], 'mapping filename')
        s(m['build_id'], 'mapping build id')
        if m['memory_limit'] < m['memory_start']:
            fail('mapping %d ends before it starts' % m['id'])
    for f in funcs.values():
        s(f['name'], 'function name')
        s(f['system_name'], 'function system name')
        s(f['filename'], 'function file')
    for l in locs.values():
        if l['mapping_id'] and l['mapping_id'] not in maps:
            fail('location %d: mapping id %d resolves to nothing' % (l['id'], l['mapping_id']))
        if not l['line']:
            fail('location %d has no line' % l['id'])
        for ln in l['line']:
            if ln['function_id'] not in funcs:
                fail('location %d: function id %d resolves to nothing' % (l['id'], ln['function_id']))
    if not p['sample_type']:
        fail('no sample type')
    for vt in p['sample_type']:
        s(vt['type'], 'sample type'), s(vt['unit'], 'sample unit')
    for sm in p['sample']:
        if len(sm['value']) != len(p['sample_type']):
            fail('a sample has %d values for %d types' % (len(sm['value']), len(p['sample_type'])))
        for i in sm['location_id']:
            if i not in locs:
                fail('sample location id %d resolves to nothing' % i)
        for lb in sm['label']:
            s(lb['key'], 'label key'), s(lb['str'], 'label value')
    return st, maps, locs, funcs


def labels(st, sm):
    out = {}
    for lb in sm['label']:
        out[st[lb['key']]] = st[lb['str']] if lb['str'] else signed(lb['num'])
    return out


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if args and args[0].startswith('--') else None
    if len(args) != 1:
        fail(__doc__)
    p = load(args[0])
    st, maps, locs, funcs = check(p)
    if mode == '--folded':
        stacks = {}
        for sm in p['sample']:
            names = []
            for i in sm['location_id']:
                names.extend(st[funcs[ln['function_id']]['name']] for ln in locs[i]['line'])
            key = ';'.join([str(labels(st, sm).get('comm', ''))] + names[::-1])
            stacks[key] = stacks.get(key, 0) + sm['value'][0]
        for k in sorted(stacks):
            print('%s %d' % (k, stacks[k]))
    elif mode == '--show':
        for k in ('time_nanos', 'duration_nanos', 'period'):
            print('%s %d' % (k, signed(p[k])))
        for m in maps.values():
            print('mapping %d %#x-%#x off %#x %s %s' % (m['id'], m['memory_start'], m['memory_limit'],
                  m['file_offset'], st[m['filename']], st[m['build_id']]))
        for l in locs.values():
            print('location %d map %d %#x %s' % (l['id'], l['mapping_id'], l['address'],
                  ' '.join(st[funcs[ln['function_id']]['name']] for ln in l['line'])))
        for sm in p['sample']:
            print('sample %s %s %s' % (sm['value'], sm['location_id'], labels(st, sm)))
    elif mode is None:
        print('samples=%d period=%d mappings=%d locations=%d functions=%d' % (
            sum(sm['value'][0] for sm in p['sample']),
            sum(sm['value'][-1] for sm in p['sample']), len(maps), len(locs), len(funcs)))
    else:
        fail(__doc__)


main()
