#!/usr/bin/env bash
# bench/accuracy/genome_sketch_compare.sh BUILD [REPS]: the genome-sketch defaults against Mash
# (k=21, s=10000) on every set (docs/accuracy.md, "Genome sketches"): Spearman against the truth,
# group separation, .tsk bytes per Mbp; then the CPU time of sketch + all pairs of the 30
# bacterial-size genomes (bact30: genome_clusters.py seed 401, 2 unrelated genera x 3 species x 5
# genomes of 3-5 Mbp), both tools with 2 threads, REPS runs each (default 3), medians.
# tsketch runs with its defaults only: `sketch --genome [--per-file] FILES -o G.tsk`,
# `dist --genome G.tsk` (1 - ANI), and `dist --key-distance` (the fingerprint distance); at_1: the
# unordered pairs of two genomes at distance 1 (called unrelated), of all the set's pairs. Output: bench/accuracy/results/genome_sketch_compare.tsv and
# genome_sketch_cpu.tsv. Held out (never seen while choosing): sc2, synth_near, synth_far, bact30;
# the tuning sets are listed again for reference.
set -eu
BUILD=${1:-build-acc}
REPS=${2:-3}
. bench/accuracy/genome_sets.sh
groups() {  # set pairs.tsv -> separation columns (or dashes)
    if [ -s "$C/$1/groups.tsv" ]; then $PY $HERE/score_groups.py "$C/$1/groups.tsv" "$2"; else printf -- '-\t-\t-\t-\t-\n'; fi
}
at_one() {  # pairs.tsv -> the unordered pairs of two genomes at distance 1 (Mash prints both orders)
    awk -F'\t' '$1 != $2 && $3 >= 1 { s[$1 < $2 ? $1 SUBSEP $2 : $2 SUBSEP $1] = 1 } END { print length(s) }' "$1"
}
report() {  # tool sketch-file: one line of the set $set from $TMP/d.tsv
    b=$(stat -c %s "$2")
    echo "$set	$split	$1	$(score $set "$TMP/d.tsv")	$(groups $set "$TMP/d.tsv")	$(at_one "$TMP/d.tsv")	$b	$m	$(awk -v b="$b" -v m="$m" 'BEGIN { printf "%.0f", b / m }')"
}
# shellcheck disable=SC2046
mbp() { cat $(inputs "$1") | { case $1 in bloch) zcat ;; *) cat ;; esac; } | grep -v '>' | tr -d '\n' | wc -c | awk '{ print $1 / 1e6 }'; }

for set in tune_near tune_far tune_mid bloch bact_tune sc2 synth_near synth_far bact30; do
    split=held-out
    case $set in tune_* | bloch | bact_tune) split=tuning ;; esac
    pf=--per-file
    [ $set = sc2 ] && pf=
    m=$(mbp $set)
    # shellcheck disable=SC2046
    "$T" sketch -q -p 2 --genome $pf $(inputs $set) -o "$TMP/g.tsk"
    "$T" dist -q -p 2 --genome "$TMP/g.tsk" > "$TMP/d.tsv"
    report "tsketch --genome (defaults)" "$TMP/g.tsk"
    "$T" dist -q -p 2 --genome --key-distance "$TMP/g.tsk" > "$TMP/d.tsv"
    report "tsketch --key-distance" "$TMP/g.tsk"
    mi=
    [ $set = sc2 ] && mi=-i
    # shellcheck disable=SC2046
    mash sketch $mi -p 2 -k 21 -s 10000 -o "$TMP/m" $(inputs $set) > /dev/null 2>&1
    mash dist -p 2 "$TMP/m.msh" "$TMP/m.msh" | awk -F'\t' -v OFS='\t' '{ print $1, $2, $3 }' > "$TMP/d.tsv"
    report "mash k=21 s=10000" "$TMP/m.msh"
done | emit genome_sketch_compare.tsv "set	split	tool	pairs	spearman	max_within_species	min_between_species	min_between_genera	median_between_genera	separated	at_1	bytes	mbp	bytes_per_mbp"

# CPU time (user + system, all threads) of sketch + all pairs, bact30, 2 threads each; runs
# alternate between the tools so that load from other users falls on both
cpu() {  # command... -> "cpu TAB wall" of the command
    /usr/bin/time -f '%U %S %e' -o "$TMP/t" "$@" > /dev/null 2>&1
    awk '{ printf "%.2f\t%.2f", $1 + $2, $3 }' "$TMP/t"
}
both() {  # tool "sketch cpu/wall" "dist cpu/wall" -> the line of run $rep
    echo "$1	$rep	${2%	*}	${3%	*}	$(echo "${2%	*} ${3%	*} ${2#*	} ${3#*	}" | awk '{ printf "%.2f\t%.2f", $1 + $2, $3 + $4 }')"
}
for rep in $(seq "$REPS"); do
    # shellcheck disable=SC2046
    s=$(cpu "$T" sketch -q -p 2 --genome --per-file $(inputs bact30) -o "$TMP/g.tsk")
    d=$(cpu "$T" dist -q -p 2 --genome "$TMP/g.tsk" -o "$TMP/d.tsv")
    both "tsketch --genome" "$s" "$d"
    # shellcheck disable=SC2046
    s=$(cpu mash sketch -p 2 -k 21 -s 10000 -o "$TMP/m" $(inputs bact30))
    d=$(cpu mash dist -p 2 "$TMP/m.msh" "$TMP/m.msh")
    both "mash k=21 s=10000" "$s" "$d"
done | emit genome_sketch_cpu.tsv "tool	rep	sketch_cpu_s	dist_cpu_s	total_cpu_s	total_wall_s"
