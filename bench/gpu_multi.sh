#!/usr/bin/env bash
# bench/gpu_multi.sh [BUNDLE]: tsketch on a machine with several GPUs (the device tool's
# nvidia-h200-x2 kind and larger). Checks that spreading work over GPUs changes nothing (sketches
# byte for byte, distances and clusters line for line) and times one GPU against all of them,
# whole process, the median of REPS runs (3), with OLD (a tsketch binary of before, optional) in
# the same call.
#
# STEPS (default "genomes vectors npy"):
#   genomes  GENOMES generated genome sketches with anchors (genome_sets_bench gen, 100000 by
#            default: ~19 GB; of keys alone with GENOME_KEYS=1: ~7.4 GB): dist --top-k 10 and cluster on each of DEVS ("cuda:0 cuda:all";
#            OLD's on cuda:0 and cuda:all too), and on cuda:all with the references sharded
#            (TSKETCH_DIST_SHARDS=on; not with SHARDED=0), then one TSKETCH_TIMING run of each
#            (not with GENOME_TIMING=0); cuda:all = cpu on 2,000 of them (sharded too) and every device
#            list = cuda:0 on all.
#   million  MILLION (10^6) generated genome sketches of keys alone (~74 GB; with their anchors
#            under MILLION_ANCHORS=1, ~190 GB). No GPU holds their index, so cuda:all shards them:
#            cluster -d 0.05 and dist --top-k 10 on cuda:all, with their peak memory and
#            TSKETCH_TIMING's lines, and the first 1 % of the top-10's queries (--block 1/100)
#            against cuda:0 unsharded (its index in parts).
#   vectors  10^6 random 150 bp reads sketched with D = 96 (as bench/gpu/dist_e2e.sh):
#            dist --top-k 10 on cuda:0 and cuda:all (and OLD's), the same lines; -d 0.005 of
#            5x10^4 x 10^6 on both, the same lines.
#   npy      the 5x10^4 x 5x10^4 matrix as .npy (10 GB) on cuda:0 and cuda:all, against dd of
#            10 GB to the same disk.
#   sketch   make_workloads.py's sets sketched on cuda:0 and cuda:all, rows byte for byte.
#   gtests   the genome engines' GPU tests (keys: one index part past 2^30 postings too, unless
#            GTESTS_BIG=0; ANI; both opened as peers over the GPUs), under compute-sanitizer
#            memcheck as well (not with GTESTS_SANITIZE=0).
#   big      the genomes step at GENOMES=200000 (past 2^30 keys).
#   bigq     the first 1,000 of those genomes as queries against all of them: cuda:0 = cpu.
#
# Bundle (on the build machine, with a CUDA build in build-dev/):
#   ../shared/device/bundle.sh .device/multi build-dev/src/tsketch build-dev/bench/gpu/genome_sets_bench \
#       build-dev/tests/gpu/test_gpu_genome_sets_test build-dev/tests/gpu/test_gpu_genome_sets_big_test \
#       build-dev/tests/gpu/test_gpu_ani_pairs_test \
#       -- ../shared/bench/make_workloads.py bench/gpu_multi.sh
# Device call: STEPS=... bash .device/multi/gpu_multi.sh .device/multi   (carry: [".device/multi"]).
# Summary and logs go to $OUT (summary.txt); scratch to $GPU_MULTI_WORK.
set -uo pipefail
B=${1:-.device/multi}
T=$B/bin/tsketch
OLD=${OLD:-}
REPS=${REPS:-3}
P=$(nproc)
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
# timed LABEL OUTFILE CMD...: REPS runs of CMD -o OUTFILE, each time and the median printed. Each
# run starts GAP seconds (0) after the one before: back to back, as a workflow's jobs run. A run
# on GPUs left idle starts the driver later (on the H200 x2, 2026-11-29: "the driver at" 0.05-0.1 s
# right after another run, 0.25-0.45 s after a gap of 1-2 s; TSKETCH_TIMING's engine line).
timed() {
    local label=$1 o=$2 ts=() s e i rc
    shift 2
    for ((i = 0; i < REPS; i++)); do
        sleep "${GAP:-0}"
        s=$(date +%s.%N)
        timeout 300 "$@" -o "$o" 2>>"$out/err.log"; rc=$?
        e=$(date +%s.%N)
        [ $rc -eq 0 ] || { say "$label: exit $rc"; fail=1; return; }
        ts+=("$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }')")
    done
    local med
    med=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    say "$(printf '%-52s %8s s  (%s)' "$label" "$med" "${ts[*]}")"
}
# timing LABEL CMD...: one run under TSKETCH_TIMING=1, its timing lines into the summary
timing() {
    local label=$1
    shift
    say "-- $label, TSKETCH_TIMING=1"
    sleep "${GAP:-0}"
    TSKETCH_TIMING=1 timeout 300 "$@" -o "$W/timing.out" 2>&1 | grep "timing" | sed 's/^/   /' | tee -a "$out/summary.txt"
    rm -f "$W/timing.out"
}
STEPS=${STEPS:-genomes vectors npy}
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee -a "$out/summary.txt"
say "cores: $P; REPS $REPS; OLD ${OLD:-none}"

