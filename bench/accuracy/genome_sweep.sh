#!/usr/bin/env bash
# bench/accuracy/genome_sweep.sh BUILD: the grid behind `dist --genome`'s defaults (docs/accuracy.md,
# section 2, "Shared windows"): anchored rows with several windows, strides, t and D, scored on the
# TUNING sets only (Blochmannia/fastANI, tune_near/far/mid; run.sh's genome_cli section makes them).
# One line per setting: the options, Spearman per set, the size of the last set's .tsk.
set -eu
BUILD=${1:-build-acc}
T=$BUILD/src/tsketch
C=$BUILD/acc-cache
PY=/usr/bin/python3
HERE=bench/accuracy
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
row() {  # sketch options...
    line="$*"
    for set in tune_near tune_far tune_mid bloch; do
        case $set in
            bloch) "$T" sketch -q -p 2 --per-file "$@" /work/shared/data/bacteria/blochmannia/*.fna.gz -o "$TMP/s.tsk" ;;
            *) "$T" sketch -q -p 2 --per-file "$@" "$C/$set"/g*.fa -o "$TMP/s.tsk" ;;
        esac
        "$T" dist -q -p 2 --genome "$TMP/s.tsk" > "$TMP/d.tsv"
        case $set in
            bloch) r=$($PY $HERE/score_genomes.py bloch "$TMP/d.tsv" | awk -F'\t' '$1 == "fastANI" { print $3 }') ;;
            *) r=$($PY $HERE/score_truth.py "$C/$set/truth.tsv" "$TMP/d.tsv" | cut -f2) ;;
        esac
        line="$line	$set=$r"
    done
    echo "$line	bytes=$(stat -c %s "$TMP/s.tsk")"
}
A="--canonical --anchored"
for w in 12 14 16 18 20 24 32; do row $A -k 4 -s 16 --window $w --stride 10; done
for s in 5 8 12 20 50 100; do row $A -k 4 -s 16 --window 16 --stride $s; done
for kd in "4 4" "4 8" "4 32" "3 8" "6 16"; do set -- $kd; row $A -k $1 -s $2 --window 16 --stride 10; done
