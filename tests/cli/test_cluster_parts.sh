#!/usr/bin/env bash
# CLI: `cluster --links` (docs/cluster.md, "Clusters from distance parts"): the links read from
# `dist -d D --block I/N` parts give the clusters of one `cluster` run, byte for byte, whatever the
# number of parts, the method and the options (--min-af from dist --ani's AF, --reassign,
# --quality, --reference, --ani columns, links spilled to disk, gzip parts and standard input,
# parts at a larger -d); then a table of bad links files and options, each with its exit code and
# message, and no output left behind.
#   TSKETCH=... TESTDATA=... bash test_cluster_parts.sh   (GENOME_GEN: bench/genome/genome_gen)
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
GEN=${GENOME_GEN:-$(dirname "$T")/../bench/genome/genome_gen}
export LC_ALL=C
cd "$WORK" || exit 1

if [ ! -x "$GEN" ]; then
    not_ok "bench/genome/genome_gen built (synthetic species)" "$GEN: not found (GENOME_GEN=... names it)"
    finish
    exit 1
fi
# 117 genomes in 10 families at ~2 % within a family (clusters at 95 %, singletons at 99 %), and
# the first 60 % and the last 60 % of 3 more: at 99 % ANI such a head and tail link by ANI, with an
# AF of 1/3, so that --min-af decides
"$GEN" -n 120 -f 10 -L 60000-120000 -d 0.02 -s 11 -p 2 --one-file sp.fa
awk -v RS='>' -v ORS='' 'NR > 1 && NR <= 4 {
        nl = index($0, "\n"); split(substr($0, 1, nl - 1), w, " "); name = w[1]; seq = substr($0, nl + 1)
        gsub("\n", "", seq); n = length(seq); keep = int(n * 0.6)
        printf ">%s_head\n%s\n>%s_tail\n%s\n", name, substr(seq, 1, keep), name, substr(seq, n - keep + 1) }' sp.fa >pieces.fa
awk '/^>/ {n++} n > 3' sp.fa >rest.fa
cat rest.fa pieces.fa >all.fa
"$T" sketch -q --genome all.fa -o all.tsk
n_items=$(grep -c '^>' all.fa)
# a quality file: every genome scored, ties included
grep '^>' all.fa | sed 's/^>//; s/[[:space:]].*//' | awk '{printf "%s\t%d\n", $1, (NR * 7) % 13}' >quality.tsv

# parts N D [DIST-OPTIONS]: parts_1..N of dist -d D over all.tsk
parts() {
    local n=$1 d=$2 i
    shift 2
    rm -f part_*.tsv
    for i in $(seq 1 "$n"); do "$T" dist -q -d "$d" "$@" --block "$i/$n" all.tsk -o "part_$i.tsv"; done
    LINKS=()
    for i in $(seq 1 "$n"); do LINKS+=(--links "part_$i.tsv"); done
}

# same DESCRIPTION -- CLUSTER-OPTIONS: cluster with the LINKS set = cluster without them
same() {
    local desc=$1
    shift 2
    "$T" cluster -q "$@" all.tsk -o direct.tsv --representatives direct.reps
    "$T" cluster -q "$@" "${LINKS[@]}" all.tsk -o links.tsv --representatives links.reps
    if cmp -s direct.tsv links.tsv && cmp -s direct.reps links.reps; then ok "$desc"
    else not_ok "$desc" "$(diff direct.tsv links.tsv | head -5)"; fi
}

for n in 1 3 7; do
    parts "$n" 0.05 --ani
    same "$n parts: greedy at 95 % = one run" -- -d 0.05
    same "$n parts: single linkage = one run" -- -d 0.05 --method single
    same "$n parts: --min-af 0.5 on dist --ani's AF = one run" -- -d 0.01 --min-af 0.5 --ani
    same "$n parts: --reassign, --quality, --header --ani = one run" -- -d 0.05 --reassign --quality quality.tsv --header --ani
