#!/usr/bin/env bash
# CLI: `tsketch dist --genome` (and `triangle --genome`) on .tsk files of slide rows reproduce the
# float64 reference testdata/genome/genome_ref.py (golden files made by testdata/genome/make.sh), for
# plain windows (nearest rows) and anchored ones (shared windows), genomes as files (--per-file,
# multi-contig) and as records; both strands; every output form; bad input. (FASTA given with
# --genome now makes genome sketches: test_genome_sets.sh; the rows here are sketched first.)
#   TSKETCH=... TESTDATA=... bash test_genome.sh
. "$(dirname "$0")/harness.sh"
T=$TSKETCH
D=$TESTDATA/genome
P=(--canonical -k 3 -s 16 --window 300 --stride 30)

# pairs_match EXPECTED GOT DESC: same set of "a TAB b" pairs (either order), distances within 1e-6
# relative (float32 output of a float64 computation)
pairs_match() {
    if awk -F'\t' -v OFS='\t' '
        function key(a, b) { return a < b ? a SUBSEP b : b SUBSEP a }
        NR == FNR { want[key($1, $2)] = $3; n++; next }
        $1 == "reference" { next }
        { k = key($1, $2); if (!(k in want)) { print "unexpected pair " $1 " " $2; bad = 1; next }
          d = $3 - want[k]; if (d < 0) d = -d
          if (d > 1e-6 * (want[k] < 0 ? -want[k] : want[k]) + 1e-12) { print $1, $2, $3, "want", want[k]; bad = 1 }
          seen++ }
        END { if (seen != n) { print seen " pairs, want " n; bad = 1 } exit bad }' "$1" "$2" >"$WORK/pm" 2>&1; then
        ok "$3"
    else
        not_ok "$3" "$(head -5 "$WORK/pm")"
    fi
}

# phylip lower triangle -> pairs "name_i TAB name_j TAB d"
phylip_pairs() {
    awk -F'\t' 'NR == 1 { next } { name[NR] = $1; for (j = 2; j <= NF; j++) print name[j] "\t" $1 "\t" $j }' "$1"
}

# 1. genomes as files: multi-contig FASTA joined with --per-file
"$T" sketch -q --per-file "${P[@]}" "$D"/g00.fa "$D"/g01.fa "$D"/g02.fa "$D"/g03.fa -o "$WORK/f.tsk"
"$T" dist -q --genome "$WORK/f.tsk" >"$WORK/f.tsv"
pairs_match "$D/perfile.golden.tsv" "$WORK/f.tsv" "--genome on --per-file sketches = reference"
"$T" dist -q --genome -p 3 "$WORK/f.tsk" >"$WORK/f3.tsv"
expect_same "$WORK/f.tsv" "$WORK/f3.tsv" "--genome: 3 threads give the same bytes as 1"
"$T" triangle -q --genome "$WORK/f.tsk" >"$WORK/f.phy"
phylip_pairs "$WORK/f.phy" >"$WORK/fphy.tsv"
pairs_match "$D/perfile.golden.tsv" "$WORK/fphy.tsv" "triangle --genome on slide rows = reference"
"$T" dist -q --genome -f square "$WORK/f.tsk" >"$WORK/f.sq"
awk -F'\t' 'NR == 1 { for (j = 2; j <= NF; j++) c[j] = $j; next }
    { for (j = 2; j <= NF; j++) if ($1 < c[j]) print $1 "\t" c[j] "\t" $j }' "$WORK/f.sq" >"$WORK/fsq.tsv"
pairs_match "$D/perfile.golden.tsv" "$WORK/fsq.tsv" "--genome -f square = reference"
awk -F'\t' 'NR > 1 { for (j = 2; j <= NF; j++) if (j - 1 == NR - 1 && $j != 0) bad = 1 } END { exit bad }' "$WORK/f.sq" &&
    ok "--genome -f square: 0 on the diagonal" || not_ok "--genome -f square: 0 on the diagonal"

# 2. genomes as records (the contigs of one file), with --header and -o
"$T" sketch -q "${P[@]}" "$D/g00.fa" -o "$WORK/c.tsk"
"$T" dist -q --genome --header "$WORK/c.tsk" -o "$WORK/c.tsv"
head -1 "$WORK/c.tsv" | grep -q "^reference	query	distance$" && ok "--genome --header" || not_ok "--genome --header"
pairs_match "$D/contigs.golden.tsv" "$WORK/c.tsv" "--genome on records (contigs) = reference"

# 3. references x queries: g00 and g01 as references, g02 and g03 as queries
"$T" sketch -q --per-file "${P[@]}" "$D"/g00.fa "$D"/g01.fa -o "$WORK/r.tsk"
"$T" sketch -q --per-file "${P[@]}" "$D"/g02.fa "$D"/g03.fa -o "$WORK/q.tsk"
"$T" dist -q --genome "$WORK/r.tsk" "$WORK/q.tsk" >"$WORK/rq.tsv"
grep -E "^g0[01]	g0[23]	" "$D/perfile.golden.tsv" >"$WORK/rq.want"
pairs_match "$WORK/rq.want" "$WORK/rq.tsv" "--genome references x queries = reference"
"$T" dist -q --genome -d 0.03 "$WORK/r.tsk" "$WORK/q.tsk" >"$WORK/rqd.tsv"
[ "$(awk -F'\t' '$3 > 0.03' "$WORK/rqd.tsv" | wc -l)" -eq 0 ] && [ "$(wc -l <"$WORK/rqd.tsv")" -eq \
    "$(awk -F'\t' '$3 <= 0.03' "$WORK/rq.want" | wc -l)" ] && ok "--genome -d keeps exactly the pairs <= X" ||
    not_ok "--genome -d keeps exactly the pairs <= X" "$(cat "$WORK/rqd.tsv")"

