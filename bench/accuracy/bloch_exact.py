#!/usr/bin/python3
"""bench/accuracy/bloch_exact.py [K...]: the Spearman that an unsampled k-mer comparison reaches on
the 9 Blochmannia genomes ($TSK_DATA, 18 pairs against fastANI, both directions averaged):
the limit that a sketch of any size (Mash's bottom-s, tsketch's FracMinHash keys) approaches as it
keeps more of the genome. For each k: exact canonical k-mer Jaccard and mean containment.
docs/accuracy.md ("Blochmannia: the exact limit") quotes it. Needs numpy; ~1 min per k.

  bench/accuracy/bloch_exact.py 12 16 20 21 24
  bench/accuracy/bloch_exact.py --score PAIRS.tsv     # a distance TSV (tsketch or mash) instead
"""
import glob
import gzip
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from genome_truth import DATA  # noqa: E402  (TSK_DATA / TSK_SHARED, checked there)
FILES = sorted(glob.glob(os.path.join(DATA, "bacteria", "blochmannia", "*.fna.gz")))


def stem(path):
    return os.path.basename(path)[:15]  # GCF_000011745.1


def truth():
    pairs = {}
    for line in open(os.path.join(DATA, "truth", "blochmannia_fastani.tsv")):
        f = line.split("\t")
        if f[0] == "query" or stem(f[0]) == stem(f[1]):
            continue
        pairs.setdefault(tuple(sorted((stem(f[0]), stem(f[1])))), []).append(float(f[2]))
    return {k: np.mean(v) for k, v in pairs.items()}


def ranks(v):
    v = np.asarray(v, float)
    r = np.empty(len(v))
    r[np.argsort(v, kind="stable")] = np.arange(len(v))
    for u in np.unique(v):  # ties share their mean rank
        r[v == u] = r[v == u].mean()
    return r


def spearman_distance(dist, ani):
    """Spearman of a distance against 100 - ANI over the pairs both have."""
    keys = [k for k in ani if k in dist]
    return len(keys), np.corrcoef(ranks([dist[k] for k in keys]), ranks([-ani[k] for k in keys]))[0, 1]


def canonical_kmers(seq, k):
    lut = np.full(256, 255, np.uint8)
    for i, c in enumerate(b"ACGT"):
        lut[c] = i
    x = lut[np.frombuffer(seq, np.uint8)].astype(np.uint64)
    bad = x == 255
    x[bad] = 0
    n = len(x) - k + 1
    fw = np.zeros(n, np.uint64)
    rc = np.zeros(n, np.uint64)
    for i in range(k):
        fw = (fw << np.uint64(2)) | x[i:i + n]
        rc |= (np.uint64(3) - x[i:i + n]) << np.uint64(2 * i)
    broken = np.convolve(bad.astype(np.int32), np.ones(k, np.int32), "valid") > 0
    return np.unique(np.minimum(fw, rc)[~broken])


def genome(path):
    parts = []
    for line in gzip.open(path, "rb"):
        parts.append(b"N" if line.startswith(b">") else line.strip().upper())
    return b"".join(parts)


def main():
    ani = truth()
    if len(sys.argv) > 2 and sys.argv[1] == "--score":
        dist = {}
        for line in open(sys.argv[2]):
            f = line.rstrip("\n").split("\t")
            try:
                d = float(f[2])
            except (IndexError, ValueError):
                continue
            if stem(f[0]) != stem(f[1]):
                dist[tuple(sorted((stem(f[0]), stem(f[1]))))] = d
        n, rho = spearman_distance(dist, ani)
        print(f"{n}\t{rho:.4f}")
        return
    seqs = {stem(f): genome(f) for f in FILES}
    print("k\tpairs\tjaccard\tmean_containment")
    for k in [int(a) for a in sys.argv[1:]] or [16, 20, 21]:
        sets = {name: canonical_kmers(s, k) for name, s in seqs.items()}
        jac, cont = {}, {}
        for a, b in ani:
            shared = len(np.intersect1d(sets[a], sets[b], assume_unique=True))
            jac[(a, b)] = 1 - shared / (len(sets[a]) + len(sets[b]) - shared)
            cont[(a, b)] = 1 - (shared / len(sets[a]) + shared / len(sets[b])) / 2
        n, rj = spearman_distance(jac, ani)
        _, rc = spearman_distance(cont, ani)
        print(f"{k}\t{n}\t{rj:.4f}\t{rc:.4f}", flush=True)


if __name__ == "__main__":
    main()
