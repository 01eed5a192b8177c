#!/bin/sh
# CLI tests of `tsketch dist`, `triangle` and `paste` against the oracle's golden files
# (testdata/dist, see make.sh there), brute force, and each other.
# Usage: cli_dist.sh TSKETCH TESTDATA_DIST_DIR
set -u
TSK=$1
TD=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# TAP (protocol 'tap' in meson.build): a line per check in $W/.results counts checks in subshells too
: >"$W/.results"
fail() { echo "not ok - $*"; echo fail >>"$W/.results"; }
ok() { echo "ok - $*"; echo ok >>"$W/.results"; }

# Compares "a TAB b TAB d" files: same names in the same order, |d1 - d2| <= 1e-5 |d2| + 1e-6
# (the oracle is float64 on float64 sketches; ours rounds the sketch to float32 first).
same_dists() {
    awk -F'\t' 'NR == FNR { a[FNR] = $1; b[FNR] = $2; d[FNR] = $3; n = FNR; next }
        { if (a[FNR] != $1 || b[FNR] != $2) { print "names differ at line " FNR ": " $1 " " $2; bad = 1; exit }
          e = $3 - d[FNR]; if (e < 0) e = -e; t = d[FNR] < 0 ? -d[FNR] : d[FNR]
          if (e > 1e-5 * t + 1e-6) { print "line " FNR ": " $3 " vs " d[FNR]; bad = 1; exit }
          m = FNR }
        END { if (!bad && m != n) { print "line counts " m " vs " n; bad = 1 } exit bad }' "$2" "$1"
}

run() { "$TSK" "$@" -q; }

# 1. FASTA on the fly against the oracle: whole-record l2 and cosine, slide, canonical.
run dist "$TD/real.fa" > "$W/l2" && same_dists "$W/l2" "$TD/real.l2.tsv" && ok "real l2" || fail "real l2"
run dist --metric cosine "$TD/real.fa" > "$W/cos" && same_dists "$W/cos" "$TD/real.cosine.tsv" && ok "real cosine" || fail "real cosine"
run dist -k 3 -s 16 --window 40 --stride 20 "$TD/synth.fa" > "$W/sl2" && same_dists "$W/sl2" "$TD/synth.slide.l2.tsv" \
    && ok "slide l2" || fail "slide l2"
run dist -k 3 -s 16 --window 40 --stride 20 --metric cosine "$TD/synth.fa" > "$W/scos" \
    && same_dists "$W/scos" "$TD/synth.slide.cosine.tsv" && ok "slide cosine" || fail "slide cosine"
run dist -k 3 -s 24 --canonical "$TD/synth.fa" > "$W/can" && same_dists "$W/can" "$TD/synth.canon.l2.tsv" \
    && ok "canonical" || fail "canonical"

# 2. .tsk inputs give the same text as FASTA; FASTA against a .tsk takes the file's parameters.
run sketch -o "$W/real.tsk" "$TD/real.fa" && run dist "$W/real.tsk" > "$W/l2tsk" && cmp -s "$W/l2" "$W/l2tsk" \
    && ok "tsk = fasta" || fail "tsk = fasta"
run sketch -k 3 -s 16 --window 40 --stride 20 -o "$W/synth.tsk" "$TD/synth.fa" || fail "sketch synth"
run dist "$W/synth.tsk" "$TD/synth.fa" > "$W/mixed" && [ "$(wc -l < "$W/mixed")" -eq 81 ] \
    && ok "fasta adopts .tsk parameters" || fail "mixed inputs"

# 3. Rectangular: every query (outer) against every reference (inner), "ref TAB query".
awk '/^>/{n++} n>=1 && n<=3' "$TD/real.fa" > "$W/q1.fa"
awk '/^>/{n++} n>=6' "$TD/real.fa" > "$W/q2.fa"
run dist "$W/real.tsk" "$W/q1.fa" "$W/q2.fa" > "$W/rect" || fail "rect run"
[ "$(wc -l < "$W/rect")" -eq 35 ] && [ "$(head -1 "$W/rect" | cut -f1,2)" = "$(printf 'MT_human\tMT_human')" ] \
    && [ "$(sed -n 8p "$W/rect" | cut -f1,2)" = "$(printf 'MT_human\tMT_orang')" ] && ok "rectangular order" || fail "rectangular order"
awk -F'\t' '$1 != $2' "$W/rect" | awk -F'\t' '{ if ($1 < $2) print $1 "\t" $2 "\t" $3; else print $2 "\t" $1 "\t" $3 }' \
    | sort > "$W/rect.pairs"
