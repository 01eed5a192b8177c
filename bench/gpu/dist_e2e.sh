#!/usr/bin/env bash
# bench/gpu/dist_e2e.sh BUNDLE: the vector distance engine before and after a change, on the GPU
# machine, whole process with output written. BUNDLE/bin holds tsketch (new), tsketch_old (built
# from the commit before), dist_bench and dist_bench_old, test_gpu_dist_test. Made by
#   shared/device/bundle.sh .device/gemm build-gm/src/tsketch OLD/tsketch_old build-gm/bench/gpu/dist_bench \
#     OLD/dist_bench_old build-gm/tests/gpu/test_gpu_dist_test -- bench/gpu/dist_e2e.sh
# and run as: bash .device/gemm/dist_e2e.sh .device/gemm   (carry: [".device/gemm"]).
# STEPS (default "check san time") picks the parts: check = dist_bench validate, the Criterion
# tests; san = compute-sanitizer memcheck and racecheck (dist_bench small); time = 10^6 random reads (150 bp) sketched (D = 96),
# dist --top-k 10 old vs new (times, byte comparison), 50k x 50k npy, -d and cosine top-k old vs new,
# GPU vs CPU engine on the 50k top-k. Logs under $OUT.
set -uo pipefail
STEPS=${STEPS:-check san time}
want() { [[ " $STEPS " == *" $1 "* ]]; }
B=${1:-.device/gemm}
out=${OUT:-${TMPDIR:-/tmp}/dist_e2e}
W=${DIST_E2E_WORK:-${TMPDIR:-/tmp}/dist_e2e_work}
mkdir -p "$out" "$W"
say() { echo "$*" | tee -a "$out/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee -a "$out/summary.txt"
if want check; then
    say "== dist_bench validate quick (new)"
    timeout 90 "$B/bin/dist_bench" validate quick >"$out/validate.log" 2>&1; say "exit $? $(grep -c PASS "$out/validate.log") PASS; $(tail -1 "$out/validate.log")"
    grep -E "FAIL|MISMATCH" "$out/validate.log" | head -8 | tee -a "$out/summary.txt"
    say "== Criterion tests/gpu/dist_test"
    timeout 90 "$B/bin/test_gpu_dist_test" --jobs 4 >"$out/test.log" 2>&1; say "exit $? $(tail -2 "$out/test.log" | tr '\n' ' ')"
    grep -E "FAIL|ssertion|expected" "$out/test.log" | head -6 | tee -a "$out/summary.txt"
fi
if want san && command -v compute-sanitizer >/dev/null; then
    say "== compute-sanitizer memcheck and racecheck (dist_bench small)"
    TSKETCH_BENCH_NO_CPU=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/bin/dist_bench" small >"$out/memcheck.log" 2>&1
    say "memcheck exit $? $(grep 'ERROR SUMMARY' "$out/memcheck.log" | tail -1)"
    TSKETCH_BENCH_NO_CPU=1 timeout 40 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/bin/dist_bench" small >"$out/racecheck.log" 2>&1
    say "racecheck exit $? $(grep 'RACECHECK SUMMARY' "$out/racecheck.log" | tail -1)"
fi
if want time; then
    say "== data: random reads of 150 bp, sketched (t = 4, D = 96)"
    python3 - "$W" <<'PY'
import os, sys
w = sys.argv[1]
tr = bytes.maketrans(bytes(range(256)), b"ACGT" * 64)
for name, n in (("reads.fa", 1000000), ("r50.fa", 50000)):
    with open(os.path.join(w, name), "wb") as f:
        rnd = os.urandom(150 * n).translate(tr)
        f.write(b"".join(b">r%d\n%s\n" % (i, rnd[150 * i:150 * i + 150]) for i in range(n)))
PY
    "$B/bin/tsketch" sketch -q --device cuda "$W/reads.fa" -o "$W/reads.tsk" &&
        "$B/bin/tsketch" sketch -q --device cuda "$W/r50.fa" -o "$W/r50.tsk" || say "sketching failed"
    run_both() { # name args...: old and new, times, byte comparison
        local name=$1 v t0 t1
        shift
        for v in old new; do
            local T=$B/bin/tsketch; [ $v = old ] && T=$B/bin/tsketch_old
            t0=$(date +%s.%N)
            timeout 120 "$T" dist -q --device cuda -p 16 "$@" -o "$W/$name.$v" 2>>"$out/e2e_err.log"; local rc=$?
            t1=$(date +%s.%N)
            say "$name $v: exit $rc, $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.3f", b - a }') s"
        done
        if cmp -s "$W/$name.old" "$W/$name.new"; then say "$name: SAME BYTES ($(wc -c <"$W/$name.new") bytes)"
        else say "$name: DIFFERENT"; cmp "$W/$name.old" "$W/$name.new" | head -2 | tee -a "$out/summary.txt"; fi
    }
    run_both topk10_1e6 --top-k 10 "$W/reads.tsk"
    run_both topk10_r50_cos --metric cosine --top-k 10 "$W/r50.tsk"
    run_both topk1_r50 --top-k 1 "$W/r50.tsk"
    run_both npy_r50 -f npy "$W/r50.tsk"
    run_both d_r50 -d 0.005 "$W/r50.tsk"
    run_both d_r50_reads -d 0.005 "$W/r50.tsk" "$W/reads.tsk"
    timeout 120 "$B/bin/tsketch" dist -q --device cpu -p 16 --top-k 10 "$W/r50.tsk" -o "$W/cpu_topk.tsv"
    timeout 120 "$B/bin/tsketch" dist -q --device cuda --top-k 10 "$W/r50.tsk" -o "$W/gpu_topk.tsv"
    cmp -s "$W/cpu_topk.tsv" "$W/gpu_topk.tsv" && say "r50 top-10 cpu = cuda: SAME BYTES" || say "r50 top-10 cpu vs cuda: DIFFERENT"
    say "== engine alone: dist_bench topk (old, new)"
    for v in dist_bench_old dist_bench; do
        timeout 60 "$B/bin/$v" topk 100000 10 3 2>&1 | sed "s/^/$v /" | tee -a "$out/summary.txt"
        timeout 60 "$B/bin/$v" topk 1000000 10 1 2>&1 | sed "s/^/$v /" | tee -a "$out/summary.txt"
    done
fi
say "== done"
