#!/usr/bin/env bash
# Runs every libFuzzer target of BUILD for SECONDS each, from a copy of the seed corpus (the
# corpus in the repository is never written), and fails on the first crash, leak or UBSan report.
#   tests/fuzz/run.sh BUILD SECONDS [extra libFuzzer flags, e.g. -jobs=16 -workers=16]
# Findings are left in $FUZZ_OUT (default: a temporary directory, printed at the end).
set -uo pipefail
BUILD=$(cd "$1" && pwd)
SECONDS_EACH=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tsketch-fuzz.XXXXXX")}
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
failed=0
for t in seqio tsk tables options links; do
    mkdir -p "$OUT/$t/corpus" "$OUT/$t/crashes"
    cp -n "$HERE/corpus/$t"/* "$OUT/$t/corpus/" 2>/dev/null
    # -close_fd_mask=3: the readers' messages would flood the log (libFuzzer keeps its own stderr)
    # run in $OUT/$t: with -jobs, libFuzzer writes each job's fuzz-N.log in the working directory
    (cd "$OUT/$t" && "$BUILD/tests/fuzz/fuzz_$t" "$OUT/$t/corpus" -max_total_time="$SECONDS_EACH" -close_fd_mask=3 \
        -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$OUT/$t/crashes/" -print_final_stats=1 "$@" \
        >"$OUT/$t/log" 2>&1)
    rc=$?
    runs=$(grep -h "stat::number_of_executed_units" "$OUT/$t/log" "$OUT/$t"/fuzz-*.log 2>/dev/null |
           awk '{ s += $2 } END { print s + 0 }')
    found=$(ls "$OUT/$t/crashes" | wc -l)
    echo "fuzz_$t: exit $rc, $runs executions, $found findings"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        failed=1
        grep -h -A30 -E "ERROR|runtime error|deadly signal" "$OUT/$t/log" "$OUT/$t"/fuzz-*.log 2>/dev/null | head -60
    fi
done
echo "fuzz outputs in $OUT"
exit $failed
