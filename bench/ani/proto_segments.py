#!/usr/bin/env python3
"""proto_segments.py: a prototype of an ANI-over-the-aligned-part + AF estimator (#38). A prototype:
its conclusion goes to bench/ani/FINDINGS.md and docs, this file is deleted later.

Per genome it keeps the anchors tsketch already hashes (canonical 16-mers, 64-bit SplitMix64 of the
2-bit code XOR a seed), sampled FracMinHash-style at 1/RATE (hash < 2^64 / RATE), in genome order,
with the 3 kb segment of its contig each falls in (fastANI's fragments: consecutive 3 kb pieces of
each contig, the tail dropped). What a .tsk would hold: the 32-bit anchor hashes in genome order
and one count per segment (4 bytes an anchor + 2 bytes a segment).

A pair (Q, R): for each segment g of Q, n_g = Q's anchors in it, a_g = those whose hash R has. In
aligned sequence at identity I an anchor survives with I^k (k = 16), so a_g ~ Binomial(n_g, h_g I_g^k)
(h_g the homologous share of the segment). Estimators of ANI (%) and AF:

  seg     per-segment: I_g = (a_g / n_g)^(1/k); a segment maps when a_g >= 2 and I_g >= 0.80;
          ANI = mean of I_g over mapped segments, AF_Q = mapped / all segments.
  npmle   the identity distribution over segments, G, on a grid (0.70..1.00, step 0.0025, plus an
          atom "unrelated" whose anchors match by chance at eps = 2 L_R / 4^k), fitted by EM (the
          nonparametric MLE of the binomial mixture); ANI = E_G[I | I >= 0.80],
          AF_Q = G(I >= 0.80). Pooling a_g / n_g over segments before inverting (Jensen) is what
          overstates today's ANI under uneven divergence; the mixture removes that bias and the
          per-segment noise both.
  Both directions: ANI the mean of both (as fastANI's is taken), AF that of the genome with fewer
  segments; the files *_sm.tsv take ANI from the smaller genome's direction alone (the larger one's
  segments at the edges of the smaller's contigs are partly homologous and read lower). Unrelated (AF < 0.02, or no mapped segment): ANI 0, AF 0.

  proto_segments.py [--rates 100,200,500] SET_DIR...   -> SET_DIR/est_<method>_r<RATE>.tsv
"""
import argparse
import gzip
import os
import sys

import numpy as np

K = 16
SEG = 3000
SEED = np.uint64(0x5EED)
M1, M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


LUT = np.full(256, 255, dtype=np.uint8)
for i, c in enumerate(b"ACGT"):
    LUT[c] = i
    LUT[c + 32] = i


def contigs_of(path):
    op = gzip.open if path.endswith(".gz") else open
    seqs, cur = [], []
    with op(path, "rb") as f:
        for line in f:
            if line.startswith(b">"):
                if cur:
                    seqs.append(b"".join(cur))
                cur = []
            else:
                cur.append(line.strip())
    if cur:
        seqs.append(b"".join(cur))
    return [LUT[np.frombuffer(s, dtype=np.uint8)] for s in seqs]


def anchor_hashes(codes):
    """Hash of the canonical k-mer at each start (max uint64 where it holds a non-ACGT)."""
    n = codes.size - K + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64)
    c = codes.astype(np.uint64)
    bad = codes == 255
    c[bad] = 0
    fwd = np.zeros(n, dtype=np.uint64)
    rev = np.zeros(n, dtype=np.uint64)
    for j in range(K):
        fwd = (fwd << np.uint64(2)) | c[j:j + n]
        rev = rev | ((np.uint64(3) - c[j:j + n]) << np.uint64(2 * j))
    h = mix64(np.minimum(fwd, rev) ^ SEED)
    badk = np.convolve(bad.astype(np.int32), np.ones(K, dtype=np.int32), "valid") > 0
    h[badk] = np.uint64(0xFFFFFFFFFFFFFFFF)
    return h


