#!/usr/bin/env bash
# workflows/snakemake/Snakefile run for real with the system's snakemake on the testdata genomes
# (parts=3, batch=2): every output equals the single tsketch run's, distances.tsv byte for byte,
# and a second run does nothing. Exit 77 (skipped) without snakemake.
#   TSKETCH=... TESTDATA=... SOURCE_ROOT=... bash test_snakemake.sh   (SNAKEMAKE: default from PATH)
. "$(dirname "$0")/harness.sh"
SNAKEMAKE=${SNAKEMAKE:-$(command -v snakemake)}
if [ -z "$SNAKEMAKE" ] || ! "$SNAKEMAKE" --version >/dev/null 2>&1; then
    echo "snakemake not installed (scripts/install-deps.sh --tests): skipped"
    exit 77
fi
if ! "$TSKETCH" sketch -h | grep -q -- "--genome"; then
    echo "this tsketch makes no genome sketches (sketch --genome): skipped"
    exit 77
fi

# tsketch from PATH, as the workflow wants it
mkdir -p "$WORK/bin" "$WORK/genomes"
ln -s "$(cd "$(dirname "$TSKETCH")" && pwd)/$(basename "$TSKETCH")" "$WORK/bin/tsketch"
export PATH="$WORK/bin:$PATH"
# 9 genomes, one per file: plain and gzip, several extensions; a non-FASTA file that must be ignored
cp "$TESTDATA"/genome/g0[0-3].fa "$TESTDATA"/genomes/MT-human.fa "$TESTDATA"/genomes/NC_001422_phiX174.fa "$WORK/genomes/"
gzip -c "$TESTDATA/genomes/MT-orang.fa" >"$WORK/genomes/MT-orang.fa.gz"
cp "$TESTDATA/genomes/NC_045512.2.fa" "$WORK/genomes/sarscov2.fasta"
awk '/^>/ {n++} n == 2' "$TESTDATA/genomes/sarscov2_6.fa" >"$WORK/genomes/OP302815.fna"
echo "not a genome" >"$WORK/genomes/README.txt"
# the workflow's order: file names sorted by bytes (Python's sorted)
GENOMES=$(cd "$WORK/genomes" && ls | grep -v README | LC_ALL=C sort | sed "s|^|$WORK/genomes/|")

SNAKEFILE=$SOURCE_ROOT/workflows/snakemake/Snakefile
OUT=$WORK/run/results
run_workflow() { # log
    "$SNAKEMAKE" -s "$SNAKEFILE" --directory "$WORK/run" -c 2 \
        --config genomes="$WORK/genomes" outdir="$OUT" parts=3 batch=2 threads=1 device=auto >"$1" 2>&1
}
if run_workflow "$WORK/run1.log"; then ok "snakemake runs the workflow"; else
    not_ok "snakemake runs the workflow" "$(tail -30 "$WORK/run1.log")"
    for l in "$OUT"/logs/*.log; do [ -s "$l" ] && echo "    $l: $(head -3 "$l")"; done
    finish
    exit 1
fi
n_batches=$(find "$OUT/batches" -name '*.tsk' | wc -l)
if [ "$n_batches" -eq 5 ]; then ok "9 genomes in batches of 2: 5 sketch jobs"; else not_ok "5 batches" "found $n_batches"; fi
n_parts=$(grep -c "rule distance_part" "$WORK/run1.log")
if [ "$n_parts" -eq 3 ]; then ok "parts=3: 3 distance jobs"; else not_ok "3 distance jobs" "found $n_parts"; fi

# the single run
# shellcheck disable=SC2086 # one word per path
tsketch sketch --genome --per-file -q $GENOMES -o "$WORK/single.tsk"
tsketch export "$WORK/single.tsk" >"$WORK/single.export"
tsketch export "$OUT/genomes.tsk" >"$WORK/wf.export"
expect_same "$WORK/single.export" "$WORK/wf.export" "genomes.tsk: the single sketch run's genomes, names and keys"
names=$(cut -f1 "$WORK/wf.export" | tr '\n' ' ')
if [ "$names" = "MT-human MT-orang NC_001422_phiX174 OP302815 g00 g01 g02 g03 sarscov2 " ]; then
    ok "genomes.tsk: 9 genomes named by file stem, in file name order"
else not_ok "9 genomes named by file stem, in file name order" "$(echo "$names" | head -c 300)"; fi
tsketch dist --genome "$OUT/genomes.tsk" >"$WORK/single.tsv"
expect_same "$WORK/single.tsv" "$OUT/distances.tsv" "distances.tsv = 'tsketch dist --genome genomes.tsk', byte for byte"
if [ "$(wc -l <"$OUT/distances.tsv")" -eq 36 ]; then ok "distances.tsv: 36 pairs"; else not_ok "36 pairs" "$(wc -l <"$OUT/distances.tsv")"; fi
tsketch dist --genome --top-k 10 "$OUT/genomes.tsk" >"$WORK/single.nearest"
expect_same "$WORK/single.nearest" "$OUT/nearest.tsv" "nearest.tsv = 'tsketch dist --genome --top-k 10'"
tsketch triangle --genome "$OUT/genomes.tsk" >"$WORK/single.phylip"
expect_same "$WORK/single.phylip" "$OUT/genomes.phylip" "genomes.phylip = 'tsketch triangle --genome'"

# a second run does nothing
touch "$WORK/stamp"
sleep 1
if run_workflow "$WORK/run2.log" && grep -q "Nothing to be done" "$WORK/run2.log"; then ok "second run: nothing to be done"
else not_ok "second run: nothing to be done" "$(tail -15 "$WORK/run2.log")"; fi
changed=$(find "$OUT" -type f -newer "$WORK/stamp" | grep -v '/logs/' | wc -l)
if [ "$changed" -eq 0 ]; then ok "second run: no output rewritten"; else not_ok "second run rewrote files" "$(find "$OUT" -type f -newer "$WORK/stamp")"; fi

finish
