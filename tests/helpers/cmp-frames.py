#!/usr/bin/env python3
# cmp-frames.py [-v] PMREC_JSON PERF_SCRIPT: compares, sample by sample, the
# frame names of `pmrec dump --json` with those of
# `perf script -F time,ip,sym,symoff` on the same file, samples paired by
# their time (to the microsecond perf prints, in order among equal ones):
# a sample perf prints no frames for leaves the others paired.  Prints
# "samples=N perf_samples=M equal=E" and, with -v, the first mismatches.
# Inlined frames count as frames in both; perf names a frame without symbol
# "[unknown]", as does this script for pmrec's.  Two names of one function
# (aliases such as __libc_start_main@@GLIBC_2.34 and __libc_start_main_impl,
# which the symbol tables rank differently) are the same frame when the
# offsets in the function and in the page agree: perf prints the return
# address less one, file-relative; pmrec the return address, absolute.
import json
import re
import sys

verbose = sys.argv[1] == "-v"
args = sys.argv[2:] if verbose else sys.argv[1:]


def pmrec_samples(path):
    out = []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") != "SAMPLE":
                continue
            t = rec.get("time", 0)
            out.append(("%d.%06d" % (t // 1000000000, t // 1000 % 1000000),
                        [(fr.get("sym", "[unknown]"), int(fr["ip"], 16) & 0xfff,
                          int(fr.get("off", "0x0"), 16)) for fr in rec.get("frames", [])]))
    return out


def perf_samples(path):
    out, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            m = re.match(r"^\s*(\d+\.\d+):\s*$", line)
            if m:
                cur = (m.group(1), [])
                out.append(cur)
                continue
            if cur is None:
                continue
            parts = line.split(None, 1)
            name = parts[1] if len(parts) > 1 else "[unknown]"
            if name.endswith(" (inlined)"):
                name = name[: -len(" (inlined)")]
            off = 0
            if "+0x" in name:
                name, o = name.rsplit("+0x", 1)
                off = int(o, 16)
            cur[1].append((name, int(parts[0], 16) & 0xfff, off))
    return out


def by_time(samples):
    """(time, n) -> frames: the n-th sample of that time."""
    seen, out = {}, {}
    for t, frames in samples:
        n = seen.get(t, 0)
        seen[t] = n + 1
        out[(t, n)] = frames
    return out


def same_frame(x, y):
    if x[0] == y[0]:
        return True
    d = (x[1] - y[1]) & 0xfff
    return d in (0, 1) and x[2] - y[2] == d and x[2] != 0


def same(x, y):
    return len(x) == len(y) and all(same_frame(p, q) for p, q in zip(x, y))


a, b = by_time(pmrec_samples(args[0])), by_time(perf_samples(args[1]))
keys = sorted(k for k in a if k in b)
equal = sum(1 for k in keys if same(a[k], b[k]))
print("samples=%d perf_samples=%d equal=%d" % (len(a), len(b), equal))
if verbose:
    shown = 0
    for k in keys:
        if not same(a[k], b[k]) and shown < 5:
            print("#%s pmrec: %s\n#%s perf:  %s" % (k[0], [f[0] for f in a[k]], k[0], [f[0] for f in b[k]]))
            shown += 1
