#!/usr/bin/python3
"""Held-out genome sets with known ANI: descendants of one real ancestor, rearranged and split
into contigs, for `tsketch dist --genome` (never used to choose its parameters).

  genome_synth.py ANCESTOR.fa[.gz] OUTDIR --seed S --min-rate R0 --max-rate R1 [--genomes 12]
                  [--length 200000] [--indel-share 0.1]

Each genome i gets a rate r_i uniform in [R0, R1]; every ancestral base is, with probability r_i,
mutated: substituted (share 1 - indel-share), deleted, or preceded by an inserted random base
(indel-share / 2 each). The genome is then rotated to a random start, two random blocks of 5-20 %
of it are reverse-complemented in place, one block is moved elsewhere, the whole genome is
reverse-complemented with probability 1/2, and it is cut into 1-6 contigs: OUTDIR/gNN.fa.
Truth (OUTDIR/truth.tsv: gA TAB gB TAB ANI): the share of ancestral bases present in both genomes
that are equal in both (ANI over homologous positions, as an aligner would count it), in percent."""
import argparse
import gzip
import os
import random

COMP = str.maketrans("ACGT", "TGCA")


def read_fasta(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return "".join(line.strip() for line in f if not line.startswith(">")).upper()


def descend(anc, rate, indel_share, rng):
    """Returns (sequence, state) where state[p] is the base of ancestral position p in the
    descendant, or None when it was deleted."""
    out, state = [], []
    for ch in anc:
        if rng.random() >= rate:
            out.append(ch)
            state.append(ch)
            continue
        u = rng.random()
        if u < 1 - indel_share:
            b = rng.choice([a for a in "ACGT" if a != ch])
            out.append(b)
            state.append(b)
        elif u < 1 - indel_share / 2:
            state.append(None)
        else:
            out.append(rng.choice("ACGT"))
            out.append(ch)
            state.append(ch)
    return "".join(out), state


def revcomp(s):
    return s.translate(COMP)[::-1]


def rearrange(seq, rng):
    n = len(seq)
    r = rng.randrange(n)
    seq = seq[r:] + seq[:r]
    for _ in range(2):
        ln = int(n * rng.uniform(0.05, 0.2))
        a = rng.randrange(n - ln)
        seq = seq[:a] + revcomp(seq[a:a + ln]) + seq[a + ln:]
    ln = int(n * rng.uniform(0.05, 0.2))
    a = rng.randrange(n - ln)
    block, rest = seq[a:a + ln], seq[:a] + seq[a + ln:]
    b = rng.randrange(len(rest))
    seq = rest[:b] + block + rest[b:]
    if rng.random() < 0.5:
        seq = revcomp(seq)
    return seq


def contigs(seq, rng):
    k = rng.randint(1, 6)
    cuts = sorted(rng.sample(range(1000, len(seq) - 1000), k - 1))
    bounds = [0] + cuts + [len(seq)]
    return [seq[bounds[i]:bounds[i + 1]] for i in range(k)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ancestor")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--min-rate", type=float, required=True)
    ap.add_argument("--max-rate", type=float, required=True)
    ap.add_argument("--genomes", type=int, default=12)
    ap.add_argument("--length", type=int, default=200000)
    ap.add_argument("--indel-share", type=float, default=0.1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    anc = read_fasta(a.ancestor)[: a.length]
    os.makedirs(a.outdir, exist_ok=True)
    states = []
    for g in range(a.genomes):
        rate = rng.uniform(a.min_rate, a.max_rate)
        seq, state = descend(anc, rate, a.indel_share, rng)
        states.append(state)
        with open(os.path.join(a.outdir, f"g{g:02d}.fa"), "w") as f:
            for c, part in enumerate(contigs(rearrange(seq, rng), rng)):
                f.write(f">g{g:02d}_contig{c + 1} rate={rate:.4f}\n")
                for i in range(0, len(part), 80):
                    f.write(part[i:i + 80] + "\n")
    with open(os.path.join(a.outdir, "truth.tsv"), "w") as f:
        for i in range(a.genomes):
            for j in range(i + 1, a.genomes):
                both = same = 0
                for x, y in zip(states[i], states[j]):
                    if x is not None and y is not None:
                        both += 1
                        same += x == y
                f.write(f"g{i:02d}\tg{j:02d}\t{100.0 * same / both:.4f}\n")


if __name__ == "__main__":
    main()
