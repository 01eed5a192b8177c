#!/bin/sh
# run_fastani.sh: fastANI (Debian package fastani, 1.33) all-against-all on a generated set, the
# reference of bench/ani/eval.py (#38). Never used by the tests.
#
#   sh bench/ani/run_fastani.sh SET_DIR [THREADS [FRAGLEN]]
#
# SET_DIR holds genomes.txt (one FASTA path a line; gen_ani_set.py writes it). Writes
# SET_DIR/fastani.tsv: fastANI's own lines (query, reference, ANI, mapped fragments, query
# fragments) for every ordered pair it reports, both directions; eval.py takes the mean of the two
# directions for ANI and mapped/total of each side for AF. Pairs fastANI does not report (below
# about 80 %) are unrelated to eval.py. Self pairs are dropped. With FRAGLEN (fastANI's --fragLen,
# 3000 by default) the lines go to SET_DIR/fastani_FRAGLEN.tsv instead, for eval.py --fastani FRAGLEN.
set -eu
dir=${1:?usage: run_fastani.sh SET_DIR [THREADS]}
threads=${2:-1}
fraglen=${3:-}
out=$dir/fastani${fraglen:+_$fraglen}.tsv
command -v fastANI >/dev/null || { echo "run_fastani.sh: fastANI not found (apt-get install fastani)" >&2; exit 1; }
[ -s "$dir/genomes.txt" ] || { echo "run_fastani.sh: $dir/genomes.txt missing" >&2; exit 1; }
fastANI --ql "$dir/genomes.txt" --rl "$dir/genomes.txt" -t "$threads" ${fraglen:+--fragLen "$fraglen"} \
    -o "$out.raw" >"$dir/fastani.log" 2>&1 || { echo "run_fastani.sh: fastANI failed, see $dir/fastani.log" >&2; exit 1; }
awk -F'\t' '$1 != $2' "$out.raw" >"$out"
rm -f "$out.raw"
echo "run_fastani.sh: $(wc -l <"$out") ordered pairs in $out" >&2
