#!/bin/bash
# test_option_checks.sh: options checked before any work (issue #32, items 3, 4, 6, 9, 10, 13):
# genome sketch parameters that make keys meaningless refused, sketch parameters of genome .tsk
# inputs compared, -o checked first in every command that writes, stdin given once, number ranges
# in messages, -p capped at the CPUs, each command's help listing what it takes, --metric and
# --precision double and -s out of range refused with genome sketches, a progress line on a
# terminal.
# Usage: TSKETCH=... TESTDATA=... bash test_option_checks.sh
source "$(dirname "$0")/harness.sh"
T=$(cd "$(dirname "$TSKETCH")" && pwd)/$(basename "$TSKETCH") # absolute: the checks run in $WORK
D=$(cd "$TESTDATA/genome" && pwd)
cd "$WORK" || exit 1

"$T" sketch -q --genome --per-file "$D/g00.fa" "$D/g01.fa" -o G.tsk
"$T" sketch -q "$D/g00.fa" -o V.tsk

# ---- 3. genome sketch bounds ----
expect_exit 2 "window 8 is too short.*at least 18" "3: --genome --window 8 refused (unrelated genomes would share keys)" -- \
    "$T" sketch --genome --window 8 "$D/g00.fa" -o x.tsk
expect_exit 2 "window 4 is too short.*at least 18" "3: --genome --window 4 refused" -- \
    "$T" sketch --genome --window 4 "$D/g00.fa" -o x.tsk
expect_exit 2 "anchor-k 2 is too short.*at least 8" "3: --genome --anchor-k 2 refused" -- \
    "$T" sketch --genome --anchor-k 2 "$D/g00.fa" -o x.tsk
expect_exit 2 "anchor-k 6 is too short" "3: dist --genome --anchor-k 6 refused" -- \
    "$T" dist --genome --anchor-k 6 "$D/g00.fa" "$D/g01.fa"
expect_exit 0 "warning: --window 18 is short for large genomes.*0\.029" "3: --window 18 legal, with a warning" -- \
    "$T" sketch --genome --window 18 "$D/g00.fa" -o w18.tsk
expect_exit 0 "warning: --anchor-k 12 is small" "3: --anchor-k 12 legal, with a warning" -- \
    "$T" sketch --genome --anchor-k 12 "$D/g00.fa" -o a12.tsk
"$T" sketch -q --genome --anchored "$D/g00.fa" -o anch.tsk
"$T" info --json anch.tsk | grep -q '"anchor_k": *16' && ok "3: --genome --anchored keeps the genome anchor k (16, not 8)" ||
    not_ok "3: --genome --anchored keeps the genome anchor k (16, not 8)" "$("$T" info --json anch.tsk | grep -o '"anchor_k": *[0-9]*')"
"$T" sketch --genome "$D/g00.fa" -o def.tsk 2>def.err
[ ! -s def.err ] && ok "3: the defaults warn of nothing" || not_ok "3: the defaults warn of nothing" "$(cat def.err)"

# ---- 4. genome parameters given to dist ----
"$T" dist -q --genome G.tsk "$D/g02.fa" >plain.tsv
expect_exit 4 "min keys.*5.*12000 in G.tsk" "4: dist --genome --min-keys 5 G.tsk S.fa: exit 4 naming min keys" -- \
    "$T" dist --genome --min-keys 5 G.tsk "$D/g02.fa"
"$T" dist -q --genome --min-keys 12000 G.tsk "$D/g02.fa" >same.tsv
expect_same plain.tsv same.tsv "4: --min-keys equal to the file's: the same distances"
expect_exit 4 "scaled: 100 .* 500 in G.tsk" "4: dist --scaled 100 G.tsk: exit 4, the file's scaled differs" -- \
    "$T" dist --scaled 100 G.tsk
grep -q "add --genome" "$WORK/err" && not_ok "4: no 'add --genome' for genome sketches" || ok "4: no 'add --genome' for genome sketches"
expect_exit 2 "add --genome" "4: --scaled with sketch rows still says add --genome" -- "$T" dist --scaled 100 V.tsk

# ---- 6. outputs checked first ----
for cmd in dist triangle tree plot; do
    expect_exit 2 "missing/x: the directory .*missing does not exist" "6: $cmd -o missing/x refused first" -- \
        "$T" "$cmd" -o "$WORK/missing/x" G.tsk
    expect_exit 2 "empty file name" "6: $cmd -o '' refused" -- "$T" "$cmd" -o '' G.tsk
done
expect_exit 2 "does not exist" "6: sketch -o missing/x.tsk" -- "$T" sketch -o "$WORK/missing/x.tsk" "$D/g00.fa"
expect_exit 2 "empty file name" "6: sketch -o ''" -- "$T" sketch -o '' "$D/g00.fa"
expect_exit 2 "does not exist" "6: export -o missing/x" -- "$T" export -o "$WORK/missing/x" G.tsk
expect_exit 2 "empty file name" "6: export -o ''" -- "$T" export -o '' G.tsk
expect_exit 2 "does not exist" "6: paste missing/x.tsk (its OUT)" -- "$T" paste "$WORK/missing/x.tsk" V.tsk V.tsk
expect_exit 2 "empty file name" "6: paste '' (its OUT)" -- "$T" paste '' V.tsk V.tsk
if [ "$(id -u)" != 0 ]; then
    mkdir ro && chmod 555 ro
    expect_exit 2 "ro is not writable" "6: -o in a read-only directory" -- "$T" tree -o ro/t.nwk G.tsk
fi
[ ! -e missing ] && ok "6: nothing created" || not_ok "6: nothing created"

# ---- 9. standard input once ----
for cmd in dist triangle tree plot; do
    expect_exit 2 "standard input is given more than once" "9: $cmd --genome - - refused" -- \
        sh -c "\"$T\" $cmd --genome - - <\"$D/g00.fa\" >/dev/null"
