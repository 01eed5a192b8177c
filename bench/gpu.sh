#!/usr/bin/env bash
# bench/gpu.sh [BUNDLE]: the one script run on the GPU machine. Checks the GPU sketch engine
# (Criterion tests: GPU vs CPU vs golden; odd lengths, t/D sweep, slide rows across chunk borders,
# real genomes), runs compute-sanitizer memcheck and racecheck on small inputs, then times the
# engine on the four standard workloads next to the seed's Numba kernel, and finally runs
# bench/gpu/dist.sh (the distance engine) when it exists. Logs go to $OUT (default $TMPDIR/gpu_bench);
# workloads to $GPU_BENCH_WORK (default $TMPDIR/gpu_bench_work).
#
# BUNDLE (default .device/gpus) is made on the build machine:
#   shared/device/bundle.sh .device/gpus build-gpus/bench/gpu/gpu_sketch_bench \
#     build-gpus/tests/gpu/test_gpu_sketch_test -- shared/bench/*.py testdata shared/data/...
# and the device call is: bash bench/gpu.sh .device/gpus   (carry: [".device/gpus"])
# STEPS (default "tests san time more seed dist genome"; also dist_e2e) picks the parts to run: time = the four workloads
# at t=4 D=96 (and the same with $B/bin/gpu_sketch_bench_old, an earlier build, when carried: a
# before/after in one call); more = canonical, slide, generic, double, the t/D sweep, real genomes;
# genome = the genome-sketch engine (gpu/genome_sets: its test, also under memcheck; memcheck and
# racecheck on its benchmark; the benchmark at 10^4 and 10^5 genomes; tsketch dist end to end).
set -uo pipefail
STEPS=${STEPS:-tests san time more seed dist genome}
want() { [[ " $STEPS " == *" $1 "* ]]; }
B=${1:-.device/gpus}
out=${OUT:-${TMPDIR:-/tmp}/gpu_bench}
W=${GPU_BENCH_WORK:-${TMPDIR:-/tmp}/gpu_bench_work}  # workloads and scratch files
mkdir -p "$W"
mkdir -p "$out"
bench=$B/bin/gpu_sketch_bench
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
status=0
step() { echo "== $*" | tee -a "$out/summary.txt"; }
run() {  # run LOGNAME CMD...: logs to $out/LOGNAME, the table to the summary, failure noted
    local name=$1; shift
    "$@" >"$out/$name" 2>&1
    local rc=$?
    grep -v '^==' "$out/$name" | tail -n 12 | tee -a "$out/summary.txt"
    [ $rc -eq 0 ] || { echo "!! $name exited $rc" | tee -a "$out/summary.txt"; status=1; }
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/summary.txt"

if want tests || want san || want time || want more || want seed; then
step "workloads"
python3 "$B/make_workloads.py" $W/w && python3 "$B/make_workloads.py" $W/ws --scale 0.002 || exit 1
fi

want tests && step "Criterion tests (GPU vs CPU reference vs golden)" &&
run tests.log env TESTDATA="$B/testdata" "$B/bin/test_gpu_sketch_test" --jobs 1 --verbose=0

if want san; then
step "compute-sanitizer memcheck + racecheck (small inputs; fast and generic kernels, chunks, slide, canonical)"
small="$W/ws/seed-heterogeneous.fa $W/ws/long-records.fa $W/ws/short-reads.fa"
# racecheck instruments every shared-memory access of the generic kernel: tiny inputs there
tiny="$B/testdata/gpu/MT-human.fa $B/testdata/gpu/acgt.fa"
run san_memcheck_fast.log "$san" --tool memcheck --error-exitcode 9 "$bench" --repeats 1 $small
run san_memcheck_generic.log "$san" --tool memcheck --error-exitcode 9 "$bench" --repeats 1 --dim 100 --t 5 --canonical $small
run san_memcheck_slide.log "$san" --tool memcheck --error-exitcode 9 "$bench" --repeats 1 --window 20000 --stride 7000 --canonical $W/ws/long-records.fa
run san_racecheck_fast.log "$san" --tool racecheck --error-exitcode 9 "$bench" --repeats 1 $small
run san_racecheck_generic.log "$san" --tool racecheck --error-exitcode 9 "$bench" --repeats 1 --dim 100 --t 5 --canonical $tiny
run san_racecheck_slide.log "$san" --tool racecheck --error-exitcode 9 "$bench" --repeats 1 --window 3000 --stride 1000 --double $tiny
fi

if want time; then
step "t=4 D=96 float32, the four workloads (kernel-only and end-to-end Gbp/s; errors vs CPU float64)"
run bench_default.log "$bench" --repeats 5 $W/w/seed-homogeneous.fa $W/w/seed-heterogeneous.fa $W/w/short-reads.fa
step "long records: 4 x 50 Mbp through the split path (accuracy bound 1e-4)"
run bench_long.log "$bench" --repeats 5 --tol 1e-4 $W/w/long-records.fa
if [ -x "$B/bin/gpu_sketch_bench_old" ]; then
    step "the same with the earlier build (gpu_sketch_bench_old)"
    run bench_old_default.log "$B/bin/gpu_sketch_bench_old" --repeats 5 $W/w/seed-homogeneous.fa $W/w/seed-heterogeneous.fa $W/w/short-reads.fa
    run bench_old_long.log "$B/bin/gpu_sketch_bench_old" --repeats 5 --tol 1e-4 $W/w/long-records.fa
fi
fi

if want more; then
python3 "$B/make_workloads.py" $W/w10 --scale 0.1 >/dev/null
step "canonical"
run bench_canonical.log "$bench" --repeats 3 --canonical $W/w/seed-homogeneous.fa $W/w/seed-heterogeneous.fa
step "slide rows w=10000 s=1000 (per-window recomputation: 10x the bases), 10 Mbp"
run bench_slide.log "$bench" --repeats 3 --window 10000 --stride 1000 $W/w10/seed-heterogeneous.fa
step "generic kernel: D=100 float32, D=96 float64 (checked on 10 Mbp, timed on 100 Mbp)"
run bench_generic.log "$bench" --repeats 1 --dim 100 $W/w10/seed-homogeneous.fa
run bench_generic_t.log "$bench" --repeats 3 --no-check --dim 100 $W/w/seed-homogeneous.fa
run bench_double.log "$bench" --repeats 1 --double $W/w10/seed-homogeneous.fa
run bench_double_t.log "$bench" --repeats 3 --no-check --double $W/w/seed-homogeneous.fa
step "t/D sweep on seed-homogeneous (10 Mbp)"
for t in 2 3 4 6 8; do
    for d in 32 64 96 128; do
        "$bench" --repeats 3 --t $t --dim $d $W/w10/seed-homogeneous.fa 2>&1 | tail -n 1 | sed "s/^/t=$t D=$d /"
    done
done | tee "$out/sweep.log" | tee -a "$out/summary.txt"
step "real genomes"
real=$(ls "$B"/data/* 2>/dev/null)
[ -n "$real" ] && run bench_real.log "$bench" --repeats 3 $real

fi

if want seed; then
step "seed baseline (Numba, t=4 D=96)"
# one process per file: numba keeps every launch's buffers and streams until the end of a run
# (SEED_WORKLOADS narrows it: the seed's short reads take minutes)
for w in ${SEED_WORKLOADS:-seed-homogeneous seed-heterogeneous short-reads}; do
    run "seed_$w.log" python3 "$B/seed_numba.py" --repeats 3 "$W/w/$w.fa"
done
run seed_long-records.log python3 "$B/seed_numba.py" --repeats 1 $W/w/long-records.fa

fi

here=$(cd "$(dirname "$0")" && pwd)
dist_bin=${DIST_BENCH:-.device/gpud/bin/dist_bench}
if want dist && [ -f "$here/gpu/dist.sh" ]; then
    step "distance engine (bench/gpu/dist.sh $dist_bin)"
    if [ -x "$dist_bin" ]; then bash "$here/gpu/dist.sh" "$dist_bin" || status=1
    else echo "skipped: $dist_bin not carried" | tee -a "$out/summary.txt"; fi
fi
if want dist_e2e; then  # not in the default STEPS: needs its own bundle (see bench/gpu/dist_e2e.sh)
    eb=${DIST_E2E_BUNDLE:-.device/gemm}
    step "vector distances, old vs new build, whole process (bench/gpu/dist_e2e.sh $eb)"
    if [ -x "$eb/bin/tsketch_old" ]; then OUT="$out/dist_e2e" bash "$here/gpu/dist_e2e.sh" "$eb" || status=1
    else echo "skipped: $eb/bin/tsketch_old not carried" | tee -a "$out/summary.txt"; fi
fi
if want genome; then
# GENOME_BUNDLE (default .device/ggpu), made by
#   shared/device/bundle.sh .device/ggpu build-cuda/src/tsketch \
#     build-cuda/tests/gpu/test_gpu_genome_sets_test build-cuda/bench/gpu/genome_sets_bench -- bench/gpu.sh
# and run as: STEPS=genome bash .device/ggpu/gpu.sh .device/ggpu. GENOME_SIZES: "N:KEYS" runs of
# the benchmark; GENOME_E2E: genome counts timed through tsketch dist (.tsk files from the
# benchmark's generator), after cuda = cpu byte checks on 2,000 genomes.
gb=${GENOME_BUNDLE:-.device/ggpu}
step "genome sketches on the GPU (gpu/genome_sets: tests, sanitizers, benchmark; $gb)"
if [ -x "$gb/bin/genome_sets_bench" ]; then
    run genome_test.log "$gb/bin/test_gpu_genome_sets_test" --jobs 1
    # memcheck on the test's quick form (Criterion runs each test in a child process: the sanitizer
    # follows it); memcheck and racecheck on the benchmark at a small size, references in 8 chunks
    run genome_memcheck.log env TSKETCH_TEST_QUICK=1 timeout 150 "$san" --tool memcheck --target-processes all --error-exitcode 9 \
        "$gb/bin/test_gpu_genome_sets_test" --jobs 1
    run genome_memcheck_bench.log timeout 120 "$san" --tool memcheck --error-exitcode 9 "$gb/bin/genome_sets_bench" run 800 300 1 100
    run genome_racecheck_bench.log timeout 120 "$san" --tool racecheck --error-exitcode 9 "$gb/bin/genome_sets_bench" run 800 300 1 100
    for size in ${GENOME_SIZES:-10000:10000 100000:10000}; do
        run "genome_bench_${size/:/_}.log" timeout 240 "$gb/bin/genome_sets_bench" run "${size%:*}" "${size#*:}" 3
    done
    if [ -x "$gb/bin/tsketch" ]; then
        genome_e2e() {
            local T=$gb/bin/tsketch a g c
            "$gb/bin/genome_sets_bench" gen 2000 10000 $W/g2k.tsk || return 1
            for a in "--top-k 10" "-d 0.05" "--containment --top-k 5" "--containment -d 0.05" "" "-f phylip"; do
                $T dist --device cuda $a $W/g2k.tsk -o $W/g_gpu.out; g=$?
                $T dist --device cpu -p 16 $a $W/g2k.tsk -o $W/g_cpu.out; c=$?
                if [ $g = 0 ] && [ $c = 0 ] && cmp -s $W/g_gpu.out $W/g_cpu.out; then
                    echo "same bytes cuda = cpu: dist $a ($(wc -l <$W/g_gpu.out) lines)"
                else echo "DIFFERENT cuda (exit $g) and cpu (exit $c): dist $a"; status=1; fi
            done
            local TIMEFORMAT='%R s' n
            for n in ${GENOME_E2E:-10000}; do
                "$gb/bin/genome_sets_bench" gen "$n" 10000 $W/g.tsk || return 1
                echo "N=$n tsketch info:"; time $T info $W/g.tsk >/dev/null
                for a in "--top-k 10" "-d 0.05"; do
                    echo "N=$n dist --device cuda -p 16 $a:"; time $T dist --device cuda -p 16 $a $W/g.tsk -o $W/g.tsv
                    echo "$(wc -l <$W/g.tsv) lines"
                done
            done
            rm -f $W/g.tsk $W/g2k.tsk $W/g.tsv $W/g_gpu.out $W/g_cpu.out
        }
        run genome_e2e.log genome_e2e
    fi
else
    echo "skipped: $gb/bin/genome_sets_bench not carried" | tee -a "$out/summary.txt"
fi
fi
step "done, status $status"
# only 8 files come back from the device: pack the logs
(cd "$out" && tar czf logs.tgz --exclude=logs.tgz -- *) && find "$out" -type f ! -name logs.tgz ! -name summary.txt -delete
exit $status
