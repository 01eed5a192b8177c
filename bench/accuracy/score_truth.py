#!/usr/bin/python3
"""Spearman of genome-pair distances against a truth table with ANI (percent), e.g. the
truth.tsv that genome_synth.py writes.

  score_truth.py TRUTH.tsv PAIRS.tsv     (both: name_a TAB name_b TAB value; names may be paths)
Prints: pairs scored TAB Spearman (distance against 100 - ANI)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acclib  # noqa: E402
from genome_truth import stem  # noqa: E402


def table(path, transform):
    out = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 3 or f[2] in ("distance", "ANI"):
            continue
        a, b = stem(f[0]), stem(f[1])
        if a != b:
            out[tuple(sorted((a, b)))] = transform(float(f[2]))
    return out


truth = table(sys.argv[1], lambda v: 100.0 - v)
dist = table(sys.argv[2], float)
keys = [k for k in truth if k in dist]
print(f"{len(keys)}\t{acclib.spearman([dist[k] for k in keys], [truth[k] for k in keys]):.4f}")
