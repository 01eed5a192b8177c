#!/usr/bin/env bash
# CLI: the habits users bring (issue 18): no GPU note on a machine or build without a GPU, true
# totals on the progress line, 'help CMD' = 'CMD -h', a reason with every usage error, a warning
# for a Mash-style -s, BGZF for .gz text outputs, and what a distance means in 'dist -h'.
#   TSKETCH=path/to/tsketch TESTDATA=path/to/testdata bash test_habits.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
GD=$TESTDATA/genomes

# ---- the GPU note: never on a machine without a GPU (CI, and this build when it has no CUDA) ----
if [ "$("$T" sketch --device cuda "$GD/NC_001422_phiX174.fa" -o "$WORK/probe.tsk" >/dev/null 2>&1; echo $?)" = 5 ]; then
    "$T" dist "$GD/MT-human.fa" "$GD/MT-orang.fa" "$GD/NC_001422_phiX174.fa" >"$WORK/d.tsv" 2>"$WORK/d.err"
    if [ -s "$WORK/d.err" ]; then not_ok "no GPU: dist sketching two groups says nothing" "$(cat "$WORK/d.err")"
    else ok "no GPU: dist sketching two groups says nothing"; fi
    "$T" sketch "$GD/NC_001422_phiX174.fa" -o "$WORK/s.tsk" 2>"$WORK/s.err"
    if [ -s "$WORK/s.err" ]; then not_ok "no GPU: sketch says nothing" "$(cat "$WORK/s.err")"
    else ok "no GPU: sketch says nothing"; fi
else
    echo "# a GPU is usable here: the no-GPU checks do not apply"
fi

