#!/usr/bin/env bash
# CLI: `tsketch sketch` + `export` reproduce the float64 oracle (golden files of testdata/golden,
# made by its make.sh) in single (1e-5) and double (1e-12) precision, the Tensor Sketch authors'
# reference vectors with --tables, and behave the same for every input form.
#   TSKETCH=... TESTDATA=... TSV_COMPARE=... bash test_sketch.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
GD=$TESTDATA/golden

compare() { # expected got tol desc [extra args]
    local exp=$1 got=$2 tol=$3 desc=$4
    shift 4
    if "$TSV_COMPARE" "$exp" "$got" "$tol" "$@" >"$WORK/cmp" 2>&1; then
        ok "$desc ($(cat "$WORK/cmp"))"
    else
        not_ok "$desc" "$(head -c 600 "$WORK/cmp")"
    fi
}

# 1. every golden case, single and double
while IFS=$'\t' read -r file fasta t dim seed alpha canon w s; do
    case $file in '#'*) continue ;; esac
    args=(-k "$t" -s "$dim" -S "$seed" --alphabet "$alpha")
    [ "$canon" = 1 ] && args+=(--canonical)
    [ "$w" != 0 ] && args+=(--window "$w" --stride "$s")
    for prec in single double; do
        tol=1e-5
        [ $prec = double ] && tol=1e-12
        if "$T" sketch -q "${args[@]}" --precision $prec "$GD/$fasta" -o "$WORK/c.tsk" 2>"$WORK/err" &&
            "$T" export "$WORK/c.tsk" >"$WORK/c.tsv"; then
            compare "$GD/$file" "$WORK/c.tsv" $tol "$file $prec"
        else
            not_ok "$file $prec: sketch failed" "$(cat "$WORK/err")"
        fi
    done
done <"$GD/cases.tsv"

# 2. the authors' reference vectors, with their tables
"$T" sketch -q -k 3 -s 16 --tables "$GD/tables_t3_D16_seed99.txt" --precision double "$GD/acgt.fa" -o "$WORK/ref.tsk"
"$T" export "$WORK/ref.tsk" >"$WORK/ref.tsv"
compare "$GD/reference_ts_t3_D16.tsv" "$WORK/ref.tsv" 1e-12 "reference Tensor Sketch vectors (--tables, double)"
"$T" sketch -q -k 3 -s 16 --tables "$GD/tables_t3_D16_seed99.txt" "$GD/acgt.fa" -o "$WORK/ref1.tsk"
"$T" export "$WORK/ref1.tsk" >"$WORK/ref1.tsv"
compare "$GD/reference_ts_t3_D16.tsv" "$WORK/ref1.tsv" 1e-5 "reference Tensor Sketch vectors (--tables, single)"
"$T" sketch -q -k 3 -s 16 --window 40 --stride 7 --tables "$GD/tables_t3_D16_seed99.txt" --precision double \
    "$GD/acgt.fa" -o "$WORK/tss.tsk"
"$T" export "$WORK/tss.tsk" >"$WORK/tss.tsv"
# the reference names rows "name TAB k"; ours are name:start-end (window 40 ending at 7(k+1))
awk -F'\t' -v OFS='\t' '{e = 7 * ($2 + 1); b = e - 39; if (b < 1) b = 1; $2 = $1 ":" b "-" e; $1 = ""; sub(/^\t/, ""); print}' \
    "$GD/reference_tss_t3_D16_w40_s7.tsv" >"$WORK/tss_ref.tsv"
compare "$WORK/tss_ref.tsv" "$WORK/tss.tsv" 1e-12 "reference Tensor Slide Sketch rows (--tables, double)"
"$T" info --json "$WORK/tss.tsk" | grep -q '"tables": "file"' && ok "info records tables from a file" ||
    not_ok "info records tables from a file"

# 3. input forms give the same rows: plain, gzip, stdin, list, two threads
M=$GD/mixed.fa
"$T" sketch -q "$M" -o "$WORK/plain.tsk" && "$T" export "$WORK/plain.tsk" >"$WORK/plain.tsv"
gzip -c "$M" >"$WORK/m.fa.gz"
"$T" sketch -q "$WORK/m.fa.gz" -o "$WORK/gz.tsk" && "$T" export "$WORK/gz.tsk" >"$WORK/gz.tsv"
expect_same "$WORK/plain.tsv" "$WORK/gz.tsv" "gzip input = plain input"
"$T" sketch -q - -o "$WORK/stdin.tsk" <"$M" && "$T" export "$WORK/stdin.tsk" >"$WORK/stdin.tsv"
expect_same "$WORK/plain.tsv" "$WORK/stdin.tsv" "stdin input = plain input"
gzip -c "$M" | "$T" sketch -q - -o "$WORK/stdingz.tsk" && "$T" export "$WORK/stdingz.tsk" >"$WORK/stdingz.tsv"
expect_same "$WORK/plain.tsv" "$WORK/stdingz.tsv" "gzip on stdin = plain input"
"$T" sketch -q -p 2 "$M" -o "$WORK/p2.tsk" && "$T" export "$WORK/p2.tsk" >"$WORK/p2.tsv"
expect_same "$WORK/plain.tsv" "$WORK/p2.tsv" "2 threads = 1 thread, bit for bit"
"$T" sketch -q "$TESTDATA/io/good.fa" -o "$WORK/good.tsk" && "$T" export "$WORK/good.tsk" >"$WORK/good.tsv"
"$T" sketch -q "$TESTDATA/io/good.fa.bgz" -o "$WORK/bgzf.tsk" && "$T" export "$WORK/bgzf.tsk" >"$WORK/bgzf.tsv"
expect_same "$WORK/good.tsv" "$WORK/bgzf.tsv" "BGZF input = plain input"

