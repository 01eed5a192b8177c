#!/usr/bin/env bash
# CLI: loading .tsk inputs. A group (the references, the queries, or the one set of triangle, tree,
# plot and cluster) given as one .tsk uses the file's keys or float rows where they lie in its
# mapping; given as several files (or double rows) they are copied. Both must give the same bytes:
#   1. genome sketches: dist (REF against one query file = against the same genomes split in two),
#      triangle, tree, plot, cluster of one file = of the genomes split in two files; the one-file
#      distances equal the reference's golden files (testdata/genome) and FASTA sketched on the fly
#   2. vector sketches, float and --precision double: the same, and the distances equal the
#      oracle's golden files (testdata/dist, float64 oracle: within 1e-5 relative)
#   3. -p 1 and -p 2 (the checks and copies on several threads) give the same bytes
#   TSKETCH=... TESTDATA=... bash test_load.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
export LC_ALL=C

# oracle_match WANT GOT DESC (vector TSV): same names in the same order, |d - want| <= 1e-5 |want| + 1e-6
oracle_match() {
    if awk -F'\t' 'NR == FNR { a[FNR] = $1; b[FNR] = $2; d[FNR] = $3; n = FNR; next }
        { if (a[FNR] != $1 || b[FNR] != $2) { print "names differ at line " FNR ": " $1 " " $2; bad = 1; exit }
          e = $3 - d[FNR]; if (e < 0) e = -e; t = d[FNR] < 0 ? -d[FNR] : d[FNR]
          if (e > 1e-5 * t + 1e-6) { print "line " FNR ": " $3 " vs " d[FNR]; bad = 1; exit }
          m = FNR }
        END { if (!bad && m != n) { print "line counts " m " vs " n; bad = 1 } exit bad }' "$1" "$2" >"$WORK/om" 2>&1; then
        ok "$3"
    else
        not_ok "$3" "$(head -5 "$WORK/om")"
    fi
}

# same_out DESC -- ARGS-ONE -- ARGS-SPLIT: `tsketch ARGS` prints the same bytes both ways (stdout;
# plot's -o file when the args name OUT)
same_out() {
    local desc=$1
    shift 2
    local one=() split=()
    while [ "$1" != -- ]; do one+=("$1"); shift; done
    shift
    split=("$@")
    "$T" "${one[@]}" >"$WORK/one.out" 2>"$WORK/one.err" || { not_ok "$desc" "one file: $(head -c 300 "$WORK/one.err")"; return; }
    "$T" "${split[@]}" >"$WORK/split.out" 2>"$WORK/split.err" || { not_ok "$desc" "split: $(head -c 300 "$WORK/split.err")"; return; }
    if [ ! -s "$WORK/one.out" ]; then not_ok "$desc" "no output"; return; fi
    expect_same "$WORK/one.out" "$WORK/split.out" "$desc"
}

# ---- 1. genome sketches ----
D=$TESTDATA/genome
G=("$D"/g00.fa "$D"/g01.fa "$D"/g02.fa "$D"/g03.fa)
P=(--genome -k 4 -s 16 --window 20 --anchor-k 12 --scaled 40 --min-keys 200) # testdata/genome/make.sh's
"$T" sketch -q --per-file "${P[@]}" "${G[@]}" -o "$WORK/g.tsk"
"$T" sketch -q --per-file "${P[@]}" "${G[0]}" "${G[1]}" -o "$WORK/ga.tsk"
"$T" sketch -q --per-file "${P[@]}" "${G[2]}" "${G[3]}" -o "$WORK/gb.tsk"
"$T" dist -q --key-distance "$WORK/g.tsk" >"$WORK/g.dist"
golden_match "$D/sets.dist.tsv" "$WORK/g.dist" "genomes: dist of one file = the reference's golden distances"
"$T" dist -q --containment "$WORK/g.tsk" >"$WORK/g.cont"
golden_match "$D/sets.containment.tsv" "$WORK/g.cont" "genomes: --containment of one file = the golden file"
for p in 1 2; do
    same_out "genomes -p $p: dist REF QUERY = dist REF QUERY-split-in-two" -- \
        dist -q -p "$p" "$WORK/g.tsk" "$WORK/g.tsk" -- dist -q -p "$p" "$WORK/g.tsk" "$WORK/ga.tsk" "$WORK/gb.tsk"
    same_out "genomes -p $p: dist --top-k 2 REF QUERY = split queries" -- \
        dist -q -p "$p" --top-k 2 "$WORK/g.tsk" "$WORK/g.tsk" -- dist -q -p "$p" --top-k 2 "$WORK/g.tsk" "$WORK/ga.tsk" "$WORK/gb.tsk"
    same_out "genomes -p $p: dist --containment -d 0.07 REF QUERY = split queries" -- \
        dist -q -p "$p" --containment -d 0.07 "$WORK/g.tsk" "$WORK/g.tsk" -- \
        dist -q -p "$p" --containment -d 0.07 "$WORK/g.tsk" "$WORK/ga.tsk" "$WORK/gb.tsk"
    same_out "genomes -p $p: triangle of one file = of two" -- triangle -q -p "$p" "$WORK/g.tsk" -- \
        triangle -q -p "$p" "$WORK/ga.tsk" "$WORK/gb.tsk"
    same_out "genomes -p $p: tree of one file = of two" -- tree -q -p "$p" "$WORK/g.tsk" -- \
        tree -q -p "$p" "$WORK/ga.tsk" "$WORK/gb.tsk"
    same_out "genomes -p $p: cluster of one file = of two" -- cluster -q -p "$p" -d 0.07 "$WORK/g.tsk" -- \
        cluster -q -p "$p" -d 0.07 "$WORK/ga.tsk" "$WORK/gb.tsk"
