#!/usr/bin/env bash
# bench/gpu_cli.sh [BUNDLE]: the tsketch binary itself on a GPU machine, end to end: GPU vs CPU
# sketches and distances through the CLI (the kernels' own checks are in bench/gpu.sh), sanitizers
# on the CLI paths, end-to-end sketch timings from uncompressed FASTA in the page cache to a written
# .tsk next to the seed kernel, and dist at scale. Logs and a summary go to $OUT.
#
# Bundle (on the build machine, with a CUDA build in build/):
#   ../shared/device/bundle.sh .device/cli build/src/tsketch build/tests/cli/tsv_compare \
#       build/bench/gpu/dist_bench -- ../shared/bench/make_workloads.py ../shared/bench/seed_numba.py \
#       testdata ../shared/data/eukaryote/vt_GRCh37_chr20.fa.gz
# Device call: bash bench/gpu_cli.sh .device/cli   (carry: [".device/cli"])
# STEPS (default "checks san dist genome lanes e2e seed") picks the parts to run; "lanes" (the
# distance runner's GPU lane thread, src/dist_run.c) needs no workloads and also takes
# bench/genome/genome_gen from the bundle.
set -uo pipefail
STEPS=${STEPS:-checks san dist genome lanes e2e seed}
want() { [[ " $STEPS " == *" $1 "* ]]; }
B=${1:-.device/cli}
T=$B/bin/tsketch
CMP=$B/bin/tsv_compare
out=${OUT:-${TMPDIR:-/tmp}/gpu_cli}
W=${GPU_CLI_WORK:-${TMPDIR:-/tmp}/gpu_cli_work}
mkdir -p "$out" "$W"
fail=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
check() { # desc cmd...: PASS/FAIL line
    local d=$1
    shift
    if "$@" >>"$out/checks.log" 2>&1; then say "PASS $d"; else say "FAIL $d"; fail=1; fi
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$out/summary.txt"
nproc | sed 's/^/cpu cores: /' | tee -a "$out/summary.txt"
scale=${GPU_CLI_SCALE:-1}  # a smaller scale only to try the script out
if [ "$STEPS" != lanes ]; then
    python3 "$B/make_workloads.py" "$W/full" --scale "$scale" >/dev/null &&
        python3 "$B/make_workloads.py" "$W/small" --scale 0.01 >/dev/null
fi

# 1. GPU vs CPU through the CLI: every row within 1e-5 (single) / 1e-12 (double)
gpu_vs_cpu() { # name tol input sketch-args...
    local name=$1 tol=$2 in=$3
    shift 3
    "$T" sketch -q --device cuda "$@" "$in" -o "$W/g.tsk" && "$T" export "$W/g.tsk" >"$W/g.tsv" &&
        "$T" sketch -q --device cpu -p "$(nproc)" "$@" "$in" -o "$W/c.tsk" && "$T" export "$W/c.tsk" >"$W/c.tsv" &&
        "$CMP" "$W/c.tsv" "$W/g.tsv" "$tol"
}
if want checks; then
say "== sketch: GPU vs CPU engine through tsketch"
for f in "$W"/small/*.fa "$B"/testdata/genomes/*.fa "$B"/testdata/golden/mixed.fa; do
    n=$(basename "$f")
    check "$n t=4 D=96" gpu_vs_cpu "$n" 1e-5 "$f"
    check "$n double" gpu_vs_cpu "$n" 1e-12 "$f" --precision double
    check "$n canonical t=3 D=64" gpu_vs_cpu "$n" 1e-5 "$f" --canonical -k 3 -s 64
    check "$n slide w=1000 s=100" gpu_vs_cpu "$n" 1e-5 "$f" --window 1000 --stride 100
done
check "protein t=3 D=32" gpu_vs_cpu protein 1e-5 "$B/testdata/golden/protein.fa" --alphabet protein -k 3 -s 32
check "chr20 (63 Mbp, BGZF, one record: split path) 1e-4" gpu_vs_cpu chr20 1e-4 "$B/vt_GRCh37_chr20.fa.gz"
check "golden file through the GPU (oracle, 1e-5)" bash -c "'$T' sketch -q --device cuda '$B/testdata/golden/mixed.fa' -o '$W/o.tsk' && '$T' export '$W/o.tsk' >'$W/o.tsv' && '$CMP' '$B/testdata/golden/mixed_t4_D96.tsv' '$W/o.tsv' 1e-5"
check "--device cuda:7 (no such device) exits 5" bash -c "'$T' sketch -q --device cuda:7 '$B/testdata/golden/mixed.fa' -o '$W/x.tsk'; [ \$? -eq 5 ]"
fi

if want san; then
say "== compute-sanitizer on the CLI paths (tiny inputs)"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
    check "sanitizer $tool: sketch" "$san" --tool $tool --error-exitcode 9 "$T" sketch -q --device cuda \
        "$B/testdata/golden/mixed.fa" "$B/testdata/genomes/MT-human.fa" -o "$W/s.tsk"
    check "sanitizer $tool: slide + canonical" "$san" --tool $tool --error-exitcode 9 "$T" sketch -q --device cuda \
        --canonical --window 500 --stride 70 "$B/testdata/genomes/NC_045512.2.fa" -o "$W/s2.tsk"
    head -n 2000 "$W/small/short-reads.fa" >"$W/reads1000.fa"
    "$T" sketch -q --device cpu "$W/reads1000.fa" -o "$W/reads_small.tsk"
    check "sanitizer $tool: dist top-k" "$san" --tool $tool --error-exitcode 9 "$T" dist -q --device cuda --top-k 5 \
        "$W/reads_small.tsk" -o "$W/tk.tsv"
done
check "sanitizer racecheck: dist_bench small" timeout 120 "$san" --tool racecheck --error-exitcode 9 "$B/bin/dist_bench" small
fi

if want dist; then
say "== dist: GPU vs CPU through tsketch (10,000 short reads)"
"$T" sketch -q --device cuda "$W/small/short-reads.fa" -o "$W/reads.tsk"
same_pairs() { # a b: same lines but for distance ties; distances within 1e-5 relative
    paste "$1" "$2" | awk -F'\t' '{ d = $3 - $6; if (d < 0) d = -d; m = $3 > $6 ? $3 : $6;
        if (d > 1e-5 * m + 1e-7) bad++; if ($1 != $4 || $2 != $5) swapped++ }
        END { printf "%d lines, %d distances off, %d tie swaps\n", NR, bad, swapped; exit bad > 0 }'
}
for args in "--top-k 10" "-d 0.03" "--metric cosine --top-k 3" ""; do
    "$T" dist -q --device cuda $args "$W/reads.tsk" -o "$W/dg.tsv"
    "$T" dist -q --device cpu -p "$(nproc)" $args "$W/reads.tsk" -o "$W/dc.tsv"
    check "dist $args: GPU = CPU ($(wc -l <"$W/dc.tsv") lines)" same_pairs "$W/dc.tsv" "$W/dg.tsv"
done
"$T" sketch -q --device cuda --window 2000 --stride 500 "$W/small/seed-heterogeneous.fa" -o "$W/slide.tsk"
"$T" dist -q --device cuda "$W/slide.tsk" -o "$W/sg.tsv"
"$T" dist -q --device cpu "$W/slide.tsk" -o "$W/sc.tsv"
check "dist of slide sketches (rows compared over the shorter record): GPU = CPU" same_pairs "$W/sc.tsv" "$W/sg.tsv"
fi

if want e2e; then
say "== sketch end to end: uncompressed FASTA (page cache) -> .tsk, t=4 D=96, GPU, -p $(nproc)"
# 16 x seed-homogeneous + 4 x long-records: 2.4 Gbp, where the ~0.5 s of CUDA start-up is amortized
for k in $(seq 16); do cat "$W/full/seed-homogeneous.fa"; done >"$W/big.fa"
for k in 1 2 3 4; do cat "$W/full/long-records.fa"; done >>"$W/big.fa"
for f in seed-homogeneous seed-heterogeneous long-records short-reads big; do
    in=$W/full/$f.fa
    [ $f = big ] && in=$W/big.fa
    cat "$in" >/dev/null
    bp=$(grep -v '^>' "$in" | tr -d '\n' | wc -c)
    best=
    for rep in 1 2; do
        s=$(date +%s.%N)
        "$T" sketch -q --device cuda -p "$(nproc)" "$in" -o "$W/e2e.tsk" || fail=1
        e=$(date +%s.%N)
        sec=$(elapsed "$s" "$e")
        if [ -z "$best" ] || awk -v a="$sec" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$sec; fi
    done
    say "$(awk -v f=$f -v bp="$bp" -v t="$best" 'BEGIN { printf "%-20s %7.1f Mbp  best of 2: %6.3f s  %6.2f Gbp/s", f, bp / 1e6, t, bp / t / 1e9 }')"
done
say "== where the time goes (big.fa, 2.4 Gbp)"
s=$(date +%s.%N); "$T" sketch -q --device cuda -p "$(nproc)" "$B/testdata/golden/mixed.fa" -o "$W/tiny.tsk"; e=$(date +%s.%N)
say "start-up: a tiny input through the GPU engine: $(elapsed "$s" "$e") s"
s=$(date +%s.%N); "$T" sketch -q --device cuda -p "$(nproc)" -k 1 -s 32 "$W/big.fa" -o "$W/k1.tsk"; e=$(date +%s.%N)
say "t=1 D=32 (parse + pack + copy + write, ~no sketch work): $(elapsed "$s" "$e") s"
for p in 1 4; do
    s=$(date +%s.%N); "$T" sketch -q --device cuda -p $p "$W/big.fa" -o "$W/e2e.tsk"; e=$(date +%s.%N)
    say "t=4 D=96 with -p $p: $(elapsed "$s" "$e") s"
done
# the pipeline's own breakdown (TSKETCH_TIMING=1: seconds per stage, see src/pipeline.c)
for args in "-k 1 -s 32" ""; do
    s=$(date +%s.%N)
    TSKETCH_TIMING=1 "$T" sketch -q --device cuda -p "$(nproc)" $args "$W/big.fa" -o "$W/e2e.tsk" 2>"$W/timing.txt"
    e=$(date +%s.%N)
    m=$(stat -c %.9Y "$W/e2e.tsk")  # the .tsk's last write, before its rename
    say "stages ${args:-t=4 D=96}, wall $(elapsed "$s" "$e") s, of which $(elapsed "$m" "$e") s after the .tsk's last write (rename, teardown, exit):"
    sed 's/^/    /' "$W/timing.txt" | tee -a "$out/summary.txt"
done
for f in seed-homogeneous short-reads; do
    TSKETCH_TIMING=1 "$T" sketch -q --device cuda -p "$(nproc)" "$W/full/$f.fa" -o "$W/e2e.tsk" 2>"$W/timing.txt"
    say "stages $f:"
    sed 's/^/    /' "$W/timing.txt" | tee -a "$out/summary.txt"
done
rm -f "$W/big.fa"
s=$(date +%s.%N); "$T" sketch -q --device cpu -p "$(nproc)" "$W/full/seed-heterogeneous.fa" -o "$W/cpu.tsk"; e=$(date +%s.%N)
say "cpu engine, seed-heterogeneous, -p $(nproc): $(elapsed "$s" "$e") s"
fi

if want dist; then
say "== dist at scale: top-10 of 200,000 read sketches (4e10 pairs), end to end with output written"
python3 "$B/make_workloads.py" "$W/r200" --scale "$(awk -v s="$scale" 'BEGIN { print 0.2 * s }')" >/dev/null
"$T" sketch -q --device cuda "$W/r200/short-reads.fa" -o "$W/r200.tsk"
s=$(date +%s.%N); "$T" dist -q --device cuda --top-k 10 "$W/r200.tsk" -o "$W/top10.tsv"; e=$(date +%s.%N)
say "top-10, 200000 sketches: $(elapsed "$s" "$e") s, $(wc -l <"$W/top10.tsv") lines"
fi

if want genome; then
say "== genome sketches: GPU engine vs CPU engine (the same bytes), and their times"
G=$W/genome
mkdir -p "$G"
D=$B/testdata/genome
# same_bytes NAME TSKETCH-DIST-ARGS...: the CPU engine and the GPU engine write the same bytes
same_bytes() {
    local name=$1
    shift
    "$T" dist -q --device cpu "$@" >"$G/$name.cpu" && "$T" dist -q --device cuda "$@" >"$G/$name.gpu" &&
        cmp "$G/$name.cpu" "$G/$name.gpu"
}
check "genome, records from FASTA, -f square: cuda = cpu" same_bytes square --genome -f square "$D/g00.fa"
# Genome sketches: keys made from GPU rows = keys made from CPU rows (the integer sketch is
# recovered exactly from either), and the GPU genome-set engine = the CPU one, byte for byte.
# same_keys NAME SKETCH-ARGS...: sketch --genome on each device, the same keys
same_keys() {
    local name=$1
    shift
    "$T" sketch -q --genome --device cuda "$@" -o "$G/$name.kg.tsk" && "$T" export "$G/$name.kg.tsk" >"$G/$name.kg.tsv" &&
        "$T" sketch -q --genome --device cpu -p "$(nproc)" "$@" -o "$G/$name.kc.tsk" &&
        "$T" export "$G/$name.kc.tsk" >"$G/$name.kc.tsv" && cmp "$G/$name.kg.tsv" "$G/$name.kc.tsv"
}
check "genome sketches, 4 files of contigs: GPU keys = CPU keys" same_keys files --per-file "$D"/g0*.fa
check "genome sketches, 6 SARS-CoV-2: GPU keys = CPU keys" same_keys sc2 "$B/testdata/genomes/sarscov2_6.fa"
check "genome sketches, dist: cuda = cpu" same_bytes gk "$G/sc2.kc.tsk"
check "genome sketches, --device cuda:7 exits 5" bash -c "'$T' dist -q --device cuda:7 '$G/sc2.kc.tsk' >/dev/null 2>&1; [ \$? -eq 5 ]"
check "genome sketches, top-k 3: cuda = cpu" same_bytes gkt --top-k 3 "$G/sc2.kc.tsk"
check "genome sketches, -d 0.01: cuda = cpu" same_bytes gkd -d 0.01 "$G/sc2.kc.tsk"
check "genome sketches, containment x files: cuda = cpu" same_bytes gkc --containment "$G/sc2.kc.tsk" "$G/files.kc.tsk"
check "genome sketches, -f square: cuda = cpu" same_bytes gks -f square "$G/files.kc.tsk"
# pairs of different thresholds (the size floor: 30 kb genomes against files of contigs) take the
# searches of the floor path; memcheck on it
check "genome sketches, small x large (size floors), top-k 2: cuda = cpu" same_bytes gkf --top-k 2 "$G/sc2.kc.tsk" "$G/files.kc.tsk"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
check "sanitizer memcheck: genome dist, size floors, top-k and -d" bash -c "'$san' --tool memcheck --error-exitcode 9 '$T' dist -q --device cuda --top-k 2 '$G/sc2.kc.tsk' '$G/files.kc.tsk' >/dev/null && '$san' --tool memcheck --error-exitcode 9 '$T' dist -q --device cuda -d 0.5 '$G/sc2.kc.tsk' '$G/files.kc.tsk' >/dev/null"
# timed_genome LABEL NAME SKETCH-ARGS...: sketch --genome then all pairs, on each device, whole
# process each; the same bytes from both
timed_genome() {
    local label=$1 name=$2 s e
    shift 2
    for dev in cuda cpu; do
        s=$(date +%s.%N); "$T" sketch -q --genome --device $dev -p "$(nproc)" "$@" -o "$G/$name.$dev.tsk"; e=$(date +%s.%N)
        say "genome sketches, $label, sketch --device $dev -p $(nproc): $(elapsed "$s" "$e") s, $(stat -c %s "$G/$name.$dev.tsk") bytes"
        s=$(date +%s.%N); "$T" dist -q --device $dev -p "$(nproc)" "$G/$name.$dev.tsk" -o "$G/$name.$dev.tsv"; e=$(date +%s.%N)
        say "genome sketches, $label, dist --device $dev -p $(nproc): $(elapsed "$s" "$e") s"
    done
    check "genome sketches, $label: keys and distances cuda = cpu" cmp "$G/$name.cuda.tsv" "$G/$name.cpu.tsv"
}
# 1410 genomes of 1-200 kbp (seed-heterogeneous at a tenth: 10 Mbp, ~100,000 rows, 1e6 pairs)
python3 "$B/make_workloads.py" "$G/w" --scale 0.1 >/dev/null
timed_genome "1410 genomes (10 Mbp), all pairs" h "$G/w/seed-heterogeneous.fa"
# 4 genomes of 2 Mbp (20,000 rows each): the searches dominate
python3 "$B/make_workloads.py" "$G/l" --scale 0.04 >/dev/null
timed_genome "4 genomes of 2 Mbp" l "$G/l/long-records.fa"
# real genomes, when the bundle has them (bench/accuracy/run.sh's bloch.fa: 9 records, 6.8 Mbp)
[ -s "$B/bloch.fa" ] && timed_genome "9 Blochmannia genomes (6.8 Mbp)" b "$B/bloch.fa"
fi

if want lanes; then
say "== lanes: every dist run computes on a lane thread beside the writer; cuda = cpu, any block size"
python3 - "$W/lanes.fa" <<'PY'
import random, sys
r = random.Random(3)
reads = ["".join(r.choices("ACGT", k=150)) for _ in range(20000)]
for i in range(0, 20000, 7):  # near copies: one letter changed
    s = list(reads[i]); j = r.randrange(150); s[j] = "A" if s[j] != "A" else "C"; reads.append("".join(s))
with open(sys.argv[1], "w") as f:
    f.writelines(">r%d\n%s\n" % (i, s) for i, s in enumerate(reads))
PY
"$T" sketch -q --device cpu -p "$(nproc)" "$W/lanes.fa" -o "$W/l.tsk"
"$B/bin/genome_gen" -n 600 -f 30 -L 20000-60000 -d 0.02 -s 9 -p "$(nproc)" --one-file "$W/lg.fa" >/dev/null 2>&1
"$T" sketch -q --genome -p "$(nproc)" "$W/lg.fa" -o "$W/lg.tsk"
lanes_same() { # desc input args...: cuda = cpu, and cuda with 500-query blocks = cuda
    local d=$1 in=$2
    shift 2
    "$T" dist -q --device cpu -p "$(nproc)" "$@" "$in" -o "$W/lc.tsv"
    "$T" dist -q --device cuda "$@" "$in" -o "$W/lu.tsv"
    TSKETCH_DIST_BLOCK=500 "$T" dist -q --device cuda "$@" "$in" -o "$W/lb.tsv"
    check "lanes: $d: cuda = cpu ($(wc -l <"$W/lc.tsv") lines)" cmp "$W/lc.tsv" "$W/lu.tsv"
    check "lanes: $d: cuda, blocks of 500 = cuda" cmp "$W/lu.tsv" "$W/lb.tsv"
}
lanes_same "vector top-10" "$W/l.tsk" --top-k 10
lanes_same "vector -d 0.02" "$W/l.tsk" -d 0.02
lanes_same "genome top-10" "$W/lg.tsk" --top-k 10
lanes_same "genome -d 0.05" "$W/lg.tsk" -d 0.05
"$T" cluster -q --device cpu -p "$(nproc)" "$W/lg.tsk" -o "$W/lc.tsv"
TSKETCH_DIST_BLOCK=50 "$T" cluster -q --device cuda "$W/lg.tsk" -o "$W/lu.tsv"
check "lanes: cluster, blocks of 50: cuda = cpu" cmp "$W/lc.tsv" "$W/lu.tsv"
check "lanes: dist --device cuda:0,9 (no such device) exits 5" bash -c "'$T' dist -q --device cuda:0,9 --top-k 1 '$W/l.tsk' >/dev/null; [ \$? -eq 5 ]"
fi

if want seed; then
say "== seed kernel (Numba) in the same call"
for f in seed-homogeneous seed-heterogeneous; do
    python3 "$B/seed_numba.py" --repeats 1 "$W/full/$f.fa" 2>&1 | grep Gbp | tail -1 | tee -a "$out/summary.txt"
done
fi
say "== done: $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"
exit $fail
