"""python/tsketch_io.py against `tsketch export` and `tsketch info --json` (an independent path:
the C reader): names, row names, every value bit for bit, parameters; genome sketches' keys, their
size floor and thresholds (against `tsketch dist`'s shared and total counts); npy; and bad files
refused with a reason (version 2, 3 and 4 genome files among them); genome sketches' segment
anchors and loose anchors against an independent extraction from the FASTA (the definition of
core/genome_ani.h and docs/format.md "Segment anchors").

Usage: test_tsketch_io.py TSKETCH TESTDATA  (needs numpy; exit 77 = skipped without it)
"""
import json
import os
import subprocess
import sys
import tempfile

from harness import check, finish
import numpy as np
import tsketch_io

TSKETCH, TESTDATA = sys.argv[1], sys.argv[2]


def tsketch(*args):
    return subprocess.run([TSKETCH, *args], check=True, capture_output=True, text=True).stdout


G = os.path.join(TESTDATA, "genomes")
sys.path.insert(0, os.path.join(TESTDATA, "oracle"))
from tsketch_oracle import read_fasta  # noqa: E402  (the records as the float64 oracle reads them)
FASTA = [os.path.join(G, f) for f in ("MT-human.fa", "MT-orang.fa", "NC_001422_phiX174.fa", "sarscov2_6.fa")]
PROTEIN = os.path.join(TESTDATA, "golden", "protein.fa")
work = tempfile.mkdtemp(prefix="tsketch-py.")

CASES = {
    "whole records": ["-k", "3", "-s", "20"] + FASTA,
    "double precision": ["--precision", "double", "-s", "8"] + FASTA[:2],
    "slide rows": ["--window", "500", "--stride", "250", "-s", "8", "--canonical"] + FASTA[:3],
    "anchored windows": ["--anchored", "--window", "16", "--stride", "10", "-s", "16", "--canonical"] + FASTA[2:3],
    "per file": ["--per-file"] + FASTA,
    "protein": ["--alphabet", "protein", "-s", "12", PROTEIN],
}
for desc, args in CASES.items():
    path = os.path.join(work, desc.replace(" ", "_") + ".tsk")
    tsketch("sketch", "-q", *args, "-o", path)
    s = tsketch_io.load(path)
    info = json.loads(tsketch("info", "--json", path))
    lines = [l.split("\t") for l in tsketch("export", path).splitlines()]
    check(s.row_names() == [l[0] for l in lines], f"{desc}: row names = export's")
    dtype = np.float64 if info["precision"] == "double" else np.float32
    want = np.array([[dtype(float(v)) for v in l[1:]] for l in lines], dtype=dtype).reshape(len(lines), info["dim"])
    check(s.rows.dtype == dtype and s.rows.shape == want.shape and np.array_equal(s.rows, want),
          f"{desc}: {s.rows.shape[0]} x {s.rows.shape[1]} {dtype.__name__} rows = export's, bit for bit")
    check(isinstance(s.rows, np.memmap) or s.rows.size == 0, f"{desc}: rows memory-mapped")
    same = all(s.params[k] == info[k] for k in ("t", "dim", "seed", "alphabet", "canonical", "window", "stride",
                                                 "anchor_k", "precision", "tables", "tool_version", "command_line"))
    check(same and len(s.names) == info["records"] and s.rows.shape[0] == info["rows"], f"{desc}: parameters = info --json's")
    recs = json.loads(tsketch("info", "--json", "--records", path)).get("record_list") or []
    if recs:
        check([(r["name"], r["source"], r["raw_length"], r["clean_length"], r["dropped"], r["first_row"], r["rows"])
               for r in recs] == [tuple(r) for r in s.records], f"{desc}: records = info --records'")
    rows_sum = sum(len(s.record_rows(i)) for i in range(len(s)))
    check(rows_sum == s.rows.shape[0], f"{desc}: record_rows cover the rows")

