#!/bin/sh
# Regenerates the golden files of tests/cli/test_genome_sets.sh (genome sketches: from the integer
# reference genome_keys_ref.py alone, no tsketch run). The genomes g0*.fa came from
#   bench/accuracy/genome_synth.py testdata/genomes/MT-human.fa testdata/genome --seed 7 \
#       --min-rate 0 --max-rate 0.08 --genomes 4 --length 6000
# (truth.tsv: their ANI). Run from the repository root: testdata/genome/make.sh
set -eu
D=testdata/genome
# Keys and distances with explicit parameters (not the defaults). The size floor is active:
# --min-keys 200 with --scaled 40 (floor length 5/4 * 200 * 40 = 10,000 bases) gives each ~6 kb
# genome anchors at stride 23-24 and 200 keys, above the scaled threshold; per record (--min-keys
# 150, --scaled 30) the short contigs would take stride 1-5: the floor stride raises them to 8
# (the default), and records.f3.* to 3 (strides 1-2 raised, 3-5 kept). Distances compare each pair
# below the smaller of its two thresholds (shared/total columns).
R="/usr/bin/python3 $D/genome_keys_ref.py"
S="-k 4 -s 16 --window 20 --anchor-k 12 --scaled 40 --min-keys 200 --per-file"
$R $S keys $D/g00.fa $D/g01.fa $D/g02.fa $D/g03.fa >$D/sets.keys.tsv
$R $S dist $D/g00.fa $D/g01.fa $D/g02.fa $D/g03.fa >$D/sets.dist.tsv
$R $S containment $D/g00.fa $D/g01.fa $D/g02.fa $D/g03.fa >$D/sets.containment.tsv
S="-k 3 -s 12 --seed 7 --window 24 --anchor-k 8 --scaled 30 --min-keys 150"
$R $S keys $D/g00.fa $D/g01.fa >$D/records.keys.tsv
$R $S dist $D/g00.fa $D/g01.fa >$D/records.dist.tsv
$R $S --floor-stride 3 keys $D/g00.fa $D/g01.fa >$D/records.f3.keys.tsv
$R $S --floor-stride 3 dist $D/g00.fa $D/g01.fa >$D/records.f3.dist.tsv
