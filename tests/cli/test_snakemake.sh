#!/usr/bin/env bash
# workflows/snakemake/Snakefile run for real with the system's snakemake on the testdata genomes
# (parts=3, batch=2): every output equals the single tsketch run's, distances.tsv byte for byte,
# clusters.tsv and representatives.txt as `tsketch cluster` writes them (from links scattered over
# the parts, with cluster_min_af too), and a second run does nothing; genome files, their directory and the output directory have spaces in their names;
# batch=0, parts=0 and other bad config values stop before any job with an error naming the key.
# Skipped (TAP skip_all) without snakemake.
#   TSKETCH=... TESTDATA=... SOURCE_ROOT=... bash test_snakemake.sh   (SNAKEMAKE: default from PATH)
. "$(dirname "$0")/harness.sh"
SNAKEMAKE=${SNAKEMAKE:-$(command -v snakemake)}
if [ -z "$SNAKEMAKE" ] || ! "$SNAKEMAKE" --version >/dev/null 2>&1; then
    skip_all "snakemake not installed (scripts/install-deps.sh --tests)"
fi
if ! "$TSKETCH" sketch -h | grep -q -- "--genome"; then
    skip_all "this tsketch makes no genome sketches (sketch --genome)"
fi

# tsketch from PATH, as the workflow wants it
GDIR="$WORK/my genomes"
mkdir -p "$WORK/bin" "$GDIR"
ln -s "$(cd "$(dirname "$TSKETCH")" && pwd)/$(basename "$TSKETCH")" "$WORK/bin/tsketch"
export PATH="$WORK/bin:$PATH"
# 11 genomes, one per file: plain and gzip, several extensions, one with a space in its name; a
# non-FASTA file that must be ignored
cp "$TESTDATA"/genome/g0[0-3].fa "$TESTDATA"/genomes/NC_001422_phiX174.fa "$GDIR/"
cp "$TESTDATA/genomes/MT-human.fa" "$GDIR/MT human.fa"
gzip -c "$TESTDATA/genomes/MT-orang.fa" >"$GDIR/MT-orang.fa.gz"
cp "$TESTDATA/genomes/NC_045512.2.fa" "$GDIR/sarscov2.fasta"
awk '/^>/ {n++} n == 2' "$TESTDATA/genomes/sarscov2_6.fa" >"$GDIR/OP302815.fna"
# extensions in upper case and NCBI's .fsa are genomes too
awk '/^>/ {n++} n == 4' "$TESTDATA/genomes/sarscov2_6.fa" >"$GDIR/UPPER.FNA"
awk '/^>/ {n++} n == 5' "$TESTDATA/genomes/sarscov2_6.fa" >"$GDIR/x.fsa"
echo "not a genome" >"$GDIR/README.txt"
# the workflow's order: file names sorted by bytes (Python's sorted)
mapfile -t GENOMES < <(cd "$GDIR" && ls | grep -v README | LC_ALL=C sort | sed "s|^|$GDIR/|")

