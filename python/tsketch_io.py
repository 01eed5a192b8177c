"""tsketch_io: read tsketch `.tsk` sketch files with numpy alone (for numpy, FAISS, scikit-learn).

    import tsketch_io
    s = tsketch_io.load("genomes.tsk")
    s.names            # one name per record (sequence, or file with --per-file)
    s.params           # t, dim, seed, alphabet, canonical, window, stride, anchor_k, precision, ...
    s.rows             # memory-mapped, read-only: (n_rows, D) float32/float64 for sketch rows;
                       # (n_rows,) uint64 keys for genome sketches (`sketch --genome`)
    s.record_rows(i)   # the rows (or keys) of record i
    s.keys(i)          # genome sketches: record i's keys, ascending uint64
    s.threshold(i)     # genome sketches: record i's threshold tau (its keys are those at most it)
    s.row_names()      # one name per row, as `tsketch export` writes them

    import faiss                                   # e.g. nearest sketches of whole records
    index = faiss.IndexFlatL2(s.params["dim"]); index.add(np.ascontiguousarray(s.rows, "float32"))

The layout read here is docs/format.md: format version 1 (sketch rows) and version 3 (genome
sketches: kind 1, `scaled`, `min_keys`, one little-endian uint64 key per row; version 2, genome
sketches of an older key layout, is refused). Nothing is read into memory
but the header and the trailer; the rows stay on disk until used. `load` checks what tsketch
checks (magic, byte order, version, sizes, regions, records) and, with verify=True (the default),
the CRC-32, which reads the whole file once. A bad file raises ValueError naming the file and the
reason.
"""

import os
import struct
import zlib
from typing import NamedTuple

import numpy as np

__all__ = ["load", "Record", "Sketches"]

MAGIC = b"\x89TSK\r\n\x1a\n"
FIXED_HEADER = 256
RECORD_ENTRY = 56
SOURCE_ENTRY = 16
GENOME_VERSION = 3
MAX_MIN_KEYS = 10**9
U64_MAX = (1 << 64) - 1
FP_MASK = (1 << 24) - 1  # a key's low bits: the window's fingerprint, the rest its anchor's hash
ALPHABETS = {0: ("dna", 4), 1: ("protein", 20)}


class Record(NamedTuple):
    name: str
    source: str
    raw_len: int
    clean_len: int
    dropped: int
    first_row: int
    n_rows: int


