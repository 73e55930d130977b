#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pipe-tracing-old: rewrites a pipe-mode perf.data stream as perfs
wrote it before their HEADER_TRACING_DATA record got its 4 bytes of
padding (perf 6.1.187 here has them): every such record of 16 bytes
(header, u32 size, padding) becomes one of 12 (header, u32 size), the
tracing data after it untouched.  Every other record is copied as it is.

pipe-tracing-old.py IN OUT

In a stream the records follow the 16-byte pipe header one after the
other; a HEADER_TRACING_DATA record and an AUXTRACE record are followed
by data outside their size (the record's size field says how much).
Exits 1 when IN has no 16-byte HEADER_TRACING_DATA record to rewrite.
"""
import struct
import sys

HEADER_TRACING_DATA, AUXTRACE = 66, 71


def rewrite(buf):
    if buf[:8] != b"PERFILE2" or struct.unpack_from("<Q", buf, 8)[0] != 16:
        sys.exit("pipe-tracing-old: not a pipe-mode perf.data stream")
    out, off, done = bytearray(buf[:16]), 16, 0
    while off + 8 <= len(buf):
        rtype, size = struct.unpack_from("<IxxH", buf, off)
        if size < 8 or off + size > len(buf):
            sys.exit("pipe-tracing-old: bad record at 0x%x (size %d)" % (off, size))
        extra = 0
        if rtype == HEADER_TRACING_DATA:
            extra = struct.unpack_from("<I", buf, off + 8)[0]
        elif rtype == AUXTRACE:
            extra = struct.unpack_from("<Q", buf, off + 8)[0]
        if rtype == HEADER_TRACING_DATA and size == 16:
            out += struct.pack("<IHH", rtype, 0, 12) + buf[off + 8:off + 12]
            done += 1
        else:
            out += buf[off:off + size]
        out += buf[off + size:off + size + extra]
        off += size + extra
    out += buf[off:]
    return out, done


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1], "rb") as f:
        out, done = rewrite(f.read())
    if not done:
        print("pipe-tracing-old: no 16-byte HEADER_TRACING_DATA record in " + argv[1],
              file=sys.stderr)
        sys.exit(1)
    with open(argv[2], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main(sys.argv)
