#!/bin/sh
# Mash (the Debian package, 2.3) on the pairs of one generator seed: per-record sketches of the
# a-side and b-side records, `mash dist` of every a against every b, the matching pairs kept.
#   mash_pairs.sh PAIRS.fa K SIZE OUT.tsv     (OUT: name_a TAB name_b TAB mash_distance)
set -eu
pairs=$1 k=$2 size=$3 out=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v a="$tmp/a.fa" -v b="$tmp/b.fa" '/^>/{f = ($0 ~ /_a$/) ? a : b} {print > f}' "$pairs"
mash sketch -p 1 -i -k "$k" -s "$size" -o "$tmp/a" "$tmp/a.fa" > /dev/null 2>&1
mash sketch -p 1 -i -k "$k" -s "$size" -o "$tmp/b" "$tmp/b.fa" > /dev/null 2>&1
mash dist -p 1 "$tmp/a.msh" "$tmp/b.msh" |
  awk -F'\t' '{pa = $1; sub(/_a$/, "", pa); pb = $2; sub(/_b$/, "", pb); if (pa == pb) print $1 "\t" $2 "\t" $3}' > "$out.tmp"
mv "$out.tmp" "$out"
