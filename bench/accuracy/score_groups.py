#!/usr/bin/python3
"""Separation of genome groups by a distance table, for sets with genera and species
(genome_clusters.py's groups.tsv).

  score_groups.py GROUPS.tsv PAIRS.tsv     (GROUPS: genome TAB genus TAB species;
                                            PAIRS: name_a TAB name_b TAB distance ...)
Prints: max distance within a species, min between species of one genus, min and median between
genera, and 'separated' = 1 when every pair of different genera is farther than every pair within
a species (else 0)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genome_truth import stem  # noqa: E402

groups = {}
for line in open(sys.argv[1]):
    f = line.split()
    groups[f[0]] = (f[1], f[2])
within, between_species, between_genera = [], [], []
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    a, b = stem(f[0]), stem(f[1])
    if a == b or a not in groups or b not in groups or f[2] == "distance":
        continue
    d = float(f[2])
    (ga, sa), (gb, sb) = groups[a], groups[b]
    if ga != gb:
        between_genera.append(d)
    elif sa != sb:
        between_species.append(d)
    else:
        within.append(d)
between_genera.sort()
sep = int(bool(within) and bool(between_genera) and max(within) < between_genera[0])
print(f"{max(within):.4f}\t{min(between_species):.4f}\t{between_genera[0]:.4f}\t"
      f"{between_genera[len(between_genera) // 2]:.4f}\t{sep}")