G=$TESTDATA/genomes
printf '%s\n' "$G/MT-human.fa" "$G/MT-orang.fa" >"$WORK/list.txt"
"$T" sketch -q -l "$WORK/list.txt" -o "$WORK/list.tsk" && "$T" export "$WORK/list.tsk" | cut -f1 >"$WORK/list.names"
printf 'MT_human\nMT_orang\n' >"$WORK/list.expected"
expect_same "$WORK/list.expected" "$WORK/list.names" "-l LIST reads every path"

# 4. --per-file: records of a file joined in order, named after the file, or -I, or the list name
{ echo ">joined"; grep -v '^>' "$G/sarscov2_6.fa"; } >"$WORK/joined.fa"
"$T" sketch -q "$WORK/joined.fa" -o "$WORK/joined.tsk" && "$T" export "$WORK/joined.tsk" | cut -f2- >"$WORK/joined.v"
"$T" sketch -q --per-file "$G/sarscov2_6.fa" -o "$WORK/pf.tsk" && "$T" export "$WORK/pf.tsk" >"$WORK/pf.tsv"
cut -f2- "$WORK/pf.tsv" >"$WORK/pf.v"
expect_same "$WORK/joined.v" "$WORK/pf.v" "--per-file = the records joined in order"
expect_true "--per-file names the sketch after the file" -- grep -q '^sarscov2_6	' "$WORK/pf.tsv"
"$T" sketch -q --per-file -I sars "$G/sarscov2_6.fa" -o "$WORK/pfi.tsk"
expect_true "-I names the --per-file sketch" -- bash -c "'$T' export '$WORK/pfi.tsk' | grep -q '^sars	'"
printf 'human\t%s\norang\t%s\n' "$G/MT-human.fa" "$G/MT-orang.fa" >"$WORK/named.txt"
"$T" sketch -q --per-file -l "$WORK/named.txt" -o "$WORK/named.tsk"
"$T" export "$WORK/named.tsk" | cut -f1 | tr '\n' ' ' >"$WORK/named.names"
expect_true "NAME<TAB>PATH list names --per-file sketches" -- grep -qx 'human orang ' "$WORK/named.names"
expect_exit 2 "per-file" "-I without --per-file refused" -- "$T" sketch -I x "$M" -o "$WORK/x.tsk"

# 5. info and export
"$T" info --json --records "$WORK/plain.tsk" >"$WORK/info.json"
expect_true "info --json is valid JSON" -- python3 -m json.tool "$WORK/info.json"
expect_true "info --json lists records with lengths" -- grep -q '"clean_length"' "$WORK/info.json"
"$T" export --format npy -o "$WORK/m.npy" "$WORK/plain.tsk"
expect_true "npy magic and header" -- bash -c "head -c 128 '$WORK/m.npy' | grep -aq \"'descr': '<f4', 'fortran_order': False\""
rows=$(wc -l <"$WORK/plain.tsv")
expect_true "npy shape is rows x D" -- bash -c "head -c 128 '$WORK/m.npy' | grep -aq \"'shape': ($rows, 96)\""
hdr=$(($(od -A n -t u2 -j 8 -N 2 "$WORK/m.npy") + 10))
tail -c +$((hdr + 1)) "$WORK/m.npy" | od -A n -v -t f4 -w384 | awk '{printf "r"; for (i = 1; i <= NF; i++) printf "\t%s", $i; print ""}' >"$WORK/npy.tsv"
awk -F'\t' -v OFS='\t' '{$1 = "r"; print}' "$WORK/plain.tsv" >"$WORK/plain_r.tsv"
compare "$WORK/plain_r.tsv" "$WORK/npy.tsv" 1e-6 "npy values = tsv values"
expect_same <(cut -f1 "$WORK/plain.tsv") "$WORK/m.npy.names" "npy names file lists the rows"
"$T" sketch -q --window 50 --stride 25 "$M" -o "$WORK/slide.tsk"
expect_true "slide rows are named record:start-end" -- bash -c "'$T' export '$WORK/slide.tsk' | cut -f1 | grep -q ':26-75$'"

# --slide: the tuned slide-sketch defaults (docs/accuracy.md), each still overridable
"$T" sketch -q --slide "$M" -o "$WORK/sl.tsk" && "$T" info --json "$WORK/sl.tsk" >"$WORK/sl.json"
expect_true "--slide sets t=2 D=32 window 500 stride 50" -- bash -c "grep -q '\"t\": 2,' '$WORK/sl.json' &&
    grep -q '\"dim\": 32,' '$WORK/sl.json' && grep -q '\"window\": 500,' '$WORK/sl.json' && grep -q '\"stride\": 50,' '$WORK/sl.json'"
"$T" sketch -q --slide -k 3 --window 200 "$M" -o "$WORK/sl2.tsk" && "$T" info --json "$WORK/sl2.tsk" >"$WORK/sl2.json"
expect_true "--slide defaults yield to -k and --window" -- bash -c "grep -q '\"t\": 3,' '$WORK/sl2.json' &&
    grep -q '\"window\": 200,' '$WORK/sl2.json' && grep -q '\"stride\": 50,' '$WORK/sl2.json'"

# 6. version and help touch nothing and succeed
expect_exit 0 "" "--version" -- "$T" --version
expect_true "--version is one line" -- bash -c "[ \$('$T' --version | wc -l) -eq 1 ]"
for c in sketch dist triangle paste info export; do
    expect_exit 0 "" "$c -h" -- "$T" $c -h
done
expect_exit 0 "" "help" -- "$T" help

finish
