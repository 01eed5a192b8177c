#!/usr/bin/env bash
# bench/gpu_multi.sh [BUNDLE]: tsketch on a machine with several GPUs (the device tool's
# nvidia-h100-x2 kind). Checks that spreading work over GPUs changes nothing (sketches byte for
# byte, distances pair for pair, clusters line for line) and times one GPU against all of them,
# for sketch, dist of vector rows and of genome sketches, and cluster, including the full
# 50k x 50k matrix written as npy next to the disk's own write speed.
# STEPS (default "sketch dist genomes"): sketch, dist (vector rows), genomes (genome sketches from
# genome_sets_bench gen: GENOMES genomes, 100000 by default, dist --top-k 10 and cluster on cuda:0
# and cuda:all, and cuda:all = cpu on 2,000 of them); gtests (the genome engine's GPU tests, the one
# index part past 2^30 postings too, and both under compute-sanitizer memcheck); big (genomes at
# GENOMES=200000, past 2^30 keys); bigq (the top-10 of the first 1,000 of those genomes as queries
# against all of them: cuda:0 = cpu).
#
# Bundle (on the build machine, with a CUDA build in build/):
#   ../shared/device/bundle.sh .device/cli build/src/tsketch build/tests/cli/tsv_compare \
#       build/bench/gpu/genome_sets_bench build/tests/gpu/test_gpu_genome_sets_test \
#       build/tests/gpu/test_gpu_genome_sets_big_test -- ../shared/bench/make_workloads.py testdata
# Device call: bash bench/gpu_multi.sh .device/cli   (carry: [".device/cli"], kind nvidia-h100-x2)
set -uo pipefail
B=${1:-.device/cli}
T=$B/bin/tsketch
out=${OUT:-${TMPDIR:-/tmp}/gpu_multi}
W=${GPU_MULTI_WORK:-${TMPDIR:-/tmp}/gpu_multi_work}
mkdir -p "$out" "$W"
fail=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
check() { # desc cmd...
    local d=$1
    shift
    if "$@" >>"$out/checks.log" 2>&1; then say "PASS $d"; else say "FAIL $d"; fail=1; fi
}
timed() { # label cmd...: wall seconds of one run, printed with the label
    local label=$1 s e
    shift
    s=$(date +%s.%N)
    "$@" || fail=1
    e=$(date +%s.%N)
    say "$(awk -v l="$label" -v a="$s" -v b="$e" 'BEGIN { printf "%-48s %8.3f s", l, b - a }')"
}
STEPS=${STEPS:-sketch dist genomes}
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee -a "$out/summary.txt"
genome_step() {
    local n=${GENOMES:-100000} G=$W/genomes.tsk
    say "== genome sketches: one GPU vs all GPUs ($n genomes, same lines)"
    [ -s "$G" ] || "$B/bin/genome_sets_bench" gen "$n" 10000 "$G" >/dev/null || { fail=1; return; }
    "$B/bin/genome_sets_bench" gen 2000 10000 "$W/g2k.tsk" >/dev/null || { fail=1; return; }
    "$T" dist -q --device cpu -p "$(nproc)" --top-k 10 "$W/g2k.tsk" -o "$W/c.tsv"
    "$T" dist -q --device cuda:all --top-k 10 "$W/g2k.tsk" -o "$W/a.tsv"
    check "genome top-10 of 2,000: cuda:all = cpu" cmp "$W/c.tsv" "$W/a.tsv"
    "$T" cluster -q --device cpu -p "$(nproc)" "$W/g2k.tsk" -o "$W/c.tsv"
    "$T" cluster -q --device cuda:all "$W/g2k.tsk" -o "$W/a.tsv"
    check "cluster of 2,000: cuda:all = cpu" cmp "$W/c.tsv" "$W/a.tsv"
    cat "$G" >/dev/null
    for dev in cuda:0 cuda:all cuda:0 cuda:all; do
        timed "genome dist --top-k 10, $n, $dev" "$T" dist -q --device "$dev" -p "$(nproc)" --top-k 10 "$G" -o "$W/$dev.tsv"
    done
    check "genome top-10 of $n: cuda:all = cuda:0" cmp "$W/cuda:0.tsv" "$W/cuda:all.tsv"
    for dev in cuda:0 cuda:all cuda:0 cuda:all; do
        timed "cluster, $n, $dev" "$T" cluster -q --device "$dev" -p "$(nproc)" "$G" -o "$W/$dev.tsv"
    done
    check "cluster of $n: cuda:all = cuda:0" cmp "$W/cuda:0.tsv" "$W/cuda:all.tsv"
    rm -f "$W"/cuda:*.tsv "$W/a.tsv" "$W/c.tsv"
}
gtests_step() {
    local san
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    say "== genome engine GPU tests (and memcheck)"
    check "test_gpu_genome_sets_test" "$B/bin/test_gpu_genome_sets_test" --jobs 1
    timed "test_gpu_genome_sets_big_test (one part of 1.15e9 postings)" \
        check "test_gpu_genome_sets_big_test" "$B/bin/test_gpu_genome_sets_big_test" --jobs 1 --verbose
    check "memcheck test_gpu_genome_sets_test (quick)" env TSKETCH_TEST_QUICK=1 timeout 200 "$san" --tool memcheck \
        --target-processes all --error-exitcode 9 "$B/bin/test_gpu_genome_sets_test" --jobs 1
    timed "memcheck test_gpu_genome_sets_big_test" check "memcheck test_gpu_genome_sets_big_test" timeout 400 "$san" \
        --tool memcheck --target-processes all --error-exitcode 9 "$B/bin/test_gpu_genome_sets_big_test" --jobs 1
    grep -E "ERROR SUMMARY|Synthesis|skip" "$out/checks.log" | tail -n 8 | tee -a "$out/summary.txt"
}
big_step() {
    GENOMES=${GENOMES:-200000} genome_step
}
bigq_step() {
    local n=${GENOMES:-200000} G=$W/genomes.tsk Q=$W/q1000.tsk
    say "== the first 1,000 of the $n genomes as queries against all of them: cuda:0 = cpu"
    [ -s "$G" ] || "$B/bin/genome_sets_bench" gen "$n" 10000 "$G" >/dev/null || { fail=1; return; }
    "$B/bin/genome_sets_bench" gen 1000 10000 "$Q" >/dev/null || { fail=1; return; }
    timed "genome top-10, 1,000 x $n, cuda:0" "$T" dist -q --device cuda:0 -p "$(nproc)" --top-k 10 "$G" "$Q" -o "$W/qg.tsv"
    timed "genome top-10, 1,000 x $n, cpu -p $(nproc)" "$T" dist -q --device cpu -p "$(nproc)" --top-k 10 "$G" "$Q" -o "$W/qc.tsv"
    check "genome top-10 of 1,000 x $n: cuda:0 = cpu ($(wc -l <"$W/qg.tsv") lines)" cmp "$W/qg.tsv" "$W/qc.tsv"
    rm -f "$W/qg.tsv" "$W/qc.tsv"
}
if ! want sketch && ! want dist; then
    want gtests && gtests_step
    want big && big_step
    want bigq && bigq_step
    want genomes && genome_step
    say "== done: $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"
    exit $fail