genome_step() {
    local n=${GENOMES:-100000} G=$W/genomes.tsk s
    local kind=${GENOME_KEYS:+keys} what="with anchors"
    [ -n "$kind" ] && what="of keys alone"
    say "== genome sketches: one GPU vs all GPUs ($n genomes $what, -p $P)"
    s=$(date +%s)
    [ -s "$G" ] || "$B/bin/genome_sets_bench" gen "$n" 10000 "$G" $kind >/dev/null || { fail=1; return; }
    "$B/bin/genome_sets_bench" gen 2000 10000 "$W/g2k.tsk" >/dev/null || { fail=1; return; }
    say "made in $(($(date +%s) - s)) s: $(stat -c %s "$G") bytes"
    "$T" dist -q --device cpu -p "$P" --top-k 10 "$W/g2k.tsk" -o "$W/c.tsv"
    "$T" dist -q --device cuda:all -p "$P" --top-k 10 "$W/g2k.tsk" -o "$W/a.tsv"
    check "genome top-10 of 2,000: cuda:all = cpu" cmp "$W/c.tsv" "$W/a.tsv"
    "$T" cluster -q --device cpu -p "$P" "$W/g2k.tsk" -o "$W/c.tsv"
    "$T" cluster -q --device cuda:all -p "$P" "$W/g2k.tsk" -o "$W/a.tsv"
    check "cluster of 2,000: cuda:all = cpu" cmp "$W/c.tsv" "$W/a.tsv"
    TSKETCH_DIST_SHARDS=on "$T" cluster -q --device cuda:all -p "$P" "$W/g2k.tsk" -o "$W/a.tsv"
    check "cluster of 2,000: cuda:all sharded = cpu" cmp "$W/c.tsv" "$W/a.tsv"
    TSKETCH_DIST_SHARDS=on "$T" dist -q --device cuda:all -p "$P" -d 0.1 "$W/g2k.tsk" -o "$W/a.tsv"
    "$T" dist -q --device cpu -p "$P" -d 0.1 "$W/g2k.tsk" -o "$W/c.tsv"
    check "-d 0.1 of 2,000: cuda:all sharded = cpu" cmp "$W/c.tsv" "$W/a.tsv"
    cat "$G" >/dev/null
    local job args devs
    read -ra devs <<<"${DEVS:-cuda:0 cuda:all}"
    for job in "dist --top-k 10" "cluster"; do
        read -ra args <<<"$job"
        for dev in "${devs[@]}"; do
            timed "$job, $n genomes, $dev" "$W/$dev.tsv" "$T" "${args[@]}" -q --device "$dev" -p "$P" "$G"
        done
        [ "${SHARDED:-1}" = 1 ] && TSKETCH_DIST_SHARDS=on timed "$job, $n genomes, cuda:all sharded" "$W/sharded.tsv" \
            "$T" "${args[@]}" -q --device cuda:all -p "$P" "$G"
        if [ -n "$OLD" ]; then
            timed "$job, $n genomes, cuda:0, OLD" "$W/old.tsv" "$OLD" "${args[@]}" -q --device cuda:0 -p "$P" "$G"
            timed "$job, $n genomes, cuda:all, OLD" "$W/old.tsv" "$OLD" "${args[@]}" -q --device cuda:all -p "$P" "$G"
        fi
        for dev in "${devs[@]:1}" $([ "${SHARDED:-1}" = 1 ] && echo sharded); do
            check "$job of $n: $dev = cuda:0 ($(wc -l <"$W/cuda:0.tsv") lines)" cmp "$W/cuda:0.tsv" "$W/$dev.tsv"
        done
        [ -n "$OLD" ] && check "$job of $n: OLD = new" cmp "$W/old.tsv" "$W/cuda:0.tsv"
        [ "${GENOME_TIMING:-1}" = 1 ] || continue
        for dev in cuda:0 cuda:all; do timing "$job, $n genomes, $dev" "$T" "${args[@]}" -q --device "$dev" -p "$P" "$G"; done
        [ "${SHARDED:-1}" = 1 ] && TSKETCH_DIST_SHARDS=on timing "$job, $n genomes, cuda:all sharded" "$T" "${args[@]}" -q --device cuda:all -p "$P" "$G"
    done
    rm -f "$W"/cuda:*.tsv "$W/a.tsv" "$W/c.tsv" "$W/old.tsv" "$W/sharded.tsv"
    [ "${KEEP_GENOMES:-0}" = 1 ] || rm -f "$G"
}

