#!/bin/sh
# The paper's protocol of docs/accuracy.md ("Sequence pairs: the paper's protocol"). From the
# repository root:
#   bench/accuracy/run.sh [BUILD_DIR]          (default build-acc; needs BUILD_DIR/src/tsketch)
# Sections (ACC_SECTIONS, default "protocol mash"). Genome sketches: genome_sketch_compare.sh.
# Caches generated pairs and tools in BUILD_DIR/acc-cache; exact edit distances are cached in
# testdata/accuracy/edit_seedN.tsv (recomputed with testdata/accuracy/edit_distance.c when missing).
# Results go to bench/accuracy/results/*.tsv. Uses Debian's /usr/bin/python3 (numpy).
set -eu
BUILD=${1:-build-acc}
PY=/usr/bin/python3
HERE=bench/accuracy
RES=$HERE/results
C=$BUILD/acc-cache
T=$BUILD/src/tsketch
SECTIONS=${ACC_SECTIONS:-protocol mash}
TUNE_SEEDS="1 2"
HELD_SEEDS="3 4 5 6"
mkdir -p "$C" "$RES"
CC=${CC:-cc}

tool() {  # build a harness tool once
    [ -x "$C/$1" ] || { shift; "$CC" "$@"; }
}
tool edit_distance -O3 -o "$C/edit_distance" testdata/accuracy/edit_distance.c

for s in $TUNE_SEEDS $HELD_SEEDS; do
    [ -s "$C/pairs_s$s.fa" ] || $PY testdata/accuracy/gen_pairs.py --seed "$s" > "$C/pairs_s$s.fa"
    if [ ! -s "testdata/accuracy/edit_seed$s.tsv" ]; then
        "$C/edit_distance" "$C/pairs_s$s.fa" > "$C/edit_s$s.tmp"
        mv "$C/edit_s$s.tmp" "testdata/accuracy/edit_seed$s.tsv"
    fi
    [ -s "$C/a_s$s.fa" ] || awk -v a="$C/a_s$s.fa" -v b="$C/b_s$s.fa" \
        '/^>/{f = ($0 ~ /_a$/) ? a : b} {print > f}' "$C/pairs_s$s.fa"
done

# The paper's protocol with tsketch itself: sketch the a and b sides, `tsketch dist` of every a
# against every b, keep the matching pairs, score against edit distance.
protocol_row() {  # label seed metric sketch-options...
    label=$1 seed=$2 metric=$3; shift 3
    $T sketch -q "$@" "$C/a_s$seed.fa" -o "$C/pa.tsk"
    $T sketch -q "$@" "$C/b_s$seed.fa" -o "$C/pb.tsk"
    $T dist -q --metric "$metric" "$C/pa.tsk" "$C/pb.tsk" |
        awk -F'\t' '{pa = $1; sub(/_a$/, "", pa); pb = $2; sub(/_b$/, "", pb); if (pa == pb) print}' > "$C/pd.tsv"
    echo "$label	$seed	$metric	$($PY $HERE/score_pairs.py "testdata/accuracy/edit_seed$seed.tsv" "$C/pd.tsv")"
}

if echo "$SECTIONS" | grep -qw protocol; then
    out=$RES/protocol.tsv
    echo "config	seed	metric	spearman	auroc0.1	auroc0.2	auroc0.5" > "$out.tmp"
    for s in $TUNE_SEEDS $HELD_SEEDS; do
        for m in l2 cosine; do
            protocol_row "slide t=2 D=32 w=500 s=50 (new --slide)" "$s" $m -k 2 -s 32 --window 500 --stride 50
            protocol_row "slide t=3 D=64 w=1000 s=100 (old --slide)" "$s" $m -k 3 -s 64 --window 1000 --stride 100
            protocol_row "slide t=3 D=8 w=1000 s=100 (authors' anchor)" "$s" $m -k 3 -s 8 --window 1000 --stride 100
            protocol_row "whole t=4 D=96 (spec default)" "$s" $m -k 4 -s 96
            protocol_row "whole t=6 D=256" "$s" $m -k 6 -s 256
            protocol_row "whole t=6 D=512" "$s" $m -k 6 -s 512
        done
    done >> "$out.tmp"
    mv "$out.tmp" "$out"
fi

if echo "$SECTIONS" | grep -qw mash; then
    out=$RES/mash.tsv
    echo "config	seed	metric	spearman	auroc0.1	auroc0.2	auroc0.5" > "$out.tmp"
    # k and sketch size were tuned on seeds 1-2 (k 8..21, s 1000 and 10000: docs/accuracy.md)
    for s in $HELD_SEEDS; do
        for ks in "10 10000" "12 1000"; do
            set -- $ks
            $HERE/mash_pairs.sh "$C/pairs_s$s.fa" "$1" "$2" "$C/mash.tsv"
            echo "mash k=$1 s=$2	$s	mash	$($PY $HERE/score_pairs.py "testdata/accuracy/edit_seed$s.tsv" "$C/mash.tsv")"
        done
    done >> "$out.tmp"
    mv "$out.tmp" "$out"
fi

echo "results in $RES/"
