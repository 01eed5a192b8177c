#!/bin/sh
# Regenerates the golden files of tests/cpu from the float64 oracle of docs/spec.md:
#   sh testdata/golden/make.sh
# Inputs (mixed.fa, protein.fa) are written by gen_inputs.py with a fixed seed; cases.tsv lists
# every expected-output file with the parameters that made it. The reference vectors of the
# Tensor Sketch authors (acgt.fa, tables_t3_D16_seed99.txt, reference_*.tsv) lie here, copied
# unchanged from the shared directory's spec/vectors; the oracle is testdata/oracle's.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ORACLE="$HERE/../oracle/tsketch_oracle.py"
PY=${PYTHON:-python3}
cd "$HERE"
$PY gen_inputs.py
printf '# file\tfasta\tt\tdim\tseed\talphabet\tcanonical\twindow\tstride\n' > cases.tsv
# case NAME FASTA T DIM SEED ALPHABET CANONICAL WINDOW STRIDE
case_() {
    out=$1; fa=$2; t=$3; dim=$4; seed=$5; alpha=$6; canon=$7; w=$8; s=$9
    set -- sketch "$fa" --t "$t" --dim "$dim" --seed "$seed" --alphabet "$alpha"
    [ "$canon" = 1 ] && set -- "$@" --canonical
    [ "$w" != 0 ] && set -- "$@" --window "$w" --stride "$s"
    $PY "$ORACLE" "$@" > "$out"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$out" "$fa" "$t" "$dim" "$seed" "$alpha" "$canon" "$w" "$s" >> cases.tsv
}
case_ mixed_t4_D96.tsv            mixed.fa   4  96    24301 dna     0 0    0
case_ mixed_t1_D7.tsv             mixed.fa   1  7     24301 dna     0 0    0
case_ mixed_t2_D1.tsv             mixed.fa   2  1     24301 dna     0 0    0
case_ mixed_t5_D33_seed7.tsv      mixed.fa   5  33    7     dna     0 0    0
case_ mixed_t16_D64.tsv           mixed.fa   16 64    24301 dna     0 0    0
case_ mixed_t3_D16_canon.tsv      mixed.fa   3  16    24301 dna     1 0    0
case_ mixed_t4_D24_w50_s10.tsv    mixed.fa   4  24    24301 dna     0 50   10
case_ mixed_t3_D16_w7_s7.tsv      mixed.fa   3  16    24301 dna     0 7    7
case_ mixed_t3_D16_w5000_s300.tsv mixed.fa   3  16    24301 dna     0 5000 300
case_ mixed_t4_D20_w60_s1_canon.tsv mixed.fa 4  20    24301 dna     1 60   1
case_ protein_t3_D32.tsv          protein.fa 3  32    24301 protein 0 0    0
case_ protein_t4_D50_w40_s5.tsv   protein.fa 4  50    24301 protein 0 40   5
