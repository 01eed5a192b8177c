#!/usr/bin/python3
"""Genome-set distances on composition-residual slide rows (research prototype).

  centre_genome.py SET ROWS.tsv FASTA_OR_DIR [--out PREFIX] [--verify N] [--methods ...]

SET: tune_near|tune_far|tune_mid|synth_near|synth_far (truth = DIR/truth.tsv, genomes = DIR/g*.fa
joined in order, as `sketch --per-file`), bloch (fastANI) or sc2 (SNPs) (genomes = records of FASTA).
ROWS.tsv: `tsketch export` of `tsketch sketch --canonical -k 3 -s 64 --window 1000 --stride 100`.
Each row's window composition is counted from the FASTA (the span in the row name, 1-based on
the cleaned sequence), E[row | counts] comes from centre_expect.py, residual = row - E.
Row variants: raw, raw/|raw| (unit), resid, resid/|resid| (runit). Summaries over the nearest row
of the other genome, both directions: cli (anchored mean / anchored share, as cpu/genome_dist.c),
mean, median, trim25 / trim50 (mean of the smallest 25 / 50 %), share (1 - anchored share),
amean (anchored mean alone). Prints set, variant, summary, pairs, Spearman."""
import argparse
import glob
import itertools
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acclib  # noqa: E402
import genome_truth  # noqa: E402
import centre_expect as ce  # noqa: E402

T, D, W, S = 3, 64, 1000, 100
IDX = np.full(256, -1, dtype=np.int64)
for i, ch in enumerate("ACGT"):
    IDX[ord(ch)] = i
    IDX[ord(ch.lower())] = i
IDX[ord("U")] = IDX[ord("u")] = 3


def clean_codes(seq):
    a = IDX[np.frombuffer(seq.encode(), dtype=np.uint8)]
    return a[a >= 0]


def genomes_of(set_name, src):
    """{genome name: cleaned codes}"""
    out = {}
    if os.path.isdir(src):
        for f in sorted(glob.glob(os.path.join(src, "g*.fa"))):
            recs = [clean_codes(s) for _, s in ce.orc.read_fasta(f)]
            out[genome_truth.stem(f)] = np.concatenate(recs)
    else:
        for name, s in ce.orc.read_fasta(src):
            out[name] = clean_codes(s)
    return out


def read_rows(path):
    names, spans, vals = [], [], []
    with open(path) as fh:
        for line in fh:
            f = line.rstrip("\n").split("\t")
            head, _, span = f[0].rpartition(":")
            a, b = span.split("-")
            names.append(head)
            spans.append((int(a) - 1, int(b)))
            vals.append(f[1:])
    return names, np.array(spans, dtype=np.int64), np.array(vals, dtype=np.float64)


def truth_of(set_name, src):
    if set_name == "bloch":
        return {k: 100 - v for k, v in genome_truth.blochmannia_fastani().items()}
    if set_name == "sc2":
        return genome_truth.sarscov2_snps()
    out = {}
    for line in open(os.path.join(src, "truth.tsv")):
        f = line.rstrip("\n").split("\t")
        if f[0] != f[1]:
            out[tuple(sorted((f[0], f[1])))] = 100 - float(f[2])
    return out


def nearest_both(a, b, block=2048):
    """Nearest row (L2) of b for each row of a and vice versa: (da, ia, db, ib); lowest index on ties."""
    bb = (b * b).sum(1)
    aa = (a * a).sum(1)
    da = np.empty(len(a))
    ia = np.empty(len(a), dtype=np.int64)
    db = np.full(len(b), np.inf)
    ib = np.zeros(len(b), dtype=np.int64)
    for lo in range(0, len(a), block):
        hi = min(lo + block, len(a))
        d2 = aa[lo:hi, None] + bb[None, :] - 2.0 * a[lo:hi] @ b.T
        j = d2.argmin(1)
        ia[lo:hi] = j
        da[lo:hi] = d2[np.arange(hi - lo), j]
        k = d2.argmin(0)
        v = d2[k, np.arange(len(b))]
        better = v < db
        db[better] = v[better]
        ib[better] = k[better] + lo
    return np.sqrt(np.maximum(da, 0)), ia, np.sqrt(np.maximum(db, 0)), ib


def anchored_mask(index, n_other):
    n = len(index)
    if n < 2 or n_other < 2:
        return np.ones(n, dtype=bool)
    m = np.zeros(n, dtype=bool)
    m[1:] |= np.abs(index[:-1] - index[1:]) == 1
    m[:-1] |= np.abs(index[1:] - index[:-1]) == 1
    return m


