"""python/tsketch_io.py refuses exactly the .tsk files tsketch refuses (#32): `tsketch info FILE`
(the C reader) against tsketch_io.load on
  (a) crafted files, one per check of the C reader (io/tsk_file.c, core/tsk_def.c's
      tsk_params_check, core/genome_keys.c's tsk_genome_params_check), each with a valid CRC so
      that the check behind it is reached: both refuse, tsketch with exit 3, Python with a
      ValueError naming the file and the same reason;
  (b) the fuzz corpus (tests/fuzz/corpus/tsk) and 600 files mutated from it and from a genome
      sketch made here (random bytes, header and record fields set to edge values, names given a
      TAB/CR/LF, data values and keys, the anchor section's fields (n_loose among them) and
      bytes), made deterministically, CRC fixed for most: for every file Python refuses it exactly
      when tsketch does.

Usage: test_tsk_validation.py TSKETCH TESTDATA  (needs numpy; exit 77 = skipped without it)
"""
import glob
import os
import random
import struct
import subprocess
import sys
import tempfile

from harness import HERE, check, finish
import tsketch_io
from tsk_patch import u32, u64
from tsk_patch import fix_crc as patch_crc

TSKETCH, TESTDATA = sys.argv[1], sys.argv[2]
CORPUS = sorted(glob.glob(os.path.join(HERE, "..", "fuzz", "corpus", "tsk", "*.tsk")))
N_MUTANTS = 600


GENOME_VERSION = tsketch_io.GENOME_VERSION  # 5


def fix_crc(b):
    """The checksum as tsketch computes it, for headers of at most a page (tests/cli/tsk_patch.py);
    a file too short or with regions outside it is left as it is."""
    if len(b) >= 256:
        patch_crc(b, max_header=4096)


def c_verdict(path):
    """(refused, exit code, message) of `tsketch info path`."""
    r = subprocess.run([TSKETCH, "info", path], capture_output=True, text=True, errors="replace")
    return r.returncode != 0, r.returncode, r.stderr.strip()


def py_verdict(path):
    try:
        tsketch_io.load(path)
        return False, ""
    except ValueError as e:
        return True, str(e)


work = tempfile.mkdtemp(prefix="tsketch-pyval.")
genome = os.path.join(work, "genome.tsk")
subprocess.run([TSKETCH, "sketch", "-q", "--genome", "--per-file", "--min-keys", "20",
                os.path.join(TESTDATA, "genomes", "NC_001422_phiX174.fa"),
                os.path.join(TESTDATA, "genomes", "MT-human.fa"), "-o", genome], check=True)
BASES = {os.path.basename(p)[:-4]: open(p, "rb").read() for p in CORPUS}
BASES["genome3"] = open(genome, "rb").read()

# header fields (docs/format.md): offset, struct format
H = {"version": (8, "<I"), "bom": (12, "<I"), "header_size": (16, "<I"), "file_size": (24, "<Q"),
     "data_offset": (32, "<Q"), "data_size": (40, "<Q"), "n_rows": (48, "<Q"), "n_records": (56, "<Q"),
     "trailer_offset": (64, "<Q"), "trailer_size": (72, "<Q"), "n_sources": (80, "<Q"),
     "strings_size": (88, "<Q"), "version_off": (96, "<Q"), "version_len": (104, "<Q"),
     "cmdline_off": (112, "<Q"), "cmdline_len": (120, "<Q"), "t": (128, "<I"), "dim": (132, "<I"),
     "seed": (136, "<Q"), "alphabet": (144, "<I"), "alphabet_size": (148, "<I"), "canonical": (152, "<I"),
     "precision": (156, "<I"), "elem_size": (160, "<I"), "tables_from_file": (164, "<I"),
     "window": (168, "<q"), "stride": (176, "<q"), "tables_offset": (184, "<I"), "tables_size": (188, "<I"),
     "anchor_k": (192, "<I"), "kind": (196, "<I"), "scaled": (200, "<Q"), "min_keys": (208, "<Q"),
     "floor_stride": (248, "<Q")}
