#!/bin/sh
# Composition-residual rows and the ratio test for `dist --genome` (research prototype; numbers in
# bench/accuracy/centre_results.md). Needs the cached sets of run.sh (section genome_cli).
#   bench/accuracy/centre_run.sh [BUILD] [OUTDIR]        (default build-genome, /tmp/centre)
# Tuning sets first (tune_near tune_far tune_mid bloch), then held-out (synth_near synth_far sc2).
set -e
B=${1:-build-genome}
O=${2:-/tmp/centre}
T=$B/src/tsketch
C=$B/acc-cache
PY=/usr/bin/python3
H=bench/accuracy
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$O"
$PY $H/centre_expect.py check
for set in tune_near tune_far tune_mid synth_near synth_far bloch sc2; do
    case $set in
        bloch|sc2) src=$C/$set.fa; $T sketch -q -p 2 --canonical -k 3 -s 64 --window 1000 --stride 100 "$src" -o "$O/$set.tsk" ;;
        *) src=$C/$set; $T sketch -q -p 2 --per-file --canonical -k 3 -s 64 --window 1000 --stride 100 "$src"/g*.fa -o "$O/$set.tsk" ;;
    esac
    $T export "$O/$set.tsk" -o "$O/$set.tsv"
    $PY $H/centre_genome.py $set "$O/$set.tsv" "$src" --verify 5 --out "$O/$set"
    $PY $H/centre_ratio.py $set "$O/$set.tsv" "$src" --out "$O/$set"
done
