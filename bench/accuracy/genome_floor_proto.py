#!/usr/bin/python3
"""Prototype (not in the CLI): genome sketches with a floor on their size, to see what small
genomes would need (docs/accuracy.md, "Genome sketches", "What would meet the small-genome sets").

  genome_floor_proto.py KEYS.tsv WINDOW STRIDE SCALED NMIN > PAIRS.tsv

KEYS.tsv: `tsketch export` of a genome .tsk made with --stride STRIDE --scaled STRIDE (every
anchored window's key). Each genome keeps its keys at or below tau_i = max(T, its NMIN-th smallest
key), T = (UINT64_MAX / SCALED) * STRIDE (the CLI's threshold for --scaled SCALED); a pair is
compared below min(tau_a, tau_b), so both sides are the same consistent sample (as Mash's
bottom-s sketches are compared within the union's bottom s). NMIN 0 gives the CLI's own sketch
and distances (checked against `tsketch dist --genome`). Prints 'a TAB b TAB distance TAB shared
TAB total' per pair, the CLI's formula 1 - f^(1/W)."""
import sys

import numpy as np

U64 = (1 << 64) - 1
window, stride, scaled, nmin = (int(v) for v in sys.argv[2:6])
t_scaled = (U64 // scaled) * stride
names, keys, tau = [], [], []
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    k = np.array(sorted(int(v) for v in f[1:]), dtype=np.uint64)
    t = t_scaled
    if nmin > 0 and k.size >= nmin and int(k[nmin - 1]) > t:
        t = int(k[nmin - 1])
    elif nmin > 0 and k.size < nmin:
        t = U64
    names.append(f[0])
    keys.append(k[k <= np.uint64(t)])
    tau.append(t)
out = sys.stdout
for i in range(len(names)):
    for j in range(i + 1, len(names)):
        t = np.uint64(min(tau[i], tau[j]))
        a, b = keys[i][keys[i] <= t], keys[j][keys[j] <= t]
        shared = np.intersect1d(a, b, assume_unique=True).size
        f = 0.0 if a.size == 0 or b.size == 0 else (shared / a.size + shared / b.size) / 2
        d = 1.0 if f == 0 else 1.0 - f ** (1.0 / window)
        out.write(f"{names[i]}\t{names[j]}\t{d:.9g}\t{shared}\t{a.size + b.size - shared}\n")