# .npy export: the same float32 matrix
path = os.path.join(work, "whole_records.tsk")
tsketch("export", "-f", "npy", path, "-o", os.path.join(work, "w.npy"))
check(np.array_equal(np.load(os.path.join(work, "w.npy")), tsketch_io.load(path).rows), "npy export = rows")

# genome sketches (format version 5): keys = export's, parameters = info's, and each genome's
# threshold (tsketch_io's threshold(), from the documented formula) gives the shared and total
# counts and the distance that `tsketch dist` prints for every pair
GENOMES = {
    "genome": [],
    "genome, floor stride 1": ["--floor-stride", "1"],
    "genome without a floor": ["--min-keys", "0"],
    "genome per file, floor 500": ["--per-file", "--min-keys", "500"],
}
U64 = (1 << 64) - 1
FP = (1 << 24) - 1
for desc, extra in GENOMES.items():
    gpath = os.path.join(work, desc.replace(" ", "_").replace(",", "") + ".tsk")
    tsketch("sketch", "-q", "--genome", *extra, *FASTA, "-o", gpath)
    s = tsketch_io.load(gpath)
    info = json.loads(tsketch("info", "--json", gpath))
    lines = [l.split("\t") for l in tsketch("export", gpath).splitlines()]
    check(s.is_genome and s.version == 5 and info["format_version"] == 5 and s.rows.dtype == np.uint64,
          f"{desc}: version 5, uint64 keys")
    check([l[0] for l in lines] == s.names, f"{desc}: names = export's")
    check(all(np.array_equal(s.keys(i), np.array([int(v) for v in l[1:]], dtype=np.uint64))
              for i, l in enumerate(lines)), f"{desc}: the keys of all {len(lines)} genomes = export's")
    check(all(len(s.keys(i)) < 2 or bool(np.all(s.keys(i)[1:] > s.keys(i)[:-1])) for i in range(len(s))),
          f"{desc}: keys ascending")
    check(s.params["scaled"] == info["scaled"] and s.params["min_keys"] == info["min_keys"]
          and s.params["floor_stride"] == info["floor_stride"] and s.params["format_version"] == info["format_version"],
          f"{desc}: scaled, min_keys and floor_stride = info --json's", f"{s.params} {info}")
    check(s.params["floor_stride"] == (1 if "stride 1" in desc else 8), f"{desc}: floor stride {s.params['floor_stride']}")
    mk, scaled, window = s.params["min_keys"], s.params["scaled"], s.params["window"]
    check(mk == (0 if "without" in desc else 500 if "500" in desc else 12000), f"{desc}: min_keys {mk}")
    T = U64 // scaled | FP
    taus = [s.threshold(i) for i in range(len(s))]
    keys = [[int(k) for k in s.keys(i)] for i in range(len(s))]
    check(all(not k or k[-1] <= tau for k, tau in zip(keys, taus)), f"{desc}: every key at most its threshold")
    check(all(tau >= T and tau & FP == FP for tau in taus), f"{desc}: thresholds at least T, low bits set")
    if mk == 0:
        check(all(tau == T for tau in taus), f"{desc}: without a floor every threshold is T")
    else:
        # a genome keeps at least min_keys keys, or every candidate (fewer than min_keys)
        F = s.params["floor_stride"]
        check(all(len(k) >= mk or tau == U64 // min(max(4 * r.clean_len // (5 * mk), F), scaled) | FP
                  for k, tau, r in zip(keys, taus, s.records)), f"{desc}: the floor holds")
        # fewer windows than min_keys (phiX under the floor, floor stride 1): every window, threshold 2^64 - 1
        tiny = [i for i, r in enumerate(s.records) if r.clean_len - window + 1 < mk]
        if F == 1 and (tiny or mk == 12000):
            check(tiny and all(taus[i] == U64 and len(keys[i]) <= s.records[i].clean_len - window + 1 and
                               len(keys[i]) >= 0.99 * (s.records[i].clean_len - window + 1) for i in tiny),
                  f"{desc}: genomes of fewer than min_keys windows keep every window ({len(tiny)})")
        check(any(tau > T for tau in taus), f"{desc}: some thresholds above T (the floor at work)")
    index = {n: i for i, n in enumerate(s.names)}
    check(len(index) == len(s.names), f"{desc}: names unique")
    rows = [l.split("\t") for l in tsketch("dist", "--key-distance", gpath, gpath).splitlines()]
    check(len(rows) == len(s) ** 2, f"{desc}: dist prints every pair ({len(rows)})")
    bad = []
    for ref, query, dist, shared, total in rows:
        r, q = index[ref], index[query]
        bound = min(taus[r], taus[q])
        a = {k for k in keys[q] if k <= bound}
        b = {k for k in keys[r] if k <= bound}
        n = len(a & b)
        f = 0.0 if not a or not b else (n / len(a) + n / len(b)) * 0.5
        d = 1.0 if f <= 0 else 0.0 if f >= 1 else 1.0 - f ** (1.0 / window)
        if int(shared) != n or int(total) != len(a | b) or abs(float(dist) - d) > 1e-6:
            bad.append((ref, query, dist, shared, total, d, n, len(a | b)))
    check(not bad, f"{desc}: shared, total and distance of all {len(rows)} pairs = dist's, from the thresholds",
          str(bad[:3]))