# record entry fields: offset in the 56-byte entry, format
R = {"name_off": (0, "<Q"), "name_len": (8, "<I"), "source": (12, "<I"), "raw_len": (16, "<q"),
     "clean_len": (24, "<q"), "dropped": (32, "<q"), "first_row": (40, "<q"), "n_rows": (48, "<q")}


def trailer_off(b):
    return u64(b, 64)


def strings_off(b):
    return trailer_off(b) + u64(b, 56) * 56 + u64(b, 80) * 16


def set_field(b, field, value):
    off, fmt = H[field]
    struct.pack_into(fmt, b, off, value)


def set_record(b, i, field, value):
    off, fmt = R[field]
    struct.pack_into(fmt, b, trailer_off(b) + i * 56 + off, value)


def name_byte(b, i, k, byte):
    """Sets byte k of record i's name."""
    b[strings_off(b) + u64(b, trailer_off(b) + i * 56) + k] = byte


def craft(base, *edits, crc=True):
    b = bytearray(BASES[base])
    for e in edits:
        e(b)
    if crc:
        fix_crc(b)
    return b


F = lambda field, v: lambda b: set_field(b, field, v)  # noqa: E731
REC = lambda i, field, v: lambda b: set_record(b, i, field, v)  # noqa: E731


def data_value(b, row, value):
    struct.pack_into("<d" if u32(b, 160) == 8 else "<f", b, u64(b, 32) + row * u32(b, 132) * u32(b, 160), value)


def swap_keys(b):
    k = u64(b, 32)
    first, second = b[k:k + 8], b[k + 8:k + 16]
    b[k:k + 8], b[k + 8:k + 16] = second, first


def tables_byte(b, off, value):
    b[256 + off] = value


def hash_entry(b, k, value):
    struct.pack_into("<i", b, 256 + 4 * k, value)


def sign_entry(b, k, value):
    t, a = u32(b, 128), u32(b, 148)
    struct.pack_into("<b", b, 256 + t * a * 4 + k, value)


def splitmix64_tables(seed, t, a, dim):
    """tsketch's drawn tables (core/tsk_def.c tsk_tables_draw), written out again here."""
    state, out = seed, []
    for _ in range(2 * t * a):
        state = (state + 0x9E3779B97F4A7C15) % (1 << 64)
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % (1 << 64)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % (1 << 64)
        out.append(z ^ (z >> 31))
    return ([out[2 * k] % dim for k in range(t * a)], [-1 if out[2 * k + 1] >> 63 else 1 for k in range(t * a)])


def retable(t):
    """Edit: the tuple length t, with the seed's tables for it (header and table sizes with them)."""
    def edit(b):
        a, dim = u32(b, 148), u32(b, 132)
        hash_t, sign_t = splitmix64_tables(u64(b, 136), t, a, dim)
        tables = struct.pack(f"<{t * a}i", *hash_t) + struct.pack(f"<{t * a}b", *sign_t)
        b[256:256 + len(tables)] = tables
        b[256 + len(tables):u64(b, 32)] = bytes(u64(b, 32) - 256 - len(tables))
        set_field(b, "t", t)
        set_field(b, "tables_size", len(tables))
        set_field(b, "header_size", 256 + len(tables))
    return edit


# the anchor section (docs/format.md "Segment anchors"): a 40-byte entry per genome (n_segments,
# n_anchors, n_contigs, n50: uint64; rate_log2, n_loose: uint32), the segments' uint16 counts and
# the uint32 hashes (per genome its n_anchors segment anchors, then its n_loose loose ones), each
# part padded to 8 bytes; the header's n_anchors (240) counts every hash
A = {"n_segments": (0, "<Q"), "n_anchors": (8, "<Q"), "n_contigs": (16, "<Q"), "n50": (24, "<Q"),
     "rate_log2": (32, "<I"), "n_loose": (36, "<I")}


def pad8(n):
    return (n + 7) // 8 * 8


def ani_get(b, i, field):
    off, fmt = A[field]
    return struct.unpack_from(fmt, b, u64(b, 216) + i * 40 + off)[0]


