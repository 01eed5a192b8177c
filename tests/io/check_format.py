#!/usr/bin/env python3
"""Reads write_samples' .tsk and .npy following docs/format.md alone (struct + zlib, numpy when
present) and checks every value. Usage: check_format.py WRITE_SAMPLES_EXE SCRATCH_DIR"""
import os, struct, subprocess, sys, zlib

exe, d = sys.argv[1], sys.argv[2]
os.makedirs(d, exist_ok=True)
subprocess.run([exe, d], check=True)
b = open(os.path.join(d, "sample.tsk"), "rb").read()

def u32(o): return struct.unpack_from("<I", b, o)[0]
def u64(o): return struct.unpack_from("<Q", b, o)[0]

assert b[:8] == b"\x89TSK\r\n\x1a\n"
assert u32(8) == 1 and b[12:16] == b"\x04\x03\x02\x01"
hsize, crc = u32(16), u32(20)
fsize, doff, dsize, nrows, nrec = u64(24), u64(32), u64(40), u64(48), u64(56)
toff, tsize, nsrc, ssize = u64(64), u64(72), u64(80), u64(88)
assert fsize == len(b) and doff == 4096 and toff == (doff + dsize + 7) // 8 * 8
t, D, seed = u32(128), u32(132), u64(136)
assert (t, D, seed, u32(144), u32(148), u32(156), u32(160)) == (3, 5, 99, 0, 4, 0, 4)
assert struct.unpack_from("<qq", b, 168) == (4, 2) and hsize == 256 + t * 4 * 5

# tables: SplitMix64 of seed 99 (docs/spec.md)
M = (1 << 64) - 1
state = seed
def nxt():
    global state
    state = (state + 0x9E3779B97F4A7C15) & M
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)
for k in range(t):
    for c in range(4):
        h, s = nxt() % D, -1 if nxt() >> 63 else 1
        assert struct.unpack_from("<i", b, 256 + 4 * (k * 4 + c))[0] == h
        assert struct.unpack_from("<b", b, 256 + 4 * t * 4 + k * 4 + c)[0] == s

hdr = bytearray(b[:hsize]); hdr[20:24] = b"\0\0\0\0"
assert zlib.crc32(bytes(hdr) + b[doff:doff + dsize] + b[toff:toff + tsize]) == crc, "checksum"

assert nrows == 8 and dsize == 8 * 5 * 4
vals = struct.unpack_from("<40f", b, doff)
assert all(vals[r * 5 + j] == r + j / 8 for r in range(8) for j in range(5))

strings = toff + nrec * 56 + nsrc * 16
def string(off, n):
    assert b[strings + off + n] == 0
    return b[strings + off:strings + off + n].decode()
assert string(u64(96), u64(104)) == "test" and string(u64(112), u64(120)) == "write_samples"
srcs = [string(u64(toff + nrec * 56 + 16 * i), u64(toff + nrec * 56 + 16 * i + 8)) for i in range(nsrc)]
assert srcs == ["in/a.fa", "in/b.fq.gz"], srcs
recs = []
for i in range(nrec):
    e = toff + 56 * i
    noff, nlen, src = struct.unpack_from("<QII", b, e)
    recs.append((string(noff, nlen), srcs[src]) + struct.unpack_from("<5q", b, e + 16))
assert recs == [("alpha", "in/a.fa", 9, 7, 2, 0, 3), ("beta", "in/b.fq.gz", 1, 1, 0, 3, 0),
                ("gamma", "in/b.fq.gz", 10, 10, 0, 3, 5)], recs

n = open(os.path.join(d, "sample.npy"), "rb").read()
assert n[:8] == b"\x93NUMPY\x01\x00"
hl = struct.unpack_from("<H", n, 8)[0]
assert (10 + hl) % 64 == 0
assert n[10:10 + hl].decode().rstrip() == "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 5), }"
assert struct.unpack_from("<40f", n, 10 + hl) == vals
try:
    import numpy
except ImportError:
    numpy = None
if numpy is not None:
    a = numpy.load(os.path.join(d, "sample.npy"))
    assert a.shape == (8, 5) and a.dtype == numpy.float32 and a[7, 4] == 7.5
print("format ok" + (" (numpy too)" if numpy is not None else ""))
