#!/usr/bin/python3
"""Independent reference of tsketch's genome sketches (`sketch --genome`, `dist` on genome sketches),
in plain Python integers, written from the definitions (core/genome_keys.h, core/tsk_def.h
tsk_anchor_windows, ../shared/spec/SKETCH.md) for the CLI golden files. It never runs tsketch and
computes no float sketch: each window's Tensor Sketch is the DP of SKETCH.md on signed tuple counts.

  genome_keys_ref.py [OPTIONS] keys FASTA...          NAME TAB key TAB key ... (sorted, as `export`)
  genome_keys_ref.py [OPTIONS] dist FASTA...          a TAB b TAB distance TAB shared TAB total, i < j
  genome_keys_ref.py [OPTIONS] containment FASTA...   ref TAB query TAB distance TAB shared TAB |query|,
                                                      every ordered pair query != ref
  genome_keys_ref.py [OPTIONS] windows FASTA...       NAME TAB record TAB start TAB key TAB kept,
                                                      every anchored window (start 0-based, cleaned)
OPTIONS: -k T -s D --seed S --window W --anchor-k K --stride S --scaled N [--per-file]
(one genome per record, or per file with --per-file, named as tsketch names it)."""
import argparse
import os
import sys

MASK = (1 << 64) - 1
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
    """hash[k][c], sign[k][c] drawn in SKETCH.md's order (level, then character)."""
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
    for line in open(path):
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
    for group in ((".gz", ".bgz", ".bgzf"), (".fasta", ".fa", ".fna", ".ffn", ".faa", ".fas", ".fastq", ".fq")):
        for suffix in group:
            if base.endswith(suffix) and len(base) > len(suffix):
                base = base[:-len(suffix)]
                break
    return base


def anchors(x, k, w, stride, seed):
    """Starts of the anchored windows of codes x (tsk_anchor_windows), by brute force per k-mer."""
    limit = MASK // stride
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
        if splitmix_next(min(fw, rc) ^ seed)[1] < limit:
            out.append(first)
    return out


def count_sketch(x, t, dim, hashes, signs):
    """Bin r: the signed number of index tuples i_1 < ... < i_t hashing to r (SKETCH.md's DP
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
    """[(name, [(record, start, key, kept)])] in tsketch's order."""
    max_key = (MASK // a.scaled) * a.stride
    out = []
    for path in a.fasta:
        if a.per_file:
            out.append((stem(path), []))
        for name, raw in records(path):
            if not a.per_file:
                out.append((name, []))
            x = [CODE[ch] for ch in raw.upper() if ch in CODE]
            for first in anchors(x, a.anchor_k, a.window, a.stride, a.seed):
                key = window_key(x[first:first + a.window], a)
                out[-1][1].append((name, first, key, key <= max_key))
    return out


def key_set(windows):
    return sorted({key for _, _, key, kept in windows if kept})


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
    ap.add_argument("--stride", type=int, required=True)
    ap.add_argument("--scaled", type=int, required=True)
    ap.add_argument("--per-file", action="store_true")
    ap.add_argument("what", choices=["keys", "dist", "containment", "windows"])
    ap.add_argument("fasta", nargs="+")
    a = ap.parse_args()
    a.hashes, a.signs = tables(a.k, a.s, a.seed)
    gs = genomes(a)
    sets = [(name, key_set(ws)) for name, ws in gs]
    if a.what == "windows":
        for name, ws in gs:
            for rec, first, key, kept in ws:
                print("%s\t%s\t%d\t%d\t%d" % (name, rec, first, key, kept))
    elif a.what == "keys":
        for name, keys in sets:
            print("\t".join([name] + [str(k) for k in keys]))
    elif a.what == "dist":
        for i, (na, ka) in enumerate(sets):
            for nb, kb in sets[i + 1:]:
                shared = len(set(ka) & set(kb))
                f = (shared / len(ka) + shared / len(kb)) / 2 if ka and kb else 0.0
                print("%s\t%s\t%s\t%d\t%d" % (na, nb, distance(f, a.window), shared, len(ka) + len(kb) - shared))
    else:
        for nq, kq in sets:
            for nr, kr in sets:
                if nr == nq:
                    continue
                shared = len(set(kq) & set(kr))
                f = shared / len(kq) if kq else 0.0
                print("%s\t%s\t%s\t%d\t%d" % (nr, nq, distance(f, a.window), shared, len(kq)))


if __name__ == "__main__":
    sys.exit(main())