def summaries(da, ia, db, ib):
    na, nb = len(da), len(db)
    ma, mb = anchored_mask(ia, nb), anchored_mask(ib, na)
    fa, fb = ma.mean(), mb.mean()
    out = {}
    share = 0.5 * (fa + fb)
    if fa > 0 and fb > 0:
        m = 0.5 * (da[ma].mean() + db[mb].mean())
    elif fa > 0:
        m = da[ma].mean()
    elif fb > 0:
        m = db[mb].mean()
    else:
        m = 0.5 * (da.mean() + db.mean())
    out["cli"] = m / max(share, 1.0 / (na + nb))
    out["amean"] = m
    out["share"] = 1 - share
    out["mean"] = 0.5 * (da.mean() + db.mean())
    out["median"] = 0.5 * (np.median(da) + np.median(db))
    for q in (25, 50):
        out[f"trim{q}"] = 0.5 * sum(np.sort(d)[: max(1, len(d) * q // 100)].mean() for d in (da, db))
    return out


def window_counts(names, spans, genomes):
    """Base counts of every row's window, and each genome's rows (name, indices) in file order."""
    counts = np.zeros((len(names), 4))
    names_arr = np.array(names)
    order = []
    for g in dict.fromkeys(names):
        sel = np.nonzero(names_arr == g)[0]
        order.append((g, sel))
        c = np.vstack([np.zeros(4, dtype=np.int64), np.cumsum(np.eye(4, dtype=np.int64)[genomes[g]], 0)])
        counts[sel] = c[spans[sel, 1]] - c[spans[sel, 0]]
    return counts, order


def per_genome(x, order, skip):
    """Rows of x by genome, the first `skip` (partial windows at a genome's start) left out."""
    return {g: (x[sel[skip:]] if len(sel) > skip else x[sel]) for g, sel in order}


def report(set_name, label, res, truth, out):
    """Spearman of every summary in res ({summary: {pair: value}}) against the truth, one line
    each; with out, the pair tables as OUT.LABEL.SUMMARY.tsv."""
    for s, d in res.items():
        keys = list(d)
        rho = acclib.spearman([d[k] for k in keys], [truth[k] for k in keys])
        print(f"{set_name}\t{label}\t{s}\t{len(keys)}\t{rho:.4f}", flush=True)
        if out:
            with open(f"{out}.{label}.{s}.tsv", "w") as fo:
                for k in keys:
                    fo.write(f"{k[0]}\t{k[1]}\t{d[k]:.9g}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("rows")
    ap.add_argument("src")
    ap.add_argument("--out", default=None, help="write PREFIX.VARIANT.SUMMARY.tsv pair tables")
    ap.add_argument("--verify", type=int, default=3, help="rows recomputed with the numpy DP")
    ap.add_argument("--variants", default="raw,unit,resid,runit")
    ap.add_argument("--iid", action="store_true", help="E from i.i.d. letters instead of fixed counts")
    args = ap.parse_args()
    t0 = time.time()
    names, spans, rows = read_rows(args.rows)
    genomes = genomes_of(args.set, args.src)
    counts, order = window_counts(names, spans, genomes)
    ex = ce.Expect(T, D)
    E = ex.expect(counts, canonical=True, iid=args.iid)
    # verification: rows recomputed from the FASTA (numpy copy of the oracle DP, checked in
    # centre_expect.py check) against the exported float32 rows
    rng = np.random.default_rng(1)
    worst = 0.0
    for r in rng.choice(len(rows), args.verify, replace=False):
        a, b = spans[r]
        v = ce.sketch_can_np(genomes[names[r]][a:b], T, D, ex.h, ex.s)
        worst = max(worst, np.abs(v - rows[r]).max())
    resid = rows - E
    nr, ne, nres = (np.linalg.norm(x, axis=1) for x in (rows, E, resid))
    full = (spans[:, 1] - spans[:, 0]) == W
    print(f"# {args.set}: {len(rows)} rows, {len(order)} genomes; verify {args.verify} rows: max |diff| "
          f"{worst:.2e}; full windows: |row| {nr[full].mean():.4f}, |E| {ne[full].mean():.4f}, "
          f"|resid| {nres[full].mean():.4f}", file=sys.stderr)
    skip = -(-W // S) - 1
    variants = {}
    for v in args.variants.split(","):
        x = {"raw": rows, "unit": rows / np.maximum(nr, 1e-30)[:, None],
             "resid": resid, "runit": resid / np.maximum(nres, 1e-30)[:, None]}[v]
        variants[v] = per_genome(x, order, skip)
    truth = truth_of(args.set, args.src)
    gnames = [g for g, _ in order]
    pairs = [p for p in itertools.combinations(gnames, 2) if tuple(sorted(p)) in truth]
    for v, rv in variants.items():
        res = {}
        for a, b in pairs:
            da, ia, db, ib = nearest_both(rv[a], rv[b])
            for s, val in summaries(da, ia, db, ib).items():
                res.setdefault(s, {})[tuple(sorted((a, b)))] = val
        report(args.set, v, res, truth, args.out)
    print(f"# {args.set}: {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
