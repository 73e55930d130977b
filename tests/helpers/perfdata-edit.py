#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perfdata-edit: edits the times of records in a perf.data file, or cuts
records out of it, for tests of what a reader makes of a recording whose
times lie.  Records are named by their byte offset in the file, as
pmrec dump prints it in its first column.

perfdata-edit.py IN OUT OP...
    time=OFF:NS     the record at OFF gets the time NS (any u64)
    shift=OFF:NS    the record at OFF moves by NS (may be negative)
    swap=OFF:OFF2   the two records exchange their times
    drop=OFF        the record at OFF is cut out of the data section
    pid=OFF:PID     the SAMPLE at OFF gets PID as its pid and tid

A SAMPLE's time is where its attr's sample_type puts it (after the
IDENTIFIER, IP and TID fields it has); another record's time is in its
sample_id trailer (attr.sample_id_all), counted from its end.  The attr
of a record is the one whose ids hold its IDENTIFIER, or the only one.
Cutting a record shrinks the data section and moves the feature
sections that follow it by as much.
"""
import struct
import sys

PERF_RECORD_SAMPLE = 9
S_IP, S_TID, S_TIME, S_ID, S_CPU, S_STREAM_ID, S_IDENTIFIER = \
    1 << 0, 1 << 1, 1 << 2, 1 << 6, 1 << 7, 1 << 9, 1 << 16
SAMPLE_ID_ALL = 1 << 18


def u64(buf, off):
    return struct.unpack_from("<Q", buf, off)[0]


class PerfData:
    def __init__(self, buf):
        self.buf = bytearray(buf)
        if buf[:8] != b"PERFILE2":
            sys.exit("perfdata-edit: not a perf.data file (a stream cannot be edited)")
        self.attr_size = u64(buf, 16)
        self.attrs_off, self.attrs_size = u64(buf, 24), u64(buf, 32)
        self.data_off, self.data_size = u64(buf, 40), u64(buf, 48)
        self.features = sum(bin(u64(buf, 72 + 8 * i)).count("1") for i in range(4))
        self.attrs = []         # (sample_type, sample_id_all)
        self.by_id = {}
        for i in range(self.attrs_size // self.attr_size):
            a = self.attrs_off + i * self.attr_size
            st, flags = u64(buf, a + 24), u64(buf, a + 40)
            ids_off = u64(buf, a + self.attr_size - 16)
            ids_size = u64(buf, a + self.attr_size - 8)
            for j in range(ids_size // 8):
                self.by_id[u64(buf, ids_off + 8 * j)] = len(self.attrs)
            self.attrs.append((st, bool(flags & SAMPLE_ID_ALL)))
        self.records = {}
        off, end = self.data_off, self.data_off + self.data_size
        while off + 8 <= end:
            rtype, size = struct.unpack_from("<IxxH", self.buf, off)
            if size < 8:
                sys.exit("perfdata-edit: record at 0x%x of size %d" % (off, size))
            self.records[off] = (rtype, size)
            off += size

    def attr_of(self, off):
        rtype, size = self.records[off]
        if len(self.attrs) == 1:
            return self.attrs[0]
        # Every attr has IDENTIFIER when there are several (perf's rule).
        where = off + 8 if rtype == PERF_RECORD_SAMPLE else off + size - 8
        return self.attrs[self.by_id[u64(self.buf, where)]]

    def time_pos(self, off):
        if off not in self.records:
            sys.exit("perfdata-edit: no record at 0x%x" % off)
        rtype, size = self.records[off]
        st, id_all = self.attr_of(off)
        if not st & S_TIME:
            sys.exit("perfdata-edit: the record at 0x%x has no time" % off)
        if rtype == PERF_RECORD_SAMPLE:
            return off + 8 + 8 * sum(bool(st & f) for f in (S_IDENTIFIER, S_IP, S_TID))
        if not id_all or rtype >= 64:
            sys.exit("perfdata-edit: the record at 0x%x has no sample_id" % off)
        after = sum(bool(st & f) for f in (S_ID, S_STREAM_ID, S_CPU, S_IDENTIFIER))
        return off + size - 8 * (after + 1)

    def time(self, off):
        return u64(self.buf, self.time_pos(off))

    def set_time(self, off, t):
        struct.pack_into("<Q", self.buf, self.time_pos(off), t % (1 << 64))

    def set_pid(self, off, pid):
        if self.records.get(off, (None,))[0] != PERF_RECORD_SAMPLE:
            sys.exit("perfdata-edit: no SAMPLE at 0x%x" % off)
        st, _ = self.attr_of(off)
        if not st & S_TID:
            sys.exit("perfdata-edit: the SAMPLE at 0x%x has no pid" % off)
        pos = off + 8 + 8 * sum(bool(st & f) for f in (S_IDENTIFIER, S_IP))
        struct.pack_into("<II", self.buf, pos, pid, pid)

    def drop(self, offs):
        cut = sorted(set(offs))
        for off in cut:
            if off not in self.records:
                sys.exit("perfdata-edit: no record at 0x%x" % off)
        data_end = self.data_off + self.data_size
        out, pos = bytearray(self.buf[:self.data_off]), self.data_off
        for off in cut:
            out += self.buf[pos:off]
            pos = off + self.records[off][1]
        out += self.buf[pos:data_end]
        delta = (data_end - self.data_off) - (len(out) - self.data_off)
        struct.pack_into("<Q", out, 48, self.data_size - delta)
        table = len(out)
        out += self.buf[data_end:]
        for i in range(self.features):
            at = table + 16 * i
            struct.pack_into("<Q", out, at, u64(out, at) - delta)
        self.buf = out


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    with open(argv[1], "rb") as f:
        pd = PerfData(f.read())
    drops = []
    for op in argv[3:]:
        name, _, args = op.partition("=")
        a, _, b = args.partition(":")
        off = int(a, 0)
        if name == "time":
            pd.set_time(off, int(b, 0))
        elif name == "shift":
            pd.set_time(off, pd.time(off) + int(b, 0))
        elif name == "swap":
            other = int(b, 0)
            t, t2 = pd.time(off), pd.time(other)
            pd.set_time(off, t2)
            pd.set_time(other, t)
        elif name == "pid":
            pd.set_pid(off, int(b, 0))
        elif name == "drop":
            drops.append(off)
        else:
            sys.exit("perfdata-edit: unknown operation " + op)
    if drops:
        pd.drop(drops)
    with open(argv[2], "wb") as f:
        f.write(pd.buf)


if __name__ == "__main__":
    main(sys.argv)
