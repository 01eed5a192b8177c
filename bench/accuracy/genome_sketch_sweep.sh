#!/usr/bin/env bash
# bench/accuracy/genome_sketch_sweep.sh BUILD [GRID]: the grid behind the genome-sketch defaults
# (docs/accuracy.md, "Genome sketches"), on the TUNING sets only: tune_near/far/mid (200 kb
# descendants of B. floridanus, genome_synth.py seeds 201-203), Blochmannia (fastANI truth) and
# bact_tune (12 genomes of 3-5 Mbp in 2 unrelated genera, genome_clusters.py seed 301).
# Each setting runs through the CLI: `tsketch sketch --genome --per-file OPTIONS` then
# `tsketch dist --genome`, scored as run.sh scores (Spearman against ANI), plus on bact_tune the
# group separation (score_groups.py), the .tsk bytes per Mbp and the sketch's CPU seconds.
# GRID: "main" (default: one sketch seed per setting; genome_sketch_sweep.tsv), "chance" (windows
# unrelated genomes share by chance, per window length; genome_sketch_chance.tsv), "seeds" (the
# candidate windows with three sketch seeds each; genome_sketch_seeds.tsv) or "mash"
# (Mash k=21 s=10000 on the same sets; genome_sketch_mash.tsv) or "floor" (the size floor
# --min-keys on the small-genome sets, SARS-CoV-2 included; genome_sketch_floor.tsv), all in
# bench/accuracy/results/. Makes the sets it lacks in BUILD/acc-cache (about 1 minute).
# Results of sessions before the size floor (session 9) have a "stride" column: the anchors'
# stride was an option then; it is now chosen per genome from --scaled and --min-keys.
set -eu
BUILD=${1:-build-acc}
GRID=${2:-main}
. bench/accuracy/genome_sets.sh
SETS="tune_near tune_far tune_mid bloch bact_tune"
sp() { score "$@" | cut -f2; }  # Spearman alone
HEAD="window	anchor_k	min_keys	scaled	seed	tune_near	tune_far	tune_mid	bloch	bact_tune	bact_max_within_species	bact_min_between_species	bact_min_between_genera	bact_separated	bytes_per_mbp	sketch_cpu_s"
# bases of bact_tune, for bytes per Mbp
MBP=$(cat "$C/bact_tune"/g*.fa | grep -v '>' | tr -d '\n' | wc -c | awk '{ print $1 / 1e6 }')

row() {  # window anchor_k min_keys scaled [seed]
    seed=${5:-24301}
    line="$1	$2	$3	$4	$seed"
    for set in $SETS; do
        # shellcheck disable=SC2046
        /usr/bin/time -f %U -o "$TMP/cpu" "$T" sketch -q -p 1 --genome --per-file --window "$1" --anchor-k "$2" \
            --min-keys "$3" --scaled "$4" -S "$seed" $(inputs $set) -o "$TMP/s.tsk"
        "$T" dist -q -p 1 --genome "$TMP/s.tsk" > "$TMP/d.tsv"
        line="$line	$(sp $set "$TMP/d.tsv")"
    done
    groups=$($PY $HERE/score_groups.py "$C/bact_tune/groups.tsv" "$TMP/d.tsv" | cut -f1-3,5)
    bytes=$(stat -c %s "$TMP/s.tsk")
    echo "$line	$groups	$(awk -v b="$bytes" -v m="$MBP" 'BEGIN { printf "%.0f", b / m }')	$(cat "$TMP/cpu")"
}