def genome_record(path, rate):
    """(hashes of sampled anchors, their segment ids, n_segments, length)."""
    limit = np.uint64(0xFFFFFFFFFFFFFFFF // rate)
    hs, segs = [], []
    nseg = 0
    length = 0
    for codes in contigs_of(path):
        length += codes.size
        h = anchor_hashes(codes)
        pos = np.nonzero(h <= limit)[0]
        full = codes.size // SEG
        keep = pos + K <= full * SEG
        pos = pos[keep]
        hs.append(h[pos] >> np.uint64(32))  # 32-bit anchor hashes, as stored
        segs.append(pos // SEG + nseg)
        nseg += full
    return np.concatenate(hs), np.concatenate(segs), nseg, length


GRID = np.concatenate([[0.0], np.arange(0.70, 1.00001, 0.0025)])


def npmle(n, a, eps, iters=400):
    """Mixture weights over GRID for a_g ~ Binom(n_g, p(I)), p(I) = I^K (eps for the atom at 0)."""
    from math import lgamma
    p = GRID ** K
    p[0] = eps
    p = np.clip(p, 1e-12, 1 - 1e-12)
    # Group equal (n, a) pairs.
    pairs, counts = np.unique(np.stack([n, a], 1), axis=0, return_counts=True)
    nn, aa = pairs[:, 0][:, None].astype(float), pairs[:, 1][:, None].astype(float)
    loglik = aa * np.log(p)[None, :] + (nn - aa) * np.log1p(-p)[None, :]
    lik = np.exp(loglik - loglik.max(1, keepdims=True))
    w = np.full(GRID.size, 1.0 / GRID.size)
    for _ in range(iters):
        post = lik * w[None, :]
        post /= post.sum(1, keepdims=True)
        w = (post * counts[:, None]).sum(0) / counts.sum()
    return w


def segment_hits(q, r):
    """(n_g, a_g) of Q's segments that hold an anchor, Q's segment count, eps of the pair."""
    qh, qs, qn, _ = q
    hit = np.isin(qh, r[0])
    n = np.bincount(qs, minlength=qn)
    a = np.bincount(qs, weights=hit, minlength=qn).astype(np.int64)
    use = n > 0
    return n[use], a[use], qn, min(0.5, 2.0 * r[3] / 4.0 ** K)


EM_ITERS = 400


def direction(hits, method, cutoffs, w=None):
    """[(ANI in [0, 1], AF) of Q's segments against R, or (0, 0)] per cutoff: segments whose identity
    is below the cutoff do not map. w: the NPMLE weights when already fitted."""
    n, a, qn, eps = hits
    out = []
    if qn == 0 or n.size == 0:
        return [(0.0, 0.0)] * len(cutoffs)
    if method == "seg":
        ident = (a / n) ** (1.0 / K)
        for cut in cutoffs:
            mapped = (a >= 2) & (ident >= cut)
            out.append((float(ident[mapped].mean()), mapped.sum() / qn) if mapped.any() else (0.0, 0.0))
        return out
    if w is None:
        w = npmle(n, a, eps, EM_ITERS)
    for cut in cutoffs:
        hi = GRID >= cut - 1e-9
        af = float(w[hi].sum()) * n.size / qn
        out.append((float((w[hi] * GRID[hi]).sum() / w[hi].sum()), af) if af >= 0.02 else (0.0, 0.0))
    return out


def main():
    global SEG, EM_ITERS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rates", default="100,200,500")
    ap.add_argument("--methods", default="seg,npmle")
    ap.add_argument("--em-iters", type=int, default=400, help="EM steps of the mixture (another than 400 "
                    "adds _e<N> to the output names)")
    ap.add_argument("--segment", type=int, default=3000, help="segment length (default 3000, fastANI's "
                    "fragment); another names the output est_<method>_r<RATE>_s<LEN>[_c..].tsv")
    ap.add_argument("--cutoffs", default="0.80", help="identity below which a segment does not map; "
                    "a cutoff other than 0.80 names the output est_<method>_r<RATE>_c<100 cutoff>.tsv")
    ap.add_argument("sets", nargs="+")
    a = ap.parse_args()
    for d in a.sets:
        paths = open(os.path.join(d, "genomes.txt")).read().split()
        names = [os.path.basename(p).replace(".gz", "").replace(".fna", "").replace(".fa", "") for p in paths]
        cutoffs = [float(c) for c in a.cutoffs.split(",")]

        SEG = a.segment
        EM_ITERS = a.em_iters
        stag = ("" if a.segment == 3000 else f"_s{a.segment}") + ("" if a.em_iters == 400 else f"_e{a.em_iters}")
        tags = [stag + ("" if abs(c - 0.80) < 1e-9 else f"_c{round(c * 100)}") for c in cutoffs]
        for rate in (int(x) for x in a.rates.split(",")):
            recs = [genome_record(p, rate) for p in paths]
            pairs = [(i, j) for i in range(len(paths)) for j in range(i + 1, len(paths))]
            hits = {(i, j): segment_hits(recs[i], recs[j]) for i in range(len(paths)) for j in range(len(paths))
                    if i != j}
            for method in a.methods.split(","):
                res = {k: direction(h, method, cutoffs) for k, h in hits.items()}
                for c, tag in enumerate(tags):
                    for how in ("mean", "small"):
                        suffix = "" if how == "mean" else "_sm"
                        with open(os.path.join(d, f"est_{method}_r{rate}{tag}{suffix}.tsv"), "w") as f:
                            f.write("query\treference\tani\taf\n")
                            for i, j in pairs:
                                ai, fi = res[(i, j)][c]
                                aj, fj = res[(j, i)][c]
                                small_i = recs[i][2] <= recs[j][2]
                                if fi == 0 or fj == 0:
                                    ani, af = 0.0, 0.0
                                elif how == "mean":
                                    ani = 100.0 * (ai + aj) / 2
                                    af = fi if small_i else fj
                                else:
                                    ani = 100.0 * (ai if small_i else aj)
                                    af = fi if small_i else fj
                                f.write(f"{names[i]}\t{names[j]}\t{ani:.4f}\t{af:.4f}\n")
        print(f"{d}: done", file=sys.stderr)


if __name__ == "__main__":
    main()
