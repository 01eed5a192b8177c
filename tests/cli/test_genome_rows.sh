#!/usr/bin/env bash
# CLI: --genome compares genome sketches only (from 'tsketch sketch --genome', or sketched from FASTA
# on the fly). A .tsk of sketch rows given with --genome (whole records, slide or anchored windows)
# is refused by dist, triangle, tree and plot before anything is computed: exit 2, a message naming
# the file and saying how to make genome sketches, no output left behind. Without --genome the same
# files give vector distances as before.
#   TSKETCH=... TESTDATA=... bash test_genome_rows.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
D=$TESTDATA/genome

"$T" sketch -q --per-file --canonical -k 3 -s 16 --window 300 --stride 30 "$D"/g00.fa "$D"/g01.fa -o "$WORK/slide.tsk"
"$T" sketch -q --per-file --canonical --anchored -k 4 -s 16 --window 16 --stride 10 "$D"/g00.fa "$D"/g01.fa \
    -o "$WORK/anchored.tsk"
"$T" sketch -q --per-file -k 3 -s 16 "$D"/g00.fa "$D"/g01.fa -o "$WORK/whole.tsk"

# One case a line: command, its options (comma-separated; - for none), then the inputs (names in
# $WORK, or FASTA files of $D). The first input is the .tsk of rows the message must name.
while read -r cmd opts inputs; do
    [ -z "$cmd" ] || [ "${cmd:0:1}" = "#" ] && continue
    args=()
    [ "$opts" = - ] || IFS=, read -r -a args <<<"$opts"
    files=()
    for f in $inputs; do [ -e "$D/$f" ] && files+=("$D/$f") || files+=("$WORK/$f"); done
    first=${inputs%% *}
    desc="$cmd --genome ${args[*]} $inputs"
    rm -f "$WORK"/o.out*
    expect_exit 2 "${first//./\\.}: .*sketch rows.*tsketch sketch --genome" "$desc: refused with exit 2" -- \
        "$T" "$cmd" --genome "${args[@]}" "${files[@]}" -o "$WORK/o.out"
    if ls "$WORK"/o.out* >/dev/null 2>&1; then not_ok "$desc: no output left behind"
    else ok "$desc: no output left behind"; fi
done <<'CASES'
dist      -                 slide.tsk
dist      -                 anchored.tsk
dist      -                 whole.tsk
dist      -p,2,--device,cpu slide.tsk
dist      --top-k,1         anchored.tsk
dist      -d,0.1            slide.tsk
dist      -f,square         anchored.tsk
dist      --containment     slide.tsk
dist      -                 slide.tsk g02.fa
dist      -                 whole.tsk anchored.tsk
triangle  -                 slide.tsk
triangle  -                 anchored.tsk
tree      -                 slide.tsk
tree      -                 anchored.tsk
plot      -                 slide.tsk
plot      --title,x         anchored.tsk
CASES

# the same files without --genome: vector distances, one line per pair
for f in slide anchored whole; do
    expect_exit 0 "" "dist $f.tsk without --genome: the rows' distances" -- "$T" dist -q "$WORK/$f.tsk"
    [ "$(wc -l <"$WORK/out")" = 1 ] && ok "dist $f.tsk: one pair" || not_ok "dist $f.tsk: one pair" "$(cat "$WORK/out")"
done

finish