# segment and loose anchors (core/genome_ani.h, docs/format.md "Segment anchors"), extracted here
# from the FASTA independently of the C scanner: the records' cleaned codes, cut into 3,000-base
# segments per record (contig), a tail shorter than that no segment; every canonical k-mer (the
# file's anchor_k) whose SplitMix64 hash (output function of (k-mer XOR seed) + gamma) is below
# 2^(64 - r), r the least rate >= 6 with length <= 49152 2^r, stored as h >> (32 - r): an anchor
# of its segment when it lies wholly inside one (counted per segment), else loose (in the tail, or
# across two segments); the loose ones compared as a multiset (the format fixes no order)
M64 = (1 << 64) - 1
CODES = {"A": 0, "C": 1, "G": 2, "T": 3, "U": 3}


def splitmix(x):
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def rate_of(length):
    r = 6
    while r < 31 and length > 49152 << r:
        r += 1
    return r


def contig_anchors(codes, k, seed, bound):
    """([(segment, h)], [h]) of one contig: its segments' anchors and its loose ones, each in
    position order. The k-mer at x (x + k <= length) is segment x // 3000's when it ends in that
    segment (x // 3000 == (x + k - 1) // 3000) and the segment is whole (x + k <= the length
    rounded down to 3000), else loose."""
    segs, loose = [], []
    whole = len(codes) // 3000 * 3000
    mask, top = (1 << 2 * k) - 1, 2 * (k - 1)
    fw = rc = 0
    for at, c in enumerate(codes):
        fw = (fw << 2 | c) & mask
        rc = rc >> 2 | (3 - c) << top
        x = at - k + 1  # the k-mer's start
        if x < 0:
            continue
        h = splitmix(min(fw, rc) ^ seed)
        if h > bound:
            continue
        if x // 3000 == at // 3000 and at < whole:
            segs.append((x // 3000, h))
        else:
            loose.append(h)
    return segs, loose


def genome_anchors(contigs, k, seed):
    """(seg_count, hashes, rate, loose, n_contigs, n50) of a genome of these cleaned contigs: loose
    in the order tsketch writes them (contig after contig, in position order)."""
    length = sum(len(c) for c in contigs)
    r = rate_of(length)
    counts, hashes, loose = [], [], []
    for c in contigs:
        segs = [0] * (len(c) // 3000)
        in_segs, in_none = contig_anchors(c, k, seed, M64 >> r)
        for seg, h in in_segs:
            segs[seg] += 1
            hashes.append(h >> (32 - r))
        loose += [h >> (32 - r) for h in in_none]
        counts += segs
    lens, acc, n50 = sorted((len(c) for c in contigs), reverse=True), 0, 0
    for n in lens:
        acc += n
        if 2 * acc >= length:
            n50 = n
            break
    return counts, hashes, r, loose, len(contigs), n50


clean = {f: [[CODES[ch] for ch in seq.upper() if ch in CODES] for _, seq in read_fasta(f)] for f in FASTA}
for desc, per_file in (("genome per file, floor 500", True), ("genome", False)):
    s = tsketch_io.load(os.path.join(work, desc.replace(" ", "_").replace(",", "") + ".tsk"))
    k, seed = s.params["anchor_k"], s.params["seed"]
    genomes = [clean[f] for f in FASTA] if per_file else [[c] for f in FASTA for c in clean[f]]
    check(len(genomes) == len(s), f"{desc}: {len(s)} genomes")
    total, total_loose, bad, bad_loose = 0, 0, [], []
    for i, contigs in enumerate(genomes):
        counts, hashes, r, loose, nc, n50 = genome_anchors(contigs, k, seed)
        a = s.anchors(i)
        got_counts, got_hashes, got_r, got_loose = a
        total += len(hashes)
        total_loose += len(loose)
        if ([int(v) for v in got_counts] != counts or [int(v) for v in got_hashes] != hashes or got_r != r
                or s.n_contigs(i) != nc or s.n50(i) != n50):
            bad.append((s.names[i], len(got_counts), len(counts), len(got_hashes), len(hashes), got_r, r))
        if (sorted(int(v) for v in got_loose) != sorted(loose) or a.loose is not got_loose
                or got_loose.dtype != np.uint32 or a.rate_log2 != got_r):
            bad_loose.append((s.names[i], len(got_loose), len(loose)))
    check(not bad and total > 0, f"{desc}: segment anchors ({total}), rates, contigs and N50 of every genome = the "
          "definition's, extracted from the FASTA", str(bad[:3]))
    check(not bad_loose and total_loose > 0, f"{desc}: loose anchors ({total_loose}: contigs' tails, k-mers across "
          "two segments) of every genome = the definition's, as multisets", str(bad_loose[:3]))
    hdr = open(s.path, "rb").read(248)
    check(int.from_bytes(hdr[240:248], "little") == total + total_loose,
          f"{desc}: the header's n_anchors counts the loose anchors too ({total} + {total_loose})")

# bad files: a reason, never a wrong answer
raw = open(path, "rb").read()
bad = {
    "not a sketch": (b"hello world\n" * 30, "not a tsketch sketch file"),
    "truncated": (raw[:-10], "truncated"),
    "flipped data byte": (raw[:5000] + bytes([raw[5000] ^ 1]) + raw[5001:], "checksum"),
    "future version": (raw[:8] + (9).to_bytes(4, "little") + raw[12:], "unsupported format version 9"),
}
graw = open(os.path.join(work, "genome.tsk"), "rb").read()
bad["genome sketches of version 2"] = (graw[:8] + (2).to_bytes(4, "little") + graw[12:],
                                       "format version 2: another key layout, no size floor): sketch the genomes again")
bad["genome sketches of version 3"] = (graw[:8] + (3).to_bytes(4, "little") + graw[12:],
                                       "format version 3: no ANI anchors): sketch the genomes again")
bad["genome sketches of version 4"] = (graw[:8] + (4).to_bytes(4, "little") + graw[12:],
                                       "format version 4: ANI anchors without the contigs' tails): sketch the "
                                       "genomes again")
bad["genome sketches of version 6"] = (graw[:8] + (6).to_bytes(4, "little") + graw[12:],
                                       "unsupported format version 6")
# the CRC comes first, as in tsketch (the floor's own check, CRC fixed: test_tsk_validation.py)
bad["version 5 floor over 1e9"] = (graw[:208] + (10**9 + 1).to_bytes(8, "little") + graw[216:], "checksum mismatch")
for desc, (data, reason) in bad.items():
    p = os.path.join(work, "bad.tsk")
    open(p, "wb").write(data)
    try:
        tsketch_io.load(p)
        check(False, f"bad file ({desc}) refused", "loaded")
    except ValueError as e:
        check(reason in str(e) and p in str(e), f"bad file ({desc}) refused: {e}")

finish()
