#!/usr/bin/python3
"""Scores a per-pair distance table against exact edit distances (the paper's protocol).

  score_pairs.py EDIT.tsv DIST.tsv        (both: name_a TAB name_b TAB value)
Prints: spearman auroc0.1 auroc0.2 auroc0.5 (tab-separated)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acclib  # noqa: E402

a, b, ed = acclib.read_edit(sys.argv[1])
dist = {}
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    dist[(f[0], f[1])] = float(f[2])
d = np.array([dist[(x, y)] for x, y in zip(a, b)])
sc = acclib.protocol_scores(d, ed)
print("\t".join(f"{sc[k]:.4f}" for k in ("spearman", "auroc0.1", "auroc0.2", "auroc0.5")))