class Sketches:
    """A loaded .tsk file: names, params, records, the memory-mapped rows and the tables."""

    def __init__(self, path, version, params, records, rows, hash_table, sign_table):
        self.path = path
        self.version = version
        self.params = params
        self.records = records
        self.names = [r.name for r in records]
        self.rows = rows
        self.hash = hash_table
        self.sign = sign_table

    @property
    def is_genome(self):
        """True for genome sketches (key sets, format version 3)."""
        return self.params["kind"] == "genome"

    def record_rows(self, i):
        r = self.records[i]
        return self.rows[r.first_row:r.first_row + r.n_rows]

    def keys(self, i):
        if not self.is_genome:
            raise ValueError(f"{self.path}: sketch rows, not a genome sketch: it has no keys")
        return self.record_rows(i)

    def threshold(self, i):
        """Genome i's threshold tau_g (docs/format.md, "Thresholds"), from its stored keys, its
        clean_len and the file's scaled and min_keys: T = floor((2^64 - 1) / scaled) | FP_MASK;
        without a floor T; with fewer than min_keys keys its candidate bound floor((2^64 - 1) /
        s) | FP_MASK, s = clamp(floor(4 clean_len / (5 min_keys)), 1, scaled); else the larger of T
        and its min_keys-th smallest key | FP_MASK. Two genomes are compared on their keys at most
        the smaller of their thresholds."""
        keys = self.keys(i)
        scaled, min_keys = self.params["scaled"], self.params["min_keys"]
        t = U64_MAX // scaled | FP_MASK
        if min_keys == 0:
            return t
        if len(keys) < min_keys:
            s = min(max(4 * self.records[i].clean_len // (5 * min_keys), 1), scaled)
            return U64_MAX // s | FP_MASK
        return max(t, int(keys[min_keys - 1]) | FP_MASK)

    def row_names(self):
        """Row names as `tsketch export` writes them: the record name for whole-record sketches and
        genome sketches, record:start-end (1-based, inclusive, on the cleaned sequence) for slide
        rows, record:windowN for anchored windows."""
        p = self.params
        if self.is_genome or p["window"] == 0:
            return list(self.names)
        out = []
        for r in self.records:
            for k in range(r.n_rows):
                if p["anchor_k"]:
                    out.append(f"{r.name}:window{k + 1}")
                else:
                    last = (k + 1) * p["stride"] - 1
                    first = max(last - p["window"] + 1, 0)
                    out.append(f"{r.name}:{first + 1}-{last + 1}")
        return out

    def __len__(self):
        return len(self.records)

    def __repr__(self):
        kind = "genome sketches" if self.is_genome else "sketch rows"
        return f"<tsketch_io.Sketches {self.path!r}: {len(self.records)} records, {self.rows.shape[0]} {kind}>"


def _fail(path, why):
    raise ValueError(f"{path}: {why}")


def _string(path, strings, off, length):
    if off + length >= len(strings) or strings[off + length] != 0:
        _fail(path, "corrupt trailer (a string outside the strings area or not NUL-terminated)")
    return strings[off:off + length].decode("utf-8", errors="surrogateescape")


def load(path, verify=True):
    """Loads a .tsk file; see the module documentation. verify: check the CRC-32 too."""
    path = os.fspath(path)
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(FIXED_HEADER)
        if len(head) < 8 or head[:8] != MAGIC:
            _fail(path, "not a tsketch sketch file")
        if len(head) < FIXED_HEADER:
            _fail(path, "truncated")
        u32 = lambda off: struct.unpack_from("<I", head, off)[0]
        u64 = lambda off: struct.unpack_from("<Q", head, off)[0]
        i64 = lambda off: struct.unpack_from("<q", head, off)[0]
        if u32(12) != 0x01020304:
            _fail(path, "not little-endian (byte order mark)")
        version = u32(8)
        if version == 2:
            _fail(path, "genome sketches of an older tsketch (format version 2: another key layout, no size "
                  "floor): sketch the genomes again")
        if version not in (1, GENOME_VERSION):
            _fail(path, f"unsupported format version {version} (this reader knows 1 and {GENOME_VERSION})")
        header_size, crc = u32(16), u32(20)
        file_size, data_offset, data_size = u64(24), u64(32), u64(40)
        n_rows, n_records, trailer_offset, trailer_size = u64(48), u64(56), u64(64), u64(72)
        n_sources, strings_size = u64(80), u64(88)
        if file_size != size:
            _fail(path, f"truncated (expected {file_size} bytes, found {size})" if size < file_size
                  else f"corrupt (header says {file_size} bytes, file has {size})")
        if (header_size < FIXED_HEADER or data_offset % 4096 or not header_size <= data_offset <= size
                or data_offset + data_size > size or trailer_offset != (data_offset + data_size + 7) // 8 * 8
                or trailer_offset + trailer_size != size):
            _fail(path, "corrupt header (regions)")
        alphabet, a = ALPHABETS.get(u32(144), (None, 0))
        if alphabet is None or u32(148) != a:
            _fail(path, "corrupt header (alphabet)")
        t, dim, elem = u32(128), u32(132), u32(160)
        kind = "rows"
        scaled = min_keys = 0
        if version == GENOME_VERSION:
            if u32(196) != 1 or not 1 <= u64(200) < 1 << 63 or u64(208) > MAX_MIN_KEYS:
                _fail(path, "corrupt header (version 3 without a genome sketch kind, scale and floor)")
            kind, scaled, min_keys = "genome", u64(200), u64(208)
        row_bytes = 8 if kind == "genome" else dim * elem
        if elem != (8 if kind == "genome" or u32(156) == 1 else 4) or row_bytes == 0 or n_rows * row_bytes != data_size:
            _fail(path, "corrupt header (rows do not fill the data)")
        tables_off, tables_size = u32(184), u32(188)
        if tables_off != FIXED_HEADER or tables_size != t * a * 5 or header_size != FIXED_HEADER + tables_size:
            _fail(path, "corrupt header (tables)")
        tables = f.read(tables_size)
        f.seek(trailer_offset)
        trailer = f.read(trailer_size)
        if verify:
            c = zlib.crc32(head[:20] + b"\0\0\0\0" + head[24:] + tables)
            f.seek(data_offset)
            left = data_size
            while left:
                chunk = f.read(min(left, 1 << 24))
                c = zlib.crc32(chunk, c)
                left -= len(chunk)
            c = zlib.crc32(trailer, c)
            if c != crc:
                _fail(path, "checksum mismatch (corrupt file)")

    if trailer_size != n_records * RECORD_ENTRY + n_sources * SOURCE_ENTRY + strings_size:
        _fail(path, "corrupt header (trailer size)")
    strings = trailer[n_records * RECORD_ENTRY + n_sources * SOURCE_ENTRY:]
    sources = []
    for s in range(n_sources):
        off, length = struct.unpack_from("<QQ", trailer, n_records * RECORD_ENTRY + s * SOURCE_ENTRY)
        sources.append(_string(path, strings, off, length))
    records, row = [], 0
    for i in range(n_records):
        name_off, name_len, src, raw, clean, dropped, first, n = struct.unpack_from("<QIIqqqqq", trailer, i * RECORD_ENTRY)
        if src >= n_sources or first != row or n < 0:
            _fail(path, f"corrupt record table (record {i})")
        records.append(Record(_string(path, strings, name_off, name_len), sources[src], raw, clean, dropped, first, n))
        row += n
    if row != n_rows:
        _fail(path, "corrupt record table (rows do not add up)")

    params = {
        "kind": kind,
        "t": t,
        "dim": dim,
        "seed": u64(136),
        "alphabet": alphabet,
        "canonical": bool(u32(152)),
        "precision": "double" if u32(156) == 1 else "single",
        "tables": "file" if u32(164) else "splitmix64",
        "window": i64(168),
        "stride": i64(176),
        "anchor_k": u32(192),
        "scaled": scaled,
        "min_keys": min_keys,
        "format_version": version,
        "tool_version": _string(path, strings, u64(96), u64(104)),
        "command_line": _string(path, strings, u64(112), u64(120)),
    }
    if kind == "genome":
        dtype, shape = np.dtype("<u8"), (n_rows,)
    else:
        dtype, shape = np.dtype("<f8" if elem == 8 else "<f4"), (n_rows, dim)
    if n_rows:
        rows = np.memmap(path, dtype=dtype, mode="r", offset=data_offset, shape=shape)
    else:
        rows = np.empty(shape, dtype=dtype)
    if kind == "genome":
        for i, r in enumerate(records):
            k = rows[r.first_row:r.first_row + r.n_rows]
            if r.n_rows > 1 and not np.all(k[1:] > k[:-1]):
                _fail(path, f"corrupt genome sketch (record {i}: keys not strictly ascending)")
    hash_table = np.frombuffer(tables, dtype="<i4", count=t * a).reshape(t, a)
    sign_table = np.frombuffer(tables, dtype="i1", offset=t * a * 4, count=t * a).reshape(t, a)
    return Sketches(path, version, params, records, rows, hash_table, sign_table)


if __name__ == "__main__":  # python3 tsketch_io.py FILE.tsk: a summary, as a smoke test
    import sys

    for p in sys.argv[1:]:
        s = load(p)
        print(s)
        print({k: v for k, v in s.params.items() if k != "command_line"})
