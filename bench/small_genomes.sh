#!/usr/bin/env bash
# bench/small_genomes.sh [BUILD]: genome sketches of many small genomes (docs/accuracy.md, "The
# floor stride"): 3,000 generated genomes of 20 kb (bench/genome/small_genomes.py: 100 species x 30
# strains), whole process: `sketch --genome --per-file` at -p 1 and -p 2 (two -p 1 runs on the
# halves side by side: the machine's ceiling), its .tsk size against the FASTA's, `cluster` at
# -p 1 and -p 2, and `mash sketch -p 2` (defaults) in the same run. Validates first: -p 1 and -p 2
# give the same keys, and cluster finds the 100 species. Medians of REPS (default 3) runs.
set -eu
BUILD=${1:-build}
REPS=${REPS:-3}
T=$BUILD/src/tsketch
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
/usr/bin/python3 bench/genome/small_genomes.py "$W/g"
fa=$(du -cb "$W"/g/*.fa | tail -1 | cut -f1)
"$T" sketch -q --genome --per-file -p 1 "$W"/g/*.fa -o "$W/p1.tsk"
"$T" sketch -q --genome --per-file -p 2 "$W"/g/*.fa -o "$W/p2.tsk"
cmp <("$T" export "$W/p1.tsk") <("$T" export "$W/p2.tsk") || { echo "FAIL: -p 1 and -p 2 keys differ"; exit 1; }
"$T" cluster -q -p 2 "$W/p2.tsk" -o "$W/c.tsv"
n=$(cut -f2 "$W/c.tsv" | sort -u | wc -l)
[ "$n" -eq 100 ] || { echo "FAIL: $n clusters, want 100"; exit 1; }
echo "checks passed: -p 1 = -p 2 keys, 100 clusters"
wall() { /usr/bin/time -f %e -o "$W/t" "$@" > /dev/null 2>&1; cat "$W/t"; }
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for what in sketch_p1 sketch_p2 halves cluster_p1 cluster_p2 mash_p2; do
    for r in $(seq "$REPS"); do
        case $what in
            sketch_p1) wall "$T" sketch -q --genome --per-file -p 1 "$W"/g/*.fa -o "$W/x.tsk" ;;
            sketch_p2) wall "$T" sketch -q --genome --per-file -p 2 "$W"/g/*.fa -o "$W/x.tsk" ;;
            halves) wall bash -c "'$T' sketch -q --genome --per-file -p 1 '$W'/g/s0[0-4]*.fa -o '$W/h1.tsk' &
                                  '$T' sketch -q --genome --per-file -p 1 '$W'/g/s0[5-9]*.fa -o '$W/h2.tsk'; wait" ;;
            cluster_p1) wall "$T" cluster -q -p 1 "$W/p2.tsk" -o "$W/c1.tsv" ;;
            cluster_p2) wall "$T" cluster -q -p 2 "$W/p2.tsk" -o "$W/c2.tsv" ;;
            mash_p2) wall mash sketch -p 2 -o "$W/m" "$W"/g/*.fa ;;
        esac
    done | med | sed "s/^/$what	/"
done
echo "bytes	fasta $fa	tsk $(stat -c %s "$W/p2.tsk")	msh $(stat -c %s "$W/m.msh")"
