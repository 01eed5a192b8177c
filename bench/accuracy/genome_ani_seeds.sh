#!/usr/bin/env bash
# bench/accuracy/genome_ani_seeds.sh BUILD [BEFORE]: the table of docs/accuracy.md "Held-out results
# against Mash" as medians over sketch seeds, each tool at SEEDS (default 1..7) seeds: `tsketch
# sketch --genome [--per-file] -S s` then `dist --genome` (1 - ANI) of BUILD's tsketch, of BEFORE (a
# tsketch binary before a change, on the same file: its format must be BUILD's) when given, and
# `mash sketch -k 21 -s 10000 -S s`. Spearman against each set's truth, per seed
# (results/genome_ani_seeds.tsv) and the median over the seeds per set and tool
# (results/genome_ani_seeds_median.tsv).
set -eu
BUILD=${1:-build-acc}
BEFORE=${2:-}
SEEDS=${SEEDS:-1 2 3 4 5 6 7}
. bench/accuracy/genome_sets.sh
sets="tune_near tune_far tune_mid bloch bact_tune sc2 synth_near synth_far bact30"
for set in $sets; do
    pf=--per-file mi=
    [ $set = sc2 ] && pf= && mi=-i
    for s in $SEEDS; do
        # shellcheck disable=SC2046
        "$T" sketch -q -p 2 --genome $pf -S "$s" $(inputs $set) -o "$TMP/g.tsk"
        "$T" dist -q -p 2 --genome "$TMP/g.tsk" > "$TMP/d.tsv"
        echo "$set	$s	tsketch	$(score $set "$TMP/d.tsv")"
        if [ -n "$BEFORE" ]; then
            "$BEFORE" dist -q -p 2 --genome "$TMP/g.tsk" > "$TMP/d.tsv"
            echo "$set	$s	tsketch before	$(score $set "$TMP/d.tsv")"
        fi
        # shellcheck disable=SC2046
        mash sketch $mi -p 2 -k 21 -s 10000 -S "$s" -o "$TMP/m" $(inputs $set) > /dev/null 2>&1
        mash dist -p 2 "$TMP/m.msh" "$TMP/m.msh" | awk -F'\t' -v OFS='\t' '{ print $1, $2, $3 }' > "$TMP/d.tsv"
        echo "$set	$s	mash k=21 s=10000	$(score $set "$TMP/d.tsv")"
    done
done | emit genome_ani_seeds.tsv "set	seed	tool	pairs	spearman"
# the median over the seeds of each set and tool (sets in the order above)
awk -F'\t' 'NR > 1 { k = $1 "\t" $3; if (!(k in n)) order[++m] = k; v[k, ++n[k]] = $5 }
    END { for (i = 1; i <= m; i++) { k = order[i]; c = n[k]
            for (a = 1; a <= c; a++) s[a] = v[k, a]
            for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (s[b] < s[a]) { t = s[a]; s[a] = s[b]; s[b] = t }
            printf "%s\t%d\t%.4f\t%.4f\t%.4f\n", k, c, c % 2 ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2, s[1], s[c] } }' \
    "$RES/genome_ani_seeds.tsv" | emit genome_ani_seeds_median.tsv "set	tool	seeds	median_spearman	min	max"