done
parts 3 0.05 --ani
same "parts at -d 0.05, cluster at -d 0.015 (a stricter threshold) = one run" -- -d 0.015 --ani
same "--min-ani 98.5 = one run" -- --min-ani 98.5 --method single
TSKETCH_CLUSTER_MEMORY=1 same "links spilled to disk as sorted runs = one run" -- -d 0.05 --ani
TSKETCH_CLUSTER_MEMORY=1 "$T" cluster -d 0.05 "${LINKS[@]}" all.tsk 2>spill.txt >/dev/null
expect_true "... and they were spilled" -- grep -q "sorted runs on disk" spill.txt
n_clusters=$(cut -f2 direct.tsv | sort -u | wc -l)
expect_true "the set is not trivial: $n_clusters clusters of $n_items genomes" -- test "$n_clusters" -gt 5 -a "$n_clusters" -lt 60
at_99=$("$T" cluster -q -d 0.01 all.tsk | cut -f2 | sort -u | wc -l)
at_99_af=$("$T" cluster -q -d 0.01 --min-af 0.5 all.tsk | cut -f2 | sort -u | wc -l)
expect_true "--min-af 0.5 decides at 99 %: $at_99 clusters without it, $at_99_af with it" -- \
    test "$at_99" -eq $((n_items - 3)) -a "$at_99_af" -eq "$n_items"

# key distances: parts and cluster both with --key-distance
parts 3 0.05 --key-distance
same "--key-distance parts and cluster = one run" -- -d 0.05 --key-distance

# --reference: the parts of the references and the new genomes pasted in that order
awk '/^>/ {n++} n <= 3' all.fa >head3.fa
awk '/^>/ {n++} n > 3' all.fa >tail.fa
"$T" sketch -q --genome head3.fa -o refs.tsk
"$T" sketch -q --genome tail.fa -o rest.tsk
"$T" paste -q both.tsk refs.tsk rest.tsk
for i in 1 2; do "$T" dist -q -d 0.05 --block "$i/2" both.tsk -o "ref_$i.tsv"; done
"$T" cluster -q -d 0.05 --reference refs.tsk rest.tsk >direct.tsv
"$T" cluster -q -d 0.05 --reference refs.tsk rest.tsk --links ref_1.tsv --links ref_2.tsv >links.tsv
expect_same direct.tsv links.tsv "--reference refs.tsk new.tsk: the links of the pasted file = one run"

# the parts gzipped, one on standard input, the header of dist --header skipped
parts 3 0.05 --ani --header
gzip part_2.tsv
"$T" cluster -q -d 0.05 all.tsk >direct.tsv
"$T" cluster -q -d 0.05 --links part_1.tsv --links part_2.tsv.gz --links - all.tsk <part_3.tsv >links.tsv
expect_same direct.tsv links.tsv "a header, a gzip part and standard input = one run"

# one pair in two files at the same distance is taken once
parts 2 0.05
cat part_1.tsv part_2.tsv >both.tsv
"$T" cluster -d 0.05 all.tsk 2>/dev/null >direct.tsv
"$T" cluster -d 0.05 --links both.tsv --links part_2.tsv all.tsk >links.tsv 2>err.txt
expect_same direct.tsv links.tsv "a part given twice within another file: each pair taken once"
expect_true "... and said" -- grep -q "pairs given twice in the --links files, each taken once" err.txt