SNAKEFILE=$SOURCE_ROOT/workflows/snakemake/Snakefile
OUT="$WORK/run/the results"
run_workflow() { # log [KEY=VALUE...]: more config values
    local log=$1
    shift
    "$SNAKEMAKE" -s "$SNAKEFILE" --directory "$WORK/run" -c 2 \
        --config genomes="$GDIR" outdir="$OUT" parts=3 batch=2 threads=1 device=auto "$@" >"$log" 2>&1
}
if run_workflow "$WORK/run1.log"; then ok "snakemake runs the workflow"; else
    not_ok "snakemake runs the workflow" "$(tail -30 "$WORK/run1.log")"
    for l in "$OUT"/logs/*.log; do [ -s "$l" ] && echo "    $l: $(head -3 "$l")"; done
    finish
    exit 1
fi
n_batches=$(find "$OUT/batches" -name '*.tsk' | wc -l)
if [ "$n_batches" -eq 6 ]; then ok "11 genomes in batches of 2: 6 sketch jobs"; else not_ok "6 batches" "found $n_batches"; fi
n_parts=$(grep -c "rule distance_part" "$WORK/run1.log")
if [ "$n_parts" -eq 3 ]; then ok "parts=3: 3 distance jobs"; else not_ok "3 distance jobs" "found $n_parts"; fi
n_link_parts=$(grep -c "rule cluster_links_part" "$WORK/run1.log")
if [ "$n_link_parts" -eq 3 ]; then ok "parts=3: 3 cluster link jobs"; else not_ok "3 cluster link jobs" "found $n_link_parts"; fi

# the single run
tsketch sketch --genome --per-file -q "${GENOMES[@]}" -o "$WORK/single.tsk"
tsketch export "$WORK/single.tsk" >"$WORK/single.export"
tsketch export "$OUT/genomes.tsk" >"$WORK/wf.export"
expect_same "$WORK/single.export" "$WORK/wf.export" "genomes.tsk: the single sketch run's genomes, names and keys"
names=$(cut -f1 "$WORK/wf.export" | tr '\n' ' ')
if [ "$names" = "MT human MT-orang NC_001422_phiX174 OP302815 UPPER g00 g01 g02 g03 sarscov2 x " ]; then
    ok "genomes.tsk: 11 genomes named by file stem (one with a space, UPPER.FNA, x.fsa), in file name order"
else not_ok "11 genomes named by file stem, in file name order" "$(echo "$names" | head -c 300)"; fi
tsketch dist --genome "$OUT/genomes.tsk" >"$WORK/single.tsv"
expect_same "$WORK/single.tsv" "$OUT/distances.tsv" "distances.tsv = 'tsketch dist --genome genomes.tsk', byte for byte"
if [ "$(wc -l <"$OUT/distances.tsv")" -eq 55 ]; then ok "distances.tsv: 55 pairs"; else not_ok "55 pairs" "$(wc -l <"$OUT/distances.tsv")"; fi
tsketch dist --genome --top-k 10 "$OUT/genomes.tsk" >"$WORK/single.nearest"
expect_same "$WORK/single.nearest" "$OUT/nearest.tsv" "nearest.tsv = 'tsketch dist --genome --top-k 10'"
tsketch triangle --genome "$OUT/genomes.tsk" >"$WORK/single.phylip"
expect_same "$WORK/single.phylip" "$OUT/genomes.phylip" "genomes.phylip = 'tsketch triangle --genome'"

# clusters.tsv and representatives.txt: tsketch cluster's (greedy at 0.05 by default), one line per
# genome, and the representatives those of clusters.tsv (column 3 where a genome is its own), in order
tsketch cluster -q "$OUT/genomes.tsk" -o "$WORK/single.clusters" --representatives "$WORK/single.reps"
expect_same "$WORK/single.clusters" "$OUT/clusters.tsv" "clusters.tsv = 'tsketch cluster genomes.tsk'"
expect_same "$WORK/single.reps" "$OUT/representatives.txt" "representatives.txt = 'tsketch cluster --representatives'"
if [ "$(cut -f1 "$OUT/clusters.tsv" | LC_ALL=C sort | tr '\n' ' ')" = "$(cut -f1 "$WORK/wf.export" | LC_ALL=C sort | tr '\n' ' ')" ]
then ok "clusters.tsv: one line per genome, each genome once"
else not_ok "clusters.tsv: one line per genome" "$(cat "$OUT/clusters.tsv")"; fi
awk -F'\t' '$1 == $3 { print $1 }' "$OUT/clusters.tsv" >"$WORK/reps.from_clusters"
cut -f3 "$OUT/clusters.tsv" | awk '!seen[$0]++' >"$WORK/reps.column3"
expect_same "$WORK/reps.from_clusters" "$OUT/representatives.txt" "representatives.txt = the genomes of clusters.tsv that represent themselves, in order"
expect_same "$WORK/reps.column3" "$OUT/representatives.txt" "representatives.txt = clusters.tsv's representative column, in order"

# cluster_min_af: the link parts carry the aligned fraction (dist --ani), which cluster refuses to do
# without; only clusters.tsv is asked for, the rest is checked above
OUT3="$WORK/run/min af"
if "$SNAKEMAKE" -s "$SNAKEFILE" --directory "$WORK/run" -c 2 --config genomes="$GDIR" outdir="$OUT3" parts=3 batch=2 \
    threads=1 device=auto cluster_min_af=0.5 -- "$OUT3/clusters.tsv" >"$WORK/min_af.log" 2>&1
then ok "cluster_min_af: the workflow runs"
else not_ok "the workflow with cluster_min_af" "$(tail -20 "$WORK/min_af.log"; cat "$OUT3"/logs/links_*.log 2>&1 | head -5)"; fi
n_link_parts=$(grep -c "rule cluster_links_part" "$WORK/min_af.log")
if [ "$n_link_parts" -eq 3 ]; then ok "cluster_min_af, parts=3: 3 cluster link jobs"
else not_ok "cluster_min_af: 3 cluster link jobs" "found $n_link_parts"; fi
tsketch cluster -q --min-af 0.5 "$OUT/genomes.tsk" -o "$WORK/min_af.clusters"
expect_same "$WORK/min_af.clusters" "$OUT3/clusters.tsv" "clusters.tsv = 'tsketch cluster --min-af 0.5 genomes.tsk'"

# a second run does nothing
touch "$WORK/stamp"
sleep 1
if run_workflow "$WORK/run2.log" && grep -q "Nothing to be done" "$WORK/run2.log"; then ok "second run: nothing to be done"
else not_ok "second run: nothing to be done" "$(tail -15 "$WORK/run2.log")"; fi
changed=$(find "$OUT" -type f -newer "$WORK/stamp" | grep -v '/logs/' | wc -l)
if [ "$changed" -eq 0 ]; then ok "second run: no output rewritten"; else not_ok "second run rewrote files" "$(find "$OUT" -type f -newer "$WORK/stamp")"; fi

# the dereplication options: galah's table, a filter, and representatives/ of links to the files
OUT2="$WORK/run/derep"
if "$SNAKEMAKE" -s "$SNAKEFILE" --directory "$WORK/run" -c 2 --config genomes="$GDIR" outdir="$OUT2" threads=1 \
    device=auto cluster_format=galah cluster_min_length=10000 cluster_representative_dir=links >"$WORK/derep.log" 2>&1
then ok "cluster_format, cluster_min_length, cluster_representative_dir: the workflow runs"
else not_ok "the workflow with the dereplication options" "$(tail -20 "$WORK/derep.log")"; fi
tsketch cluster -q --format galah --min-length 10000 "$OUT/genomes.tsk" -o "$WORK/derep.galah"
expect_same "$WORK/derep.galah" "$OUT2/clusters.tsv" "clusters.tsv = 'tsketch cluster --format galah --min-length 10000'"
bad=0
while read -r name; do
    f=$(for g in "${GENOMES[@]}"; do
        [ "$(basename "$g" | sed -E 's/\.(fa|fasta|fna|ffn|fas|fsa|fsa_nt)(\.(gz|bgz|bgzf))?$//I')" = "$name" ] && echo "$g"; done)
    [ -n "$f" ] && [ "$(readlink "$OUT2/representatives/$(basename "$f")")" = "$f" ] || bad=1
done <"$OUT2/representatives.txt"
if [ $bad -eq 0 ] && [ "$(ls "$OUT2/representatives" | wc -l)" -eq "$(wc -l <"$OUT2/representatives.txt")" ]
then ok "representatives/: a link to each representative's file, by absolute path"
else not_ok "representatives/: a link to each representative's file" "$(ls -l "$OUT2/representatives")"; fi

# bad config values: an error naming the key before any job, no distances.tsv
for kv in batch=0 parts=0; do
    out0="$WORK/run/bad $kv"
    if "$SNAKEMAKE" -s "$SNAKEFILE" --directory "$WORK/run" -c 2 \
        --config genomes="$GDIR" outdir="$out0" threads=1 device=cpu "$kv" >"$WORK/bad.log" 2>&1; then
        not_ok "$kv: the workflow fails" "exit 0"
    elif grep -q "config: ${kv%=*} = 0: must be at least 1" "$WORK/bad.log" && [ ! -e "$out0/distances.tsv" ] &&
        [ ! -e "$out0/batches" ]; then
        ok "$kv: fails with 'config: ${kv%=*} = 0: must be at least 1', no job run, no distances.tsv"
    else not_ok "$kv: the message, and no output" "$(grep -i error -A3 "$WORK/bad.log" | head -8; ls "$out0" 2>&1)"; fi
done
for kv in parts=two cluster_method=average cluster_max_dist=1.5 cluster_min_af=x device=gpu cluster_format=xml \
    cluster_representative_dir=maybe cluster_missing_quality=later cluster_min_completeness=50; do
    if run_workflow "$WORK/bad.log" "$kv"; then not_ok "$kv refused" "exit 0"
    elif grep -q "config: ${kv%=*} = " "$WORK/bad.log"; then ok "$kv: refused naming the key"
    else not_ok "$kv: refused naming the key" "$(grep -i error -A3 "$WORK/bad.log" | head -8)"; fi
done
# two files of one stem would be two genomes of one name
mkdir -p "$WORK/twice"
cp "$TESTDATA/genome/g00.fa" "$WORK/twice/x.fa"
gzip -c "$TESTDATA/genome/g01.fa" >"$WORK/twice/x.fa.gz"
if "$SNAKEMAKE" -s "$SNAKEFILE" --directory "$WORK/run" -c 2 --config genomes="$WORK/twice" outdir="$WORK/run/twice" \
    >"$WORK/twice.log" 2>&1; then not_ok "x.fa and x.fa.gz refused" "exit 0"
elif grep -q "same name once the extension is removed.*x.fa and x.fa.gz" "$WORK/twice.log"; then
    ok "x.fa and x.fa.gz: refused, both named"
else not_ok "x.fa and x.fa.gz: refused, both named" "$(grep -i error -A3 "$WORK/twice.log" | head -8)"; fi

finish
