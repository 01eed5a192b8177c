#!/usr/bin/python3
"""Independent reference of `tsketch dist --genome`, in float64 numpy, from the definition in
docs/distances.md, for the CLI golden files.

  genome_ref.py ROWS.tsv WINDOW            plain slide rows (rec:start-end): nearest rows, anchored
                                           chains (cpu/genome_dist.c, TSK_GENOME_ANCHORED)
  genome_ref.py --shared ROWS.tsv WINDOW   anchored rows (rec:windowN): 1 - f^(1/WINDOW), f the share
                                           of rows with a twin (cpu/genome_match.c)
(rows of `tsketch export --format tsv`). Plain rows whose window is shorter than WINDOW (a record's
first, growing windows) are left out, unless the record has no other row.
Prints "name_i TAB name_j TAB distance" for i < j in file order (as `tsketch dist` does)."""
import sys

import numpy as np


def read_rows(path, window):
    names, rows, full = [], {}, {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        rec, span = f[0].rsplit(":", 1)
        start, end = (1, window) if span.startswith("window") else (int(x) for x in span.split("-"))
        if rec not in rows:
            names.append(rec)
            rows[rec], full[rec] = [], []
        rows[rec].append(np.array(f[1:], dtype=np.float32))
        full[rec].append(end - start + 1 >= window)
    out = {}
    for n in names:
        keep = np.array(full[n]) if any(full[n]) else np.ones(len(full[n]), bool)
        out[n] = np.array(rows[n], dtype=np.float32)[keep]
    return names, out


def nearest(a, b):
    """per row of a: (distance, index) of its nearest row of b; lowest index on ties"""
    d2 = (((a[:, None, :] - b[None, :, :]).astype(np.float64)) ** 2).sum(2)
    j = d2.argmin(1)
    return np.sqrt(d2[np.arange(len(a)), j]), j


def direction(a, b):
    d, j = nearest(a, b)
    n = len(a)
    if n < 2 or len(b) < 2:
        anch = np.ones(n, bool)
    else:
        anch = np.zeros(n, bool)
        anch[1:] |= np.abs(j[1:] - j[:-1]) == 1
        anch[:-1] |= np.abs(j[:-1] - j[1:]) == 1
    return d.mean(), anch.mean(), d[anch].mean() if anch.any() else 0.0


def anchored(a, b):
    if len(a) == 0 and len(b) == 0:
        return 0.0
    if len(a) == 0 or len(b) == 0:
        return float("inf")
    ma, fa, aa = direction(a, b)
    mb, fb, ab = direction(b, a)
    share = 0.5 * (fa + fb)
    if fa > 0 and fb > 0:
        m = 0.5 * (aa + ab)
    elif fa > 0:
        m = aa
    elif fb > 0:
        m = ab
    else:
        m = 0.5 * (ma + mb)
    return m / max(share, 1.0 / (len(a) + len(b)))


EPS = 1e-4  # cpu/genome_match.h, TSK_GENOME_MATCH_EPS


def twins(a, b):
    """rows of a with a row of b within EPS times their norm"""
    a, b = a.astype(np.float64), b.astype(np.float64)
    d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(2)
    return int((d2 <= EPS * EPS * (a * a).sum(1)[:, None]).any(1).sum())


def shared(a, b, window):
    if len(a) == 0 and len(b) == 0:
        return 0.0
    if len(a) == 0 or len(b) == 0:
        return float("inf")
    f = 0.5 * (twins(a, b) / len(a) + twins(b, a) / len(b))
    return 1.0 - f ** (1.0 / window) if f > 0 else 1.0


args = sys.argv[1:]
mode = args.pop(0) if args[0] == "--shared" else "plain"
names, rows = read_rows(args[0], int(args[1]))
for i, x in enumerate(names):
    for y in names[i + 1:]:
        d = shared(rows[x], rows[y], int(args[1])) if mode == "--shared" else anchored(rows[x], rows[y])
        print(f"{x}\t{y}\t{d:.9g}")
