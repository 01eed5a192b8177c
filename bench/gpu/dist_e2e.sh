#!/usr/bin/env bash
# bench/gpu/dist_e2e.sh BUNDLE: the vector distance engine end to end on the GPU machine, whole
# process with output written (#42): GPU = CPU bytes for l2 and cosine, and the issue's numbers.
# BUNDLE/bin holds tsketch, test_gpu_dist_bytes_test and test_gpu_dist_test. Made by
#   shared/device/bundle.sh .device/e2e build-cuda/src/tsketch build-cuda/tests/gpu/test_gpu_dist_bytes_test \
#     build-cuda/tests/gpu/test_gpu_dist_test -- bench/gpu/dist_e2e.sh
# and run as: bash .device/e2e/dist_e2e.sh .device/e2e   (carry: [".device/e2e"]).
# STEPS (default "check data topk cpu dense npy") picks the parts; each stays under 9 minutes on an
# H200:
#   check = the Criterion tests (GPU vs CPU bytes on every path; GPU vs tsk_distance_naive);
#   sanitize = compute-sanitizer memcheck of the filtered top-k's tests, memcheck and racecheck of
#           `dist_bench topk 1000` (BUNDLE/bin holds dist_bench too);
#   data  = 10^6 random reads of 150 bp, 5x10^4 and 10^4 more, sketched on the GPU (t = 4, D = 96);
#   topk  = dist --top-k 10 of the 10^6 (all pairs but self), l2 and cosine, --device cuda;
#   cpu   = 10^4 queries against the 10^6, top-10, l2 and cosine, cuda and cpu: bytes compared;
#   dense = -d at 10^6 queries x 5x10^4 references, l2 and cosine;
#   npy   = the 5x10^4 x 5x10^4 matrix as .npy (10 GB), cuda (and cpu once, bytes compared), against
#           dd of 10 GB to the same disk.
# Times are of the whole process, the median of REPS runs (default 3) SETTLE seconds apart (default
# 0: a run's detached exit, still freeing its GPU context, overlaps the next run's start), every
# dist at -p P (default 1); with BUNDLE/bin/tsketch_old, the dense step times the binary before
# after this one and compares their bytes. The table at the end gives pairs/s. Logs
# and the table go to $OUT (summary.txt); scratch to $DIST_E2E_WORK.
set -uo pipefail
STEPS=${STEPS:-check data topk cpu dense npy}
P=${P:-1} REPS=${REPS:-3} SETTLE=${SETTLE:-0}
want() { [[ " $STEPS " == *" $1 "* ]]; }
B=${1:-.device/e2e}
T=$B/bin/tsketch
out=${OUT:-${TMPDIR:-/tmp}/dist_e2e}
W=${DIST_E2E_WORK:-${TMPDIR:-/tmp}/dist_e2e_work}
mkdir -p "$out" "$W"
say() { echo "$*" | tee -a "$out/summary.txt"; }
table=()
row() { table+=("$(printf '%-34s %9s %11s  %s' "$@")"); }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee -a "$out/summary.txt"
nproc | sed 's/^/cpu cores: /' | tee -a "$out/summary.txt"

# timed NAME PAIRS LIMIT CMD...: runs CMD REPS times (stdout to $W/NAME.out), keeps the median
# whole-process time in $med and adds a table row.
timed() {
    local name=$1 pairs=$2 limit=$3 ts=() rc t0 t1 i
    shift 3
    for i in $(seq "$REPS"); do
        sleep "$SETTLE"
        t0=$(date +%s.%N)
        timeout "$limit" "$@" >"$W/$name.out" 2>>"$out/err.log"; rc=$?
        t1=$(date +%s.%N)
        ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
        [ $rc -eq 0 ] || { say "$name: exit $rc (run $i)"; break; }
    done
    med=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    say "$name: ${ts[*]} s (median $med), exit $rc"
    row "$name" "$med" "$(awk -v p="$pairs" -v t="$med" 'BEGIN { if (p == "-") print "-"; else printf "%.3g", p / t }')" ""
}