done
expect_exit 2 "standard input is given more than once" "9: sketch --genome - - refused" -- \
    sh -c "\"$T\" sketch --genome - - -o x.tsk <\"$D/g00.fa\""
expect_exit 2 "standard input is given more than once" "9: dist - (FASTA) and -l naming - too" -- \
    sh -c "printf -- '-\\n' >stdin.list; \"$T\" dist - -l stdin.list <\"$D/g00.fa\" >/dev/null"

# ---- 10. number ranges ----
expect_exit 2 "scaled: 18446744073709551615 is outside 1\.\.4294967296" "10: --scaled 2^64-1: out of range, the range" -- \
    "$T" sketch --genome --scaled 18446744073709551615 "$D/g00.fa" -o x.tsk
expect_exit 2 "scaled: 2305843009213693951 is outside 1\.\.4294967296" "10: --scaled 2^61-1: out of the advertised range" -- \
    "$T" sketch --genome --scaled 2305843009213693951 "$D/g00.fa" -o x.tsk
"$T" sketch -h | grep -q "1\.\.4294967296" && ok "10: the help gives --scaled's range" || not_ok "10: the help gives --scaled's range"
expect_exit 0 "" "10: --scaled 4294967296 (the top of the range) works" -- \
    "$T" sketch -q --genome --min-keys 100 --scaled 4294967296 "$D/g00.fa" -o top.tsk

# ---- 13. -p, help texts, options that do not apply to genome sketches, progress ----
cpus=$(getconf _NPROCESSORS_ONLN)
expect_exit 0 "-p 4096: capped at the $cpus online CPUs" "13: -p 4096 capped, with a note" -- \
    "$T" dist -p 4096 G.tsk -o p4096.tsv
"$T" dist -q -p 1 G.tsk -o p1.tsv
expect_same p1.tsv p4096.tsv "13: -p 4096 gives -p 1's bytes"
"$T" dist -q -p 4096 G.tsk 2>q.err >/dev/null
[ ! -s q.err ] && ok "13: -q: no note of the cap" || not_ok "13: -q: no note of the cap" "$(cat q.err)"
for cmd in triangle tree plot; do
    "$T" "$cmd" -h >h.txt
    grep -q -- "--containment" h.txt && not_ok "13: $cmd -h lists no --containment" || ok "13: $cmd -h lists no --containment"
    awk '/^Genome distances/ { g = 1 } g && /^$/ { g = 0 } g' h.txt | grep -qE -- "-o, --output|-q, --quiet|-h, --help" &&
        not_ok "13: $cmd -h: -o/-q/-h not under Genome distances" || ok "13: $cmd -h: -o/-q/-h not under Genome distances"
done
"$T" dist -h | grep -q -- "--containment" && ok "13: dist -h lists --containment" || not_ok "13: dist -h lists --containment"
for m in l2 cosine; do
    expect_exit 2 "metric.*does not apply" "13: --metric $m refused with genome sketches (.tsk)" -- "$T" dist --metric "$m" G.tsk
    expect_exit 2 "metric.*does not apply" "13: --metric $m refused with --genome" -- "$T" tree --genome --metric "$m" "$D/g00.fa"
done
expect_exit 2 "precision double has no effect" "13: --genome --precision double refused" -- \
    "$T" sketch --genome --precision double "$D/g00.fa" -o x.tsk
expect_exit 2 "dim 65536 does not fit genome sketches: 8\.\.64" "13: --genome -s 65536 refused" -- \
    "$T" sketch --genome -s 65536 "$D/g00.fa" -o x.tsk
expect_exit 2 "dim 2 does not fit" "13: --genome -s 2 refused" -- "$T" dist --genome -s 2 "$D/g00.fa"
# progress: one line rewritten with \r on a terminal (script gives one), cleared at the end; none through a pipe
python3 -c '
import random
random.seed(5)
for i in range(400):
    print(">r%d\n%s" % (i, "".join(random.choice("ACGT") for _ in range(300))))' >many.fa
"$T" sketch -q many.fa -o many.tsk
script -qec "\"$T\" dist many.tsk -o tty.tsv" /dev/null >tty.log 2>&1
grep -aq "pairs (.*%)" tty.log && ok "13: dist on a terminal shows progress" || not_ok "13: dist on a terminal shows progress" "$(head -c 300 tty.log | od -c | head -5)"
grep -aq $'\r\033\\[K' tty.log && ok "13: the progress line is cleared at the end" || not_ok "13: the progress line is cleared at the end"
script -qec "\"$T\" dist -q many.tsk -o ttyq.tsv" /dev/null >ttyq.log 2>&1
[ ! -s ttyq.log ] && ok "13: -q: no progress" || not_ok "13: -q: no progress" "$(head -c 200 ttyq.log | od -c | head -3)"
"$T" dist many.tsk -o pipe.tsv 2>pipe.err
[ ! -s pipe.err ] && ok "13: stderr not a terminal: no progress" || not_ok "13: stderr not a terminal: no progress" "$(head -c 200 pipe.err)"
expect_same pipe.tsv tty.tsv "13: the distances are the same with the progress line"
script -qec "\"$T\" dist many.tsk" /dev/null >ttyout.log 2>&1
grep -aq "pairs (" ttyout.log && not_ok "13: no progress line among distances written to the same terminal" ||
    ok "13: no progress line among distances written to the same terminal"
script -qec "\"$T\" tree many.tsk -o tty.nwk" /dev/null >tree.log 2>&1
grep -aq "pairs (.*%)" tree.log && ok "13: tree on a terminal shows progress" || not_ok "13: tree on a terminal shows progress"

finish