def ani_set(b, i, field, value):
    off, fmt = A[field]
    struct.pack_into(fmt, b, u64(b, 216) + i * 40 + off, value)


ANI = lambda i, field, v: lambda b: ani_set(b, i, field, v)  # noqa: E731
ANI_ADD = lambda i, field, d: lambda b: ani_set(b, i, field, ani_get(b, i, field) + d)  # noqa: E731


def grow_loose(i, extra):
    """Edit: genome i holds extra more loose anchors (hashes 1, 2, ...): inserted after its own,
    with its n_loose, the header's n_anchors, the section's size and the file's size following."""
    def edit(b):
        n_rec, n_seg, n_anc = u64(b, 56), u64(b, 232), u64(b, 240)
        hashes_at = u64(b, 216) + n_rec * 40 + pad8(2 * n_seg)
        hashes = list(struct.unpack_from(f"<{n_anc}I", b, hashes_at))
        end = sum(ani_get(b, j, "n_anchors") + ani_get(b, j, "n_loose") for j in range(i + 1))
        hashes[end:end] = range(1, extra + 1)
        part = struct.pack(f"<{len(hashes)}I", *hashes)
        b[hashes_at:] = part + bytes(pad8(len(part)) - len(part))
        ani_set(b, i, "n_loose", ani_get(b, i, "n_loose") + extra)
        struct.pack_into("<Q", b, 240, len(hashes))
        struct.pack_into("<Q", b, 224, len(b) - u64(b, 216))
        struct.pack_into("<Q", b, 24, len(b))
    return edit


def header_anchors_off_by_one(b):
    """The header's n_anchors one off, the section's size unchanged (4 n_anchors padded to 8 the
    same): only the genomes' sums tell."""
    n = u64(b, 240)
    struct.pack_into("<Q", b, 240, n + 1 if n % 2 else n - 1)


def drop_last_row(b):
    n = u64(b, 56)
    i = max(i for i in range(n) if struct.unpack_from("<q", b, trailer_off(b) + i * 56 + 48)[0] > 0)
    set_record(b, i, "n_rows", struct.unpack_from("<q", b, trailer_off(b) + i * 56 + 48)[0] - 1)