# 4. both strands: a genome and its reverse complement (length a multiple of the stride, so the
# windows are the same ones) are at distance exactly 0; a rotated copy (another start) is close
awk '!/^>/ { s = s $0 } END { print ">fwd"; print substr(s, 1, 30 * int(length(s) / 30)) }' "$D/g01.fa" >"$WORK/fwd.fa"
awk 'NR == 2 { n = length($0); r = ""; for (i = n; i >= 1; i--) r = r substr($0, i, 1)
    gsub(/A/, "t", r); gsub(/C/, "g", r); gsub(/G/, "c", r); gsub(/T/, "a", r); print ">rev"; print toupper(r) }' \
    "$WORK/fwd.fa" >"$WORK/rev.fa"
cat "$WORK/fwd.fa" "$WORK/rev.fa" >"$WORK/strands.fa"
"$T" sketch -q "${P[@]}" "$WORK/strands.fa" -o "$WORK/strands.tsk"
"$T" dist -q --genome "$WORK/strands.tsk" >"$WORK/strands.tsv"
[ "$(cut -f3 "$WORK/strands.tsv")" = 0 ] && ok "--genome: reverse complement at distance 0" ||
    not_ok "--genome: reverse complement at distance 0" "$(cat "$WORK/strands.tsv")"
"$T" sketch -q -k 3 -s 16 --window 300 --stride 30 "$WORK/strands.fa" -o "$WORK/strands_nc.tsk"
"$T" dist -q --genome "$WORK/strands_nc.tsk" >"$WORK/strands_nc.tsv" 2>/dev/null
awk -F'\t' '{ exit !($3 > 0) }' "$WORK/strands_nc.tsv" && ok "--genome without --canonical: strands differ" ||
    not_ok "--genome without --canonical: strands differ" "$(cat "$WORK/strands_nc.tsv")"
"$T" dist --genome "$WORK/strands_nc.tsk" 2>&1 >/dev/null | grep -q "not --canonical" &&
    ok "--genome warns when rows are not canonical" || not_ok "--genome warns when rows are not canonical"

# 5. anchored rows: the share of shared windows (1 - f^(1/W)), against the reference's golden file;
# a genome shares every window with its reverse complement; the distance ranks the four genomes'
# pairs as their simulated ANI does
A=(--canonical --anchored -k 4 -s 16 --window 16 --stride 10)
"$T" sketch -q --per-file "${A[@]}" "$D"/g00.fa "$D"/g01.fa "$D"/g02.fa "$D"/g03.fa -o "$WORK/a.tsk"
"$T" dist -q --genome "$WORK/a.tsk" >"$WORK/a.tsv"
pairs_match "$D/anchored.golden.tsv" "$WORK/a.tsv" "--genome on anchored rows = reference (shared windows)"
"$T" dist -q --genome -p 3 "$WORK/a.tsk" >"$WORK/a3.tsv"
expect_same "$WORK/a.tsv" "$WORK/a3.tsv" "--genome, anchored rows: 3 threads give the same bytes as 1"
"$T" triangle -q --genome "$WORK/a.tsk" >"$WORK/a.phy"
phylip_pairs "$WORK/a.phy" >"$WORK/aphy.tsv"
pairs_match "$D/anchored.golden.tsv" "$WORK/aphy.tsv" "triangle --genome on anchored rows = the anchored reference"
"$T" sketch -q "${A[@]}" "$WORK/strands.fa" -o "$WORK/astrands.tsk"
"$T" dist -q --genome "$WORK/astrands.tsk" >"$WORK/astrands.tsv"
[ "$(cut -f3 "$WORK/astrands.tsv")" = 0 ] && ok "--genome, anchored rows: reverse complement at distance 0" ||
    not_ok "--genome, anchored rows: reverse complement at distance 0" "$(cat "$WORK/astrands.tsv")"
paste <(sort "$D/truth.tsv") <(sort "$WORK/a.tsv") | awk -F'\t' '
    { ani[NR] = $3; d[NR] = $6; n = NR }
    END { for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) if (ani[i] > ani[j] && d[i] >= d[j]) bad = 1; exit bad }' &&
    ok "--genome on anchored rows ranks the pairs as their ANI does" || not_ok "--genome on anchored rows ranks the pairs as their ANI does"

# 6. errors: exit code, message naming the file, no output left behind
"$T" sketch -q -k 3 -s 16 "$D/g00.fa" -o "$WORK/whole.tsk"
bad_run() { # code regex desc args...
    local code=$1 re=$2 desc=$3
    shift 3
    rm -f "$WORK/o.tsv" "$WORK"/o.tsv.tmp*
    expect_exit "$code" "$re" "$desc" -- "$T" dist "$@" -o "$WORK/o.tsv"
    if ls "$WORK"/o.tsv* >/dev/null 2>&1; then not_ok "$desc: no output left behind"; else ok "$desc: no output left behind"; fi
}
bad_run 4 "whole\.tsk.*whole-record.*--window" "--genome on whole-record sketches" --genome "$WORK/whole.tsk"
"$T" sketch -q --per-file --canonical -k 3 -s 16 --window 300 --stride 60 "$D/g02.fa" -o "$WORK/s60.tsk"
bad_run 4 "stride.*s60\.tsk" "--genome with sketches of another stride" --genome "$WORK/r.tsk" "$WORK/s60.tsk"
bad_run 2 "top-k" "--genome with --top-k" --genome --top-k 2 "$WORK/f.tsk"
bad_run 2 "cosine" "--genome with --metric cosine" --genome --metric cosine "$WORK/f.tsk"
bad_run 3 "missing\.tsk" "--genome with a missing input" --genome "$WORK/missing.tsk"

finish
