#!/usr/bin/env python3
# term-safe.py FILE...: exits 1, naming the file and the offset, when a file
# is not strict UTF-8 or holds what a terminal would act on or that would
# reorder a line: a C0 control other than tab and newline, DEL, a C1
# control (U+0080-U+009F) or a bidirectional control (U+202A-U+202E,
# U+2066-U+2069).
import sys

bad_ranges = [(0x00, 0x08), (0x0b, 0x1f), (0x7f, 0x9f), (0x202a, 0x202e), (0x2066, 0x2069)]
status = 0
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        print(f"{path}: invalid UTF-8 at byte {e.start}")
        status = 1
        continue
    for i, ch in enumerate(text):
        if any(lo <= ord(ch) <= hi for lo, hi in bad_ranges):
            print(f"{path}: U+{ord(ch):04X} at character {i}")
            status = 1
            break
sys.exit(status)
