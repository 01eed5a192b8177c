#!/usr/bin/python3
"""Converts `tsketch export --format tsv` rows into the PREFIX.f32 + PREFIX.idx pair that
genome_matrix and sweep tools read (slide rows record:start-end grouped by record).

  rows_tsv2f32.py ROWS.tsv PREFIX"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acclib  # noqa: E402

rows = acclib.read_tsv(sys.argv[1])
rows.rows.astype(np.float32).tofile(sys.argv[2] + ".f32")
with open(sys.argv[2] + ".idx", "w") as fo:
    for name, count in zip(rows.names, rows.count):
        fo.write(f"{name}\t{count}\t0\n")
