#!/usr/bin/env python3
# include-graph.py ROOT: prints, for every source and header of ROOT/lib and
# ROOT/cmd, each project header it reaches through #include "..." (directly
# or through other headers), one "FILE HEADER" pair a line, paths relative
# to ROOT.  A quoted include resolves as the compiler resolves it here: the
# including file's directory first, then lib/ (-iquote lib).
import os
import re
import sys

root = sys.argv[1]
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def resolve(src, name):
    for base in (os.path.dirname(src), "lib"):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, path)):
            return path
    return None


direct = {}


def includes(path):
    if path not in direct:
        found = []
        with open(os.path.join(root, path), encoding="utf-8") as f:
            for line in f:
                m = inc.match(line)
                if m:
                    dep = resolve(path, m.group(1))
                    if dep:
                        found.append(dep)
        direct[path] = found
    return direct[path]


def closure(path):
    seen, todo = set(), [path]
    while todo:
        for dep in includes(todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


for top in ("lib", "cmd"):
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                src = os.path.relpath(os.path.join(dirpath, name), root)
                for dep in sorted(closure(src)):
                    print(src, dep)
