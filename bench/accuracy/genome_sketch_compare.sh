#!/usr/bin/env bash
# bench/accuracy/genome_sketch_compare.sh BUILD [REPS]: the genome-sketch defaults against Mash
# (k=21, s=10000) on every set (docs/accuracy.md, "Genome sketches"): Spearman against the truth,
# group separation, .tsk bytes per Mbp; then the CPU time of sketch + all pairs of the 30
# bacterial-size genomes (bact30: genome_clusters.py seed 401, 2 unrelated genera x 3 species x 5
# genomes of 3-5 Mbp), both tools with 2 threads, REPS runs each (default 3), medians.
# tsketch runs with its defaults only: `sketch --genome [--per-file] FILES -o G.tsk`,
# `dist --genome G.tsk`. Output: bench/accuracy/results/genome_sketch_compare.tsv and
# genome_sketch_cpu.tsv. Held out (never seen while choosing): sc2, synth_near, synth_far, bact30;
# the tuning sets are listed again for reference.
set -eu
BUILD=${1:-build-acc}
REPS=${2:-3}
T=$BUILD/src/tsketch
C=$BUILD/acc-cache
PY=/usr/bin/python3
HERE=bench/accuracy
RES=$HERE/results
DATA=${TSK_DATA:-/work/shared/data}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$C" "$RES"
ANC="$DATA/bacteria/blochmannia/GCF_000011745.1_ASM1174v1_genomic.fna.gz"
ANC2="$DATA/bacteria/blochmannia/GCF_000043285.1_ASM4328v1_genomic.fna.gz"
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
cp "$DATA/viral/viralwasm_example_sc2_seqs_100.fas" "$C/sc2.fa"

inputs() {
    case $1 in
        bloch) echo "$DATA"/bacteria/blochmannia/*.fna.gz ;;
        sc2) echo "$C/sc2.fa" ;;
        *) echo "$C/$1"/g*.fa ;;
    esac
}
score() {  # set pairs.tsv -> pairs TAB Spearman
    sed -e 's#[^\t]*/##g' -e 's/\.fna\.gz//g' -e 's/\.fa\t/\t/g' "$2" > "$2.names"
    case $1 in
        bloch) $PY $HERE/score_genomes.py bloch "$2.names" | awk -F'\t' -v OFS='\t' '$1 == "fastANI" { print $2, $3 }' ;;
        sc2) $PY $HERE/score_genomes.py sc2 "$2.names" | cut -f2,3 ;;
        *) $PY $HERE/score_truth.py "$C/$1/truth.tsv" "$2.names" ;;
    esac
}
groups() {  # set pairs.tsv -> separation columns (or dashes)
    if [ -s "$C/$1/groups.tsv" ]; then $PY $HERE/score_groups.py "$C/$1/groups.tsv" "$2"; else printf -- '-\t-\t-\t-\t-\n'; fi
}
mbp() { cat $(inputs "$1") | { case $1 in bloch) zcat ;; *) cat ;; esac; } | grep -v '>' | tr -d '\n' | wc -c | awk '{ print $1 / 1e6 }'; }

out=$RES/genome_sketch_compare.tsv
echo "set	split	tool	pairs	spearman	max_within_species	min_between_species	min_between_genera	median_between_genera	separated	bytes	mbp	bytes_per_mbp" > "$out.tmp"
for set in tune_near tune_far tune_mid bloch bact_tune sc2 synth_near synth_far bact30; do
    split=held-out
    case $set in tune_* | bloch | bact_tune) split=tuning ;; esac
    pf=--per-file
    [ $set = sc2 ] && pf=
    m=$(mbp $set)
    # shellcheck disable=SC2046
    "$T" sketch -q -p 2 --genome $pf $(inputs $set) -o "$TMP/g.tsk"
    "$T" dist -q -p 2 --genome "$TMP/g.tsk" > "$TMP/d.tsv"
    b=$(stat -c %s "$TMP/g.tsk")
    echo "$set	$split	tsketch --genome (defaults)	$(score $set "$TMP/d.tsv")	$(groups $set "$TMP/d.tsv")	$b	$m	$(awk -v b="$b" -v m="$m" 'BEGIN { printf "%.0f", b / m }')" >> "$out.tmp"
    mi=
    [ $set = sc2 ] && mi=-i
    # shellcheck disable=SC2046
    mash sketch $mi -p 2 -k 21 -s 10000 -o "$TMP/m" $(inputs $set) > /dev/null 2>&1
    mash dist -p 2 "$TMP/m.msh" "$TMP/m.msh" | awk -F'\t' -v OFS='\t' '{ print $1, $2, $3 }' > "$TMP/d.tsv"
    b=$(stat -c %s "$TMP/m.msh")
    echo "$set	$split	mash k=21 s=10000	$(score $set "$TMP/d.tsv")	$(groups $set "$TMP/d.tsv")	$b	$m	$(awk -v b="$b" -v m="$m" 'BEGIN { printf "%.0f", b / m }')" >> "$out.tmp"
done
mv "$out.tmp" "$out"
column -t -s '	' "$out"

# CPU time (user + system, all threads) of sketch + all pairs, bact30, 2 threads each; runs
# alternate between the tools so that load from other users falls on both
out=$RES/genome_sketch_cpu.tsv
echo "tool	rep	sketch_cpu_s	dist_cpu_s	total_cpu_s	total_wall_s" > "$out.tmp"
cpu() {  # label command... -> "cpu wall" of the command
    /usr/bin/time -f '%U %S %e' -o "$TMP/t" "$@" > /dev/null 2>&1
    awk '{ printf "%.2f\t%.2f", $1 + $2, $3 }' "$TMP/t"
}
for rep in $(seq "$REPS"); do
    # shellcheck disable=SC2046
    s=$(cpu "$T" sketch -q -p 2 --genome --per-file $(inputs bact30) -o "$TMP/g.tsk")
    d=$(cpu "$T" dist -q -p 2 --genome "$TMP/g.tsk" -o "$TMP/d.tsv")
    echo "tsketch --genome	$rep	${s%	*}	${d%	*}	$(echo "${s%	*} ${d%	*} ${s#*	} ${d#*	}" | awk '{ printf "%.2f\t%.2f", $1 + $2, $3 + $4 }')" >> "$out.tmp"
    # shellcheck disable=SC2046
    s=$(cpu mash sketch -p 2 -k 21 -s 10000 -o "$TMP/m" $(inputs bact30))
    d=$(cpu mash dist -p 2 "$TMP/m.msh" "$TMP/m.msh")
    echo "mash k=21 s=10000	$rep	${s%	*}	${d%	*}	$(echo "${s%	*} ${d%	*} ${s#*	} ${d#*	}" | awk '{ printf "%.2f\t%.2f", $1 + $2, $3 + $4 }')" >> "$out.tmp"
done
mv "$out.tmp" "$out"
column -t -s '	' "$out"