# ---- the progress line (only on a terminal: util-linux 'script' gives it one) ----
# Expected totals from the sketch file itself: records and clean bases.
progress_check() { # desc expected_records tsk -- sketch args...
    local desc=$1 records=$2 tsk=$3
    shift 4
    script -qec "$(printf '%q ' "$T" sketch "$@" -o "$tsk")" /dev/null >"$WORK/tty.out" 2>&1 </dev/null
    local bases want last
    bases=$("$T" info "$tsk" | awk -F'\t' '$1 == "clean length" {print $2}')
    want=$(awk -v r="$records" -v b="$bases" 'BEGIN {printf "%d record%s, %.1f Mbp sketched", r, r == 1 ? "" : "s", b / 1e6}')
    # the last state of the line: the text after the last carriage return before the final newline
    last=$(tr -d '\n' <"$WORK/tty.out" | tr '\r' '\n' | grep 'sketched' | tail -1)
    case "$last" in
    *"$want"*) ok "$desc: '$want'" ;;
    *) not_ok "$desc" "expected '$want'" "last line: '$last'" ;;
    esac
}
if [ "$(script -qec 'test -t 2 && echo tty' /dev/null 2>/dev/null </dev/null | tr -d '\r\n')" = tty ]; then
    progress_check "progress: one batch, 10 records" 10 "$WORK/p1.tsk" -- "$GD"/*.fa
    TSKETCH_BATCH_BASES=20000 progress_check "progress: many batches, 10 records" 10 "$WORK/p2.tsk" -- "$GD"/*.fa
    progress_check "progress: --per-file, 3 files" 3 "$WORK/p3.tsk" -- --per-file "$GD/MT-human.fa" "$GD/MT-orang.fa" "$GD/sarscov2_6.fa"
    progress_check "progress: one record" 1 "$WORK/p4.tsk" -- "$GD/NC_001422_phiX174.fa"
else
    echo "# no pseudo-terminal here (script(1) cannot open one, e.g. no /dev/pts): progress checks skipped"
fi

# ---- help CMD = CMD -h ----
for cmd in $("$T" help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}'); do
    [ "$cmd" = help ] && continue
    "$T" "$cmd" -h >"$WORK/h1" 2>&1
    "$T" help "$cmd" >"$WORK/h2" 2>&1
    expect_same "$WORK/h1" "$WORK/h2" "'tsketch help $cmd' = 'tsketch $cmd -h'"
done
expect_exit 2 "unknown command 'nosuch'" "help of an unknown command: exit 2" -- "$T" help nosuch

# ---- a reason with every usage error: exit 2, and stderr says more than where the help is ----
usage_error() { # regex desc -- command...
    local re=$1 desc=$2
    shift 3
    expect_exit 2 "$re" "$desc" -- "$@"
    if grep -v "^tsketch: see 'tsketch [a-z]* -h' for the options$" "$WORK/err" | grep -q .; then
        ok "$desc: a reason besides the pointer to -h"
    else
        not_ok "$desc: a reason besides the pointer to -h" "stderr: $(cat "$WORK/err")"
    fi
}
for opt in "--block 1/2" "--header" "--top-k 3" "--with-self" "--format tsv" "--max-dist 0.1"; do
    usage_error "triangle: ${opt%% *} is a 'tsketch dist' option" "triangle $opt" -- "$T" triangle $opt "$GD/MT-human.fa"
done
usage_error "invalid option" "triangle -f" -- "$T" triangle -f tsv "$GD/MT-human.fa"
for cmd in sketch dist triangle paste info export; do
    usage_error "unrecognized option '--no-such-option'" "$cmd --no-such-option" -- "$T" "$cmd" --no-such-option x
done
usage_error "requires an argument" "sketch -k without its value" -- "$T" sketch "$GD/MT-human.fa" -o "$WORK/x.tsk" -k
usage_error "no output file" "sketch without -o" -- "$T" sketch "$GD/MT-human.fa"
usage_error "exactly one .tsk" "info without a file" -- "$T" info
usage_error "not I/N" "dist --block 3/2" -- "$T" dist --block 3/2 "$GD/MT-human.fa"

# ---- a dimension that is a Mash habit: warned about, with the reason; the default range is quiet ----
expect_exit 0 "-s/--dim 10000: .*not a Mash-style sketch size" "-s 10000 warns" -- \
    "$T" sketch -s 10000 "$GD/NC_001422_phiX174.fa" -o "$WORK/big.tsk"
"$T" sketch -s 1024 "$GD/NC_001422_phiX174.fa" -o "$WORK/ok.tsk" 2>"$WORK/ok.err"
if grep -q "dim" "$WORK/ok.err"; then not_ok "-s 1024 does not warn" "$(cat "$WORK/ok.err")"; else ok "-s 1024 does not warn"; fi
expect_exit 0 "" "-q silences the -s warning" -- "$T" sketch -q -s 2000 "$GD/NC_001422_phiX174.fa" -o "$WORK/q.tsk"
if [ -s "$WORK/err" ]; then not_ok "-q: stderr empty" "$(cat "$WORK/err")"; else ok "-q: stderr empty"; fi

# ---- .gz text outputs are BGZF (gzip-readable, with the BC extra field) and hold the plain text ----
"$T" sketch "$GD"/*.fa -o "$WORK/g.tsk" 2>/dev/null
is_bgzf() { # file: gzip magic with the FEXTRA flag, then BGZF's 'BC' subfield at byte 12
    [ "$(od -An -tx1 -N4 "$1" | tr -d ' \n')" = 1f8b0804 ] && [ "$(od -An -c -j12 -N2 "$1" | tr -d ' \n')" = BC ]
}
gz_check() { # desc out.gz -- command writing plain text to stdout (the same command gets -o out.gz)
    local desc=$1 out=$2
    shift 3
    "$@" >"$WORK/plain" 2>/dev/null
    "$@" -o "$out" 2>/dev/null
    if ! is_bgzf "$out"; then not_ok "$desc: BGZF" "$(od -An -tx1 -N16 "$out")"; return; fi
    ok "$desc: BGZF"
    gzip -dc "$out" >"$WORK/unz" 2>"$WORK/gz.err" && expect_same "$WORK/plain" "$WORK/unz" "$desc: gzip -dc gives the plain output"
}
gz_check "dist -o x.tsv.gz" "$WORK/d.tsv.gz" -- "$T" dist "$WORK/g.tsk"
gz_check "dist --genome -o x.tsv.gz" "$WORK/dg.tsv.gz" -- "$T" dist --genome "$GD/MT-human.fa" "$GD/MT-orang.fa"
gz_check "triangle -o x.phylip.gz" "$WORK/t.phylip.gz" -- "$T" triangle "$WORK/g.tsk"
gz_check "export -o x.tsv.gz" "$WORK/e.tsv.gz" -- "$T" export "$WORK/g.tsk"
gz_check "dist -f square -o x.gz" "$WORK/sq.gz" -- "$T" dist -f square "$WORK/g.tsk"
"$T" dist "$WORK/g.tsk" -o "$WORK/plain.tsv" 2>/dev/null
if [ "$(od -An -tx1 -N2 "$WORK/plain.tsv" | tr -d ' ')" = 1f8b ]; then not_ok "-o x.tsv stays plain text"; else ok "-o x.tsv stays plain text"; fi

# ---- what a distance means: in dist -h ----
"$T" dist -h >"$WORK/dh"
for phrase in "no unit" "not an ANI" "1 - ANI" "cosine = 1 - cos"; do
    if grep -q -- "$phrase" "$WORK/dh"; then ok "dist -h says '$phrase'"; else not_ok "dist -h says '$phrase'"; fi
done

finish
