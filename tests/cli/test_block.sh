#!/usr/bin/env bash
# CLI: `dist --block I/N` splits the pair space into N disjoint parts whose outputs, concatenated
# in order, are the single run's output byte for byte (for a workflow engine's scatter/gather).
#   TSKETCH=... TESTDATA=... bash test_block.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
G=$TESTDATA/genomes
"$T" sketch -q "$G"/*.fa -o "$WORK/all.tsk"
"$T" sketch -q "$G"/MT-*.fa "$G"/NC_001422_phiX174.fa -o "$WORK/q.tsk"

for n in 1 2 3 7 60; do
    check_parts "all pairs + header" $n --header "$WORK/all.tsk"
    check_parts "with self" $n --with-self "$WORK/all.tsk"
    check_parts "top-k" $n --top-k 3 "$WORK/all.tsk"
    check_parts "threshold" $n -d 0.03 "$WORK/all.tsk"
    check_parts "queries x references" $n "$WORK/all.tsk" "$WORK/q.tsk"
done

# the parts of one set against itself hold about equal numbers of pairs (10 records: 45 pairs)
for i in 1 2 3; do "$T" dist --block "$i/3" "$WORK/all.tsk" | wc -l; done | tr '\n' ' ' >"$WORK/sizes"
expect_true "3 parts are balanced by pairs ($(cat "$WORK/sizes"))" -- \
    awk '{for (i = 1; i <= NF; i++) if ($i < 10 || $i > 20) exit 1}' "$WORK/sizes"

expect_exit 2 "--block" "--block 3/2 refused" -- "$T" dist --block 3/2 "$WORK/all.tsk"
expect_exit 2 "--block" "--block 0/2 refused" -- "$T" dist --block 0/2 "$WORK/all.tsk"
expect_exit 2 "--block" "--block x refused" -- "$T" dist --block x "$WORK/all.tsk"
expect_exit 2 "tsv" "--block with a matrix format refused" -- "$T" dist -f square --block 1/2 "$WORK/all.tsk"
finish
