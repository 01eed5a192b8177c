#!/usr/bin/env bash
# CLI: `tsketch sketch --anchored` (anchored windows, docs/algorithm.md). Its rows are exactly the
# whole-record sketches of the windows that tests/cli/anchor_ref.py (the definition, in Python)
# picks; a window's rows do not depend on where the record starts or on its strand; the .tsk keeps
# anchor k (info, dist refuses to mix it with plain windows); bad options exit 2.
#   TSKETCH=... TESTDATA=... bash test_anchored.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
HERE=$(cd "$(dirname "$0")" && pwd)
PY=$(command -v python3)
G=$TESTDATA/genomes/NC_045512.2.fa
P=(--canonical -k 3 -s 16)

rows_of() { "$T" export "$1" | cut -f2-; }  # the values, without row names

# 1. the reference's windows, sketched whole, are the anchored rows (SARS-CoV-2, N-free; the
# golden mixed input has N, IUPAC and lowercase letters, dropped before anchoring)
for cfg in "8 1000 100 24301" "12 301 40 7" "2 50 50 24301"; do
    set -- $cfg
    for f in "$G" "$TESTDATA/golden/mixed.fa"; do
        "$PY" "$HERE/anchor_ref.py" "$f" "$1" "$2" "$3" "$4" >"$WORK/win.fa"
        "$T" sketch -q "${P[@]}" -S "$4" "$WORK/win.fa" -o "$WORK/ref.tsk" 2>/dev/null
        "$T" sketch -q "${P[@]}" -S "$4" --anchor-k "$1" --window "$2" --stride "$3" "$f" -o "$WORK/a.tsk"
        "$T" export "$WORK/a.tsk" >"$WORK/a.tsv"
        if [ -s "$WORK/win.fa" ]; then "$T" export "$WORK/ref.tsk" >"$WORK/ref.tsv"; else : >"$WORK/ref.tsv"; fi
        expect_same "$WORK/ref.tsv" "$WORK/a.tsv" "$(basename "$f") k=$1 W=$2 S=$3 seed $4: rows = reference windows sketched whole"
    done
done
n=$("$T" info --json "$WORK/a.tsk" | grep -c '"anchor_k": 2')
[ "$n" = 1 ] && ok "info --json reports anchor_k" || not_ok "info --json reports anchor_k"
"$T" info "$WORK/a.tsk" >"$WORK/info.txt"
if grep -qx 'anchored windows	k=2 (stride: their mean spacing)' "$WORK/info.txt" && grep -qx 'window	50' "$WORK/info.txt" &&
    ! grep -q 'one sketch per record' "$WORK/info.txt"; then ok "info names the window and its anchors"
else not_ok "info names the window and its anchors" "$(cat "$WORK/info.txt")"; fi

# 2. place and strand: 137 unrelated bases in front change no window away from the start, and the
# reverse complement gives the same rows in reverse order (canonical rows, even W)
A=(--anchored --window 1000 --stride 100 "${P[@]}")
"$T" sketch -q "${A[@]}" "$G" -o "$WORK/g.tsk" && rows_of "$WORK/g.tsk" >"$WORK/g.rows"
{ echo ">shifted"; head -c 137 /dev/zero | tr '\0' 'A' | sed 's/AAAA/ACGT/g'; grep -v '^>' "$G"; } >"$WORK/s.fa"
"$T" sketch -q "${A[@]}" "$WORK/s.fa" -o "$WORK/s.tsk" && rows_of "$WORK/s.tsk" >"$WORK/s.rows"
if [ "$(wc -l <"$WORK/g.rows")" -gt 250 ] && grep -qxFf "$WORK/g.rows" "$WORK/s.rows" &&
    [ "$(grep -cxFf "$WORK/s.rows" "$WORK/g.rows")" -ge "$(($(wc -l <"$WORK/g.rows") - 12))" ]; then
    ok "a record shifted by 137 bases keeps its anchored rows"
