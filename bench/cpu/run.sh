#!/bin/sh
# Benchmarks the CPU sketch engine on the standard workloads (small versions by default):
#   sh bench/cpu/run.sh [BUILD_DIR] [SCALE] [THREADS]
# Generates the workloads with $TSK_SHARED/bench/make_workloads.py (default ../shared beside the
# repository) into $TMPDIR, validates the
# engine against the reference DP and prints Mbp/s of the scalar float loop and of the engine at 1
# and THREADS threads (t=4, D=96, single precision), then the 10 Mbp single-record error check.
set -eu
BUILD=${1:-build}
SCALE=${2:-0.05}
THREADS=${3:-$(nproc)}
. "$(dirname "$0")/../shared.sh"
WL=${TMPDIR:-/tmp}/tsk-workloads-$SCALE
PY=${PYTHON:-/usr/bin/python3}
if [ ! -f "$WL/short-reads.fa" ]; then
    need_shared "$SHARED/bench/make_workloads.py"
    $PY "$SHARED/bench/make_workloads.py" "$WL" --scale "$SCALE"
fi
lscpu | grep -E 'Model name|^CPU\(s\)' | sed 's/  */ /g'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BUILD/bench/cpu/bench_sketch" -T "$THREADS" "$WL/seed-homogeneous.fa" "$WL/seed-heterogeneous.fa" \
    "$WL/long-records.fa" "$WL/short-reads.fa"
for n in 1000000 10000000 50000000; do "$BUILD/bench/cpu/bench_sketch" -T "$THREADS" -e "$n"; done