# peak LABEL OUTFILE CMD...: one run of CMD -o OUTFILE, its time and peak resident memory
peak() {
    local label=$1 o=$2
    shift 2
    python3 - "$label" "$o" "$@" <<'PY' | tee -a "$out/summary.txt"
import os, resource, subprocess, sys, time
label, o, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t = time.time()
rc = subprocess.call(cmd + ["-o", o], timeout=float(os.environ.get("PEAK_TIMEOUT", "240")))
dt = time.time() - t
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e6
print("%-52s %8.3f s  peak %.1f GB%s" % (label, dt, peak, "" if rc == 0 else "  EXIT %d" % rc))
PY
}

million_step() {
    local n=${MILLION:-1000000} G=$W/million.tsk s job args
    say "== $n genome sketches ($([ "${MILLION_ANCHORS:-0}" = 1 ] && echo with anchors || echo of keys alone)): the references sharded over every GPU (-p $P)"
    "$B/bin/genome_sets_bench" gen 2000 10000 "$W/g2k.tsk" >/dev/null || { fail=1; return; }
    for job in "dist --top-k 10" "dist -d 0.1" "cluster" "dist -f phylip"; do
        read -ra args <<<"$job"
        "$T" "${args[@]}" -q --device cpu -p "$P" "$W/g2k.tsk" -o "$W/c.tsv"
        TSKETCH_DIST_SHARDS=on "$T" "${args[@]}" -q --device cuda:all -p "$P" "$W/g2k.tsk" -o "$W/a.tsv"
        check "$job of 2,000 with anchors: cuda:all sharded = cpu" cmp "$W/c.tsv" "$W/a.tsv"
    done
    s=$(date +%s)
    # MILLION_ANCHORS=1: with their anchors (ANI; about 190 GB at 10^6)
    [ -s "$G" ] || "$B/bin/genome_sets_bench" gen "$n" 10000 "$G" $([ "${MILLION_ANCHORS:-0}" = 1 ] || echo keys) \
        >/dev/null || { fail=1; return; }
    say "made in $(($(date +%s) - s)) s: $(stat -c %s "$G") bytes; $(free -g | awk '/Mem:/ { print $2 " GB memory" }')"
    # where the seconds go: TSKETCH_TIMING's lines on stderr (they cost nothing measurable)
    TSKETCH_TIMING=1 peak "cluster -d 0.05, $n genomes, cuda:all" "$W/m_cluster.tsv" \
        "$T" cluster -q -d 0.05 --device cuda:all -p "$P" "$G"
    TSKETCH_TIMING=1 peak "dist --top-k 10, $n genomes, cuda:all" "$W/m_topk.tsv" \
        "$T" dist -q --top-k 10 --device cuda:all -p "$P" "$G"
    say "cluster: $(cut -f2 "$W/m_cluster.tsv" | sort -u | wc -l) clusters of $(wc -l <"$W/m_cluster.tsv") genomes; top-10: $(wc -l <"$W/m_topk.tsv") lines"
    peak "dist --top-k 10 --block 1/100, cuda:all" "$W/m_part.tsv" "$T" dist -q --top-k 10 --block 1/100 --device cuda:all -p "$P" "$G"
    TSKETCH_DIST_SHARDS=off peak "dist --top-k 10 --block 1/100, cuda:0 unsharded" "$W/m_part0.tsv" \
        "$T" dist -q --top-k 10 --block 1/100 --device cuda:0 -p "$P" "$G"
    check "top-10 of the first 1 %: sharded cuda:all = cuda:0 ($(wc -l <"$W/m_part0.tsv") lines)" cmp "$W/m_part.tsv" "$W/m_part0.tsv"
    check "top-10 of the first 1 %: the whole run's lines" bash -c "head -n \$(wc -l <'$W/m_part.tsv') '$W/m_topk.tsv' | cmp - '$W/m_part.tsv'"
    rm -f "$W"/m_*.tsv
}

