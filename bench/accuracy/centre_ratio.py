#!/usr/bin/python3
"""Genome-set distances with a per-row null: the nearest-row distance divided by the distance to
the nearest row that is NOT its neighbour (the "ratio test"). For each row i of A, d1 = distance
to its nearest row j1 of B, d2 = distance to the nearest row of B with |j - j1| > EXCL (EXCL =
W/S rows: windows that do not overlap j1's). A homologous match is much nearer than any other
window (d1/d2 << 1); a composition look-alike is not (d1/d2 ~ 1). The ratio does not depend on how
spread out B's rows are, which is what makes plain nearest distances fall as mutations rise.

  centre_ratio.py SET ROWS.tsv FASTA_OR_DIR [--variants raw,resid,runit] [--out PREFIX]

Same inputs as centre_genome.py. Summaries over the two directions: mean / median / q25 of d1/d2,
share of rows with d1/d2 above 0.5 / 0.7 / 0.9 (unmatched share), and cli-style (mean anchored
ratio / anchored share, anchoring as in cpu/genome_dist.c)."""
import argparse
import itertools
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import centre_expect as ce  # noqa: E402
import centre_genome as cg  # noqa: E402


def nearest_ratio(a, b, excl, block=2048):
    """For each row of a: d1, j1, d2 (nearest of b outside j1 +- excl)."""
    bb = (b * b).sum(1)
    aa = (a * a).sum(1)
    d1 = np.empty(len(a))
    d2 = np.empty(len(a))
    j1 = np.empty(len(a), dtype=np.int64)
    cols = np.arange(len(b))
    for lo in range(0, len(a), block):
        hi = min(lo + block, len(a))
        m = aa[lo:hi, None] + bb[None, :] - 2.0 * a[lo:hi] @ b.T
        j = m.argmin(1)
        r = np.arange(hi - lo)
        j1[lo:hi] = j
        d1[lo:hi] = m[r, j]
        m[np.abs(cols[None, :] - j[:, None]) <= excl] = np.inf
        d2[lo:hi] = m.min(1)
    d1, d2 = np.sqrt(np.maximum(d1, 0)), np.sqrt(np.maximum(d2, 0))
    ratio = np.where(np.isfinite(d2), d1 / np.maximum(d2, 1e-300), 1.0)
    return ratio, j1


def summaries(ra, ia, rb, ib):
    out = {}
    both = (ra, rb)
    out["mean"] = 0.5 * (ra.mean() + rb.mean())
    out["median"] = 0.5 * (np.median(ra) + np.median(rb))
    out["q25"] = 0.5 * (np.quantile(ra, 0.25) + np.quantile(rb, 0.25))
    for th in (0.5, 0.7, 0.9):
        out[f"above{th}"] = 0.5 * sum((r > th).mean() for r in both)
    ma, mb = cg.anchored_mask(ia, len(rb)), cg.anchored_mask(ib, len(ra))
    share = 0.5 * (ma.mean() + mb.mean())
    m = 0.5 * ((ra[ma].mean() if ma.any() else 1.0) + (rb[mb].mean() if mb.any() else 1.0))
    out["cli"] = m / max(share, 1.0 / (len(ra) + len(rb)))
    # unmatched share where an unanchored row counts as ratio 1
    out["amean1"] = 0.5 * (np.where(ma, ra, 1.0).mean() + np.where(mb, rb, 1.0).mean())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("rows")
    ap.add_argument("src")
    ap.add_argument("--variants", default="raw,resid,runit")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    t0 = time.time()
    names, spans, rows = cg.read_rows(args.rows)
    genomes = cg.genomes_of(args.set, args.src)
    counts, order = cg.window_counts(names, spans, genomes)
    E = ce.Expect(cg.T, cg.D).expect(counts, canonical=True)
    resid = rows - E
    skip = -(-cg.W // cg.S) - 1
    excl = cg.W // cg.S
    truth = cg.truth_of(args.set, args.src)
    pairs = [p for p in itertools.combinations([g for g, _ in order], 2) if tuple(sorted(p)) in truth]
    for v in args.variants.split(","):
        x = {"raw": rows, "resid": resid,
             "runit": resid / np.maximum(np.linalg.norm(resid, axis=1), 1e-30)[:, None]}[v]
        rv = cg.per_genome(x, order, skip)
        res = {}
        for a, b in pairs:
            ra, ia = nearest_ratio(rv[a], rv[b], excl)
            rb, ib = nearest_ratio(rv[b], rv[a], excl)
            for s, val in summaries(ra, ia, rb, ib).items():
                res.setdefault(s, {})[tuple(sorted((a, b)))] = val
        cg.report(args.set, f"ratio-{v}", res, truth, args.out)
    print(f"# {args.set}: {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
