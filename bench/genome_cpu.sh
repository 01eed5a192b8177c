#!/usr/bin/env bash
# bench/genome_cpu.sh BUNDLE: genome comparison without a GPU, whole process, on the machine's
# cores (docs/performance.md, "Genome sketches on the CPU"). Checks before it times: every CPU
# output equals the GPU engine's (when a GPU is there) and the all-pairs CPU engine's, byte for
# byte. STEPS (default "scale scale5 mash bigq"):
#   scale  genome_sets_bench sketches of 10^4 genomes: `dist --top-k 10`, `-d 0.05` and `cluster` on
#          --device cpu (auto's CPU engine), against --device cuda (and MERGE=1: the all-pairs
#          engine, TSKETCH_GENOME_CPU_ENGINE=merge).
#   scale5 `cluster` and top-10 of 10^5 with their peak memory against the file.
#   mash   MASH_GENOMES (2,000) genomes of 1 Mbp from bench/genome/genome_gen (FASTA): `mash sketch` and
#          `mash dist -d 0.05` against `tsketch sketch --genome --per-file` and `dist -d 0.05`, both
#          on every core; and all pairs as .npy (NPY=0: not; every pair's ANI), this build against
#          tsketch_old when carried.
#   threads  top-10 of 1,000 genome sketches at -p 1, P/2 and P, ANI and --key-distance (the
#          refinement's cost a pair and how it scales), against tsketch_old when carried.
#   bigq   the first 1,000 of GENOMES (200000) genome_sets_bench genomes as queries against all of
#          them: top-10 on cuda:0 = cpu, both timed.
# Bundle (CUDA build in build/; mash from Debian's package; tsketch_old optional):
#   ../shared/device/bundle.sh .device/c build/src/tsketch build/bench/gpu/genome_sets_bench \
#       build/bench/genome/genome_gen /usr/bin/mash /usr/bin/time [tsketch_old]
# Device call: STEPS="scale scale5 mash bigq" bash bench/genome_cpu.sh .device/c   (carry: [".device/c"])
set -uo pipefail
B=${1:-.device/c}
T=$B/bin/tsketch
GEN=$B/bin/genome_sets_bench
out=${OUT:-${TMPDIR:-/tmp}/genome_cpu}
W=${GENOME_CPU_WORK:-${TMPDIR:-/tmp}/genome_cpu_work}
mkdir -p "$out" "$W"
P=$(nproc)
fail=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
check() { # desc cmd...
    local d=$1
    shift
    if "$@" >>"$out/checks.log" 2>&1; then say "PASS $d"; else say "FAIL $d"; fail=1; fi
}
timed() { # label cmd...: wall seconds and peak memory (GNU time when present)
    local label=$1 s e rss=""
    shift
    s=$(date +%s.%N)
    if [ -n "$GNU_TIME" ]; then "$GNU_TIME" -f "%M" -o "$W/rss" "$@" || fail=1; rss=" $(($(tail -1 "$W/rss") / 1024)) MB peak"
    else "$@" || fail=1; fi
    e=$(date +%s.%N)
    say "$(awk -v l="$label" -v a="$s" -v b="$e" -v r="$rss" 'BEGIN { printf "%-58s %8.3f s%s", l, b - a, r }')"
}
GNU_TIME=$( [ -x "$B/bin/time" ] && echo "$B/bin/time" || { [ -x /usr/bin/time ] && echo /usr/bin/time; } )
STEPS=${STEPS:-scale scale5 mash bigq}
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
have_gpu=0
"$T" info --device 2>/dev/null | grep -q cuda && have_gpu=1
nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
say "machine: $P cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), GPU $have_gpu"

