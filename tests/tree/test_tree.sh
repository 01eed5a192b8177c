#!/usr/bin/env bash
# CLI: `tsketch tree` against quicktree 2.5 on the same PHYLIP matrix (`tsketch triangle`), and
# `tsketch plot` read back by an XML reader (plot_check.py).
#
# quicktree prints lengths with 5 decimals, so it is given the matrix times 2^14: a power of two
# scales every float operation of neighbour joining exactly, and its printed lengths / 2^14 are
# then good to 3e-10. The trees must have the same splits (Robinson-Foulds 0), the same lengths
# within 1e-6 and, lengths aside, the same text (same joins, same child order).
#   TSKETCH=... TESTDATA=... bash test_tree.sh
. "$(dirname "$0")/../cli/harness.sh"
HERE=$(dirname "$0")
T=$TSKETCH
G=$TESTDATA/genomes
REAL=$TESTDATA/real
command -v quicktree >/dev/null || { echo "quicktree is not installed (apt-get install quicktree)"; exit 1; }

# same_as_quicktree DESC -- tsketch options and inputs (given to both triangle and tree)
same_as_quicktree() {
    local desc=$1
    shift 2
    "$T" triangle -q "$@" >"$WORK/m.phy" 2>"$WORK/err" && "$T" tree -q "$@" >"$WORK/t.nwk" 2>>"$WORK/err" || {
        not_ok "$desc" "$(head -c 400 "$WORK/err")"
        return
    }
    awk -F'\t' -v OFS='\t' 'NR == 1 { print; next } { for (j = 2; j <= NF; j++) $j = sprintf("%.9g", $j * 16384); print }' \
        "$WORK/m.phy" >"$WORK/m16k.phy"
    # quicktree sums its matrix's diagonal, which it leaves uninitialised on a lower-triangle
    # input: meson's MALLOC_PERTURB_ fills it with garbage
    env -u MALLOC_PERTURB_ quicktree -in m -out t "$WORK/m16k.phy" >"$WORK/q.nwk"
    local shape_ours shape_qt
    shape_ours=$(tr -d ' \n' <"$WORK/t.nwk" | sed -E 's/:[-0-9.e]+//g')
    shape_qt=$(tr -d ' \n' <"$WORK/q.nwk" | sed -E 's/:[-0-9.e]+//g')
    if python3 "$HERE/newick_compare.py" "$WORK/t.nwk" "$WORK/q.nwk" --scale 16384 --tol 1e-6 >"$WORK/cmp" &&
        [ "$shape_ours" = "$shape_qt" ]; then
        ok "$desc: $(cat "$WORK/cmp")"
    else
        not_ok "$desc" "$(cat "$WORK/cmp")" "ours: ${shape_ours:0:200}" "quicktree: ${shape_qt:0:200}"
    fi
}

