#!/bin/sh
# Regenerates the golden files of tests/dist from the float64 oracle (run from this directory):
#   sh make.sh
# The oracle is testdata/oracle's, the genomes testdata/genomes' (both copied from the project's
# shared directory).
# real.fa: human + orangutan mitochondria, phiX174 and 4 SARS-CoV-2 genomes (near-identical:
# the accuracy case); synth.fa: short random DNA with N runs and odd lengths (slide sketches).
set -e
TESTDATA=$(cd "$(dirname "$0")/.." && pwd)
ORACLE=$TESTDATA/oracle/tsketch_oracle.py
G=$TESTDATA/genomes
PY=${PY:-python3}
{ cat "$G"/MT-human.fa "$G"/MT-orang.fa "$G"/NC_001422_phiX174.fa
  awk '/^>/{n++} n<=4' "$G"/sarscov2_6.fa; } > real.fa
/usr/bin/python3 - <<'PY'
import random
random.seed(7)
with open("synth.fa", "w") as f:
    for i, n in enumerate([3, 40, 57, 120, 121, 200, 333, 64, 95]):
        s = "".join(random.choice("ACGT") for _ in range(n))
        if n > 100:  # an N run and lower case: cleaned away before sketching
            s = s[:50] + "NNNNN" + s[50:].lower()
        f.write(f">s{i} len={n}\n{s}\n")
PY
$PY $ORACLE dist real.fa > real.l2.tsv
$PY $ORACLE dist real.fa --metric cosine > real.cosine.tsv
$PY $ORACLE sketch real.fa > real.sketch.tsv
$PY $ORACLE dist synth.fa --t 3 --dim 16 --window 40 --stride 20 > synth.slide.l2.tsv
$PY $ORACLE dist synth.fa --t 3 --dim 16 --window 40 --stride 20 --metric cosine > synth.slide.cosine.tsv
$PY $ORACLE sketch synth.fa --t 3 --dim 16 --window 40 --stride 20 > synth.slide.sketch.tsv
$PY $ORACLE dist synth.fa --t 3 --dim 24 --canonical > synth.canon.l2.tsv