scale_step() {
    local G=$W/g1e4.tsk job
    say "== 10^4 genome sketches, --device cpu -p $P"
    "$GEN" gen 10000 10000 "$G" >/dev/null || { fail=1; return; }
    for job in "dist --top-k 10" "dist -d 0.05" "cluster"; do
        local tag=${job// /_}
        timed "$job, 10^4, cpu (auto's engine)" "$T" $job -q --device cpu -p "$P" "$G" -o "$W/cpu.$tag"
        if [ "${MERGE:-0}" = 1 ]; then  # minutes at 10^4: tests/cli/test_genome_index.sh checks the bytes
            timed "$job, 10^4, cpu all-pairs merge" env TSKETCH_GENOME_CPU_ENGINE=merge "$T" $job -q --device cpu -p "$P" "$G" \
                -o "$W/merge.$tag"
            check "$job, 10^4: cpu = all-pairs merge" cmp "$W/cpu.$tag" "$W/merge.$tag"
        fi
        if [ $have_gpu = 1 ]; then
            timed "$job, 10^4, cuda" "$T" $job -q --device cuda -p "$P" "$G" -o "$W/gpu.$tag"
            check "$job, 10^4: cpu = cuda" cmp "$W/cpu.$tag" "$W/gpu.$tag"
        fi
    done
    rm -f "$W"/cpu.* "$W"/merge.* "$W"/gpu.*
}
scale5_step() {
    local G=$W/g1e5.tsk
    say "== 10^5 genome sketches: cluster on the CPU"
    "$GEN" gen 100000 10000 "$G" >/dev/null || { fail=1; return; }
    say "file: $(($(stat -c %s "$G") / 1048576)) MB"
    cat "$G" >/dev/null
    timed "cluster, 10^5, cpu -p $P" "$T" cluster -q --device cpu -p "$P" "$G" -o "$W/c1e5.cpu"
    timed "dist --top-k 10, 10^5, cpu -p $P" "$T" dist --top-k 10 -q --device cpu -p "$P" "$G" -o "$W/t1e5.cpu"
    if [ $have_gpu = 1 ]; then
        "$T" cluster -q --device cuda "$G" -o "$W/c1e5.gpu"
        check "cluster, 10^5: cpu = cuda" cmp "$W/c1e5.cpu" "$W/c1e5.gpu"
        "$T" dist --top-k 10 -q --device cuda "$G" -o "$W/t1e5.gpu"
        check "top-10, 10^5: cpu = cuda" cmp "$W/t1e5.cpu" "$W/t1e5.gpu"
    fi
    rm -f "$W"/c1e5.* "$W"/t1e5.* "$W/g1e5.tsk"
}

mash_step() {
    local M=$B/bin/mash n=${MASH_GENOMES:-2000}
    local D=$W/fa$n
    say "== $n genomes of 1 Mbp (genome_gen, families of 10), every core: mash against tsketch"
    [ -d "$D" ] || "$B/bin/genome_gen" -n "$n" -L 1000000-1000000 -f $((n / 10)) -d 0.01 -p "$P" "$D" >/dev/null || { fail=1; return; }
    ls "$D"/*.fa.gz >"$W/files.txt"
    cat "$D"/*.fa.gz >/dev/null
    timed "tsketch sketch --genome --per-file -p $P" "$T" sketch -q --genome --per-file -p "$P" -l "$D/list.tsv" -o "$W/m.tsk"
    timed "tsketch dist -d 0.05 --device cpu -p $P" "$T" dist -q -d 0.05 --device cpu -p "$P" "$W/m.tsk" -o "$W/t.tsv"
    say "tsketch pairs within 0.05: $(wc -l <"$W/t.tsv")"
    timed "tsketch cluster --device cpu -p $P" "$T" cluster -q --device cpu -p "$P" "$W/m.tsk" -o "$W/c.tsv"
    [ "${NPY:-1}" = 1 ] && timed "tsketch dist -f npy (all pairs) --device cpu -p $P" "$T" dist -q -f npy --device cpu -p "$P" "$W/m.tsk" -o "$W/a.npy"
    if [ -x "$B/bin/tsketch_old" ]; then
        timed "tsketch_old dist -d 0.05 --device cpu -p $P" "$B/bin/tsketch_old" dist -q -d 0.05 --device cpu -p "$P" "$W/m.tsk" -o "$W/t_old.tsv"
        check "dist -d 0.05: this build = tsketch_old" cmp "$W/t.tsv" "$W/t_old.tsv"
        timed "tsketch_old dist -f npy --device cpu -p $P" "$B/bin/tsketch_old" dist -q -f npy --device cpu -p "$P" "$W/m.tsk" -o "$W/a_old.npy"
        check "npy: this build = tsketch_old" cmp "$W/a.npy" "$W/a_old.npy"
    fi
    if [ -x "$M" ]; then
        timed "mash sketch -p $P (k 21, s 1000)" "$M" sketch -p "$P" -l "$W/files.txt" -o "$W/m" >/dev/null 2>&1
        timed "mash dist -p $P -d 0.05" sh -c "'$M' dist -p $P -d 0.05 '$W/m.msh' '$W/m.msh' >'$W/mash.tsv'"
        say "mash pairs within 0.05 (ordered, self included): $(wc -l <"$W/mash.tsv")"
    fi
    rm -f "$W"/*.npy "$W"/t*.tsv "$W/mash.tsv"
}

bigq_step() {
    local n=${GENOMES:-200000} G=$W/g_big.tsk Q=$W/q1000.tsk
    say "== the first 1,000 of $n genomes as queries against all of them: cuda:0 = cpu"
    "$GEN" gen "$n" 10000 "$G" >/dev/null || { fail=1; return; }
    "$GEN" gen 1000 10000 "$Q" >/dev/null || { fail=1; return; }
    cat "$G" >/dev/null
    timed "genome top-10, 1,000 x $n, cpu -p $P" "$T" dist -q --device cpu -p "$P" --top-k 10 "$G" "$Q" -o "$W/qc.tsv"
    if [ $have_gpu = 1 ]; then
        timed "genome top-10, 1,000 x $n, cuda:0" "$T" dist -q --device cuda:0 -p "$P" --top-k 10 "$G" "$Q" -o "$W/qg.tsv"
        check "genome top-10 of 1,000 x $n: cuda:0 = cpu ($(wc -l <"$W/qg.tsv") lines)" cmp "$W/qg.tsv" "$W/qc.tsv"
    fi
    rm -f "$W/qg.tsv" "$W/qc.tsv" "$G"
}

threads_step() {
    local G=$W/g1e3.tsk p
    say "== the ANI refinement on 1, P/2 and P threads: top-10 of 1,000 genome sketches (~37,000 pairs refined)"
    "$GEN" gen 1000 10000 "$G" >/dev/null || { fail=1; return; }
    for p in 1 $((P / 2)) "$P"; do
        timed "top-10, 1,000, cpu -p $p, ANI" "$T" dist --top-k 10 -q --device cpu -p "$p" "$G" -o "$W/th.ani"
        timed "top-10, 1,000, cpu -p $p, --key-distance" "$T" dist --top-k 10 --key-distance -q --device cpu -p "$p" "$G" -o "$W/th.key"
        if [ -x "$B/bin/tsketch_old" ]; then
            timed "top-10, 1,000, cpu -p $p, ANI, tsketch_old" "$B/bin/tsketch_old" dist --top-k 10 -q --device cpu -p "$p" "$G" -o "$W/th.old"
            check "top-10 of 1,000 -p $p: this build = tsketch_old" cmp "$W/th.ani" "$W/th.old"
        fi
    done
    rm -f "$W"/th.* "$G"
}

want threads && threads_step
want scale && scale_step
want scale5 && scale5_step
want mash && mash_step
want bigq && bigq_step
say "== done: $([ $fail = 0 ] && echo all checks passed || echo SOME CHECKS FAILED)"
exit $fail
