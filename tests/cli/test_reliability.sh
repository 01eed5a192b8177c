#!/usr/bin/env bash
# CLI: the seven input and output defects of issue 17, one block each (every block failed on the
# code before the fix; block 5 under the sanitizer build, where UBSan stops the run).
#   TSKETCH=path/to/tsketch TESTDATA=path/to/testdata bash test_reliability.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
PATCH="python3 $(cd "$(dirname "$0")" && pwd)/tsk_patch.py"
G=$TESTDATA/genomes/MT-human.fa
cd "$WORK" || exit 1 # a wrong "-o -" must not leave a file where the test runs

printf '>a\nACGTACGTACGTTTGA\n>b\nGGGTACCATTACGATC\n' >"$WORK/two.fa"
no_temp_left() { # desc dir
    if ls "$2"/*.tmp.* >/dev/null 2>&1; then not_ok "$1" "$(ls "$2")"; else ok "$1"; fi
}

# 1. A header-only record before others gets a zero sketch and a warning, as a short record does.
printf '>a\n>b\nACGTACGTAC\n' >"$WORK/e.fa"
printf '>b\nACGTACGTAC\n' >"$WORK/b.fa"
expect_exit 0 "record 'a' has 0 usable characters" "1: empty first record: sketch succeeds with a warning" -- \
    "$T" sketch "$WORK/e.fa" -o "$WORK/e.tsk"
"$T" export "$WORK/e.tsk" >"$WORK/e.tsv" 2>/dev/null
"$T" sketch -q "$WORK/b.fa" -o "$WORK/b.tsk" && "$T" export "$WORK/b.tsk" >"$WORK/b.tsv"
expect_true "1: the empty record's row is zero" -- awk -F'\t' 'NR == 1 { for (i = 2; i <= NF; i++) if ($i != 0) exit 1; exit $1 != "a" }' "$WORK/e.tsv"
tail -n 1 "$WORK/e.tsv" >"$WORK/e_b.tsv"
expect_same "$WORK/e_b.tsv" "$WORK/b.tsv" "1: the record after it has its own sketch"
expect_exit 0 "" "1: empty first record from stdin" -- "$T" sketch -q - -o "$WORK/e2.tsk" <"$WORK/e.fa"
expect_exit 0 "" "1: empty first record with 4 parse threads" -- env TSKETCH_PARSE_THREADS=4 "$T" sketch -q "$WORK/e.fa" -o "$WORK/e3.tsk"
expect_exit 0 "" "1: empty first record in dist FASTA" -- "$T" dist -q "$WORK/e.fa"
expect_true "1: dist prints the pair" -- grep -q "^a	b	" "$WORK/out"

# 2. -o naming an input is refused before anything is read or written (by device and inode).
cp "$WORK/two.fa" "$WORK/in.fa" && cp "$WORK/two.fa" "$WORK/in.orig"
ln -s "$WORK/in.fa" "$WORK/link.fa"
ln "$WORK/in.fa" "$WORK/hard.fa"
"$T" sketch -q "$WORK/two.fa" -o "$WORK/a.tsk" && cp "$WORK/a.tsk" "$WORK/a.orig"
expect_exit 2 "in\.fa.*is also an input" "2: sketch -o INPUT" -- "$T" sketch -q "$WORK/in.fa" -o "$WORK/in.fa"
expect_exit 2 "link\.fa.*is also the input" "2: sketch -o a symbolic link to the input" -- "$T" sketch -q "$WORK/in.fa" -o "$WORK/link.fa"
expect_exit 2 "hard\.fa.*is also the input" "2: sketch -o a hard link to the input" -- "$T" sketch -q "$WORK/in.fa" -o "$WORK/hard.fa"
printf '%s\n' "$WORK/in.fa" >"$WORK/list.txt" && cp "$WORK/list.txt" "$WORK/list.orig"
expect_exit 2 "list\.txt.*is also an input" "2: sketch -o the -l list" -- "$T" sketch -q -l "$WORK/list.txt" -o "$WORK/list.txt"
expect_same "$WORK/in.fa" "$WORK/in.orig" "2: the FASTA input is intact"
expect_same "$WORK/list.txt" "$WORK/list.orig" "2: the list is intact"
expect_exit 2 "a\.tsk.*is also an input" "2: dist -o INPUT" -- "$T" dist -q "$WORK/a.tsk" -o "$WORK/a.tsk"
expect_exit 2 "a\.tsk.*is also an input" "2: dist -o the query" -- "$T" dist -q "$WORK/two.fa" "$WORK/a.tsk" -o "$WORK/a.tsk"
expect_exit 2 "a\.tsk.*is also an input" "2: triangle -o INPUT" -- "$T" triangle -q "$WORK/a.tsk" -o "$WORK/a.tsk"
expect_exit 2 "a\.tsk.*is also an input" "2: export -o INPUT" -- "$T" export "$WORK/a.tsk" -o "$WORK/a.tsk"
expect_exit 2 "is also an input" "2: paste OUT = IN" -- "$T" paste -q "$WORK/a.tsk" "$WORK/a.tsk"
expect_same "$WORK/a.tsk" "$WORK/a.orig" "2: the .tsk input is intact"

# 3. export on a full disk: the reason, and no temporary file (the tmpfs part is in test_faults.sh).
expect_exit 1 "/dev/full: write failed: No space left on device" "3: export -o /dev/full says why" -- \
    "$T" export "$WORK/a.tsk" -o /dev/full
expect_exit 1 "No space left on device" "3: export to a full standard output says why" -- \
    sh -c '"$0" export "$1" >/dev/full' "$T" "$WORK/a.tsk"

# 4. Outputs that cannot seek: standard output, /dev/null, /dev/full, a FIFO.
"$T" export "$WORK/a.tsk" >"$WORK/a.tsv"
expect_exit 0 "" "4: sketch -o - writes the .tsk to stdout" -- "$T" sketch -q "$WORK/two.fa" -o -
cp "$WORK/out" "$WORK/stdout.tsk"
"$T" export "$WORK/stdout.tsk" >"$WORK/stdout.tsv" 2>&1
expect_same "$WORK/stdout.tsv" "$WORK/a.tsv" "4: the stdout .tsk holds the same rows"
expect_true "4: no file named '-'" -- test ! -e ./-
expect_exit 0 "" "4: sketch -o /dev/null" -- "$T" sketch -q "$WORK/two.fa" -o /dev/null
expect_exit 1 "/dev/full: write failed: No space left on device" "4: sketch -o /dev/full fails with the reason" -- \
    "$T" sketch -q "$WORK/two.fa" -o /dev/full
expect_exit 0 "" "4: dist -f npy -o /dev/null" -- "$T" dist -q -f npy "$WORK/a.tsk" -o /dev/null
mkfifo "$WORK/fifo"
cat "$WORK/fifo" >"$WORK/fifo.tsk" &
expect_exit 0 "" "4: sketch -o FIFO" -- "$T" sketch -q "$WORK/two.fa" -o "$WORK/fifo"
wait
"$T" export "$WORK/fifo.tsk" >"$WORK/fifo.tsv" 2>&1
expect_same "$WORK/fifo.tsv" "$WORK/a.tsv" "4: the FIFO's reader gets the .tsk"
expect_true "4: the FIFO is still a FIFO" -- test -p "$WORK/fifo"
no_temp_left "4: no temporary file beside the FIFO" "$WORK"

# 5. Parameters are bounded to what the arithmetic holds; empty row sets copy nothing (UBSan).
expect_exit 2 "window.*outside 1\.\.4294967296" "5: --window beyond 2^32 is refused" -- \
    "$T" sketch -q --window 4294967297 "$WORK/two.fa" -o "$WORK/w.tsk"
expect_exit 2 "stride.*outside 1\.\.4294967296" "5: --stride beyond 2^32 is refused" -- \
    "$T" sketch -q --anchored --window 16 --stride 4294967297 "$WORK/two.fa" -o "$WORK/w.tsk"
expect_exit 0 "" "5: --window 2^32 (no rows)" -- "$T" sketch -q --window 4294967296 "$WORK/two.fa" -o "$WORK/w.tsk"
expect_exit 0 "" "5: --anchored --window 2^32 --stride 1 (no rows)" -- \
    "$T" sketch -q --anchored --window 4294967296 --stride 1 "$WORK/two.fa" -o "$WORK/w.tsk"
expect_exit 0 "" "5: dist of records without rows" -- "$T" dist -q --window 100 "$WORK/two.fa" "$G"
expect_exit 0 "" "5: info of a file without rows" -- "$T" info "$WORK/w.tsk"

# 6. Names as they are; values that are not numbers refused.
printf '>caf\xe9\xff\x80\nACGTACGTAC\n>ok\xc3\xa9\nACGTTTGA\n' >"$WORK/latin1.fa"
"$T" sketch -q "$WORK/latin1.fa" -o "$WORK/latin1.tsk"
expect_true "6: info --json is valid JSON for non-UTF-8 names" -- sh -c \
    '"$0" info --json --records "$1" | python3 -c "import json,sys; d=json.loads(sys.stdin.buffer.read().decode(\"utf-8\")); n=[r[\"name\"] for r in d[\"record_list\"]]; assert n == [\"caf\\ufffd\\ufffd\\ufffd\", \"ok\\u00e9\"], n"' \
    "$T" "$WORK/latin1.tsk"
long=$(head -c 5000 /dev/zero | tr '\0' 'x')
printf '>%s\nACGTACGTAC\n' "$long" >"$WORK/long.fa"
"$T" sketch -q "$WORK/long.fa" -o "$WORK/long.tsk"
expect_true "6: export writes a 5000-character name whole" -- sh -c \
    '"$0" export "$1" | cut -f1 | grep -qx "$2"' "$T" "$WORK/long.tsk" "$long"
expect_true "6: export npy names too" -- sh -c \
    '"$0" export -f npy "$1" -o "$2/long.npy" && grep -qx "$3" "$2/long.npy.names"' "$T" "$WORK/long.tsk" "$WORK" "$long"
for v in nan inf -inf; do
    $PATCH "$WORK/a.tsk" "$WORK/bad_$v.tsk" value 1 5 "$v"
    expect_exit 3 "bad_$v\.tsk: record 'b' holds a NaN or infinite value" "6: dist refuses a $v value" -- "$T" dist -q "$WORK/bad_$v.tsk"
done
expect_exit 3 "NaN or infinite" "6: triangle refuses a NaN" -- "$T" triangle -q "$WORK/bad_nan.tsk"
expect_exit 3 "NaN or infinite" "6: dist --top-k refuses a NaN" -- "$T" dist -q --top-k 1 "$WORK/a.tsk" "$WORK/bad_nan.tsk"
expect_exit 3 "NaN or infinite" "6: export refuses a NaN" -- "$T" export "$WORK/bad_nan.tsk"
$PATCH "$WORK/a.tsk" "$WORK/fine.tsk" value 1 5 1e30
expect_exit 0 "" "6: a large finite value is fine" -- "$T" dist -q "$WORK/fine.tsk"

# 7. Names: --per-file refuses two files of one name; empty and repeated names are warned about.
mkdir -p "$WORK/s1" "$WORK/s2"
cp "$WORK/two.fa" "$WORK/s1/contigs.fasta" && cp "$G" "$WORK/s2/contigs.fasta"
expect_exit 3 "s1/contigs\.fasta and .*s2/contigs\.fasta would both be named 'contigs'" \
    "7: --per-file with two files of one stem" -- "$T" sketch -q --per-file "$WORK"/s*/contigs.fasta -o "$WORK/c.tsk"
expect_true "7: no output" -- test ! -e "$WORK/c.tsk"
expect_exit 3 "would both be named 'contigs'" "7: triangle --per-file too" -- \
    "$T" triangle -q --per-file "$WORK"/s*/contigs.fasta
printf 's1\t%s\ns2\t%s\n' "$WORK/s1/contigs.fasta" "$WORK/s2/contigs.fasta" >"$WORK/named.txt"
expect_exit 0 "" "7: a list names them apart" -- "$T" sketch -q --per-file -l "$WORK/named.txt" -o "$WORK/c.tsk"
printf '>\nACGTACGTAC\n>x\nACGTTTGACC\n' >"$WORK/noname.fa"
expect_exit 0 "record 1 has an empty name" "7: sketch warns about an empty name" -- "$T" sketch "$WORK/noname.fa" -o "$WORK/n.tsk"
expect_exit 0 "1 record with an empty name" "7: triangle warns about an empty name" -- "$T" triangle "$WORK/n.tsk"
expect_exit 0 "2 records repeat a name of another \(e\.g\. 'a'\)" "7: triangle warns about a repeated name" -- \
    "$T" triangle "$WORK/two.fa" "$WORK/e.fa"
expect_exit 0 "" "7: --quiet silences it" -- "$T" triangle -q "$WORK/two.fa" "$WORK/e.fa"
expect_true "7: ... and stderr is empty" -- test ! -s "$WORK/err"

finish