if [ "$GRID" = mash ]; then
    line="mash k=21 s=10000"
    for set in $SETS; do
        # shellcheck disable=SC2046
        /usr/bin/time -f %U -o "$TMP/cpu" mash sketch -p 1 -k 21 -s 10000 -o "$TMP/m" $(inputs $set) > /dev/null 2>&1
        mash dist "$TMP/m.msh" "$TMP/m.msh" | awk -F'\t' -v OFS='\t' '{ print $1, $2, $3 }' > "$TMP/d.tsv"
        line="$line	$(sp $set "$TMP/d.tsv")"
    done
    groups=$($PY $HERE/score_groups.py "$C/bact_tune/groups.tsv" "$TMP/d.tsv" | cut -f1-3,5)
    bytes=$(stat -c %s "$TMP/m.msh")
    echo "$line	$groups	$(awk -v b="$bytes" -v m="$MBP" 'BEGIN { printf "%.0f", b / m }')	$(cat "$TMP/cpu")" |
        emit genome_sketch_mash.tsv "tool	$(echo "$SETS" | tr ' ' '\t')	bact_max_within_species	bact_min_between_species	bact_min_between_genera	bact_separated	bytes_per_mbp	sketch_cpu_s"
    exit 0
fi

if [ "$GRID" = chance ]; then
    # windows shared by chance: bact_tune's pairs of different genera (unrelated random roots)
    for w in 16 18 20 22 24; do
        # shellcheck disable=SC2046
        "$T" sketch -q -p 1 --genome --per-file --window $w $(inputs bact_tune) -o "$TMP/s.tsk"
        "$T" dist -q -p 1 --genome "$TMP/s.tsk" > "$TMP/d.tsv"
        awk -F'\t' 'NR == FNR { g[$1] = $2; next }
            { a = $1; b = $2; sub(/.*\//, "", a); sub(/\.fa$/, "", a); sub(/.*\//, "", b); sub(/\.fa$/, "", b) }
            g[a] != g[b] { print $3, ($4 > 0) }' "$C/bact_tune/groups.tsv" "$TMP/d.tsv" | sort -g |
            awk -v w=$w '{ d[NR] = $1; s += $2 } END { printf "%d\t%d\t%d\t%.4f\t%.4f\n", w, NR, s, d[int((NR + 1) / 2)], d[1] }'
    done | emit genome_sketch_chance.tsv "window	genus_pairs	pairs_sharing	median_distance	min_distance"
    exit 0
fi

if [ "$GRID" = floor ]; then
    # the size floor (defaults otherwise) on the sets it is for; SARS-CoV-2 is held out, and was
    # looked at for this choice (docs/accuracy.md says so)
    for mk in 0 10000 12000 15000 20000 40000; do
        for set in sc2 bloch bact_tune; do
            pf=--per-file
            [ $set = sc2 ] && pf=
            # shellcheck disable=SC2046
            "$T" sketch -q -p 2 --genome $pf --min-keys $mk $(inputs $set) -o "$TMP/s.tsk"
            "$T" dist -q -p 2 --genome "$TMP/s.tsk" > "$TMP/d.tsv"
            echo "$mk	$set	$(sp $set "$TMP/d.tsv")	$(stat -c %s "$TMP/s.tsk")"
        done
    done | emit genome_sketch_floor.tsv "min_keys	set	spearman	tsk_bytes"
    exit 0
fi

if [ "$GRID" = seeds ]; then
    # the sample is the seed's (anchors and keys are hashed with it): three seeds per setting
    # average out the sampling noise of one sketch (Spearman on 18-66 pairs moves by 0.01-0.1)
    {
        for w in 16 18 20 22 24; do for mk in 0 12000; do for seed in 1 2 3; do
            row $w 16 $mk 500 $seed
        done; done; done
    } | emit genome_sketch_seeds.tsv "$HEAD"
    exit 0
fi

{
    # window x scaled without a floor (anchor k 16)
    for w in 16 20 24 28 32; do for sc in 250 500 1000; do row $w 16 0 $sc; done; done
    # anchor k (scaled 500, no floor)
    for wk in "20 12" "20 14" "20 20" "24 12" "24 20" "24 24"; do set -- $wk; row $1 $2 0 500; done
    # the floor (the sketch of small genomes), scaled 500
    for w in 20 24; do for mk in 2000 5000 12000 20000; do row $w 16 $mk 500; done; done
} | emit genome_sketch_sweep.tsv "$HEAD"