# (description, bytes, words the reason must hold); the reasons are the C reader's
CRAFTED = [
    ("bad magic", craft("whole", lambda b: b.__setitem__(1, ord("X"))), "not a tsketch sketch file"),
    ("shorter than the header", bytearray(BASES["whole"][:200]), "truncated"),
    ("big-endian byte order mark", craft("whole", F("bom", 0x04030201)), "big-endian"),
    ("bad byte order mark", craft("whole", F("bom", 7)), "byte-order mark"),
    ("format version 2", craft("whole", F("version", 2)), "format version 2"),
    ("format version 6", craft("whole", F("version", 6)), "unsupported format version 6"),
    ("sketch rows marked version 5", craft("whole", F("version", 5)), "anchor section offset out of range"),
    ("sketch rows marked version 4", craft("whole", F("version", 4)),
     "format version 4: ANI anchors without the contigs' tails): sketch the genomes again"),
    ("genome format version 3", craft("genome3", F("version", 3)), "format version 3: no ANI anchors"),
    ("genome format version 4", craft("genome3", F("version", 4)),
     "genome sketches of an older tsketch (format version 4: ANI anchors without the contigs' tails): sketch the "
     "genomes again"),
    ("file size larger than the file", craft("whole", F("file_size", len(BASES["whole"]) + 8)), "truncated"),
    ("file size smaller than the file", craft("whole", F("file_size", len(BASES["whole"]) - 8)), "more than the header"),
    ("header size below 256", craft("whole", F("header_size", 100)), "header size out of range"),
    ("data offset not on a page", craft("whole", F("data_offset", 4000)), "data offset out of range"),
    ("data size past the end", craft("whole", F("data_size", 1 << 40)), "data size out of range"),
    ("trailer offset misplaced", craft("whole", F("trailer_offset", u64(BASES["whole"], 64) + 8)), "trailer offset"),
    ("trailer size wrong", craft("whole", F("trailer_size", 3)), "trailer size"),
    ("checksum wrong", craft("whole", F("seed", 1), crc=False), "checksum mismatch"),
    ("t 0", craft("whole", F("t", 0)), "out of range"),
    ("t 17", craft("whole", F("t", 17)), "out of range"),
    ("dim 0", craft("whole", F("dim", 0)), "out of range"),
    ("dim 65537", craft("whole", F("dim", 65537)), "out of range"),
    ("alphabet 2", craft("whole", F("alphabet", 2)), "out of range"),
    ("precision 2", craft("whole", F("precision", 2)), "out of range"),
    ("alphabet size field", craft("whole", F("alphabet_size", 20)), "inconsistent parameter fields"),
    ("element size 8 for single precision", craft("whole", F("elem_size", 8)), "inconsistent parameter fields"),
    ("tables offset", craft("whole", F("tables_offset", 512)), "inconsistent parameter fields"),
    ("tables size", craft("whole", F("tables_size", 4)), "inconsistent parameter fields"),
    ("canonical 2", craft("whole", F("canonical", 2)), "inconsistent parameter fields"),
    ("tables_from_file 2", craft("whole", F("tables_from_file", 2)), "inconsistent parameter fields"),
    ("canonical protein", craft("protein", F("canonical", 1)), "canonical sketches need the dna alphabet"),
    ("window -1", craft("whole", F("window", -1)), "window and stride must be positive"),
    ("window 2^32 + 2", craft("slide", F("window", (1 << 32) + 2)), "at most 2^32"),
    ("stride without a window", craft("whole", F("stride", 1)), "stride needs a window"),
    ("window 0 of slide rows", craft("slide", F("window", 0)), "stride needs a window"),
    ("stride 0 with a window", craft("slide", F("stride", 0)), "stride must be positive"),
    ("stride above window", craft("slide", F("stride", u64(BASES["slide"], 168) + 1)), "stride must not exceed window"),
    ("anchor k 64", craft("anchored", F("anchor_k", 64)), "anchor k must be even"),
    ("anchor k 3", craft("anchored", F("anchor_k", 3)), "anchor k must be even"),
    ("anchor k -2", craft("anchored", F("anchor_k", (1 << 32) - 2)), "anchor k must be even"),
    ("anchor k without a window", craft("whole", F("anchor_k", 8)), "anchored windows need a window"),
    ("anchor k on protein", craft("protein", F("anchor_k", 2), F("window", 8), F("stride", 4)),
     "anchored windows need the dna alphabet"),
    ("window shorter than anchor k", craft("anchored", F("window", 1)), "window must not be shorter than the anchor"),
    ("hash value outside [0, D)", craft("tables", lambda b: hash_entry(b, 0, 1 << 20)), "hash table value outside"),
    ("hash value negative", craft("tables", lambda b: hash_entry(b, 1, -1)), "hash table value outside"),
    ("sign value 2", craft("tables", lambda b: sign_entry(b, 0, 2)), "sign table value"),
    ("tables not the seed's", craft("whole", lambda b: hash_entry(b, 0, (u32(b, 256) + 1) % u32(b, 132))),
     "tables differ from those of seed"),
    ("file tables marked as drawn", craft("tables", F("tables_from_file", 0)), "tables differ from those of seed"),
    ("genome kind 0", craft("genome3", F("kind", 0)), "version 5 without a genome sketch kind"),
    ("genome scaled 0", craft("genome3", F("scaled", 0)), "version 5 without a genome sketch kind"),
    ("genome scaled 2^63", craft("genome3", F("scaled", 1 << 63)), "version 5 without a genome sketch kind"),
    ("genome min keys 1e9 + 1", craft("genome3", F("min_keys", 10**9 + 1)), "version 5 without a genome sketch kind"),
    ("genome floor stride 2^32 + 1", craft("genome3", F("floor_stride", 2**32 + 1)), "version 5 without a genome sketch kind"),
    ("genome huge scaled", craft("genome3", F("scaled", 1 << 62)), "stride must equal scaled"),
    ("genome huge scaled and stride", craft("genome3", F("scaled", 1 << 62), F("stride", 1 << 62)), "at most 2^32"),
    ("genome stride other than scaled", craft("genome3", F("stride", 400)), "stride must equal scaled"),
    ("genome not canonical", craft("genome3", F("canonical", 0)), "need canonical rows"),
    ("genome window 66", craft("genome3", F("window", 66)), "at most 64 bases"),
    ("genome odd window", craft("genome3", F("window", 21)), "even length"),
    ("genome t 8 of its own tables", craft("genome3", retable(8)), None),
    ("genome window of too many tuples", craft("genome3", retable(8), F("window", 64)), "too many t-tuples"),
    ("genome t above the window", craft("genome3", retable(6), F("window", 4), F("anchor_k", 2)), "t must not exceed"),
    ("genome of elem size 4", craft("genome3", F("elem_size", 4)), "inconsistent parameter fields"),
    ("genome keys not ascending", craft("genome3", swap_keys), "keys not strictly ascending"),
    ("genome anchor rate 5", craft("genome3", ANI(0, "rate_log2", 5)), "record 0: segment anchors: rate out of"),
    ("genome anchor rate 32", craft("genome3", ANI(1, "rate_log2", 32)), "record 1: segment anchors: rate out of"),
    ("genome anchor counts off", craft("genome3", ANI_ADD(0, "n_anchors", 1)),
     "record 0: segment anchors: segment counts do not sum to its anchors"),
    ("genome more segments than its length", craft("genome3", ANI(0, "n_segments", 10**6)),
     "more segments than its length holds"),
    ("genome N50 beyond its length", craft("genome3", ANI(0, "n50", 10**9)), "N50 longer than the genome"),
    ("genome contigs beyond 2^63", craft("genome3", ANI(1, "n_contigs", 1 << 63)), "N50 longer than the genome"),
    ("genome anchor section size", craft("genome3", lambda b: struct.pack_into("<Q", b, 224, 8)),
     "anchor section offset out of range"),
    ("genome anchor total", craft("genome3", header_anchors_off_by_one),
     "corrupt genome sketch (segment anchors: genomes hold"),
    # the loose anchors (version 5): held in the file and counted by the header, read by both ...
    ("genome of 3 more loose anchors", craft("genome3", grow_loose(0, 3)), None),
    ("genome of 5 more loose anchors, the last", craft("genome3", grow_loose(1, 5)), None),
    # ... but no more of them than the genome's length holds (phiX: 5386 bases), nor than the file
    ("genome loose anchors beyond its length", craft("genome3", grow_loose(0, 5400)),
     "record 0: segment anchors: more anchors than its length holds"),
    ("genome n_loose beyond the file", craft("genome3", ANI_ADD(1, "n_loose", 1)),
     "record 1: segment anchors: more anchors than the file holds"),
    ("genome n_loose 2^32 - 1", craft("genome3", ANI(0, "n_loose", (1 << 32) - 1)),
     "record 0: segment anchors: more anchors than its length holds"),
    ("genome n_loose one short", craft("genome3", ANI_ADD(1, "n_loose", -1)),
     "corrupt genome sketch (segment anchors: genomes hold"),
    ("genome loose anchors moved to the other genome", craft("genome3", ANI_ADD(0, "n_loose", 1),
                                                             ANI_ADD(1, "n_loose", -1)), None),
    ("rows do not fill the data", craft("whole", F("n_rows", 4)), "do not fill"),
    ("record table sizes", craft("whole", F("strings_size", u64(BASES["whole"], 88) + 1)), "record table sizes"),
    ("version string outside", craft("whole", F("version_off", 1 << 40)), "version or command line string"),
    ("command line not NUL-terminated", craft("whole", F("cmdline_len", 1)), "version or command line string"),
    ("source string outside", craft("whole", lambda b: struct.pack_into(
        "<Q", b, trailer_off(b) + u64(b, 56) * 56, 1 << 40)), "corrupt record table (source 0)"),
    ("record name outside", craft("whole", REC(0, "name_off", 1 << 40)), "record 0: name or source"),
    ("record source past the sources", craft("whole", REC(1, "source", 99)), "record 1: name or source"),
    ("record raw length negative", craft("whole", REC(0, "raw_len", -1)), "lengths or rows inconsistent"),
    ("record clean length above raw", craft("whole", REC(0, "clean_len", 10**9)), "lengths or rows inconsistent"),
    ("record dropped wrong", craft("whole", REC(0, "dropped", 5)), "lengths or rows inconsistent"),
    ("record first row wrong", craft("whole", REC(1, "first_row", 0)), "lengths or rows inconsistent"),
    ("record of 2 whole rows", craft("whole", REC(0, "n_rows", 2)), "lengths or rows inconsistent"),
    ("record rows negative", craft("anchored", REC(0, "n_rows", -1)), "lengths or rows inconsistent"),
    ("genome record of more keys than bases", craft("genome3", REC(0, "clean_len", 1), REC(0, "raw_len", 1)),
     "lengths or rows inconsistent"),
    ("records cover too few rows", craft("genome3", drop_last_row), "records cover"),
    ("record name with a TAB", craft("whole", lambda b: name_byte(b, 0, 0, 9)), "name contains a tab or newline"),
    ("record name with a LF", craft("genome3", lambda b: name_byte(b, 1, 1, 10)), "name contains a tab or newline"),
    ("record name with a CR", craft("slide", lambda b: name_byte(b, 2, 0, 13)), "name contains a tab or newline"),
    ("NaN value", craft("whole", lambda b: data_value(b, 1, float("nan"))), "NaN or infinite"),
    ("infinite double", craft("double", lambda b: data_value(b, 0, float("-inf"))), "NaN or infinite"),
]