# 1. quicktree's tree, on bundled genomes, every distance, and on simulated families
same_as_quicktree "bundled genomes, l2" -- "$G"/*.fa
same_as_quicktree "bundled genomes, cosine" -- --metric cosine "$G"/*.fa
same_as_quicktree "bundled genomes, --genome" -- --genome "$G"/*.fa
same_as_quicktree "multi-contig genomes, --genome --per-file" -- --genome --per-file "$TESTDATA"/genome/g0*.fa
python3 "$HERE/simulate.py" 150 1500 40 7 >"$WORK/sim.fa"
same_as_quicktree "150 simulated relatives, l2" -- "$WORK/sim.fa"
same_as_quicktree "150 simulated relatives, --genome" -- --genome "$WORK/sim.fa"
same_as_quicktree "150 simulated relatives, -k 3 -s 32 --canonical" -- -k 3 -s 32 --canonical "$WORK/sim.fa"
python3 "$HERE/simulate.py" 60 300 3 5 >"$WORK/close.fa" # few mutations: many equal distances
same_as_quicktree "60 near-identical relatives (ties)" -- -k 2 -s 8 "$WORK/close.fa"
same_as_quicktree "9 Blochmannia genomes, --genome --per-file" -- --genome --per-file -p 2 "$REAL"/blochmannia/*.fna.gz
# sisters: the two leaves are one side of an edge (the unrooted tree may print them beside its root)
python3 "$HERE/newick_compare.py" --has-split "$WORK/t.nwk" GCF_023016305,GCF_000011745 >/dev/null &&
    ok "Blochmannia: the two B. pennsylvanicus assemblies (99.8 % ANI) are sisters" ||
    not_ok "Blochmannia: the two B. pennsylvanicus assemblies (99.8 % ANI) are sisters" "$(cat "$WORK/t.nwk")"
same_as_quicktree "100 SARS-CoV-2 genomes, --genome" -- --genome -p 2 "$REAL"/viralwasm_example_sc2_seqs_100.fas.gz

# 2. same tree from a .tsk as from FASTA, and on 1 or 2 threads
"$T" sketch -q "$WORK/sim.fa" -o "$WORK/sim.tsk"
"$T" tree -q "$WORK/sim.fa" -o "$WORK/fa.nwk"
"$T" tree -q -p 2 "$WORK/sim.tsk" -o "$WORK/tsk.nwk"
expect_same "$WORK/fa.nwk" "$WORK/tsk.nwk" "tree: .tsk input and -p 2 give FASTA's -p 1 tree"
"$T" sketch -q --genome --per-file "$TESTDATA"/genome/g0*.fa -o "$WORK/genomes.tsk"
"$T" tree -q "$WORK/genomes.tsk" -o "$WORK/gtsk.nwk"
"$T" tree -q --genome --per-file "$TESTDATA"/genome/g0*.fa -o "$WORK/gfa.nwk"
expect_same "$WORK/gtsk.nwk" "$WORK/gfa.nwk" "tree: a genome .tsk gives --genome FASTA's tree (genome distances by default)"

# 3. small sets, names Newick must quote
printf '>solo\nACGTACGTTTGACCA\n' >"$WORK/one.fa"
"$T" tree -q "$WORK/one.fa" >"$WORK/one.nwk"
[ "$(cat "$WORK/one.nwk")" = "(solo:0);" ] && ok "one record: (solo:0);" || not_ok "one record" "$(cat "$WORK/one.nwk")"
printf ">a:1\nACGTACGTTTGACCAGGT\n>it's\nACGTACCTTTGACCAGCT\n>x(y)\nTTTTACGTTTGACAAGGT\n>plain_name\nACGAACGTTAGACCAGGA\n" \
    >"$WORK/odd.fa"
"$T" tree -q "$WORK/odd.fa" >"$WORK/odd.nwk"
grep -q "'a:1'" "$WORK/odd.nwk" && grep -q "'it''s'" "$WORK/odd.nwk" && grep -q "'x(y)'" "$WORK/odd.nwk" &&
    grep -q "[(,]plain_name:" "$WORK/odd.nwk" && ok "names quoted only where Newick needs it" ||
    not_ok "names quoted only where Newick needs it" "$(cat "$WORK/odd.nwk")"
python3 -c "
import sys; sys.path.insert(0, '$HERE'); from newick_compare import parse
names, edges = parse(open('$WORK/odd.nwk').read())
sys.exit(sorted(names) != sorted([\"a:1\", \"it's\", 'x(y)', 'plain_name']) or len(edges) != 5)" &&
    ok "quoted names read back" || not_ok "quoted names read back" "$(cat "$WORK/odd.nwk")"

# 4. errors: exit codes, messages, no output file left behind
expect_exit 2 "no inputs" "tree without inputs exits 2" -- "$T" tree -q
expect_exit 2 "" "tree takes no -f" -- "$T" tree -q -f tsv "$G/MT-human.fa"
expect_exit 3 "missing.fa" "tree of a missing file exits 3" -- "$T" tree -q "$WORK/missing.fa" -o "$WORK/none.nwk"
[ ! -e "$WORK/none.nwk" ] && ok "a failed tree leaves no output" || not_ok "a failed tree leaves no output"
"$T" sketch -q --canonical --window 300 --stride 30 -k 3 -s 16 "$G/MT-human.fa" "$G/MT-orang.fa" -o "$WORK/rows.tsk"
expect_exit 2 "rows\.tsk.*tsketch sketch --genome" "tree --genome of slide rows: refused (genome sketches only), exits 2" -- \
    "$T" tree --genome "$WORK/rows.tsk" -o "$WORK/none.nwk"
[ ! -e "$WORK/none.nwk" ] && ok "no output after it" || not_ok "no output after it"
expect_exit 5 "GPU|CUDA" "tree --device cuda without a GPU exits 5" -- env CUDA_VISIBLE_DEVICES= "$T" tree -q --device cuda "$G/MT-human.fa" "$G/MT-orang.fa" "$G/NC_045512.2.fa"
expect_exit 0 "" "tree -h" -- "$T" tree -h
expect_exit 0 "" "plot -h" -- "$T" plot -h

# 5. plot: labels in tree order, colour bar, heatmap pixels = the distances' colours
"$T" triangle -q --genome "$G"/*.fa >"$WORK/g.phy"
"$T" tree -q --genome "$G"/*.fa >"$WORK/g.nwk"
"$T" plot -q --genome --title "bundled & genomes" "$G"/*.fa -o "$WORK/g.svg"
python3 "$HERE/plot_check.py" "$WORK/g.svg" "$WORK/g.nwk" "$WORK/g.phy" >"$WORK/pc" && ok "plot --genome: $(tail -1 "$WORK/pc")" ||
    not_ok "plot --genome" "$(cat "$WORK/pc")"
grep -q 'class="scale-label"[^>]*>genome distance (1 - ANI, estimated)<' "$WORK/g.svg" &&
    grep -q '>bundled &amp; genomes<' "$WORK/g.svg" && ok "plot: colour bar caption and escaped title" ||
    not_ok "plot: colour bar caption and escaped title"
"$T" triangle -q "$WORK/sim.fa" >"$WORK/s.phy"
"$T" plot -q -p 2 "$WORK/sim.tsk" >"$WORK/s.svg"
python3 "$HERE/plot_check.py" "$WORK/s.svg" "$WORK/fa.nwk" "$WORK/s.phy" >"$WORK/pc" && ok "plot of 150 to stdout: $(tail -1 "$WORK/pc")" ||
    not_ok "plot of 150" "$(cat "$WORK/pc")"
python3 "$HERE/simulate.py" 700 120 4 3 >"$WORK/many.fa"
"$T" triangle -q -k 2 -s 8 "$WORK/many.fa" >"$WORK/many.phy"
"$T" tree -q -k 2 -s 8 "$WORK/many.fa" >"$WORK/many.nwk"
"$T" plot -q -k 2 -s 8 "$WORK/many.fa" -o "$WORK/many.svg"
python3 "$HERE/plot_check.py" "$WORK/many.svg" "$WORK/many.nwk" "$WORK/many.phy" --no-labels >"$WORK/pc" &&
    grep -q 'data-cells="600"' "$WORK/many.svg" && [ "$(wc -c <"$WORK/many.svg")" -lt 3000000 ] &&
    ok "plot of 700: no labels, a 600-pixel downsampled image, $(wc -c <"$WORK/many.svg") bytes" ||
    not_ok "plot of 700" "$(cat "$WORK/pc")"
expect_exit 3 "missing.fa" "plot of a missing file exits 3" -- "$T" plot -q "$WORK/missing.fa" -o "$WORK/none.svg"
[ ! -e "$WORK/none.svg" ] && ok "a failed plot leaves no output" || not_ok "a failed plot leaves no output"
finish
