#!/usr/bin/env python3
"""make_bloch_set.py: the 9 shared Blochmannia genomes as an eval.py set (#38): genomes.txt, genomes.tsv
(all complete), an empty truth.tsv and fastani.tsv from $TSK_DATA/truth/blochmannia_fastani.tsv.

  make_bloch_set.py OUT_DIR      (TSK_DATA, else TSK_SHARED/data, else ../shared/data beside the repo)
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
data = os.environ.get("TSK_DATA") or os.path.join(
    os.environ.get("TSK_SHARED") or os.path.join(here, "..", "..", "..", "shared"), "data")
truth = os.path.join(data, "truth", "blochmannia_fastani.tsv")
if not os.path.exists(truth):
    sys.exit(f"make_bloch_set.py: {truth} missing: set TSK_SHARED or TSK_DATA")
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rows = [l.rstrip("\n").split("\t") for l in open(truth)][1:]
paths = sorted({os.path.join(data, r[0]) for r in rows})
name = lambda p: os.path.basename(p).replace(".fna.gz", "")
with open(os.path.join(out, "genomes.txt"), "w") as f:
    f.write("\n".join(paths) + "\n")
with open(os.path.join(out, "genomes.tsv"), "w") as f:
    f.write("name\tmode\tleg\tcompleteness\tsource\n")
    f.writelines(f"{name(p)}\tblochmannia\t0\t1.0\t-\n" for p in paths)
with open(os.path.join(out, "truth.tsv"), "w") as f:
    f.write("query\treference\tidentity_aligned\taf_query\taf_ref\tfani_like\tfani_af\n")
with open(os.path.join(out, "fastani.tsv"), "w") as f:
    f.writelines(f"{r[0]}\t{r[1]}\t{r[2]}\t{r[3]}\t{r[4]}\n" for r in rows if r[0] != r[1])