for desc, data, reason in CRAFTED:
    path = os.path.join(work, "crafted " + desc.replace(" ", "_").replace("/", "_") + ".tsk")
    with open(path, "wb") as f:
        f.write(data)
    c_refused, code, c_msg = c_verdict(path)
    py_refused, py_msg = py_verdict(path)
    if reason is None:  # a control: the edit alone leaves a file both read
        check(not c_refused and not py_refused, f"crafted: {desc}: read by both", f"C: {c_msg} / Python: {py_msg}")
        continue
    check(c_refused and code == 3 and reason in c_msg, f"crafted: {desc}: tsketch refuses it (exit 3, '{reason}')",
          f"exit {code}: {c_msg}")
    check(py_refused and py_msg.startswith(path + ": ") and reason in py_msg,
          f"crafted: {desc}: tsketch_io refuses it naming the file and '{reason}'", py_msg or "accepted")

# the corpus as it is, and the same files again with a name holding a NUL then a TAB: tsketch
# reads a name up to its NUL
for p in CORPUS + [genome]:
    c_refused, _, c_msg = c_verdict(p)
    py_refused, py_msg = py_verdict(p)
    check(c_refused == py_refused, f"corpus {os.path.basename(p)}: refused by both or neither", f"C: {c_msg} / Python: {py_msg}")