# same NAME A B: byte comparison of two outputs, into the summary and the table.
same() {
    if cmp -s "$2" "$3"; then say "$1: SAME BYTES ($(wc -c <"$3") bytes)"; row "$1" - - "same bytes"
    else say "$1: DIFFERENT ($(cmp "$2" "$3" 2>&1 | head -1))"; row "$1" - - "DIFFERENT"; fi
}

if want check; then
    say "== Criterion: tests/gpu/dist_bytes_test (GPU = CPU bytes), tests/gpu/dist_test"
    for t in test_gpu_dist_bytes_test test_gpu_dist_test; do
        timeout 500 "$B/bin/$t" --jobs 8 >"$out/$t.log" 2>&1; rc=$?
        say "$t: exit $rc, $(tail -1 "$out/$t.log")"
        grep -E "FAIL|ssertion|differ" "$out/$t.log" | head -8 | tee -a "$out/summary.txt"
        row "$t" - - "$([ $rc -eq 0 ] && echo pass || echo FAIL)"
    done
fi

if want sanitize; then
    say "== compute-sanitizer: memcheck of the filtered top-k's tests, racecheck of dist_bench topk"
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    timeout 400 "$san" --tool memcheck --error-exitcode 9 "$B/bin/test_gpu_dist_test" --jobs 1 \
        --filter 'gpu_dist/filtered_topk*' >"$out/memcheck.log" 2>&1; rc=$?
    say "memcheck filtered_topk tests: exit $rc, $(grep -E "ERROR SUMMARY" "$out/memcheck.log" | sort | uniq -c | tr -s ' ')"
    row "memcheck filtered_topk" - - "$([ $rc -eq 0 ] && echo clean || echo FAIL)"
    for tool in memcheck racecheck; do
        timeout 300 "$san" --tool $tool --error-exitcode 9 "$B/bin/dist_bench" topk 1000 10 1 >"$out/$tool.bench.log" 2>&1; rc=$?
        say "$tool dist_bench topk 1000: exit $rc, $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool.bench.log" | tail -1)"
        row "$tool dist_bench topk" - - "$([ $rc -eq 0 ] && echo clean || echo FAIL)"
    done
fi

if want data; then
    say "== data: random reads of 150 bp, sketched on the GPU (t = 4, D = 96)"
    python3 - "$W" <<'PY'
import os, sys
w = sys.argv[1]
tr = bytes.maketrans(bytes(range(256)), b"ACGT" * 64)
for name, n in (("reads.fa", 1000000), ("r50.fa", 50000), ("q10k.fa", 10000)):
    with open(os.path.join(w, name), "wb") as f:
        rnd = os.urandom(150 * n).translate(tr)
        f.write(b"".join(b">%s%d\n%s\n" % (name[0:1].encode(), i, rnd[150 * i:150 * i + 150]) for i in range(n)))
