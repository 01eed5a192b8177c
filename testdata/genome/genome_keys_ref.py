#!/usr/bin/python3
"""Independent reference of tsketch's genome sketches (`sketch --genome`, `dist` on genome sketches),
in plain Python integers, written from the definitions (core/genome_keys.h's top comment, including
its size floor; core/tsk_def.h tsk_anchor_windows; docs/spec.md) for the CLI golden
files (make.sh) and the floor checks of tests/cli/test_genome_sets.sh. It never runs tsketch and
computes no float sketch: each window's Tensor Sketch is the DP of docs/spec.md on signed tuple counts.

A genome of cleaned length L (a record; with --per-file the sum of the file's records) samples
anchors at stride s_g = min(max(4 L // (5 min_keys), floor_stride), scaled); its candidates are the windows whose
anchor hash is <= C_g = (2^64-1) // s_g | FP_MASK, keyed (anchor hash high bits | 24 fingerprint
bits); it keeps the candidate keys <= tau_g (C_g when fewer than min_keys candidates, else
max(T, K_(min_keys) | FP_MASK), T = (2^64-1) // scaled | FP_MASK). A pair is compared below
min(tau_a, tau_b): shared = |A n B|, sizes = the keys of each at most that bound.

  genome_keys_ref.py [OPTIONS] keys FASTA...          NAME TAB key TAB key ... (sorted, as `export`)
  genome_keys_ref.py [OPTIONS] dist FASTA...          a TAB b TAB distance TAB shared TAB total, i < j
  genome_keys_ref.py [OPTIONS] containment FASTA...   ref TAB query TAB distance TAB shared TAB |query'|,
                                                      every ordered pair query != ref
  genome_keys_ref.py [OPTIONS] windows FASTA...       NAME TAB record TAB start TAB key TAB kept,
                                                      every candidate window (start 0-based, cleaned)
  genome_keys_ref.py [OPTIONS] sizes FASTA...         NAME TAB length TAB s_g TAB candidates TAB
                                                      tau_g TAB keys kept
OPTIONS: -k T -s D --seed S --window W --anchor-k K --scaled N [--min-keys M (default 12000)]
[--per-file] (one genome per record, or per file with --per-file, named as tsketch names it;
FASTA may be gzipped)."""
import argparse
import gzip
import os
import sys

MASK = (1 << 64) - 1
FP_BITS = 24  # low key bits taken from the fingerprint
FP_MASK = (1 << FP_BITS) - 1
CODE = {"A": 0, "C": 1, "G": 2, "T": 3, "U": 3}


def splitmix_next(state):
    """SplitMix64: advance the state by the golden gamma, return (new state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    return state, mix64(state)


def mix64(z):
    """SplitMix64's output function (no gamma added): the key chain of genome_keys.h."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def tables(t, dim, seed):
    """hash[k][c], sign[k][c] drawn in docs/spec.md's order (level, then character)."""
    state, hashes, signs = seed & MASK, [], []
    for _ in range(t):
        h, s = [], []
        for _ in range(4):
            state, v = splitmix_next(state)
            h.append(v % dim)
            state, v = splitmix_next(state)
            s.append(-1 if v >> 63 else 1)
        hashes.append(h)
        signs.append(s)
    return hashes, signs


def records(path):
    name, parts = None, []
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        line = line.rstrip("\r\n")
        if line.startswith(">"):
            if name is not None:
                yield name, "".join(parts)
            name, parts = line[1:].split()[0], []
        elif name is not None:
            parts.append(line.strip())
    if name is not None:
        yield name, "".join(parts)


def stem(path):
    base = os.path.basename(path.rstrip("/"))
    for group in ((".gz", ".bgz", ".bgzf"), (".fasta", ".fa", ".fna", ".ffn", ".faa", ".fas", ".fsa", ".fsa_nt", ".fastq", ".fq")):
        for suffix in group:
            if base.endswith(suffix) and len(base) > len(suffix):
                base = base[:-len(suffix)]
                break
    return base


def anchors(x, k, w, max_hash, seed):
    """[(start, anchor hash)] of the windows of codes x whose anchor (the canonical k-mer at the
    window's centre) hashes to at most max_hash, by brute force per k-mer."""
    out = []
    for i in range(len(x) - k + 1):
        fw = rc = 0
        for c in x[i:i + k]:
            fw = fw * 4 + c
        for c in reversed(x[i:i + k]):
            rc = rc * 4 + (3 - c)
        first = i + k // 2 - w // 2
        if first < 0 or first + w > len(x):
            continue
        h = splitmix_next(min(fw, rc) ^ seed)[1]  # tsk_anchor_windows: SplitMix64 of (k-mer XOR seed)
        if h <= max_hash:
            out.append((first, h))
    return out


