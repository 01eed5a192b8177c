#!/usr/bin/env python3
"""tsk_patch.py: rewrite bytes of a .tsk file and fix its checksum, so that a test reaches the
checks behind the CRC (docs/format.md: CRC32 of the header with its CRC field zeroed, then the
data, then the trailer, then, in genome sketches (version 5), the anchor section).

  tsk_patch.py IN OUT value ROW COL VALUE   set element (ROW, COL) of the data matrix
                                            (float32 or float64 as the file's elem_size says)
  tsk_patch.py IN OUT crc                   only recompute the checksum
"""
import struct
import sys
import zlib


def u32(b, off):
    return struct.unpack_from("<I", b, off)[0]


def u64(b, off):
    return struct.unpack_from("<Q", b, off)[0]


def fix_crc(b, max_header=None):
    """The checksum as tsketch computes it, written into b. Left as it is when the header's
    regions do not lie in the file (or the header is longer than max_header, when given)."""
    if len(b) < 80:
        return
    header_size = u32(b, 16)
    data_off, data_size = u64(b, 32), u64(b, 40)
    trailer_off, trailer_size = u64(b, 64), u64(b, 72)
    if not 24 <= header_size <= min(len(b), max_header or len(b)):
        return
    if data_off + data_size > len(b) or trailer_off + trailer_size > len(b):
        return
    head = bytearray(b[:header_size])
    head[20:24] = b"\0\0\0\0"
    crc = zlib.crc32(bytes(head))
    crc = zlib.crc32(bytes(b[data_off:data_off + data_size]), crc)
    crc = zlib.crc32(bytes(b[trailer_off:trailer_off + trailer_size]), crc)
    if u32(b, 8) == 5 and len(b) >= 232:
        ani_off, ani_size = u64(b, 216), u64(b, 224)
        if ani_off + ani_size <= len(b):
            crc = zlib.crc32(bytes(b[ani_off:ani_off + ani_size]), crc)
    struct.pack_into("<I", b, 20, crc & 0xFFFFFFFF)


def main():
    src, dst, what = sys.argv[1:4]
    b = bytearray(open(src, "rb").read())
    if what == "value":
        row, col, value = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
        dim, elem = u32(b, 132), u32(b, 160)
        off = u64(b, 32) + (row * dim + col) * elem
        struct.pack_into("<d" if elem == 8 else "<f", b, off, value)
    fix_crc(b)
    open(dst, "wb").write(b)


if __name__ == "__main__":
    main()