fi
scale=${GPU_MULTI_SCALE:-1}
python3 "$B/make_workloads.py" "$W/full" --scale "$scale" >/dev/null || exit 1
python3 "$B/make_workloads.py" "$W/r50" --scale "$(awk -v s="$scale" 'BEGIN { print 0.05 * s }')" >/dev/null || exit 1

same_rows() { # a.tsk b.tsk: identical names and rows
    "$T" export "$1" >"$W/a.tsv" && "$T" export "$2" >"$W/b.tsv" && cmp "$W/a.tsv" "$W/b.tsv"
}
# 4 x long-records (800 Mbp) and the short reads: batches of 256 Mbp cut into 128 Mbp parts, so
# parts really go to different GPUs (a 100 Mbp file is one part on one GPU)
for k in 1 2 3 4; do cat "$W/full/long-records.fa"; done >"$W/full/long4.fa"
want sketch && say "== sketch: one GPU vs all GPUs (rows byte for byte)"
want sketch && for f in seed-homogeneous seed-heterogeneous long-records short-reads long4; do
    in=$W/full/$f.fa
    cat "$in" >/dev/null
    timed "$f cuda:0" "$T" sketch -q --device cuda:0 -p "$(nproc)" "$in" -o "$W/one.tsk"
    timed "$f cuda:all" "$T" sketch -q --device cuda:all -p "$(nproc)" "$in" -o "$W/all.tsk"
    check "$f: cuda:all rows = cuda:0 rows" same_rows "$W/one.tsk" "$W/all.tsk"
