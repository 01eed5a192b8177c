#!/usr/bin/env python3
"""ani_gen.py OUTDIR: the planted genomes of test_ani.sh (stdlib only, a fixed seed), one FASTA each.

A      600 kb of random bases
A2     A again (a genome against an identical one: ANI 100, AF 1)
M      A with its 60 kb block at 270 kb substituted at 10 % (uneven: fastANI's mean over 3 kb
       fragments is 0.9 x 100 + 0.1 x 90 = 99.0)
E      A substituted at 3 % evenly (97.0)
P25    A's first 150 kb; P50 its first 300 kb (pieces: ANI ~100, the piece's AF ~1)
C20    A cut in 20 kb contigs, one record each (contigs against the complete genome)
C5     A cut in 5 kb contigs (a MAG's: 2 kb of each, 40 % of the genome, in no segment: its loose
       anchors are looked up; ANI ~100, AF ~1)
E5H    every other 5 kb contig of E (half of a strain at 3 %, in short contigs: ANI 97.0, AF ~1)
U      600 kb of other random bases (unrelated: distance 1, AF 0)
X0 X1 Y0 Y1  strains of 300 kb: X1 = X0 at 3 %, Y0 = X0 at 7 %, Y1 = Y0 at 3 % (species at 95 %:
       {X0, X1} and {Y0, Y1})
"""
import os
import random
import sys

BASES = "ACGT"


def rand_seq(rng, n):
    return "".join(rng.choice(BASES) for _ in range(n))


def mutate(rng, seq, rate, lo=0, hi=None):
    """seq with each base of [lo, hi) replaced by another base with probability rate."""
    hi = len(seq) if hi is None else hi
    s = list(seq)
    for i in range(lo, hi):
        if rng.random() < rate:
            s[i] = rng.choice([b for b in BASES if b != s[i]])
    return "".join(s)


def write(outdir, name, records):
    with open(os.path.join(outdir, name + ".fa"), "w") as f:
        for rname, seq in records:
            f.write(f">{rname}\n")
            for i in range(0, len(seq), 80):
                f.write(seq[i:i + 80] + "\n")


def main():
    outdir = sys.argv[1]
    rng = random.Random(3838)
    a = rand_seq(rng, 600_000)
    write(outdir, "A", [("A", a)])
    write(outdir, "A2", [("A2", a)])
    write(outdir, "M", [("M", mutate(rng, a, 0.10, 270_000, 330_000))])
    e = mutate(rng, a, 0.03)
    write(outdir, "E", [("E", e)])
    write(outdir, "P25", [("P25", a[:150_000])])
    write(outdir, "P50", [("P50", a[:300_000])])
    write(outdir, "C20", [(f"C20_{i // 20_000}", a[i:i + 20_000]) for i in range(0, len(a), 20_000)])
    write(outdir, "U", [("U", rand_seq(rng, 600_000))])
    x0 = rand_seq(rng, 300_000)
    y0 = mutate(rng, x0, 0.07)
    for name, seq in (("X0", x0), ("X1", mutate(rng, x0, 0.03)), ("Y0", y0), ("Y1", mutate(rng, y0, 0.03))):
        write(outdir, name, [(name, seq)])
    write(outdir, "C5", [(f"C5_{i // 5_000}", a[i:i + 5_000]) for i in range(0, len(a), 5_000)])
    write(outdir, "E5H", [(f"E5H_{i // 5_000}", e[i:i + 5_000]) for i in range(0, len(e), 10_000)])


if __name__ == "__main__":
    main()
