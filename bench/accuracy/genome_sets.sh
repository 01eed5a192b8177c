# bench/accuracy/genome_sets.sh: sourced by genome_sketch_sweep.sh and genome_sketch_compare.sh
# (BUILD set before): the genome sets of docs/accuracy.md section 2, made in BUILD/acc-cache when
# missing, their files (inputs SET) and their scores (score SET PAIRS.tsv).
set -eu
T=$BUILD/src/tsketch
C=$BUILD/acc-cache
PY=/usr/bin/python3
HERE=bench/accuracy
RES=$HERE/results
. "$(dirname "$0")/../shared.sh" # $0: the script that sources this one, in bench/accuracy/
need_shared "$DATA/bacteria/blochmannia"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$C" "$RES"
ANC="$DATA/bacteria/blochmannia/GCF_000011745.1_ASM1174v1_genomic.fna.gz"  # held-out sets' ancestor
ANC2="$DATA/bacteria/blochmannia/GCF_000043285.1_ASM4328v1_genomic.fna.gz" # tuning sets' ancestor
synth() {  # set ancestor seed min max indel-share
    [ -s "$C/$1/truth.tsv" ] || $PY $HERE/genome_synth.py "$2" "$C/$1" --seed "$3" --min-rate "$4" --max-rate "$5" --indel-share "$6"
}
synth tune_near "$ANC2" 201 0 0.05 0.1
synth tune_far "$ANC2" 202 0.05 0.35 0.667
synth tune_mid "$ANC2" 203 0 0.2 0.3
synth synth_near "$ANC" 101 0 0.05 0.1
synth synth_far "$ANC" 102 0.05 0.35 0.667
[ -s "$C/bact_tune/groups.tsv" ] || $PY $HERE/genome_clusters.py "$C/bact_tune" --seed 301 --genera 2 --species 2 --per-species 3
[ -s "$C/bact30/groups.tsv" ] || $PY $HERE/genome_clusters.py "$C/bact30" --seed 401 --genera 2 --species 3 --per-species 5

inputs() {  # set -> its genome files (SARS-CoV-2: one file, a genome per record)
    case $1 in
        bloch) echo "$DATA"/bacteria/blochmannia/*.fna.gz ;;
        sc2) echo "$DATA/viral/viralwasm_example_sc2_seqs_100.fas" ;;
        *) echo "$C/$1"/g*.fa ;;
    esac
}
score() {  # set pairs.tsv -> pairs TAB Spearman against the set's truth
    sed -e 's#[^\t]*/##g' -e 's/\.fna\.gz//g' -e 's/\.fa\t/\t/g' "$2" > "$2.names"
    case $1 in
        bloch) $PY $HERE/score_genomes.py bloch "$2.names" | awk -F'\t' -v OFS='\t' '$1 == "fastANI" { print $2, $3 }' ;;
        sc2) $PY $HERE/score_genomes.py sc2 "$2.names" | cut -f2,3 ;;
        *) $PY $HERE/score_truth.py "$C/$1/truth.tsv" "$2.names" ;;
    esac
}
emit() {  # FILE HEADER: standard input to results/FILE under HEADER, and to the terminal
    echo "$2" > "$RES/$1.tmp"
    tee -a "$RES/$1.tmp"
    mv "$RES/$1.tmp" "$RES/$1"
}