done
want sketch && "$T" sketch -q --device cuda:0,1 --canonical --window 2000 --stride 500 "$W/full/seed-heterogeneous.fa" -o "$W/s01.tsk"
want sketch && "$T" sketch -q --device cuda:0 --canonical --window 2000 --stride 500 "$W/full/seed-heterogeneous.fa" -o "$W/s0.tsk"
want sketch && check "slide + canonical: cuda:0,1 = cuda:0" same_rows "$W/s0.tsk" "$W/s01.tsk"
want sketch && check "--device cuda:0,7 (one missing) exits 5" bash -c "'$T' sketch -q --device cuda:0,7 '$B/testdata/golden/mixed.fa' -o '$W/x.tsk'; [ \$? -eq 5 ]"

rm -f "$W/a.tsv" "$W/b.tsv" "$W/full/long4.fa"
[ "${GPU_MULTI_SKETCH_ONLY:-0}" = 1 ] && { say "== done (sketch only): $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"; exit $fail; }
want genomes && genome_step
want dist || { say "== done: $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"; exit $fail; }
say "== dist: one GPU vs all GPUs (same pairs, same distances)"
"$T" sketch -q --device cuda "$W/full/short-reads.fa" -o "$W/reads.tsk"
"$T" sketch -q --device cuda "$W/r50/short-reads.fa" -o "$W/r50.tsk"
timed "dist --top-k 10, 1e6 sketches, cuda:0" "$T" dist -q --device cuda:0 --top-k 10 "$W/reads.tsk" -o "$W/d0.tsv"
timed "dist --top-k 10, 1e6 sketches, cuda:all" "$T" dist -q --device cuda:all --top-k 10 "$W/reads.tsk" -o "$W/d1.tsv"
check "dist --top-k 10: cuda:all = cuda:0 ($(wc -l <"$W/d0.tsv") lines)" cmp "$W/d0.tsv" "$W/d1.tsv"
"$T" dist -q --device cuda:0 -d 0.005 "$W/r50.tsk" "$W/reads.tsk" -o "$W/d0.tsv"
"$T" dist -q --device cuda:all -d 0.005 "$W/r50.tsk" "$W/reads.tsk" -o "$W/d1.tsv"
check "dist -d 0.005, 5e4 x 1e6: cuda:all = cuda:0 ($(wc -l <"$W/d0.tsv") lines)" cmp "$W/d0.tsv" "$W/d1.tsv"
rm -f "$W"/d0.tsv "$W"/d1.tsv
say "== full matrix 50k x 50k to npy (10 GB) vs the disk"
timed "dd 10 GB to disk (conv=fdatasync)" dd if=/dev/zero of="$W/zero.bin" bs=64M count=150 conv=fdatasync status=none
rm -f "$W/zero.bin"
n=$("$T" info "$W/r50.tsk" | awk -F"\t" '$1 == "records" { print $2 }')
say "sketches in r50.tsk: $n"
timed "dist -f npy 50k, cuda:0 (page cache)" "$T" dist -q --device cuda:0 -f npy "$W/r50.tsk" -o "$W/m0.npy"
timed "dist -f npy 50k, cuda:all (page cache)" "$T" dist -q --device cuda:all -f npy "$W/r50.tsk" -o "$W/m1.npy"
check "npy cuda:all = cuda:0" cmp "$W/m0.npy" "$W/m1.npy"
ls -la "$W/m0.npy" | tee -a "$out/summary.txt"
say "== done: $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"
exit $fail