done
"$T" plot -q "$WORK/g.tsk" -o "$WORK/g1.svg" && "$T" plot -q "$WORK/ga.tsk" "$WORK/gb.tsk" -o "$WORK/g2.svg"
expect_same "$WORK/g1.svg" "$WORK/g2.svg" "genomes: plot of one file = of two"
# the rows of the one-file run against the copied ones: the all-pairs lines of dist REF QUERY
"$T" dist -q --key-distance "$WORK/g.tsk" "$WORK/ga.tsk" "$WORK/gb.tsk" | awk -F'\t' '$1 < $2' | sort >"$WORK/g.upper"
expect_same <(sort "$WORK/g.dist") "$WORK/g.upper" "genomes: the one set's pairs = those of REF against the split copy"
# genomes sketched on the fly (the pipeline's keys, copied) against their one-file sketch
cat "${G[@]}" >"$WORK/all.fa"
"$T" sketch -q "${P[@]}" "$WORK/all.fa" -o "$WORK/rec.tsk"
same_out "genomes: triangle of the one .tsk = of the FASTA sketched on the fly" -- triangle -q "$WORK/rec.tsk" -- \
    triangle -q "${P[@]}" "$WORK/all.fa"

# ---- 2. vector sketches, float and double ----
V=$TESTDATA/dist
awk '/^>/ { n++ } n <= 3' "$V/real.fa" >"$WORK/ra.fa"
awk '/^>/ { n++ } n > 3' "$V/real.fa" >"$WORK/rb.fa"
for prec in single double; do
    "$T" sketch -q --precision "$prec" "$V/real.fa" -o "$WORK/r_$prec.tsk"
    "$T" sketch -q --precision "$prec" "$WORK/ra.fa" -o "$WORK/ra_$prec.tsk"
    "$T" sketch -q --precision "$prec" "$WORK/rb.fa" -o "$WORK/rb_$prec.tsk"
    whole=$WORK/r_$prec.tsk a=$WORK/ra_$prec.tsk b=$WORK/rb_$prec.tsk
    "$T" dist -q "$whole" >"$WORK/r.l2"
    oracle_match "$V/real.l2.tsv" "$WORK/r.l2" "$prec rows: dist l2 of one file = the oracle's golden file"
    "$T" dist -q --metric cosine "$whole" >"$WORK/r.cos"
    oracle_match "$V/real.cosine.tsv" "$WORK/r.cos" "$prec rows: dist cosine of one file = the oracle's golden file"
    for p in 1 2; do
        same_out "$prec rows -p $p: dist REF QUERY = split queries" -- dist -q -p "$p" "$whole" "$whole" -- \
            dist -q -p "$p" "$whole" "$a" "$b"
        same_out "$prec rows -p $p: dist --metric cosine --top-k 3 REF QUERY = split queries" -- \
            dist -q -p "$p" --metric cosine --top-k 3 "$whole" "$whole" -- dist -q -p "$p" --metric cosine --top-k 3 "$whole" "$a" "$b"
        same_out "$prec rows -p $p: triangle of one file = of two" -- triangle -q -p "$p" "$whole" -- triangle -q -p "$p" "$a" "$b"
        same_out "$prec rows -p $p: tree of one file = of two" -- tree -q -p "$p" "$whole" -- tree -q -p "$p" "$a" "$b"
        same_out "$prec rows -p $p: cluster of one file = of two" -- cluster -q -p "$p" -d 0.05 "$whole" -- \
            cluster -q -p "$p" -d 0.05 "$a" "$b"
    done
    "$T" plot -q "$whole" -o "$WORK/r1.svg" && "$T" plot -q "$a" "$b" -o "$WORK/r2.svg"
    expect_same "$WORK/r1.svg" "$WORK/r2.svg" "$prec rows: plot of one file = of two"
done
# float rows in place and double rows converted: the same float32 values, the same distances
same_out "float rows in place = double rows converted to float (triangle)" -- triangle -q "$WORK/r_single.tsk" -- \
    triangle -q "$WORK/r_double.tsk"
# slide rows (several rows a record) in place = copied
"$T" sketch -q -k 3 -s 16 --window 40 --stride 20 "$V/synth.fa" -o "$WORK/s.tsk"
awk '/^>/ { n++ } n <= 4' "$V/synth.fa" >"$WORK/sa.fa"
awk '/^>/ { n++ } n > 4' "$V/synth.fa" >"$WORK/sb.fa"
"$T" sketch -q -k 3 -s 16 --window 40 --stride 20 "$WORK/sa.fa" -o "$WORK/sa.tsk"
"$T" sketch -q -k 3 -s 16 --window 40 --stride 20 "$WORK/sb.fa" -o "$WORK/sb.tsk"
"$T" dist -q "$WORK/s.tsk" >"$WORK/s.l2"
oracle_match "$V/synth.slide.l2.tsv" "$WORK/s.l2" "slide rows: dist of one file = the oracle's golden file"
same_out "slide rows: triangle of one file = of two" -- triangle -q "$WORK/s.tsk" -- triangle -q "$WORK/sa.tsk" "$WORK/sb.tsk"
same_out "slide rows: dist REF QUERY = split queries" -- dist -q "$WORK/s.tsk" "$WORK/s.tsk" -- \
    dist -q "$WORK/s.tsk" "$WORK/sa.tsk" "$WORK/sb.tsk"

finish
