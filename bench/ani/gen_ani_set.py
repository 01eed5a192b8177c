#!/usr/bin/env python3
"""gen_ani_set.py: genome sets for judging ANI and aligned fraction (AF) estimates (#38).

One set is a star of strains around an ancestor (random, or a real genome such as a Blochmannia
assembly with --ancestor), each strain mutated on its own leg, so a pair's divergence is about the
sum of both legs (--leg-min/--leg-max; the defaults put most pairs near 93-97 % ANI; donor blocks
and hypervariable segments take uneven sets' ANI lower than their legs). Per strain:

  uneven sets (--mode uneven, the default):
    * substitution rate varying along the genome (gamma, shape --gamma-shape, over 1 kb blocks);
    * blocks imported from a donor (the ancestor at 75-85 % identity) covering 5-20 % of the strain,
      in blocks of 2-20 kb (recombination);
    * hypervariable segments: 2-6 segments of 1-5 kb at 8-20 % divergence;
  even sets (--mode even): one substitution rate over the whole genome, no donor, no hypervariable.
  Both:
    * indels: short (1-10 bp, one per ten substitutions) and some longer (50-500 bp);
    * gene loss and gain: 2-6 deleted and 2-6 inserted segments (unrelated sequence) of 1-20 kb;
    * drafts: strains are written complete or cut into contigs (mean 40 kb, --contig-mean; some
      reversed) of which a random subset covering the completeness is kept (--completeness, cycled
      over the strains);
    * pieces: --pieces extra genomes, each a draft of a strain with no mutation of its own
      (ANI 100 % to its source, AF = its completeness).

Every base of every genome remembers its ancestor position (or none: inserted), so the truth is
exact. For every ordered pair (query, reference) the truth TSV has:

  identity_aligned  identity over all homologous positions present in both (one base each);
  af_query, af_ref  the share of the query's (reference's) bases homologous to a base of the other;
  fani_like         a fastANI-like truth: the query is cut into 3 kb fragments per contig (the tail
                    under 3 kb dropped, as fastANI does); a fragment maps when at least half of it is
                    homologous to the reference and its identity over those positions is >= 80 %;
                    fani_like is the mean identity of the mapped fragments (in %);
  fani_af           mapped fragments / all fragments of the query (fastANI's fraction).

Symmetric values (the mean of both directions, as the evaluation compares) are computed by eval.py.

Usage:
  gen_ani_set.py --seed 1 --out DIR [--mode uneven|even] [--strains 8] [--length 1500000]
                 [--ancestor FASTA[.gz]] [--completeness 1,1,0.75,0.5,1,0.25,1,0.9] [--pieces 2]
Writes DIR/<name>.fa per genome, DIR/genomes.txt (paths), DIR/truth.tsv, DIR/genomes.tsv (name,
mode, leg, completeness, source).
"""
import argparse
import gzip
import os
import sys

import numpy as np

BASES = np.frombuffer(b"ACGT", dtype=np.uint8)
FRAG = 3000


def read_fasta_codes(path):
    op = gzip.open if path.endswith(".gz") else open
    parts = []
    with op(path, "rb") as f:
        for line in f:
            if line.startswith(b">"):
                continue
            parts.append(line.strip().upper())
    raw = np.frombuffer(b"".join(parts), dtype=np.uint8)
    lut = np.full(256, 255, dtype=np.uint8)
    for i, c in enumerate(b"ACGT"):
        lut[c] = i
    codes = lut[raw]
    return codes[codes != 255].copy()


def substitute(rng, seq, rate):
    """Substitutes each base with probability rate (an array or scalar) by one of the other three."""
    hit = rng.random(seq.size) < rate
    seq = seq.copy()
    seq[hit] = (seq[hit] + rng.integers(1, 4, int(hit.sum()))).astype(np.uint8) % 4
    return seq


def place_blocks(rng, length, total, lo, hi, taken):
    """Non-overlapping [start, end) blocks of lo..hi bases covering about total bases, avoiding taken."""
    blocks = []
    covered = 0
    tries = 0
    while covered < total and tries < 10000:
        tries += 1
        size = int(rng.integers(lo, hi + 1))
        start = int(rng.integers(0, max(1, length - size)))
        if taken[start:start + size].any():
            continue
        taken[start:start + size] = True
        blocks.append((start, start + size))
        covered += size
    return blocks