# vector sketches (l2 and cosine), the SARS-CoV-2 genomes in 2-3 groups
"$T" sketch -q "$TESTDATA"/genomes/*.fa -o vec.tsk
for metric in l2 cosine; do
    "$T" dist -q -d 0.0003 --metric $metric vec.tsk -o vec_links.tsv
    "$T" cluster -q -d 0.0003 --metric $metric vec.tsk >direct.tsv
    "$T" cluster -q -d 0.0003 --metric $metric --links vec_links.tsv vec.tsk >links.tsv
    n_clusters=$(cut -f2 direct.tsv | sort -u | wc -l)
    if [ "$n_clusters" -gt 3 ] && [ "$n_clusters" -lt "$(wc -l <direct.tsv)" ] && cmp -s direct.tsv links.tsv; then
        ok "vector sketches ($metric): the links of dist -d = one run ($n_clusters clusters)"
    else not_ok "vector sketches ($metric): the links of dist -d = one run" "$n_clusters clusters; $(diff direct.tsv links.tsv | head -3)"; fi
done
"$T" dist -q -d 0.0003 --metric cosine vec.tsk -o vec_links.tsv
expect_exit 4 "--metric as cluster's" "cosine links for an l2 cluster: refused" -- "$T" cluster -d 0.0003 --links vec_links.tsv vec.tsk

# ---- bad links files and options: exit code, message, no output ----
parts 2 0.05
head -1 part_1.tsv >one.tsv
printf 'nobody\t%s\n' "$(cut -f2- one.tsv)" >unknown.tsv
awk -F'\t' -v OFS='\t' '{$3 = "0.01x"; print}' one.tsv >baddist.tsv
awk -F'\t' -v OFS='\t' '{$3 = "nan"; print}' one.tsv >nandist.tsv
cut -f1-4 one.tsv >cols4.tsv
awk -F'\t' -v OFS='\t' '{$3 = $3 / 2; print}' one.tsv >halved.tsv
"$T" dist -q -d 0.05 --key-distance all.tsk -o keydist.tsv
"$T" dist -q -d 0.05 --containment all.tsk -o contain.tsv
awk -F'\t' -v OFS='\t' 'NR == 2 {$3 = $3 + 0.001} {print}' part_1.tsv >twice_a.tsv
head -2 part_1.tsv | tail -1 >twice_b.tsv
head -c 100 part_1.tsv | gzip -c | head -c 40 >trunc.tsv.gz
cat all.fa head3.fa >dup.fa  # names repeated
"$T" sketch -q --genome dup.fa -o dup.tsk
# CODE 'stderr' DESCRIPTION -- CLUSTER-ARGUMENTS (each run writes -o out.tsv, which must not appear)
while IFS='|' read -r code pattern desc args; do
    [ -z "$code" ] && continue
    rm -f out.tsv
    # shellcheck disable=SC2086 # the table's arguments are words
    expect_exit "$code" "$pattern" "$desc" -- "$T" cluster -d 0.05 $args -o out.tsv
    [ -e out.tsv ] && not_ok "$desc: no output left" "out.tsv exists"
done <<'TABLE'
3|nobody' is no genome or record of the inputs|a name the inputs lack|--links unknown.tsv all.tsk
3|distance '0.01x' is not a finite number|a distance that is no number|--links baddist.tsv all.tsk
3|distance 'nan' is not a finite number|a NaN distance|--links nandist.tsv all.tsk
3|line 1: 4 columns, not the 3, 5 or 7|a line of 4 columns|--links cols4.tsv all.tsk
3|no aligned fraction \(--min-af needs the pairs as 'tsketch dist --ani'|--min-af on parts without --ani|--min-af 0.5 --links part_1.tsv all.tsk
4|line 1: .* are at distance .* there but .* from these inputs|a distance that is not the inputs'|--links halved.tsv all.tsk
4|from these inputs: the links were computed from other sketches|key-distance parts for an ANI cluster|--links keydist.tsv all.tsk
4|not --containment|containment parts|--links contain.tsv all.tsk
3|is given twice at different distances|one pair at two distances|--links twice_a.tsv --links twice_b.tsv all.tsk
2|are one file: each part is given once|a part named twice|--links part_1.tsv --links ./part_1.tsv all.tsk
3|missing.tsv: No such file|a missing file|--links missing.tsv all.tsk
3|trunc.tsv.gz: read failed|a truncated gzip part|--links trunc.tsv.gz all.tsk
3|are both named .*: lines of pairs name their items, so names must be unique|two genomes of one name|--links part_1.tsv dup.tsk
TABLE
expect_exit 2 "given 2 times: it can be read once" "standard input named twice" -- \
    "$T" cluster -d 0.05 --links - --links - all.tsk -o out.tsv
finish