awk -F'\t' '{ if ($1 < $2) print $1 "\t" $2 "\t" $3; else print $2 "\t" $1 "\t" $3 }' "$W/l2" | sort > "$W/l2.pairs"
join -t "$(printf '\t')" -j1 "$W/rect.pairs" "$W/l2.pairs" >/dev/null 2>&1
awk -F'\t' 'NR == FNR { d[$1 FS $2] = $3; next } ($1 FS $2) in d { if (d[$1 FS $2] != $3) bad = 1 } END { exit bad }' \
    "$W/l2.pairs" "$W/rect.pairs" && ok "rectangular values" || fail "rectangular values"
# (empty query sets are tested on the engine: an empty FASTA file is an input error for io/.)
run dist --with-self "$W/real.tsk" | awk -F'\t' '$1 == $2 && $3 == 0 { n++ } END { exit n != 7 }' \
    && ok "--with-self" || fail "--with-self"
run dist --header "$W/real.tsk" | head -1 | grep -q "^reference	query	distance$" && ok "--header" || fail "--header"

# 4. triangle: mash's layout, values of the pair list.
run triangle "$W/real.tsk" -o "$W/tri" || fail "triangle run"
[ "$(head -1 "$W/tri")" = "$(printf '\t7')" ] && [ "$(sed -n 2p "$W/tri")" = "MT_human" ] && ok "triangle header" \
    || fail "triangle header"
awk -F'\t' 'NR > 1 { name[NR - 1] = $1; for (j = 2; j <= NF; j++) print name[j - 1] "\t" $1 "\t" $j }' "$W/tri" \
    | sort > "$W/tri.pairs"
sort "$W/l2" > "$W/l2.sorted"
cmp -s "$W/tri.pairs" "$W/l2.sorted" && ok "triangle values" || fail "triangle values"
run dist -f phylip "$W/real.tsk" | cmp -s - "$W/tri" && ok "dist -f phylip = triangle" || fail "dist -f phylip"

# 5. square and npy parsed back.
run dist -f square "$W/real.tsk" > "$W/sq" || fail "square run"
awk -F'\t' 'NR == 1 { for (j = 2; j <= NF; j++) col[j] = $j; next }
    { for (j = 2; j <= NF; j++) if ($1 < col[j]) print $1 "\t" col[j] "\t" $j }' "$W/sq" | sort > "$W/sq.pairs"
awk -F'\t' '{ if ($1 < $2) print $1 "\t" $2 "\t" $3; else print $2 "\t" $1 "\t" $3 }' "$W/l2" | sort > "$W/l2.pairs"
cmp -s "$W/sq.pairs" "$W/l2.pairs" && ok "square values" || fail "square values"
run dist -f npy -o "$W/m.npy" "$W/real.tsk" || fail "npy run"
hl=$(od -An -tu2 -j8 -N2 "$W/m.npy" | tr -d ' ')
head -c $((10 + hl)) "$W/m.npy" | grep -q "'shape': (7, 7)" && ok "npy header" || fail "npy header"
od -An -v -tf4 -w4 -j$((10 + hl)) "$W/m.npy" | awk -v names="$W/m.npy.names" \
    'BEGIN { while ((getline l < names) > 0) nm[n++] = l } { i = int((NR - 1) / n); j = (NR - 1) % n
      if (nm[i] < nm[j]) printf "%s\t%s\t%s\n", nm[i], nm[j], $1 }' | sort > "$W/npy.pairs"
# od prints floats with fewer digits than %.9g: compare values to 1e-7 relative
awk -F'\t' 'NR == FNR { d[$1 FS $2] = $3; n++; next }
    { k = $1 FS $2; e = $3 - d[k]; if (e < 0) e = -e; if (!(k in d) || e > 1e-7 * d[k]) bad = 1; m++ }
    END { exit bad || m != n }' "$W/l2.pairs" "$W/npy.pairs" \
    && [ "$(wc -l < "$W/m.npy.names")" -eq 7 ] && ok "npy values" || fail "npy values"

# 6. top-k and threshold against brute force on the full list (both directions of each pair).
awk -F'\t' '{ print $1 "\t" $2 "\t" $3; print $2 "\t" $1 "\t" $3 }' "$W/l2" > "$W/both"
run dist --top-k 2 "$W/real.tsk" > "$W/top" || fail "top-k run"
# brute force: per query ($2), the two smallest distances; the engine's order is nearest first.
for q in $(cut -f1 "$W/l2.sorted" | sort -u) OP302818.1; do
    awk -F'\t' -v q="$q" '$1 == q { print $3 "\t" $2 }' "$W/both" | sort -g | head -2 | cut -f2