else
    not_ok "a record shifted by 137 bases keeps its anchored rows" "$(wc -l <"$WORK/g.rows") rows, $(grep -cxFf "$WORK/s.rows" "$WORK/g.rows") kept"
fi
{ echo ">rc"; grep -v '^>' "$G" | tr -d '\n' | rev | tr ACGT TGCA; echo; } >"$WORK/rc.fa"
"$T" sketch -q "${A[@]}" "$WORK/rc.fa" -o "$WORK/rc.tsk" && rows_of "$WORK/rc.tsk" | tac >"$WORK/rc.rows"
expect_same "$WORK/g.rows" "$WORK/rc.rows" "reverse complement: the same rows in reverse order"

# 3. the parameter travels with the file
"$T" sketch -q --window 1000 --stride 100 "${P[@]}" "$G" -o "$WORK/plain.tsk"
if "$T" info "$WORK/plain.tsk" | grep -qE 'one sketch per record|anchored'; then
    not_ok "info of plain slide rows names neither anchors nor whole records"
else ok "info of plain slide rows names neither anchors nor whole records"; fi
expect_exit 4 'anchored windows: k=8 in .*, off in' "dist refuses anchored with plain windows" -- \
    "$T" dist "$WORK/g.tsk" "$WORK/plain.tsk"
"$T" sketch -q "${A[@]}" -p 2 "$TESTDATA/golden/mixed.fa" "$G" -o "$WORK/p2.tsk"
"$T" sketch -q "${A[@]}" -p 1 "$TESTDATA/golden/mixed.fa" "$G" -o "$WORK/p1.tsk"
"$T" export "$WORK/p1.tsk" >"$WORK/p1.tsv"
"$T" export "$WORK/p2.tsk" >"$WORK/p2.tsv"
expect_same "$WORK/p1.tsv" "$WORK/p2.tsv" "-p 1 and -p 2 give the same anchored rows"

# 4. bad options
expect_exit 2 'needs? .*window|add --window' "--anchored without a window" -- "$T" sketch --anchored "$G" -o "$WORK/x.tsk"
expect_exit 2 'odd' "--anchor-k 7" -- "$T" sketch --anchor-k 7 --window 100 "$G" -o "$WORK/x.tsk"
expect_exit 2 'dna' "--anchored with protein" -- \
    "$T" sketch --anchored --window 100 --alphabet protein "$TESTDATA/golden/protein.fa" -o "$WORK/x.tsk"
expect_exit 2 'stride 50 exceeds --window 16' "plain windows: a stride beyond the window" -- \
    "$T" sketch --window 16 --stride 50 "$G" -o "$WORK/x.tsk"
[ -e "$WORK/x.tsk" ] && not_ok "no output left after a usage error" || ok "no output left after a usage error"

# 5. anchored windows may be sparser than their length (--stride > --window: one window per 50
# bases on average, 16 bases each); the rows are still the windows' sketches
"$T" sketch -q --anchored --window 16 --stride 50 -k 3 -s 16 "$G" -o "$WORK/sparse.tsk" &&
    ok "--anchored accepts a stride beyond the window" || not_ok "--anchored accepts a stride beyond the window"
"$T" export "$WORK/sparse.tsk" | cut -f2- >"$WORK/sparse.rows"
"$PY" "$HERE/anchor_ref.py" "$G" 8 16 50 0x5EED >"$WORK/sparse.fa"
"$T" sketch -q -k 3 -s 16 "$WORK/sparse.fa" -o "$WORK/sparse_ref.tsk"
"$T" export "$WORK/sparse_ref.tsk" | cut -f2- >"$WORK/sparse_ref.rows"
[ -s "$WORK/sparse.rows" ] && expect_same "$WORK/sparse.rows" "$WORK/sparse_ref.rows" \
    "--stride 50 --window 16: rows = the reference's windows sketched one by one" ||
    not_ok "--stride 50 --window 16: rows"
finish
