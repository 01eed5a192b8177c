#!/usr/bin/python3
"""Many small genomes (phage-sized) for the size and speed of genome sketches below the size
floor (docs/accuracy.md, "The floor stride"):

  small_genomes.py OUTDIR [--species 100] [--strains 30] [--length 20000] [--seed 7]

Each species is a random root of --length bases; each strain substitutes every base of its root
with probability uniform in 0.2-2 %, and is written as OUTDIR/sSSS_TT.fa (one record, 80 columns).
The strains of a species are its cluster at 95 % ANI; species are unrelated."""
import argparse
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("outdir")
ap.add_argument("--species", type=int, default=100)
ap.add_argument("--strains", type=int, default=30)
ap.add_argument("--length", type=int, default=20000)
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()
rng = random.Random(a.seed)
os.makedirs(a.outdir, exist_ok=True)
for s in range(a.species):
    root = [rng.choice("ACGT") for _ in range(a.length)]
    for t in range(a.strains):
        rate = rng.uniform(0.002, 0.02)
        g = [rng.choice("ACGT".replace(c, "")) if rng.random() < rate else c for c in root]
        seq = "".join(g)
        with open(os.path.join(a.outdir, f"s{s:03d}_{t:02d}.fa"), "w") as f:
            f.write(f">s{s}_{t}\n")
            for i in range(0, len(seq), 80):
                f.write(seq[i:i + 80] + "\n")