done > "$W/top.brute"
cut -f1 "$W/top" > "$W/top.got"
[ "$(wc -l < "$W/top")" -eq 14 ] && [ "$(sort "$W/top.got" | tr '\n' ' ')" = "$(sort "$W/top.brute" | tr '\n' ' ')" ] \
    && ok "top-k" || fail "top-k"
run dist -d 0.03 "$W/real.tsk" > "$W/thr" || fail "threshold run"
awk -F'\t' '$3 <= 0.03' "$W/l2" | cmp -s - "$W/thr" && ok "threshold" || fail "threshold"

# 7. Incompatible parameters: exit 4 naming both files and every difference.
run sketch -k 3 -S 7 -o "$W/k3.tsk" "$TD/real.fa" || fail "sketch k3"
run dist "$W/real.tsk" "$W/k3.tsk" 2> "$W/err"; rc=$?
[ $rc -eq 4 ] && grep -q "real.tsk" "$W/err" && grep -q "k3.tsk" "$W/err" && grep -q "t (tuple" "$W/err" \
    && grep -q "seed" "$W/err" && ok "incompatible: exit 4" || fail "incompatible (rc $rc: $(cat "$W/err"))"
run dist -k 5 "$W/real.tsk" "$TD/synth.fa" 2>/dev/null; rc=$?
[ $rc -eq 4 ] && ok "options vs .tsk: exit 4" || fail "options vs .tsk (rc $rc)"
run dist -f phylip "$W/real.tsk" "$W/q1.fa" 2>/dev/null; [ $? -eq 2 ] && ok "phylip needs one set" || fail "phylip usage"

# 8. paste: concatenation, no overwrite, incompatible inputs.
run sketch -o "$W/a.tsk" "$W/q1.fa" && run sketch -o "$W/b.tsk" "$W/q2.fa" || fail "sketch a/b"
run paste "$W/ab.tsk" "$W/a.tsk" "$W/b.tsk" && run dist "$W/ab.tsk" > "$W/ab" \
    && [ "$(wc -l < "$W/ab")" -eq 10 ] && ok "paste" || fail "paste"
cat "$W/q1.fa" "$W/q2.fa" > "$W/q12.fa"
run dist "$W/q12.fa" | cmp -s - "$W/ab" && ok "paste = sketch of the concatenation" || fail "paste values"
run paste "$W/ab.tsk" "$W/a.tsk" 2>/dev/null; [ $? -eq 2 ] && ok "paste refuses to overwrite" || fail "paste overwrite"
run paste "$W/bad.tsk" "$W/a.tsk" "$W/k3.tsk" 2>/dev/null; rc=$?
[ $rc -eq 4 ] && [ ! -e "$W/bad.tsk" ] && ok "paste incompatible: exit 4" || fail "paste incompatible (rc $rc)"
ls "$W" | grep -q "tmp" && fail "temporary files left behind" || ok "no temporary files"

# 9. -o failure leaves nothing; output goes through a temporary file.
run dist -o "$W/nodir/x.tsv" "$W/real.tsk" 2>/dev/null; rc=$?
[ $rc -ne 0 ] && [ ! -e "$W/nodir" ] && ok "-o into a missing directory fails" || fail "-o missing dir"

# 10. Streaming memory: 20000 sketches (2e8 pairs) with a threshold: peak RSS far below the
# 1.6 GB an N x N float matrix would take.
awk 'BEGIN { srand(3); for (i = 0; i < 20000; i++) { s = ""; for (j = 0; j < 60; j++) s = s substr("ACGT", int(rand() * 4) + 1, 1)
      print ">r" i; print s } }' > "$W/many.fa"
run sketch -p 2 -o "$W/many.tsk" "$W/many.fa" || fail "sketch many"
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%M" -o "$W/rss" "$TSK" dist -q -p 2 -d 0.001 "$W/many.tsk" > "$W/many.out"; rc=$?
    rss=$(tail -1 "$W/rss")
    [ $rc -eq 0 ] && [ "$rss" -lt 300000 ] && ok "streaming 2e8 pairs in ${rss} KiB" || fail "streaming memory (rc $rc, ${rss} KiB)"
fi

passed=$(grep -c '^ok' "$W/.results")
fails=$(grep -c '^fail' "$W/.results")
echo "1..$((passed + fails))"
echo "# $passed passed, $fails failed"
[ "$fails" -eq 0 ]
