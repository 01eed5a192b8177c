# test_perfile: --per-file -l LIST reads its files -p at a time (io/feed_files.c) and must write
# the same rows, names and lengths in list order for every -p, through small batches; the first bad
# file in list order is the one reported, the same for every -p, and no output is left.
. "$(dirname "$0")/harness.sh"

# 40 gzipped and plain genomes of 1-6 records, listed out of name order
src=("$TESTDATA"/genomes/*.fa "$TESTDATA/golden/mixed.fa" "$TESTDATA/golden/acgt.fa")
mkdir -p "$WORK/g"
: >"$WORK/list"
for i in $(seq 40); do
    f="$WORK/g/genome$(( (i * 17) % 41 )).fa"
    cat "${src[$((i % ${#src[@]}))]}" "${src[$(((i * 3) % ${#src[@]}))]}" >"$f"
    if [ $((i % 5)) -ne 0 ]; then gzip -1 "$f" && f="$f.gz"; fi
    echo "$f" >>"$WORK/list"
done

for p in 1 2 3 4 8 16; do
    if TSKETCH_BATCH_BASES=50000 "$TSKETCH" sketch -q --per-file -p "$p" -l "$WORK/list" -o "$WORK/p$p.tsk"; then
        "$TSKETCH" export --format tsv "$WORK/p$p.tsk" >"$WORK/p$p.tsv"
        "$TSKETCH" info --records "$WORK/p$p.tsk" | grep -Ev '^(file|command line)\b' >"$WORK/p$p.info"
    else
        not_ok "--per-file -p $p: sketch failed"
    fi
done
expect_true "--per-file -l: 40 rows named in list order" -- \
    bash -c "cut -f1 '$WORK/p1.tsv' | diff - <(sed 's,.*/,,; s,\.fa\(\.gz\)\?\$,,' '$WORK/list')"
for p in 2 3 4 8 16; do
    expect_same "$WORK/p1.tsv" "$WORK/p$p.tsv" "--per-file -l: rows of -p $p = -p 1"
    expect_same "$WORK/p1.info" "$WORK/p$p.info" "--per-file -l: records (names, sources, lengths) of -p $p = -p 1"
done
TSKETCH_BATCH_BASES=50000 "$TSKETCH" sketch -q --per-file -l "$WORK/list" -p 8 --device cpu -o "$WORK/one.tsk" &&
    "$TSKETCH" export --format tsv "$WORK/one.tsk" >"$WORK/one.tsv"
expect_same "$WORK/p1.tsv" "$WORK/one.tsv" "--per-file -l: one batch or many, same rows"

# a corrupt gzip file (truncated) at place 20, and an empty one at place 30: the first is reported
head -c 300 "$(sed -n 2p "$WORK/list")" >"$WORK/g/bad.fa.gz"
: >"$WORK/g/empty.fa"
awk -v bad="$WORK/g/bad.fa.gz" -v empty="$WORK/g/empty.fa" 'NR == 20 { print bad } NR == 30 { print empty } { print }' \
    "$WORK/list" >"$WORK/badlist"
for p in 1 8; do
    expect_exit 3 'bad\.fa\.gz' "--per-file -l with a corrupt file, -p $p: exit 3 naming it" -- \
        "$TSKETCH" sketch -q --per-file -p "$p" -l "$WORK/badlist" -o "$WORK/bad$p.tsk"
    cp "$WORK/err" "$WORK/bad$p.err"
    expect_true "--per-file -l with a corrupt file, -p $p: no output" -- test ! -e "$WORK/bad$p.tsk"
done
expect_same "$WORK/bad1.err" "$WORK/bad8.err" "--per-file -l with a corrupt file: the same message for -p 1 and 8"
finish
