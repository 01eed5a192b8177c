#!/usr/bin/env bash
# bench/gpu/dist.sh [DIST_BENCH]: the GPU distance engine on the device machine. Validates against
# the float64 definition and the CPU engine, runs compute-sanitizer memcheck and racecheck on the
# quick validation, then times top-k, the full matrix and thresholds. Logs go to $OUT (or
# $TMPDIR/dist_bench). Called by bench/gpu.sh, or alone:
#   bench/gpu/dist.sh .device/gpud/bin/dist_bench
set -uo pipefail
bin=${1:-${DIST_BENCH:-build/bench/gpu/dist_bench}}
out=${OUT:-${TMPDIR:-/tmp}/dist_bench}
mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/summary.txt"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
"$bin" devices | tee -a "$out/summary.txt"

log "validate (GPU vs tsk_distance_naive and the CPU engine)"
"$bin" validate >"$out/validate.log" 2>&1
rc=$?
if [ $rc -gt 1 ]; then  # crashed: try without the CPU engine to tell whose fault it is
  log "validate exited $rc; again without the CPU engine"
  TSKETCH_BENCH_NO_CPU=1 "$bin" validate >"$out/validate_nocpu.log" 2>&1; rc=$?
  tail -3 "$out/validate_nocpu.log" | tee -a "$out/summary.txt"
fi
grep -c PASS "$out/validate.log" | sed 's/^/cases passed: /' | tee -a "$out/summary.txt"
grep -E "FAIL|MISMATCH" "$out/validate.log" | head -20 | tee -a "$out/summary.txt"
tail -1 "$out/validate.log" | tee -a "$out/summary.txt"

if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    # memcheck on the quick validation; racecheck is far slower, so on two small cases
    args="validate quick"; [ $tool = racecheck ] && args=small
    log "compute-sanitizer $tool ($args)"
    TSKETCH_BENCH_NO_CPU=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 "$bin" $args \
      >"$out/$tool.log" 2>&1
    echo "exit $? ; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool.log" | tail -1)" | tee -a "$out/summary.txt"
  done
fi

log "timings (D=96, random sketches, wall-clock medians of the API calls)"
{
  "$bin" topk 10000 10 5
  "$bin" topk 100000 10 3
  "$bin" full 50000 3
  "$bin" within 100000 5.5 3
  timeout 200 "$bin" topk 1000000 10 1
} 2>&1 | tee -a "$out/summary.txt"
exit $rc
