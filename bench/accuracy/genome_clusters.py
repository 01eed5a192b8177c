#!/usr/bin/python3
"""Bacterial-size genome sets with known ANI, in genera and species: for the genome-sketch defaults
(docs/accuracy.md, "Genome sketches") and the CPU timing against Mash.

  genome_clusters.py OUTDIR --seed S [--genera 2] [--species 3] [--per-species 5]
                     [--min-len 3000000] [--max-len 5000000] [--species-rate 0.04 0.12]
                     [--strain-rate 0 0.025] [--indel-share 0.2]

Each genus has its own random root genome (length uniform in [min-len, max-len], its own GC
content in 0.3-0.65): genera are unrelated. Each species descends from its genus root at a rate
in --species-rate, each genome from its species at a rate in --strain-rate (a mutated base is
substituted, deleted or preceded by an inserted base; indels are --indel-share of the mutations).
Each genome is then rotated, has two blocks inverted and one moved, is reverse-complemented with
probability 1/2 and cut into 1-6 contigs: OUTDIR/gNN.fa. Written beside them:
  truth.tsv   gA TAB gB TAB ANI (percent over the root positions both kept), pairs of one genus
  groups.tsv  genome TAB genus TAB species
numpy only; a 30 x 4 Mbp set takes about a minute."""
import argparse
import os

import numpy as np

ACGT = np.frombuffer(b"ACGT", dtype=np.uint8)


def descend(base, origin, rate, indel_share, rng):
    """One generation: (base, origin) arrays of the parent -> the child's. origin[i] is the root
    position of base i, -1 for an inserted base."""
    n = base.size
    u = rng.random(n)
    mutated = u < rate
    v = u / max(rate, 1e-300)  # uniform in [0, 1) again where mutated
    sub = mutated & (v < 1 - indel_share)
    dele = mutated & (v >= 1 - indel_share) & (v < 1 - indel_share / 2)
    ins = mutated & (v >= 1 - indel_share / 2)
    child = base.copy()
    child[sub] = (child[sub] + rng.integers(1, 4, int(sub.sum()), dtype=np.uint8)) % 4
    counts = np.ones(n, dtype=np.int64)
    counts[dele] = 0
    counts[ins] = 2
    idx = np.repeat(np.arange(n), counts)
    out_base = child[idx]
    out_origin = origin[idx]
    starts = np.cumsum(counts) - counts
    first = starts[ins]
    out_base[first] = rng.integers(0, 4, first.size, dtype=np.uint8)
    out_origin[first] = -1
    return out_base, out_origin


def revcomp(b):
    return (3 - b)[::-1]


def rearrange(b, rng):
    n = b.size
    b = np.roll(b, -int(rng.integers(n)))
    for _ in range(2):
        ln = int(n * rng.uniform(0.05, 0.2))
        a = int(rng.integers(n - ln))
        b = np.concatenate([b[:a], revcomp(b[a:a + ln]), b[a + ln:]])
    ln = int(n * rng.uniform(0.05, 0.2))
    a = int(rng.integers(n - ln))
    block, rest = b[a:a + ln], np.concatenate([b[:a], b[a + ln:]])
    at = int(rng.integers(rest.size))
    b = np.concatenate([rest[:at], block, rest[at:]])
    return revcomp(b) if rng.random() < 0.5 else b


def write_genome(path, name, b, rng):
    k = int(rng.integers(1, 7))
    cuts = np.sort(rng.choice(np.arange(1000, b.size - 1000), k - 1, replace=False)) if k > 1 else []
    bounds = [0, *[int(c) for c in cuts], b.size]
    text = ACGT[b].tobytes()
    with open(path, "wb") as f:
        for c in range(k):
            part = text[bounds[c]:bounds[c + 1]]
            f.write(f">{name}_contig{c + 1}\n".encode())
            for i in range(0, len(part), 80):
                f.write(part[i:i + 80] + b"\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--genera", type=int, default=2)
    ap.add_argument("--species", type=int, default=3)
    ap.add_argument("--per-species", type=int, default=5)
    ap.add_argument("--min-len", type=int, default=3_000_000)
    ap.add_argument("--max-len", type=int, default=5_000_000)
    ap.add_argument("--species-rate", type=float, nargs=2, default=(0.04, 0.12))
    ap.add_argument("--strain-rate", type=float, nargs=2, default=(0.0, 0.025))
    ap.add_argument("--indel-share", type=float, default=0.2)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    g = 0
    with open(os.path.join(a.outdir, "truth.tsv"), "w") as truth, \
            open(os.path.join(a.outdir, "groups.tsv"), "w") as groups:
        for genus in range(a.genera):
            n = int(rng.integers(a.min_len, a.max_len + 1))
            gc = rng.uniform(0.3, 0.65)
            root = rng.choice(4, n, p=[(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2]).astype(np.uint8)
            root_origin = np.arange(n, dtype=np.int64)
            members = []  # (name, root-position -> base map)
            for sp in range(a.species):
                sb, so = descend(root, root_origin, rng.uniform(*a.species_rate), a.indel_share, rng)
                for _ in range(a.per_species):
                    b, o = descend(sb, so, rng.uniform(*a.strain_rate), a.indel_share, rng)
                    name = f"g{g:02d}"
                    g += 1
                    at = np.full(n, 255, dtype=np.uint8)
                    keep = o >= 0
                    at[o[keep]] = b[keep]
                    members.append((name, at))
                    groups.write(f"{name}\tgenus{genus}\tspecies{genus}.{sp}\n")
                    write_genome(os.path.join(a.outdir, f"{name}.fa"), name, rearrange(b, rng), rng)
            for i in range(len(members)):
                for j in range(i + 1, len(members)):
                    x, y = members[i][1], members[j][1]
                    both = (x != 255) & (y != 255)
                    ani = 100.0 * np.count_nonzero(x[both] == y[both]) / max(1, np.count_nonzero(both))
                    truth.write(f"{members[i][0]}\t{members[j][0]}\t{ani:.4f}\n")


if __name__ == "__main__":
    main()
