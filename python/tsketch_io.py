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
    s.anchors(i)       # genome sketches: record i's anchors, an Anchors(seg_count, hashes, rate_log2,
                       # loose): its segments' anchors and its loose ones (in no 3 kb segment)
    s.n_contigs(i), s.n50(i)  # genome sketches: its contigs, and their N50
    s.row_names()      # one name per row, as `tsketch export` writes them

    import faiss                                   # e.g. nearest sketches of whole records
    index = faiss.IndexFlatL2(s.params["dim"]); index.add(np.ascontiguousarray(s.rows, "float32"))

The layout read here is docs/format.md: format version 1 (sketch rows) and version 5 (genome
sketches: kind 1, `scaled`, `min_keys`, `floor_stride`, one little-endian uint64 key per row, then the genomes'
segment anchors and loose anchors after the record table; versions 2, 3 and 4, genome sketches of
older tsketch versions, are refused). Nothing is read into memory
but the header and the trailer; the rows stay on disk until used. `load` refuses exactly what
tsketch refuses (io/tsk_file.c: magic, byte order, version, sizes, regions; every parameter in
range and consistent as core/tsk_def.c's tsk_params_check and core/genome_keys.c's
tsk_genome_params_check want it, drawn tables equal to the seed's; records' strings, lengths and
rows; names without TAB, CR or LF; genome keys strictly ascending; the anchor section's counts
against the records and the header) and, with verify=True (the
default), the CRC-32 and that vector rows are finite, which read the whole file once. A bad file
raises ValueError naming the file and the reason, in tsketch's words
(tests/python/test_tsk_validation.py holds the two readers to the same verdicts).
"""

import os
import struct
import zlib
from typing import NamedTuple

import numpy as np

__all__ = ["load", "Anchors", "Record", "Sketches"]

MAGIC = b"\x89TSK\r\n\x1a\n"
FIXED_HEADER = 256
RECORD_ENTRY = 56
SOURCE_ENTRY = 16
GENOME_VERSION = 5
ANI_ENTRY = 40         # bytes per genome in the anchor section's table
ANI_SEGMENT = 3000     # bases a segment (core/genome_ani.h)
ANI_MIN_RATE_LOG2, ANI_MAX_RATE_LOG2 = 6, 31
PAGE = 4096
MAX_T = 16
MAX_DIM = 65536
MAX_WINDOW = 1 << 32
MAX_MIN_KEYS = 10**9
MAX_FLOOR_STRIDE = 1 << 32
GENOME_MAX_WINDOW = 64
GENOME_MAX_SCALE = 1.6e6
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


class Anchors(NamedTuple):
    """A genome's anchors (core/genome_ani.h, docs/format.md "Segment anchors"): the canonical
    anchor k-mers (the keys' k and hash) whose hash h is below 2^(64 - rate_log2), each stored as
    the uint32 h >> (32 - rate_log2). Arrays are read-only views of the file."""
    seg_count: np.ndarray  # uint16, one per 3 kb segment (genome order: contig after contig): its anchors
    hashes: np.ndarray     # uint32, the segments' anchors, segment after segment (sum(seg_count) of them)
    rate_log2: int         # 6..31: one anchor k-mer in 2^rate_log2 kept
    loose: np.ndarray      # uint32, its loose anchors: those in no segment (a contig's tail shorter
    #                        than 3 kb, or a k-mer across two segments), in the order written


class Sketches:
    """A loaded .tsk file: names, params, records, the memory-mapped rows and the tables."""

    def __init__(self, path, version, params, records, rows, hash_table, sign_table, ani=None):
        self.path = path
        self._ani = ani
        self.version = version
        self.params = params
        self.records = records
        self.names = [r.name for r in records]
        self.rows = rows
        self.hash = hash_table
        self.sign = sign_table

    @property
    def is_genome(self):
        """True for genome sketches (key sets, format version 5)."""
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
        clean_len and the file's scaled, min_keys and floor_stride F: T = floor((2^64 - 1) / scaled) |
        FP_MASK; without a floor T; with fewer than min_keys keys its candidate bound floor((2^64 -
        1) / s) | FP_MASK, s = min(max(floor(4 clean_len / (5 min_keys)), F), scaled); else the larger of T
        and its min_keys-th smallest key | FP_MASK. Two genomes are compared on their keys at most
        the smaller of their thresholds."""
        keys = self.keys(i)
        scaled, min_keys = self.params["scaled"], self.params["min_keys"]
        t = U64_MAX // scaled | FP_MASK
        if min_keys == 0:
            return t
        if len(keys) < min_keys:
            s = min(max(4 * self.records[i].clean_len // (5 * min_keys), self.params["floor_stride"]), scaled)
            return U64_MAX // s | FP_MASK
        return max(t, int(keys[min_keys - 1]) | FP_MASK)

    def anchors(self, i):
        """Genome i's anchors (core/genome_ani.h, docs/format.md "Segment anchors"), an Anchors
        named tuple (seg_count, hashes, rate_log2, loose): the anchors of each of its 3 kb segments
        (uint16, genome order), their stored hashes h >> (32 - rate_log2) segment after segment
        (uint32), its rate (the anchors are the anchor k-mers with hash h < 2^(64 - rate_log2)),
        and the stored hashes of its loose anchors (uint32: the anchor k-mers in no segment, in a
        contig's tail or across two segments). hashes and loose together are all its anchors."""
        if not self.is_genome:
            raise ValueError(f"{self.path}: sketch rows, not a genome sketch: it has no anchors")
        e = self._ani["table"][i]
        at, na, hashes = e["hash_at"], e["n_anchors"], self._ani["hashes"]
        return Anchors(self._ani["counts"][e["seg_at"]:e["seg_at"] + e["n_segments"]], hashes[at:at + na],
                       e["rate_log2"], hashes[at + na:at + na + e["n_loose"]])

    def n_contigs(self, i):
        """Genome i's contigs (records of its FASTA; 1 for a genome a record)."""
        return self._ani["table"][i]["n_contigs"]

    def n50(self, i):
        """The N50 of genome i's cleaned contig lengths."""
        return self._ani["table"][i]["n50"]

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


def _i32(v):
    """A u32 field as the C reader's int (the fields it casts: canonical, tables, anchor_k)."""
    return v - (1 << 32) if v >= 1 << 31 else v


def _i64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _string_ok(strings, off, length):
    """A string [off, off + length] inside the strings area and NUL-terminated (io/tsk_file.c)."""
    return off < len(strings) and length < len(strings) - off and strings[off + length] == 0


def _string(strings, off):
    """The C string at off: up to its first NUL, as tsketch reads it."""
    end = strings.index(b"\0", off)
    return strings[off:end].decode("utf-8", errors="surrogateescape")


def _splitmix64_tables(seed, t, a, dim):
    """The hash and sign tables tsketch draws from seed (core/tsk_def.c, tsk_tables_draw)."""
    state, hash_t, sign_t = seed, [], []
    for _ in range(t * a):
        out = []
        for _ in range(2):
            state = (state + 0x9E3779B97F4A7C15) & U64_MAX
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & U64_MAX
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & U64_MAX
            out.append(z ^ (z >> 31))
        hash_t.append(out[0] % dim)
        sign_t.append(-1 if out[1] >> 63 else 1)
    return hash_t, sign_t


def _genome_row_scale(t, window):
    """2 C(W, t), computed as tsketch computes it (a running double product, rounded)."""
    c = 1.0
    for j in range(t):
        c = c * float(window - j) / float(j + 1)
    return 2.0 * round(c)


def _params_problem(p, hash_t, sign_t):
    """Why the parameters make no sketch tsketch reads, or None (core/tsk_def.c tsk_params_check,
    core/genome_keys.c tsk_genome_params_check): the same checks, the same words."""
    t, dim, window, stride, anchor_k, scaled = p["t"], p["dim"], p["window"], p["stride"], p["anchor_k"], p["scaled"]
    dna = p["alphabet"] == 0
    if not 1 <= t <= MAX_T:
        return "tuple length t must be between 1 and 16"
    if not 1 <= dim <= MAX_DIM:
        return "dimension D must be between 1 and 65536"
    if p["canonical"] and not dna:
        return "canonical sketches need the dna alphabet"
    if window < 0 or stride < 0:
        return "window and stride must be positive"
    if window > MAX_WINDOW or stride > MAX_WINDOW:
        return "window and stride must be at most 2^32"
    if window == 0 and stride != 0:
        return "stride needs a window"
    if window > 0 and stride <= 0:
        return "stride must be positive"
    if stride > window and anchor_k == 0:
        return "stride must not exceed window"
    if anchor_k != 0:
        if anchor_k < 2 or anchor_k > 32 or anchor_k % 2:
            return "anchor k must be even, 2..32"
        if window == 0:
            return "anchored windows need a window"
        if not dna:
            return "anchored windows need the dna alphabet"
        if window < anchor_k:
            return "window must not be shorter than the anchor k-mer"
    if scaled > 0:
        if stride != scaled:
            return "genome sketches place anchors by scaled: the stride must equal scaled"
        if not 0 <= p["min_keys"] <= MAX_MIN_KEYS:
            return "min keys (the size floor) must be 0..1e9"
        if not dna:
            return "genome sketches need the dna alphabet"
        if not p["canonical"]:
            return "genome sketches need canonical rows (both strands)"
        if anchor_k == 0 or window == 0:
            return "genome sketches need anchored windows"
        if window > GENOME_MAX_WINDOW:
            return "genome sketch windows must be at most 64 bases"
        if window % 2:
            return "genome sketch windows must have an even length (strand symmetry)"
        if t > window:
            return "t must not exceed the genome sketch window (a window of no t-tuple)"
        if _genome_row_scale(t, window) > GENOME_MAX_SCALE:
            return ("genome sketch windows hold too many t-tuples for exact float32 rows (2 C(W, t) must be at "
                    "most 1.6e6): a shorter window or a smaller t")
    if any(h < 0 or h >= dim for h in hash_t):
        return "hash table value outside [0, D)"
    if any(s not in (1, -1) for s in sign_t):
        return "sign table value other than +1 or -1"
    return None


def _rows_fit(p, clean_len, n_rows):
    """Whether a record of clean_len codes may hold n_rows rows (io/tsk_file.c rows_fit)."""
    if p["scaled"] > 0:
        return 0 <= n_rows <= clean_len
    if p["anchor_k"] > 0:
        return 0 <= n_rows <= (clean_len - p["window"] + 1 if clean_len >= p["window"] else 0)
    return n_rows == (clean_len // p["stride"] if p["window"] > 0 else 1)


def _check_layout(path, version, u32, u64, size):
    """The regions inside the file, in the format's order (io/tsk_file.c read_layout)."""
    header_size, data_offset, data_size = u32(16), u64(32), u64(40)
    trailer_offset, trailer_size = u64(64), u64(72)
    trailer_end = size if version != GENOME_VERSION else trailer_offset + trailer_size
    what = None
    if header_size < FIXED_HEADER or header_size > size:
        what = "header size"
    elif data_offset % PAGE or data_offset < header_size or data_offset > size:
        what = "data offset"
    elif data_size > size - data_offset:
        what = "data size"
    elif trailer_offset != (data_offset + data_size + 7) // 8 * 8:
        what = "trailer offset"
    elif trailer_offset > size or trailer_size > size - trailer_offset or trailer_end != trailer_offset + trailer_size:
        what = "trailer size"
    elif version == GENOME_VERSION:
        ani_offset, ani_size, n_seg, n_anc, n_rec = u64(216), u64(224), u64(232), u64(240), u64(56)
        if ani_offset != (trailer_offset + trailer_size + 7) // 8 * 8 or ani_offset > size or ani_size != size - ani_offset:
            what = "anchor section offset"
        elif n_rec * ANI_ENTRY + (2 * n_seg + 7) // 8 * 8 + (4 * n_anc + 7) // 8 * 8 != ani_size:
            what = "anchor section size"
    if what:
        _fail(path, f"corrupt header ({what} out of range)")
    return header_size, data_offset, data_size, trailer_offset, trailer_size


def _read_params(path, version, u32, u64, header_size, tables):
    """Every parameter field in range and consistent, then the tables (io/tsk_file.c read_params)."""
    t, dim, alphabet, precision, elem = u32(128), u32(132), u32(144), u32(156), u32(160)
    if not 1 <= t <= MAX_T or not 1 <= dim <= MAX_DIM or alphabet > 1 or precision > 1:
        _fail(path, f"corrupt header (t {t}, D {dim}, alphabet {alphabet}, precision {precision} out of range)")
    p = {"t": t, "dim": dim, "seed": u64(136), "alphabet": alphabet, "canonical": _i32(u32(152)),
         "precision": precision, "tables_from_file": _i32(u32(164)), "window": _i64(u64(168)),
         "stride": _i64(u64(176)), "anchor_k": _i32(u32(192)), "scaled": 0, "min_keys": 0,
         "floor_stride": 0}
    if version == GENOME_VERSION:
        scaled, min_keys, floor_stride = u64(200), u64(208), u64(248)
        if (u32(196) != 1 or not 1 <= scaled <= (1 << 63) - 1 or min_keys > MAX_MIN_KEYS
                or floor_stride > MAX_FLOOR_STRIDE):
            _fail(path, f"corrupt header (version {GENOME_VERSION} without a genome sketch kind, scale and floor)")
        # 0: a file written before the floor stride, whose floor could take every window
        p["scaled"], p["min_keys"], p["floor_stride"] = scaled, min_keys, floor_stride or 1
    a = ALPHABETS[alphabet][1]
    n_tables = t * a * 5
    if (u32(148) != a or elem != (8 if p["scaled"] > 0 or precision == 1 else 4) or u32(184) != FIXED_HEADER
            or u32(188) != n_tables or header_size != FIXED_HEADER + n_tables or p["canonical"] > 1
            or p["tables_from_file"] > 1):
        _fail(path, "corrupt header (inconsistent parameter fields)")
    hash_t = list(struct.unpack_from(f"<{t * a}i", tables, 0))
    sign_t = list(struct.unpack_from(f"<{t * a}b", tables, t * a * 4))
    why = _params_problem(p, hash_t, sign_t)
    if why:
        _fail(path, f"corrupt header (invalid parameters: {why})")
    if not p["tables_from_file"] and (hash_t, sign_t) != _splitmix64_tables(p["seed"], t, a, dim):
        _fail(path, f"corrupt header (tables differ from those of seed {p['seed']})")
    return p, elem


def _read_records(path, p, trailer, n_rows, n_records, n_sources, strings):
    """The sources and records: strings inside the strings area, lengths and rows consistent,
    names without TAB, CR or LF (io/tsk_file.c read_trailer, read_record)."""
    sources = []
    for s in range(n_sources):
        off, length = struct.unpack_from("<QQ", trailer, n_records * RECORD_ENTRY + s * SOURCE_ENTRY)
        if not _string_ok(strings, off, length):
            _fail(path, f"corrupt record table (source {s})")
        sources.append(off)
    records, row = [], 0
    for i in range(n_records):
        name_off, name_len, src, raw, clean, dropped, first, n = struct.unpack_from("<QIIqqqqq", trailer, i * RECORD_ENTRY)
        if not _string_ok(strings, name_off, name_len) or src >= n_sources:
            _fail(path, f"corrupt record table (record {i}: name or source)")
        if (raw < 0 or clean < 0 or clean > raw or dropped != raw - clean or first != row
                or not _rows_fit(p, clean, n) or n > n_rows - row):
            _fail(path, f"corrupt record table (record {i}: lengths or rows inconsistent)")
        name = _string(strings, name_off)
        if any(c in name for c in "\t\r\n"):
            _fail(path, f"record {i + 1}: name contains a tab or newline (tsketch's outputs are tab- and "
                  "line-separated)")
        records.append(Record(name, _string(strings, sources[src]), raw, clean, dropped, first, n))
        row += n
    if row != n_rows:
        _fail(path, f"corrupt record table (records cover {row} of {n_rows} rows)")
    return records


def _check_values(path, p, records, rows):
    """Genome keys strictly ascending per record; vector rows finite (io/tsk_file.c)."""
    if p["scaled"] > 0:
        for i, r in enumerate(records):
            k = rows[r.first_row:r.first_row + r.n_rows]
            if r.n_rows > 1 and not np.all(k[1:] > k[:-1]):
                _fail(path, f"corrupt genome sketch (record {i}: keys not strictly ascending)")
        return
    step = max(1, (1 << 24) // max(1, rows.shape[1] * rows.itemsize))
    for start in range(0, rows.shape[0], step):
        ok = np.isfinite(rows[start:start + step]).all(axis=1)
        if not ok.all():
            bad = start + int(np.argmin(ok))
            name = next(r.name for r in records if r.first_row + r.n_rows > bad)
            _fail(path, f"record '{name}' holds a NaN or infinite value (row {bad}): the file is corrupt")


def load(path, verify=True):
    """Loads a .tsk file; see the module documentation. verify: check the CRC-32 and that vector
    rows are finite too (the checks that read the whole file)."""
    path = os.fspath(path)
    if path == "-" or (os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)):
        _fail(path, "a .tsk sketch file is mapped, not read through a pipe or stdin: give sketch files as files")
    if os.path.isdir(path):
        _fail(path, "is a directory, not a tsketch sketch file")
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(PAGE)
        if len(head) < 8 or head[:8] != MAGIC:
            _fail(path, "not a tsketch sketch file (empty file)" if size == 0 else "not a tsketch sketch file")
        if size < FIXED_HEADER:
            _fail(path, f"truncated ({size} bytes, shorter than the header)")
        u32 = lambda off: struct.unpack_from("<I", head, off)[0]
        u64 = lambda off: struct.unpack_from("<Q", head, off)[0]
        bom = u32(12)
        if bom != 0x01020304:
            _fail(path, "written in big-endian byte order, which this reader does not read" if bom == 0x04030201
                  else "corrupt header (bad byte-order mark)")
        version = u32(8)
        if version == 2:
            _fail(path, "genome sketches of an older tsketch (format version 2: another key layout, no size "
                  "floor): sketch the genomes again")
        if version == 3:
            _fail(path, "genome sketches of an older tsketch (format version 3: no ANI anchors): sketch the genomes "
                  "again")
        if version == 4:
            _fail(path, "genome sketches of an older tsketch (format version 4: ANI anchors without the contigs' "
                  "tails): sketch the genomes again")
        if version not in (1, GENOME_VERSION):
            _fail(path, f"unsupported format version {version} (this reader knows 1 and {GENOME_VERSION})"
                  + (": written by a newer tsketch" if version > GENOME_VERSION else ""))
        file_size = u64(24)
        if file_size != size:
            _fail(path, f"truncated (expected {file_size} bytes, found {size})" if size < file_size
                  else f"corrupt ({size} bytes, {size - file_size} more than the header records)")
        header_size, data_offset, data_size, trailer_offset, trailer_size = _check_layout(path, version, u32, u64, size)
        f.seek(0)
        header = f.read(header_size)
        f.seek(trailer_offset)
        trailer = f.read(trailer_size)
        if verify:
            c = zlib.crc32(header[:20] + b"\0\0\0\0" + header[24:])
            f.seek(data_offset)
            left = data_size
            while left:
                chunk = f.read(min(left, 1 << 24))
                c = zlib.crc32(chunk, c)
                left -= len(chunk)
            c = zlib.crc32(trailer, c)
            if version == GENOME_VERSION:
                f.seek(u64(216))
                c = zlib.crc32(f.read(u64(224)), c)
            if c != u32(20):
                _fail(path, "checksum mismatch (the file is corrupt)")

    p, elem = _read_params(path, version, u32, u64, header_size, header[FIXED_HEADER:])
    n_rows, n_records, n_sources, strings_size = u64(48), u64(56), u64(80), u64(88)
    row_bytes = 8 if p["scaled"] > 0 else p["dim"] * elem
    if n_rows * row_bytes != data_size:
        _fail(path, f"corrupt header ({n_rows} rows of {row_bytes} bytes do not fill {data_size} data bytes)")
    if n_records * RECORD_ENTRY + n_sources * SOURCE_ENTRY + strings_size != trailer_size:
        _fail(path, "corrupt header (record table sizes)")
    strings = trailer[n_records * RECORD_ENTRY + n_sources * SOURCE_ENTRY:]
    if not _string_ok(strings, u64(96), u64(104)) or not _string_ok(strings, u64(112), u64(120)):
        _fail(path, "corrupt record table (version or command line string)")
    records = _read_records(path, p, trailer, n_rows, n_records, n_sources, strings)

    kind = "genome" if p["scaled"] > 0 else "rows"
    if kind == "genome":
        dtype, shape = np.dtype("<u8"), (n_rows,)
    else:
        dtype, shape = np.dtype("<f8" if elem == 8 else "<f4"), (n_rows, p["dim"])
    if n_rows:
        rows = np.memmap(path, dtype=dtype, mode="r", offset=data_offset, shape=shape)
    else:
        rows = np.empty(shape, dtype=dtype)
    if kind == "genome" or verify:
        _check_values(path, p, records, rows)
    ani = _read_anchors(path, records, u64) if kind == "genome" else None
    a = ALPHABETS[p["alphabet"]][1]
    tables = header[FIXED_HEADER:]
    params = {
        "kind": kind,
        "t": p["t"],
        "dim": p["dim"],
        "seed": p["seed"],
        "alphabet": ALPHABETS[p["alphabet"]][0],
        "canonical": bool(p["canonical"]),
        "precision": "double" if p["precision"] == 1 else "single",
        "tables": "file" if p["tables_from_file"] else "splitmix64",
        "window": p["window"],
        "stride": p["stride"],
        "anchor_k": p["anchor_k"],
        "scaled": p["scaled"],
        "min_keys": p["min_keys"],
        "floor_stride": p["floor_stride"],
        "format_version": version,
        "tool_version": _string(strings, u64(96)),
        "command_line": _string(strings, u64(112)),
    }
    hash_table = np.frombuffer(tables, dtype="<i4", count=p["t"] * a).reshape(p["t"], a)
    sign_table = np.frombuffer(tables, dtype="i1", offset=p["t"] * a * 4, count=p["t"] * a).reshape(p["t"], a)
    return Sketches(path, version, params, records, rows, hash_table, sign_table, ani)


def _read_anchors(path, records, u64):
    """The anchor section (io/tsk_file.c read_anchors): every genome's entry against its record,
    its segments' counts against its anchors, the sums against the header. The header's n_anchors
    (n_anc here) counts every stored hash: the segments' anchors and the loose ones."""
    offset, n_seg, n_anc, n = u64(216), u64(232), u64(240), len(records)
    entry = np.dtype([("n_segments", "<u8"), ("n_anchors", "<u8"), ("n_contigs", "<u8"), ("n50", "<u8"),
                      ("rate_log2", "<u4"), ("n_loose", "<u4")])
    raw = np.fromfile(path, dtype=entry, count=n, offset=offset) if n else np.empty(0, entry)
    counts = np.memmap(path, dtype="<u2", mode="r", offset=offset + n * ANI_ENTRY, shape=(n_seg,)) if n_seg \
        else np.empty(0, "<u2")
    hashes = np.memmap(path, dtype="<u4", mode="r", offset=offset + n * ANI_ENTRY + (2 * n_seg + 7) // 8 * 8,
                       shape=(n_anc,)) if n_anc else np.empty(0, "<u4")
    table, seg, anc = [], 0, 0
    for i, (e, r) in enumerate(zip(raw, records)):
        ns, na, nl, rate = int(e["n_segments"]), int(e["n_anchors"]), int(e["n_loose"]), int(e["rate_log2"])
        what = None
        if not ANI_MIN_RATE_LOG2 <= rate <= ANI_MAX_RATE_LOG2:
            what = "rate out of range"
        elif ns > r.clean_len // ANI_SEGMENT or ns > n_seg - seg:
            what = "more segments than its length holds"
        elif na + nl > r.clean_len:
            what = "more anchors than its length holds"
        elif na + nl > n_anc - anc:
            what = "more anchors than the file holds"
        elif int(e["n50"]) > r.clean_len or int(e["n_contigs"]) > (1 << 63) - 1:
            what = "N50 longer than the genome"
        elif int(counts[seg:seg + ns].sum(dtype=np.uint64)) != na:
            what = "segment counts do not sum to its anchors"
        if what:
            _fail(path, f"corrupt genome sketch (record {i}: segment anchors: {what})")
        table.append({"n_segments": ns, "n_anchors": na, "n_loose": nl, "rate_log2": rate,
                      "n_contigs": int(e["n_contigs"]), "n50": int(e["n50"]), "seg_at": seg, "hash_at": anc})
        seg += ns
        anc += na + nl
    if seg != n_seg or anc != n_anc:
        _fail(path, f"corrupt genome sketch (segment anchors: genomes hold {seg} segments and {anc} anchors, the "
              f"header {n_seg} and {n_anc})")
    return {"table": table, "counts": counts, "hashes": hashes}


if __name__ == "__main__":  # python3 tsketch_io.py FILE.tsk: a summary, as a smoke test
    import sys

    for p in sys.argv[1:]:
        s = load(p)
        print(s)
        print({k: v for k, v in s.params.items() if k != "command_line"})
