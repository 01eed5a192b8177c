#!/usr/bin/python3
"""Spearman of genome-pair distances against the truth tables of $TSK_DATA/truth (default ../shared/data).

  score_genomes.py bloch|sc2 PAIRS.tsv     (PAIRS: name_a TAB name_b TAB distance)
Prints one line per truth: name, pairs scored, Spearman (ANI is turned into 100 - ANI so that
every truth is a distance)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acclib  # noqa: E402
import genome_truth  # noqa: E402

if sys.argv[1] == "bloch":
    truths = {"fastANI": {k: 100 - v for k, v in genome_truth.blochmannia_fastani().items()},
              "ANIm(6 genomes)": {k: 100 - v for k, v in genome_truth.blochmannia_anim().items()},
              "ANIb(6 genomes)": {k: 100 - v for k, v in genome_truth.blochmannia_anim("ANIb").items()},
              "mash": genome_truth.blochmannia_mash()}
else:
    truths = {"SNPs": genome_truth.sarscov2_snps()}
dist = {}
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    dist[tuple(sorted((f[0], f[1])))] = float(f[2])
for name, truth in truths.items():
    keys = [k for k in truth if k in dist]
    rho = acclib.spearman([dist[k] for k in keys], [truth[k] for k in keys])
    print(f"{name}\t{len(keys)}\t{rho:.4f}")