vectors_data() {
    [ -s "$W/reads.tsk" ] && [ -s "$W/r50.tsk" ] && return 0
    python3 - "$W" <<'PY'
import os, sys
w = sys.argv[1]
tr = bytes.maketrans(bytes(range(256)), b"ACGT" * 64)
for name, n in (("reads.fa", 1000000), ("r50.fa", 50000)):
    with open(os.path.join(w, name), "wb") as f:
        rnd = os.urandom(150 * n).translate(tr)
        f.write(b"".join(b">%s%d\n%s\n" % (name[0:1].encode(), i, rnd[150 * i:150 * i + 150]) for i in range(n)))
PY
    "$T" sketch -q --device cuda:0 "$W/reads.fa" -o "$W/reads.tsk" && "$T" sketch -q --device cuda:0 "$W/r50.fa" -o "$W/r50.tsk"
}

vectors_step() {
    say "== vector sketches: one GPU vs all GPUs (10^6 random reads, D = 96, -p $P)"
    vectors_data || { fail=1; return; }
    for dev in cuda:0 cuda:all; do
        timed "dist --top-k 10, 10^6 reads, $dev" "$W/$dev.tsv" "$T" dist -q --device "$dev" -p "$P" --top-k 10 "$W/reads.tsk"
    done
    [ -n "$OLD" ] && timed "dist --top-k 10, 10^6 reads, cuda:all, OLD" "$W/old.tsv" "$OLD" dist -q --device cuda:all -p "$P" --top-k 10 "$W/reads.tsk"
    check "top-10 of 10^6: cuda:all = cuda:0 ($(wc -l <"$W/cuda:0.tsv") lines)" cmp "$W/cuda:0.tsv" "$W/cuda:all.tsv"
    [ -n "$OLD" ] && check "top-10 of 10^6: OLD = new" cmp "$W/old.tsv" "$W/cuda:all.tsv"
    for dev in cuda:0 cuda:all; do timing "dist --top-k 10, 10^6 reads, $dev" "$T" dist -q --device "$dev" -p "$P" --top-k 10 "$W/reads.tsk"; done
    for dev in cuda:0 cuda:all; do
        timed "dist -d 0.005, 5x10^4 x 10^6, $dev" "$W/$dev.tsv" "$T" dist -q --device "$dev" -p "$P" -d 0.005 "$W/r50.tsk" "$W/reads.tsk"
    done
    check "-d 0.005: cuda:all = cuda:0 ($(wc -l <"$W/cuda:0.tsv") lines)" cmp "$W/cuda:0.tsv" "$W/cuda:all.tsv"
    rm -f "$W"/cuda:*.tsv "$W/old.tsv"
}

