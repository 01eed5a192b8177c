#!/bin/sh
# bench/tree/run.sh BUILD [N] [QT_N]: times `tsketch tree` and `tsketch plot` on N simulated
# relatives (tests/tree/simulate.py: 2,000 bp, ~30 mutations per copy, seed 11; default 10,000),
# whole-record sketches (l2, t=4, D=96) from a .tsk, one thread. Prints wall and CPU seconds and
# peak memory of each step: the distance matrix alone (dist -f npy), neighbour joining alone
# (nj_bench on that matrix), tree and plot end to end. Then tree against quicktree on QT_N of
# them (default 2,000; quicktree is O(N^3)): time, and the check that the trees are the same.
set -eu
BUILD=$1
N=${2:-10000}
QT_N=${3:-2000}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$BUILD/src/tsketch
W=${TMPDIR:-/tmp}/tsk-tree-bench
mkdir -p "$W"
timed() { # timed LABEL command...: one line: label, wall, user+sys, max RSS
    label=$1
    shift
    /usr/bin/time -f "$label: wall %e s, cpu %U+%S s, max RSS %M KB" "$@" 2>&1 >/dev/null | tail -1
}
python3 "$HERE/../../tests/tree/simulate.py" "$N" 2000 30 11 >"$W/sim$N.fa"
"$T" sketch -q "$W/sim$N.fa" -o "$W/sim$N.tsk"
echo "N = $N; load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
timed "dist -f npy (the matrix)" "$T" dist -q -p 1 -f npy "$W/sim$N.tsk" -o "$W/sim$N.npy"
"$BUILD/bench/tree/nj_bench" "$W/sim$N.npy"
timed "tree" "$T" tree -q -p 1 "$W/sim$N.tsk" -o "$W/sim$N.nwk"
timed "plot" "$T" plot -q -p 1 "$W/sim$N.tsk" -o "$W/sim$N.svg"
echo "sizes: $(wc -c <"$W/sim$N.nwk") bytes of Newick, $(wc -c <"$W/sim$N.svg") bytes of SVG"
if command -v quicktree >/dev/null; then
    head -n $((2 * QT_N)) "$W/sim$N.fa" >"$W/qt.fa"
    "$T" triangle -q "$W/qt.fa" -o "$W/qt.phy"
    awk -F'\t' -v OFS='\t' 'NR == 1 { print; next } { for (j = 2; j <= NF; j++) $j = sprintf("%.9g", $j * 16384); print }' \
        "$W/qt.phy" >"$W/qt16k.phy"
    timed "quicktree, $QT_N leaves" quicktree -in m -out t "$W/qt16k.phy"
    quicktree -in m -out t "$W/qt16k.phy" >"$W/qt.nwk"
    "$T" sketch -q "$W/qt.fa" -o "$W/qt.tsk"
    timed "tsketch tree, $QT_N leaves" "$T" tree -q "$W/qt.tsk" -o "$W/qt_ours.nwk"
    python3 "$HERE/../../tests/tree/newick_compare.py" "$W/qt_ours.nwk" "$W/qt.nwk" --scale 16384
fi