def anchor_stride(length, a):
    """s_g: anchors of a genome of this length, one in s_g (scaled without a floor; at least the
    floor stride F below scaled)."""
    if a.min_keys == 0:
        return a.scaled
    return min(max(4 * length // (5 * a.min_keys), a.floor_stride), a.scaled)


def threshold(keys, length, a):
    """tau_g of a genome of this length whose candidate keys (or kept keys: the same) are keys."""
    t = MASK // a.scaled | FP_MASK
    if a.min_keys == 0:
        return t
    keys = sorted(set(keys))
    if len(keys) < a.min_keys:
        return MASK // anchor_stride(length, a) | FP_MASK
    return max(t, keys[a.min_keys - 1] | FP_MASK)


def count_sketch(x, t, dim, hashes, signs):
    """Bin r: the signed number of index tuples i_1 < ... < i_t hashing to r (docs/spec.md's DP
    without the division by C(n, t)): N[p][l] += sign * N[p-1][(l - hash) mod D]."""
    N = [[0] * dim for _ in range(t + 1)]
    N[0][0] = 1
    for c in x:
        for p in range(t, 0, -1):
            h, s, prev = hashes[p - 1][c], signs[p - 1][c], N[p - 1]
            N[p] = [a + s * prev[(l - h) % dim] for l, a in enumerate(N[p])]
    return N[t]


def window_key(win, a):
    """Key of a window: the canonical integer sketch (forward + reverse complement counts) hashed
    by the chain h_{r+1} = mix64(h_r XOR (r << 32 | (uint32) S_r)), h_0 = seed."""
    fwd = count_sketch(win, a.k, a.s, a.hashes, a.signs)
    rev = count_sketch([3 - c for c in reversed(win)], a.k, a.s, a.hashes, a.signs)
    h = a.seed
    for r in range(a.s):
        h = mix64(h ^ ((r << 32) | ((fwd[r] + rev[r]) & 0xFFFFFFFF)))
    return h


def genomes(a):
    """[(name, length, [(record, start, key)] of its candidate windows)] in tsketch's order."""
    groups = []  # a genome: (name, [(record, codes)])
    for path in a.fasta:
        recs = [(name, [CODE[ch] for ch in raw.upper() if ch in CODE]) for name, raw in records(path)]
        groups += [(stem(path), recs)] if a.per_file else [(name, [(name, x)]) for name, x in recs]
    out = []
    for gname, recs in groups:
        length = sum(len(x) for _, x in recs)
        # the genome's length sets its stride; windows stay within a record
        limit = MASK // anchor_stride(length, a) | FP_MASK
        cands = []
        for rec, x in recs:
            for first, h in anchors(x, a.anchor_k, a.window, limit, a.seed):
                fp = window_key(x[first:first + a.window], a)
                cands.append((rec, first, (h & ~FP_MASK) | (fp & FP_MASK)))
        out.append((gname, length, cands))
    return out


def sketch(length, cands, a):
    """(tau_g, the kept keys, sorted) of a genome's candidates."""
    tau = threshold([key for _, _, key in cands], length, a)
    return tau, sorted({key for _, _, key in cands if key <= tau})


def pair(ka, ta, kb, tb):
    """(shared, |A'|, |B'|): the keys in common, and each set's keys at most min(tau_a, tau_b)."""
    bound = min(ta, tb)
    return len(set(ka) & set(kb)), sum(k <= bound for k in ka), sum(k <= bound for k in kb)


def distance(f, w):
    """1 - f^(1/W), as tsketch prints it: rounded to float32, %.9g."""
    if not f > 0:
        return "1"
    if f >= 1:
        return "0"
    import struct
    d = struct.unpack("f", struct.pack("f", 1.0 - f ** (1.0 / w)))[0]
    return "%.9g" % d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", type=int, required=True)
    ap.add_argument("-s", type=int, required=True)
    ap.add_argument("--seed", type=lambda v: int(v, 0), default=0x5EED)
    ap.add_argument("--window", type=int, required=True)
    ap.add_argument("--anchor-k", type=int, required=True)
    ap.add_argument("--scaled", type=int, required=True)
    ap.add_argument("--min-keys", type=int, default=12000)
    ap.add_argument("--floor-stride", type=int, default=8)
    ap.add_argument("--per-file", action="store_true")
    ap.add_argument("what", choices=["keys", "dist", "containment", "windows", "sizes"])
    ap.add_argument("fasta", nargs="+")
    a = ap.parse_args()
    a.hashes, a.signs = tables(a.k, a.s, a.seed)
    gs = genomes(a)
    sets = [(name,) + sketch(length, cands, a) for name, length, cands in gs]  # (name, tau, keys)
    if a.what == "windows":
        for (name, _, cands), (_, tau, _) in zip(gs, sets):
            for rec, first, key in cands:
                print("%s\t%s\t%d\t%d\t%d" % (name, rec, first, key, key <= tau))
    elif a.what == "sizes":
        for (name, length, cands), (_, tau, keys) in zip(gs, sets):
            print("%s\t%d\t%d\t%d\t%d\t%d" % (name, length, anchor_stride(length, a), len({c[2] for c in cands}), tau,
                                           len(keys)))
    elif a.what == "keys":
        for name, _, keys in sets:
            print("\t".join([name] + [str(k) for k in keys]))
    elif a.what == "dist":
        for i, (na, ta, ka) in enumerate(sets):
            for nb, tb, kb in sets[i + 1:]:
                shared, sa, sb = pair(ka, ta, kb, tb)
                f = (shared / sa + shared / sb) / 2 if sa and sb else 0.0
                print("%s\t%s\t%s\t%d\t%d" % (na, nb, distance(f, a.window), shared, sa + sb - shared))
    else:
        for nq, tq, kq in sets:
            for nr, tr, kr in sets:
                if nr == nq:
                    continue
                shared, sq, _ = pair(kq, tq, kr, tr)
                f = shared / sq if sq else 0.0
                print("%s\t%s\t%s\t%d\t%d" % (nr, nq, distance(f, a.window), shared, sq))


if __name__ == "__main__":
    sys.exit(main())