npy_step() {
    say "== the 5x10^4 x 5x10^4 matrix as .npy (10 GB): one GPU vs all, against the disk"
    vectors_data || { fail=1; return; }
    df -h "$W" | tail -1 | tee -a "$out/summary.txt"
    local s e
    s=$(date +%s.%N)
    dd if=/dev/zero of="$W/zero.bin" bs=64M count=150 conv=fdatasync status=none
    e=$(date +%s.%N)
    say "$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%-52s %8.3f s", "dd 10 GB (conv=fdatasync)", b - a }')"
    rm -f "$W/zero.bin"
    for dev in cuda:0 cuda:all; do
        timed "dist -f npy 5x10^4, $dev" "$W/$dev.npy" "$T" dist -q --device "$dev" -p "$P" -f npy "$W/r50.tsk"
    done
    check "npy: cuda:all = cuda:0" cmp "$W/cuda:0.npy" "$W/cuda:all.npy"
    rm -f "$W"/cuda:*.npy "$W"/*.names
}

sketch_step() {
    python3 "$B/make_workloads.py" "$W/full" --scale 1 >/dev/null || { fail=1; return; }
    for _ in 1 2 3 4; do cat "$W/full/long-records.fa"; done >"$W/full/long4.fa"
    say "== sketch: one GPU vs all GPUs (rows byte for byte)"
    for f in seed-homogeneous seed-heterogeneous long-records short-reads long4; do
        cat "$W/full/$f.fa" >/dev/null
        for dev in cuda:0 cuda:all; do
            timed "sketch $f, $dev" "$W/$dev.tsk" "$T" sketch -q --device "$dev" -p "$P" "$W/full/$f.fa"
            "$T" export "$W/$dev.tsk" >"$W/$dev.rows"
        done
        check "$f: cuda:all rows = cuda:0 rows" cmp "$W/cuda:0.rows" "$W/cuda:all.rows"
    done
    check "--device cuda:0,7 (one missing) exits 5" bash -c "'$T' sketch -q --device cuda:0,7 '$W/full/long-records.fa' -o '$W/x.tsk'; [ \$? -eq 5 ]"
    rm -rf "$W/full" "$W"/cuda:*.tsk "$W"/cuda:*.rows
}

gtests_step() {
    local san
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    say "== genome engine GPU tests (and memcheck)"
    check "test_gpu_genome_sets_test" "$B/bin/test_gpu_genome_sets_test" --jobs 1
    [ "${GTESTS_SANITIZE:-1}" = 1 ] && check "memcheck test_gpu_genome_sets_test (quick)" env TSKETCH_TEST_QUICK=1 \
        timeout 300 "$san" --tool memcheck --target-processes all --error-exitcode 9 "$B/bin/test_gpu_genome_sets_test" --jobs 1
    if [ "${GTESTS_BIG:-1}" = 1 ]; then
        check "test_gpu_genome_sets_big_test" "$B/bin/test_gpu_genome_sets_big_test" --jobs 1 --verbose
        check "memcheck test_gpu_genome_sets_big_test" timeout 400 "$san" \
            --tool memcheck --target-processes all --error-exitcode 9 "$B/bin/test_gpu_genome_sets_big_test" --jobs 1
    fi
    check "test_gpu_ani_pairs_test" "$B/bin/test_gpu_ani_pairs_test" --jobs 1
    if [ "${GTESTS_SANITIZE:-1}" = 1 ]; then
        check "memcheck test_gpu_ani_pairs_test (peers, closed while filling)" timeout 400 "$san" --tool memcheck \
            --target-processes all --error-exitcode 9 "$B/bin/test_gpu_ani_pairs_test" --jobs 1 --filter 'gpu_ani/[pc]*'
        check "racecheck test_gpu_ani_pairs_test (peers)" timeout 400 "$san" --tool racecheck \
            --target-processes all --error-exitcode 9 "$B/bin/test_gpu_ani_pairs_test" --jobs 1 --filter 'gpu_ani/peers_same*'
    fi
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Synthesis|skip" "$out/checks.log" | tail -n 12 | tee -a "$out/summary.txt"
}

bigq_step() {
    local n=${GENOMES:-200000} G=$W/genomes.tsk Q=$W/q1000.tsk
    say "== the first 1,000 of the $n genomes as queries against all of them: cuda:0 = cpu"
    [ -s "$G" ] || "$B/bin/genome_sets_bench" gen "$n" 10000 "$G" >/dev/null || { fail=1; return; }
    "$B/bin/genome_sets_bench" gen 1000 10000 "$Q" >/dev/null || { fail=1; return; }
    REPS=1 timed "genome top-10, 1,000 x $n, cuda:0" "$W/qg.tsv" "$T" dist -q --device cuda:0 -p "$P" --top-k 10 "$G" "$Q"
    REPS=1 timed "genome top-10, 1,000 x $n, cpu" "$W/qc.tsv" "$T" dist -q --device cpu -p "$P" --top-k 10 "$G" "$Q"
    check "genome top-10 of 1,000 x $n: cuda:0 = cpu ($(wc -l <"$W/qg.tsv") lines)" cmp "$W/qg.tsv" "$W/qc.tsv"
    rm -f "$W/qg.tsv" "$W/qc.tsv"
}

want sketch && sketch_step
want gtests && gtests_step
want genomes && genome_step
want big && GENOMES=${GENOMES:-200000} genome_step
want million && million_step
want bigq && bigq_step
want vectors && vectors_step
want npy && npy_step
say "== done: $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"
exit $fail
