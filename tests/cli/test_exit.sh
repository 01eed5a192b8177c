#!/bin/bash
# test_exit.sh: the end of the process (src/detached_exit.h). A run that replaces an output of
# 1 MB or more holds the old file open, unlinks it and ends through a helper process that frees
# it: the new output must be whole and in place when the command returns, its exit code the
# command's, nothing left running after it, a pipe reading its stderr closed with it; the same with
# TSKETCH_DETACHED_EXIT=0 (the plain exit).
# Usage: TSKETCH=... TESTDATA=... bash test_exit.sh
source "$(dirname "$0")/harness.sh"
T=$TSKETCH
G=$TESTDATA/genomes/NC_045512.2.fa
SLIDE=(--window 100 --stride 10) # ~3,000 rows: a 1.1 MB output

"$T" sketch -q --device cpu "${SLIDE[@]}" "$G" -o "$WORK/reference.tsk"
"$T" export "$WORK/reference.tsk" >"$WORK/reference.tsv"
"$T" sketch -q --device cpu -k 3 "${SLIDE[@]}" "$G" -o "$WORK/other.tsk"
"$T" export "$WORK/other.tsk" >"$WORK/other.tsv"
[ "$(stat -c %s "$WORK/reference.tsk")" -ge 1048576 ] && ok "the output is 1 MB or more (the replaced file is held)" ||
    not_ok "the output is 1 MB or more (the replaced file is held)" "$(stat -c %s "$WORK/reference.tsk") bytes"

for detached in 1 0; do
    out=$WORK/replaced$detached.tsk
    cp "$WORK/other.tsk" "$out"
    TSKETCH_DETACHED_EXIT=$detached "$T" sketch -q --device cpu "${SLIDE[@]}" "$G" -o "$out" 2>&1 | cat >"$WORK/piped$detached"
    rcs=("${PIPESTATUS[@]}")
    [ "${rcs[0]}" = 0 ] && ok "detached=$detached: exit 0 through a pipe" || not_ok "detached=$detached: exit 0 through a pipe" "exit ${rcs[0]}"
    "$T" export "$out" >"$WORK/replaced$detached.tsv"
    expect_same "$WORK/reference.tsv" "$WORK/replaced$detached.tsv" "detached=$detached: the replacing output is whole and in place at once"
    ls "$WORK" | grep -q "replaced$detached.tsk.tmp" && not_ok "detached=$detached: no temporary file left" ||
        ok "detached=$detached: no temporary file left"
    # the helper ends once the process has: nothing names this output a moment later
    for _ in $(seq 50); do pgrep -f "$out" >/dev/null || break; sleep 0.1; done
    pgrep -f "$out" >/dev/null && not_ok "detached=$detached: no process left behind" "$(pgrep -af "$out")" ||
        ok "detached=$detached: no process left behind"
done

# a failure after nothing was replaced keeps its exit code and leaves the old output as it was
cp "$WORK/other.tsk" "$WORK/kept.tsk"
expect_exit 3 "" "a bad input: exit 3" -- "$T" sketch -q --device cpu "$TESTDATA/io/good.fa" "$WORK/missing.fa" -o "$WORK/kept.tsk"
"$T" export "$WORK/kept.tsk" >"$WORK/kept.tsv"
expect_same "$WORK/other.tsv" "$WORK/kept.tsv" "a failed run leaves the old output as it was"

# runs one after the other, each replacing the last one's output (and each helper its old file)
cp "$WORK/other.tsk" "$WORK/a.tsk"
"$T" sketch -q --device cpu "${SLIDE[@]}" "$G" -o "$WORK/a.tsk" && "$T" sketch -q --device cpu "${SLIDE[@]}" "$G" -o "$WORK/a.tsk"
"$T" export "$WORK/a.tsk" >"$WORK/a.tsv"
expect_same "$WORK/reference.tsv" "$WORK/a.tsv" "an output replaced twice in a row is the last run's"

finish