PY
    for s in reads r50 q10k; do
        timeout 300 "$T" sketch -q --device cuda "$W/$s.fa" -o "$W/$s.tsk" || say "sketching $s failed"
    done
    ls -l "$W"/*.tsk | tee -a "$out/summary.txt"
fi

if want topk; then
    say "== dist --top-k 10 of 10^6 sketches (10^12 pairs), --device cuda"
    for m in l2 cosine; do
        timed "top10 1e6 $m cuda" 1e12 170 "$T" dist -q -p "$P" --device cuda --metric $m --top-k 10 "$W/reads.tsk"
    done
fi

if want cpu; then
    say "== 10^4 queries x 10^6 references, top-10: cuda against cpu, byte for byte"
    for m in l2 cosine; do
        timed "top10 1e4x1e6 $m cuda" 1e10 100 "$T" dist -q -p "$P" --device cuda --metric $m --top-k 10 "$W/reads.tsk" "$W/q10k.tsk"
        cp "$W/top10 1e4x1e6 $m cuda.out" "$W/q_$m.cuda"
        timed "top10 1e4x1e6 $m cpu" 1e10 150 "$T" dist -q -p "$P" --device cpu --metric $m --top-k 10 "$W/reads.tsk" "$W/q10k.tsk"
        cp "$W/top10 1e4x1e6 $m cpu.out" "$W/q_$m.cpu"
        same "top10 1e4x1e6 $m cuda = cpu" "$W/q_$m.cpu" "$W/q_$m.cuda"
        say "lines differing: $(paste -d'|' "$W/q_$m.cpu" "$W/q_$m.cuda" | awk -F'|' '$1 != $2' | wc -l) of $(wc -l <"$W/q_$m.cpu")"
    done
fi

if want dense; then
    say "== -d at 10^6 queries x 5x10^4 references (5x10^10 pairs), --device cuda"
    # cosine's cut: the 1% quantile of the nearest-reference distances of the 10^4 queries, so the
    # output stays near 10^4 lines (l2's 0.005 keeps a few thousand on these reads)
    "$T" dist -q --device cuda --metric cosine --top-k 1 "$W/r50.tsk" "$W/q10k.tsk" -o "$W/probe.tsv"
    dcos=$(cut -f3 "$W/probe.tsv" | sort -g | awk '{ v[NR] = $1 } END { print v[int(NR / 100) + 1] }')
    for m in l2 cosine; do
        d=0.005; [ $m = cosine ] && d=$dcos
        timed "-d $d 1e6x5e4 $m cuda" 5e10 170 "$T" dist -q -p "$P" --device cuda --metric $m -d "$d" "$W/r50.tsk" "$W/reads.tsk"
        say "pairs kept: $(wc -l <"$W/-d $d 1e6x5e4 $m cuda.out")"
        if [ -x "$B/bin/tsketch_old" ]; then
            timed "-d $d 1e6x5e4 $m cuda, before" 5e10 170 "$B/bin/tsketch_old" dist -q -p "$P" --device cuda --metric $m -d "$d" \
                "$W/r50.tsk" "$W/reads.tsk"
            same "-d $m: this binary = the binary before" "$W/-d $d 1e6x5e4 $m cuda, before.out" "$W/-d $d 1e6x5e4 $m cuda.out"
        fi
        TSKETCH_TIMING=1 "$T" dist -q -p "$P" --device cuda --metric $m -d "$d" "$W/r50.tsk" "$W/reads.tsk" 2>&1 >/dev/null |
            sed "s/^/$m: /" | tee -a "$out/summary.txt"
    done
fi

if want npy; then
    say "== 5x10^4 x 5x10^4 as .npy (10 GB) against dd of 10 GB, same disk ($W)"
    df -h "$W" | tail -1 | tee -a "$out/summary.txt"
    timed "dd 10 GB" - 170 dd if=/dev/zero of="$W/dd.bin" bs=1000000 count=10000
    rm -f "$W/dd.bin"
    for m in l2 cosine; do
        timed "npy 5e4^2 $m cuda" 2.5e9 170 "$T" dist -q -p "$P" --device cuda --metric $m -f npy "$W/r50.tsk" -o "$W/m.npy"
        rm -f "$W/m.npy"
    done
    "$T" dist -q --device cuda --metric cosine -f npy "$W/r50.tsk" -o "$W/cuda.npy"
    timed "npy 5e4^2 cosine cpu" 2.5e9 300 "$T" dist -q -p "$P" --device cpu --metric cosine -f npy "$W/r50.tsk" -o "$W/cpu.npy"
    same "npy 5e4^2 cosine cuda = cpu" "$W/cpu.npy" "$W/cuda.npy"
    rm -f "$W/cuda.npy" "$W/cpu.npy" "$W"/*.names
fi

say "== table (whole process, median of 3)"
say "$(printf '%-34s %9s %11s  %s' what seconds pairs/s note)"
for r in "${table[@]}"; do say "$r"; done
say "== done"
