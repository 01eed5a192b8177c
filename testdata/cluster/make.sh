#!/bin/sh
# make.sh: the golden files of tests/cli/test_cluster.sh, made once by the reference
# (tests/cli/cluster_ref.py) so that the expectation does not move with it. From this directory:
#   TSKETCH=../../build/src/tsketch sh make.sh
# genomes.fa.gz: planted.py's groups, 8 kb genomes, 30 substitutions (near pairs 0.0039, far ones
# 0.0081, sketched with --genome --scaled 1 --min-keys 0); quality.tsv (by hand): chainC, ranked
# first in its chain, splits it the other way from input order; tieR2 beats tieR1 by one point;
# moveR1 > moveM > moveR2 (--reassign moves moveM); dupB before dupA; lenA and lenB tie (lenB is
# longer); a name not among the inputs. greedy.tsv, greedy_reassign.tsv (--reassign) and single.tsv:
# -d 0.006 --header --quality quality.tsv.
set -eu
T=${TSKETCH:-tsketch}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 planted.py genomes 8000 30 "$tmp/genomes.fa"
gzip -n9 -c "$tmp/genomes.fa" >genomes.fa.gz
"$T" sketch -q --genome --scaled 1 --min-keys 0 genomes.fa.gz -o "$tmp/g.tsk"
"$T" info --json --records "$tmp/g.tsk" >"$tmp/g.json"
"$T" dist -q --header -d 0.006 "$tmp/g.tsk" >"$tmp/g.links"
"$T" dist -q --header "$tmp/g.tsk" >"$tmp/g.pairs"
for m in greedy single; do
    python3 ../../tests/cli/cluster_ref.py --info "$tmp/g.json" --links "$tmp/g.links" --pairs "$tmp/g.pairs" \
        --method $m --header --quality quality.tsv >$m.tsv
done
python3 ../../tests/cli/cluster_ref.py --info "$tmp/g.json" --links "$tmp/g.links" --pairs "$tmp/g.pairs" \
    --method greedy --reassign --header --quality quality.tsv >greedy_reassign.tsv