def make_strain(rng, anc, donor, leg, mode, gamma_shape):
    """A strain: (seq, anc_pos) arrays; anc_pos -1 marks inserted bases."""
    L = anc.size
    taken = np.zeros(L, dtype=bool)
    if mode == "uneven":
        nblk = (L + 999) // 1000
        mult = rng.gamma(gamma_shape, 1.0 / gamma_shape, nblk)
        rate = np.repeat(mult, 1000)[:L] * leg
        seq = substitute(rng, anc, np.minimum(rate, 0.5))
        donor_share = rng.uniform(0.05, 0.20)
        for s, e in place_blocks(rng, L, donor_share * L, 2000, 20000, taken):
            seq[s:e] = donor[s:e]
        for s, e in place_blocks(rng, L, 1e9, 1000, 5000, taken)[: int(rng.integers(2, 7))]:
            seq[s:e] = substitute(rng, anc[s:e], rng.uniform(0.08, 0.20))
    else:
        seq = substitute(rng, anc, leg)
    pos = np.arange(L, dtype=np.int64)
    # Deletions: short indels, longer ones, lost genes.
    keep = np.ones(L, dtype=bool)
    n_sub = int(leg * L)
    for _ in range(max(1, n_sub // 20)):
        s = int(rng.integers(0, L))
        keep[s:s + int(rng.geometric(0.3))] = False
    for _ in range(max(1, n_sub // 400)):
        s = int(rng.integers(0, L))
        keep[s:s + int(rng.integers(50, 501))] = False
    for _ in range(int(rng.integers(2, 7))):
        s = int(rng.integers(0, L))
        keep[s:s + int(rng.integers(1000, 20001))] = False
    # Insertions: short ones (random bases), longer ones, gained genes (unrelated sequence).
    ins = []
    for _ in range(max(1, n_sub // 20)):
        ins.append((int(rng.integers(0, L)), int(rng.geometric(0.3))))
    for _ in range(max(1, n_sub // 400)):
        ins.append((int(rng.integers(0, L)), int(rng.integers(50, 501))))
    for _ in range(int(rng.integers(2, 7))):
        ins.append((int(rng.integers(0, L)), int(rng.integers(1000, 20001))))
    ins.sort()
    seq_parts, pos_parts = [], []
    prev = 0
    for at, n in ins:
        seq_parts.append(seq[prev:at][keep[prev:at]])
        pos_parts.append(pos[prev:at][keep[prev:at]])
        seq_parts.append(rng.integers(0, 4, n).astype(np.uint8))
        pos_parts.append(np.full(n, -1, dtype=np.int64))
        prev = at
    seq_parts.append(seq[prev:][keep[prev:]])
    pos_parts.append(pos[prev:][keep[prev:]])
    return np.concatenate(seq_parts), np.concatenate(pos_parts)


def cut_draft(rng, seq, pos, completeness, contig_mean):
    """Contigs: list of (seq, pos, reversed). Complete genomes stay one record."""
    if completeness >= 1.0:
        return [(seq, pos, False)]
    cuts = [0]
    while cuts[-1] < seq.size:
        cuts.append(cuts[-1] + max(min(2000, contig_mean // 2), int(rng.exponential(contig_mean))))
    cuts[-1] = seq.size
    contigs = [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]
    order = rng.permutation(len(contigs))
    chosen, total = [], 0
    for i in order:
        if total >= completeness * seq.size:
            break
        s, e = contigs[i]
        chosen.append(i)
        total += e - s
    out = []
    for i in chosen:
        s, e = contigs[i]
        out.append((seq[s:e], pos[s:e], bool(rng.random() < 0.5)))
    return out


def write_fasta(path, name, contigs):
    with open(path, "w") as f:
        for i, (s, _, rev) in enumerate(contigs):
            if rev:
                s = (3 - s)[::-1]
            text = BASES[s].tobytes().decode()
            f.write(f">{name}_c{i + 1}\n")
            for j in range(0, len(text), 80):
                f.write(text[j:j + 80] + "\n")


def pair_truth(q_contigs, r_contigs, L):
    """Truth of query against reference (module docstring)."""
    r_base = np.full(L, 255, dtype=np.uint8)
    for s, p, _ in r_contigs:
        h = p >= 0
        r_base[p[h]] = s[h]
    q_len = sum(s.size for s, _, _ in q_contigs)
    r_len = sum(s.size for s, _, _ in r_contigs)
    hom = same = 0
    frag_ids = []
    for s, p, _ in q_contigs:
        rb = np.where(p >= 0, r_base[np.maximum(p, 0)], 255)
        h = rb != 255
        eq = h & (rb == s)
        hom += int(h.sum())
        same += int(eq.sum())
        nf = s.size // FRAG
        if nf:
            hf = h[: nf * FRAG].reshape(nf, FRAG).sum(1)
            ef = eq[: nf * FRAG].reshape(nf, FRAG).sum(1)
            for a, b in zip(hf, ef):
                frag_ids.append((a, b))
    # Homologous positions seen from the reference side: the reference's bases present in the query.
    q_has = np.zeros(L, dtype=bool)
    for s, p, _ in q_contigs:
        q_has[p[p >= 0]] = True
    r_hom = sum(int(q_has[p[p >= 0]].sum()) for _, p, _ in r_contigs)
    mapped = [b / a for a, b in frag_ids if a >= FRAG / 2 and b / a >= 0.80]
    fani = 100.0 * float(np.mean(mapped)) if mapped else 0.0
    return {
        "identity_aligned": 100.0 * same / hom if hom else 0.0,
        "af_query": hom / q_len if q_len else 0.0,
        "af_ref": r_hom / r_len if r_len else 0.0,
        "fani_like": fani,
        "fani_af": len(mapped) / len(frag_ids) if frag_ids else 0.0,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", choices=("uneven", "even"), default="uneven")
    ap.add_argument("--strains", type=int, default=8)
    ap.add_argument("--length", type=int, default=1500000)
    ap.add_argument("--ancestor", help="FASTA of a real ancestor (records joined); default random, GC 50 %%")
    ap.add_argument("--leg-min", type=float, help="default 0.003 uneven, 0.010 even")
    ap.add_argument("--leg-max", type=float, help="default 0.012 uneven, 0.030 even")
    ap.add_argument("--gamma-shape", type=float, default=1.5)
    ap.add_argument("--completeness", default="1,1,0.75,0.5,1,0.25,1,0.9")
    ap.add_argument("--contig-mean", type=int, default=40000,
                    help="drafts' mean contig length (exponential, at least 2 kb or half the mean)")
    ap.add_argument("--pieces", type=int, default=2, help="drafts of strains with no mutation of their own")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    if a.leg_min is None:
        a.leg_min = 0.003 if a.mode == "uneven" else 0.010
    if a.leg_max is None:
        a.leg_max = 0.012 if a.mode == "uneven" else 0.030
    anc = read_fasta_codes(a.ancestor) if a.ancestor else rng.integers(0, 4, a.length).astype(np.uint8)
    L = anc.size
    donor = substitute(rng, anc, rng.uniform(0.15, 0.25))
    comp = [float(x) for x in a.completeness.split(",")]
    os.makedirs(a.out, exist_ok=True)
    genomes = []  # (name, contigs, leg, completeness, source)
    strains = []
    for i in range(a.strains):
        leg = rng.uniform(a.leg_min, a.leg_max)
        seq, pos = make_strain(rng, anc, donor, leg, a.mode, a.gamma_shape)
        strains.append((seq, pos))
        c = comp[i % len(comp)]
        name = f"s{a.seed}_{a.mode}_g{i + 1:02d}"
        genomes.append((name, cut_draft(rng, seq, pos, c, a.contig_mean), leg, c, "-"))
    for j in range(a.pieces):
        src = j % a.strains
        c = (0.25, 0.5, 0.75)[j % 3]
        name = f"s{a.seed}_{a.mode}_p{j + 1:02d}"
        seq, pos = strains[src]
        genomes.append((name, cut_draft(rng, seq, pos, c, a.contig_mean), 0.0, c, genomes[src][0]))
    paths = []
    with open(os.path.join(a.out, "genomes.tsv"), "w") as f:
        f.write("name\tmode\tleg\tcompleteness\tsource\n")
        for name, contigs, leg, c, src in genomes:
            path = os.path.join(a.out, name + ".fa")
            write_fasta(path, name, contigs)
            paths.append(path)
            f.write(f"{name}\t{a.mode}\t{leg:.5f}\t{c}\t{src}\n")
    with open(os.path.join(a.out, "genomes.txt"), "w") as f:
        f.write("\n".join(os.path.abspath(p) for p in paths) + "\n")
    with open(os.path.join(a.out, "truth.tsv"), "w") as f:
        f.write("query\treference\tidentity_aligned\taf_query\taf_ref\tfani_like\tfani_af\n")
        for qi, (qn, qc, _, _, _) in enumerate(genomes):
            for ri, (rn, rc, _, _, _) in enumerate(genomes):
                if qi == ri:
                    continue
                t = pair_truth(qc, rc, L)
                f.write(f"{qn}\t{rn}\t{t['identity_aligned']:.4f}\t{t['af_query']:.4f}\t{t['af_ref']:.4f}\t"
                        f"{t['fani_like']:.4f}\t{t['fani_af']:.4f}\n")
    print(f"{a.out}: {len(genomes)} genomes, ancestor {L} bases", file=sys.stderr)


if __name__ == "__main__":
    main()
