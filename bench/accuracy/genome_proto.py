#!/usr/bin/python3
"""Exploration of genome-level distances over slide rows (numpy prototype of cpu/genome_dist.c).

  genome_proto.py bloch|sc2 ROWS_PREFIX D [--tsv]

For every pair of records it finds, for each row of one record, the nearest row of the other (L2,
and L2 of unit-normalised rows), both directions, and scores several ways of summarising those
nearest distances by Spearman correlation with the truth table of the set."""
import argparse
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acclib  # noqa: E402
import genome_truth  # noqa: E402


def nearest(a, b):
    """For each row of a, the L2 distance to its nearest row of b."""
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T
    return np.sqrt(np.maximum(d2.min(1), 0.0))


def nearest_segment(a, b):
    """For each row of a, the L2 distance to the nearest segment between consecutive rows of b:
    a window that falls between two strides sits close to the chord of its neighbours."""
    if len(b) < 2:
        return nearest(a, b)
    g = a @ b.T                                  # a_i . b_j
    bb = (b * b).sum(1)
    aa = (a * a).sum(1)[:, None]
    e = b[1:] - b[:-1]                           # chord j: b_j + u e_j, u in [0, 1]
    ee = np.maximum((e * e).sum(1), 1e-300)
    ae = g[:, 1:] - g[:, :-1]                    # a_i . e_j
    be = (b[:-1] * e).sum(1)                     # b_j . e_j
    u = np.clip((ae - be[None, :]) / ee[None, :], 0.0, 1.0)
    d2 = aa + bb[None, :-1] - 2 * g[:, :-1] - 2 * u * (ae - be[None, :]) + u * u * ee[None, :]
    return np.sqrt(np.maximum(d2.min(1), 0.0))


def summaries(da, db, scale, fracs=(0.005, 0.01, 0.02)):
    """Ways to turn the two directions' nearest-row distances into one number."""
    out = {}
    both = [da, db]
    out["mean"] = np.mean([d.mean() for d in both])
    out["median"] = np.mean([np.median(d) for d in both])
    for q in (0.25, 0.5, 0.75):
        out[f"trim{q}"] = np.mean([np.sort(d)[: max(1, int(q * len(d)))].mean() for d in both])
    for f in fracs:
        out[f"unmatched<{f}"] = np.mean([(d > f * scale).mean() for d in both])
    out["max_dir_mean"] = max(d.mean() for d in both)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set", choices=["bloch", "sc2"])
    ap.add_argument("prefix")
    ap.add_argument("dim", type=int)
    ap.add_argument("--tsv", action="store_true", help="prefix is a tsketch export TSV")
    args = ap.parse_args()
    rows = acclib.read_tsv(args.prefix) if args.tsv else acclib.read_tss(args.prefix, args.dim)
    if args.set == "bloch":
        truths = {"fastANI": genome_truth.blochmannia_fastani(), "ANIm": genome_truth.blochmannia_anim(),
                  "mash": genome_truth.blochmannia_mash()}
        sign = {"fastANI": -1, "ANIm": -1, "mash": 1}
    else:
        truths = {"snp": genome_truth.sarscov2_snps()}
        sign = {"snp": 1}
    names = rows.names
    allr = rows.rows.astype(np.float64)
    scale = np.median(np.linalg.norm(allr, axis=1))
    unit = {n: rows.of(n).astype(np.float64) / np.maximum(np.linalg.norm(rows.of(n), axis=1), 1e-30)[:, None]
            for n in names}
    raw = {n: rows.of(n).astype(np.float64) for n in names}
    # composition dominates every row (the mean over all tuples); centring on the genome's own mean
    # row leaves the part that locates a window within its genome
    cent = {n: raw[n] - raw[n].mean(0) for n in names}
    cunit = {n: cent[n] / np.maximum(np.linalg.norm(cent[n], axis=1), 1e-30)[:, None] for n in names}
    cscale = np.median(np.concatenate([np.linalg.norm(cent[n], axis=1) for n in names]))
    results = {}
    for a, b in itertools.combinations(names, 2):
        key = tuple(sorted((a, b)))
        res = {}
        for kind, src, sc, f in (("l2", raw, scale, nearest), ("unit", unit, 1.0, nearest),
                                 ("seg", raw, scale, nearest_segment), ("cent", cent, cscale, nearest),
                                 ("cunit", cunit, 1.0, nearest)):
            s = summaries(f(src[a], src[b]), f(src[b], src[a]), sc, (0.005, 0.01, 0.02) if kind in ('l2', 'seg') else (0.25, 0.5, 0.75))
            res.update({f"{kind}:{k}": v for k, v in s.items()})
        res["positional_l2"] = acclib.pair_distance(rows.of(a), rows.of(b), "l2")
        results[key] = res
    methods = list(next(iter(results.values())).keys())
    print("method", *truths.keys(), sep="\t")
    for m in methods:
        line = [m]
        for tname, truth in truths.items():
            keys = [k for k in truth if k in results]
            x = [results[k][m] for k in keys]
            y = [sign[tname] * truth[k] for k in keys]
            line.append(f"{acclib.spearman(x, y):.4f}")
        print(*line, sep="\t")


if __name__ == "__main__":
    main()