EDGE = [0, 1, 2, 3, 4, 7, 8, 16, 20, 31, 32, 33, 63, 64, 65, 255, 256, 4096, 65535, 65536, 65537,
        (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, (1 << 62), (1 << 63) - 1, 1 << 63, (1 << 64) - 1]


def mutate(rng, b):
    """One deterministic mutation of b; returns whether the CRC is to be fixed."""
    what = rng.randrange(9)
    if len(b) < 256 and what in (3, 5, 6, 7):  # a file cut inside its header: a header field instead
        what = 1
    if what == 0:  # random bytes anywhere
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif what in (1, 2):  # a header field set to an edge value, or nudged
        field = rng.choice(list(H))
        off, fmt = H[field]
        size = struct.calcsize(fmt)
        old = int.from_bytes(b[off:off + size], "little")
        v = rng.choice(EDGE) if what == 1 else old + rng.choice([-2, -1, 1, 2])
        b[off:off + size] = (v % (1 << (8 * size))).to_bytes(size, "little")
    elif what == 3:  # a record field
        n = u64(b, 56) if len(b) >= 64 else 0
        if n and trailer_off(b) + n * 56 <= len(b):
            field = rng.choice(list(R))
            off, fmt = R[field]
            size = struct.calcsize(fmt)
            at = trailer_off(b) + rng.randrange(n) * 56 + off
            old = int.from_bytes(b[at:at + size], "little")
            v = rng.choice(EDGE + [old - 1, old + 1, -1])
            b[at:at + size] = (v % (1 << (8 * size))).to_bytes(size, "little")
    elif what == 4:  # a byte of the strings: TAB, CR, LF, NUL, or a letter
        at = strings_off(b)
        if at < len(b):
            b[rng.randrange(at, len(b))] = rng.choice([9, 10, 13, 0, 65])
    elif what == 5:  # the tables
        t, a = u32(b, 128), u32(b, 148)
        if 256 + t * a * 5 <= len(b) and t * a:
            k = rng.randrange(t * a * 5)
            b[256 + k] = rng.choice([0, 1, 0xFF, 0x7F, 0x80, rng.randrange(256)])
    elif what == 6:  # a data value: NaN, infinity, a swapped key, or random bits
        data_off, data_size = u64(b, 32), u64(b, 40)
        if data_size >= 16 and data_off + data_size <= len(b):
            k = data_off + rng.randrange(data_size // 8 - 1) * 8
            if rng.random() < 0.5:
                b[k:k + 8], b[k + 8:k + 16] = b[k + 8:k + 16], b[k:k + 8]
            else:
                b[k:k + 8] = rng.choice([b"\0\0\xc0\x7f" * 2, b"\0\0\x80\x7f" * 2, b"\0" * 6 + b"\xf0\x7f",
                                         bytes(rng.randrange(256) for _ in range(8))])
    elif what == 7:  # genome sketches: a field of the anchor section (counts, rates, N50, n_loose) or a byte of it
        if len(b) >= 256 and u32(b, 8) == GENOME_VERSION and u64(b, 216) < len(b):
            n = u64(b, 56)
            if rng.random() < 0.5 and n and u64(b, 216) + n * 40 <= len(b):
                field = rng.choice(list(A))
                off, fmt = A[field]
                size = struct.calcsize(fmt)
                at = u64(b, 216) + rng.randrange(n) * 40 + off
                old = int.from_bytes(b[at:at + size], "little")
                v = rng.choice(EDGE + [old - 1, old + 1, old + 2])
                b[at:at + size] = (v % (1 << (8 * size))).to_bytes(size, "little")
            else:
                at = rng.randrange(u64(b, 216), len(b))
                b[at] = rng.choice([0, 1, 2, 5, 32, 0xFF, rng.randrange(256)])
    else:  # truncated or extended
        if rng.random() < 0.5:
            del b[rng.randrange(len(b)):]
        else:
            b.extend(b"\0" * rng.choice([1, 8, 4096]))
    return rng.random() < 0.95


rng = random.Random(32)
names = sorted(BASES)
agree = 0
both_refused = 0
mismatches = []
for k in range(N_MUTANTS):
    b = bytearray(BASES[names[k % len(names)]])
    fix = False
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        fix = mutate(rng, b) or fix
    if fix and len(b) >= 24:
        fix_crc(b)
    path = os.path.join(work, f"mutant{k:03d}.tsk")
    with open(path, "wb") as f:
        f.write(b)
    c_refused, code, c_msg = c_verdict(path)
    py_refused, py_msg = py_verdict(path)
    if c_refused == py_refused and code in (0, 3):
        agree += 1
        both_refused += c_refused
    else:
        mismatches.append(f"{path}: tsketch exit {code} ({c_msg}), Python {'refuses: ' + py_msg if py_refused else 'accepts'}")
check(not mismatches, f"{N_MUTANTS} mutated files: Python refuses exactly those tsketch refuses (exit 3), "
      f"{agree} agree, {both_refused} refused", "\n    " + "\n    ".join(mismatches[:20]))
check(100 <= both_refused <= N_MUTANTS - 50, f"the mutants reach both verdicts ({both_refused} refused)")

import harness  # noqa: E402  (its counts, after the checks)
if not harness.failed:
    subprocess.run(["rm", "-rf", work])
finish()
